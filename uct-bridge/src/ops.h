// SPDX-License-Identifier: MIT
// The operations of one interface, and their completions.
//
// A finished operation is queued, and its completion called only by
// complete(), which the interface runs at the end of its progress, after
// the paths have finished walking their own state: a completion may
// destroy its endpoint, start operations or close peers, and nothing of
// the paths is being iterated then.  An operation leaves its endpoint's
// books (and a flush may complete) only when its completion has been
// called; it is then kept for reuse, with the memory its vectors hold.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <list>

#include "op.h"

namespace gaudi_ipc {

class Ops {
public:
	explicit Ops(unsigned max_inflight) : max_inflight_(max_inflight) {}

	// A new operation of ep (not null) with an optional completion.
	Op *start(Ep *ep, uct_completion_t *comp);
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

	bool at_capacity() const { return inflight_ >= max_inflight_; }
	bool empty() const { return ops_.empty(); }
	size_t size() const { return ops_.size(); }
	bool has_finished() const { return !finished_.empty(); }
	// An endpoint is being destroyed: its operations go on without it.
	void forget_ep(Ep *ep);
	// The interface closes: no completion is called any more.
	void drop_completions();
	// Calls the completions of the finished operations; `live(ep)` says
	// whether an endpoint still exists after a completion ran.  Returns
	// how many.
	unsigned complete(const std::function<bool(Ep *)> &live);

private:
	void maybe_finish(Op *op);
	// An operation over leaves the books: kept for reuse, or freed.
	void recycle(Op *op);
	// Takes the oldest finished operation off the books: its endpoint,
	// completion and status.
	void retire_front(Ep **ep, uct_completion_t **comp, ucs_status_t *status);

	unsigned max_inflight_;
	unsigned inflight_ = 0;
	std::list<Op> ops_;
	std::list<Op> spare_;  // operations over, for reuse
	std::deque<Op *> finished_;
};

}  // namespace gaudi_ipc
