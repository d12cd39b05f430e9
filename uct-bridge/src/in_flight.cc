// SPDX-License-Identifier: MIT
#include "in_flight.h"

namespace gaudi_ipc {

void InFlight::begin(Op *op, Route &r, uct_completion_t *comp)
{
	op->route = &r;
	op->peer = r.peer;
	op->comp = comp;
	op->index = r.order.issue();
	op->live_at = live_.size();
	live_.push_back(op);
}

void InFlight::started(Op *op)
{
	op->started = true;
	maybe_finish(op);
}

void InFlight::part_done(Op *op, ucs_status_t status)
{
	fail(op, status);
	op->parts--;
	maybe_finish(op);
}

void InFlight::maybe_finish(Op *op)
{
	if (op->parts > 0 || !op->started || op->finished)
		return;
	op->finished = true;
	finished_.push_back(op);
}

void InFlight::discard(Op *op)
{
	retire(op);
}

void InFlight::retire(Op *op)
{
	if (op->route)
		op->route->order.retire(op->index);
	Op *last = live_.back();
	live_[op->live_at] = last;
	last->live_at = op->live_at;
	live_.pop_back();
	op->home->recycle(*op);
}

void InFlight::forget(const Route *r)
{
	for (Op *op : live_)
		if (op->route == r)
			op->route = nullptr;
}

void InFlight::drop_completions()
{
	for (Op *op : live_) {
		op->comp = nullptr;
		op->abandoned = true;
	}
}

unsigned InFlight::complete(const std::function<void(Route *)> &after)
{
	unsigned n = 0;
	while (!finished_.empty()) {
		Op *op = finished_.front();
		finished_.pop_front();
		Route *r = op->route;
		uct_completion_t *comp = op->comp;
		const ucs_status_t status = op->status;
		op->home->finishing(*op);
		retire(op);
		if (comp)
			uct_invoke_completion(comp, status);
		// The completion may have destroyed the endpoint: after() asks.
		if (r)
			after(r);
		n++;
	}
	return n;
}

}  // namespace gaudi_ipc
