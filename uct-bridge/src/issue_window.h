// SPDX-License-Identifier: MIT
// The operations of one endpoint in flight, by issue number: issued in
// order, retired in any order.  Only the span from the oldest operation
// in flight to the newest is kept, so that issuing and retiring allocate
// nothing in the steady state (a block per 512 operations at most).
#pragma once

#include <cstdint>
#include <deque>

namespace gaudi_ipc {

class IssueWindow {
public:
	// The next operation's number: 1, 2, ...
	uint64_t issue()
	{
		done_.push_back(false);
		return newest();
	}
	// Operation n is over; numbers not in flight are ignored.
	void retire(uint64_t n)
	{
		if (n <= base_ || n > newest())
			return;
		done_[n - base_ - 1] = true;
		while (!done_.empty() && done_.front()) {
			done_.pop_front();
			base_++;
		}
	}
	bool empty() const { return done_.empty(); }
	// The oldest operation in flight; UINT64_MAX when none is.
	uint64_t oldest() const { return done_.empty() ? UINT64_MAX : base_ + 1; }
	// The newest operation issued; 0 before the first.
	uint64_t newest() const { return base_ + done_.size(); }

private:
	uint64_t base_ = 0;      // every operation up to this one is over
	std::deque<bool> done_;  // operations base_ + 1 ... newest()
};

}  // namespace gaudi_ipc
