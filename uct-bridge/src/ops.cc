// SPDX-License-Identifier: MIT
#include "ops.h"

#include "ep.h"

namespace gaudi_ipc {

namespace {

// Operations over are kept for reuse, up to this many: with their
// vectors' memory, an operation costs no allocation in the steady state.
constexpr size_t kSpareOps = 64;
// Nor is a buffered operation's bounce buffer kept beyond this size.
constexpr size_t kKeepBounce = 64 << 10;

}  // namespace

Op *Ops::start(Ep *ep, uct_completion_t *comp)
{
	if (spare_.empty())
		ops_.emplace_back();
	else
		ops_.splice(ops_.end(), spare_, spare_.begin());
	Op *op = &ops_.back();
	op->self = std::prev(ops_.end());
	op->ep = ep;
	op->comp = comp;
	op->index = ep->issue();
	inflight_++;
	return op;
}

void Ops::started(Op *op)
{
	op->started = true;
	maybe_finish(op);
}

void Ops::part_done(Op *op, ucs_status_t status)
{
	fail(op, status);
	op->parts--;
	maybe_finish(op);
}

void Ops::maybe_finish(Op *op)
{
	if (op->parts > 0 || !op->started || op->finished)
		return;
	op->finished = true;
	finished_.push_back(op);
}

void Ops::discard(Op *op)
{
	if (op->ep)
		op->ep->retire(op->index);
	inflight_--;
	recycle(op);
}

void Ops::recycle(Op *op)
{
	if (spare_.size() >= kSpareOps) {
		ops_.erase(op->self);
		return;
	}
	op->reset();
	if (op->bounce.capacity() > kKeepBounce)
		std::vector<unsigned char>().swap(op->bounce);
	spare_.splice(spare_.end(), ops_, op->self);
}

void Ops::forget_ep(Ep *ep)
{
	for (auto &op : ops_)
		if (op.ep == ep)
			op.ep = nullptr;
}

void Ops::drop_completions()
{
	for (auto &op : ops_) {
		op.comp = nullptr;
		op.unpack = nullptr;
	}
}

unsigned Ops::complete(const std::function<bool(Ep *)> &live)
{
	unsigned n = 0;
	while (!finished_.empty()) {
		Ep *ep;
		uct_completion_t *comp;
		ucs_status_t status;
		retire_front(&ep, &comp, &status);
		if (comp)
			uct_invoke_completion(comp, status);
		// The completion may have destroyed the endpoint.
		if (ep && live(ep))
			ep->check_flushes();
		n++;
	}
	return n;
}

void Ops::retire_front(Ep **ep, uct_completion_t **comp, ucs_status_t *status)
{
	Op *op = finished_.front();
	finished_.pop_front();
	*ep = op->ep;
	*comp = op->comp;
	*status = op->status;
	// A buffered get larger than a slot: its data, whole, before the
	// completion.
	if (op->unpack && !op->bounce.empty() && op->status == UCS_OK)
		op->unpack(op->unpack_arg, op->bounce.data(), op->total);
	if (op->ep)
		op->ep->retire(op->index);
	inflight_--;
	recycle(op);
}

}  // namespace gaudi_ipc
