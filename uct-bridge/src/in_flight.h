// SPDX-License-Identifier: MIT
// The books of one interface's operations in flight, whatever their path,
// and their completions.
//
// A finished operation is queued, and its completion called only by
// complete(), which the interface runs at the end of its progress, after
// the paths have finished walking their own state: a completion may
// destroy its endpoint, start operations or close peers, and nothing of
// the paths is being iterated then.  An operation leaves its endpoint's
// order (and a flush may complete) only when its completion has been
// called; its path then takes it back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "op.h"
#include "route.h"

namespace gaudi_ipc {

class InFlight {
public:
	explicit InFlight(unsigned max_inflight) : max_(max_inflight) {}

	// A new operation (op, of its path's pool) issued on route r, with an
	// optional completion.
	void begin(Op *op, Route &r, uct_completion_t *comp);
	// Every part of op has been submitted; it finishes once none is left.
	void started(Op *op);
	// One part of op ended; the last one finishes it.
	void part_done(Op *op, ucs_status_t status);
	// Keeps the first error of op.
	static void fail(Op *op, ucs_status_t status)
	{
		if (status != UCS_OK && op->status == UCS_OK)
			op->status = status;
	}
	// Forgets an operation that failed before any part was submitted (the
	// call returns the error; the completion is never called).
	void discard(Op *op);

	bool at_capacity() const { return live_.size() >= max_; }
	bool empty() const { return live_.empty(); }
	size_t size() const { return live_.size(); }
	bool has_finished() const { return !finished_.empty(); }
	// An endpoint is being destroyed: its operations go on without it.
	void forget(const Route *r);
	// The interface closes: no callback of the program runs any more.
	void drop_completions();
	// Calls the completions of the finished operations, then after(route)
	// for each that still had an endpoint (which the completion may have
	// destroyed).  Returns how many.
	unsigned complete(const std::function<void(Route *)> &after);

private:
	void maybe_finish(Op *op);
	// Takes op off the books and gives it back to its path.
	void retire(Op *op);

	size_t max_;
	std::vector<Op *> live_;
	std::deque<Op *> finished_;
};

}  // namespace gaudi_ipc
