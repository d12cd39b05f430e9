// SPDX-License-Identifier: MIT
// The staged path's moves between an operation's local memory and a
// peer's staging slot: host memory with the CPU at once, device memory
// with its device's DMA engine, in one command submission per device for
// every piece planned together.
#pragma once

#include <cstdint>
#include <vector>

#include "device_contexts.h"
#include "staged_op.h"
#include "staged_peer.h"
#include "staging_windows.h"

namespace gaudi_ipc {

class StagedPlan {
public:
	// pin_max: the most of peers' staging memory pinned at once.
	StagedPlan(uint64_t dma_timeout_us, uint64_t pin_max)
		: dma_timeout_us_(dma_timeout_us), budget_(pin_max)
	{
	}
	PinBudget &budget() { return budget_; }
	uint64_t pin_max() const { return budget_.cap(); }

	// Moves op's local memory [pos, pos + len) to or from `slot` of peer
	// p: host memory now, device memory added to the plan.  A get_bcopy of
	// one slot hands the slot to its callback instead.  Pieces planned
	// together are of one peer.  0 or -errno: -ENOSPC when the pieces
	// already planned leave no room to pin this one (run the plan, and
	// add it to the next).
	int add(StagedOp &op, StagedPeer &p, uint32_t slot, uint64_t pos, uint64_t len,
		bool to_staging);
	// Submits the plan, one command submission per device, and waits.
	// Empty afterwards either way (keeping what it allocated).  0 or -errno.
	int run();
	void clear();

private:
	uint64_t dma_timeout_us_;
	DeviceContexts local_;  // this process's devices; outlives the peers' windows
	PinBudget budget_;      // and the budget they count against
	StagingWindows *in_use_ = nullptr;  // the peer whose windows the plan uses
	struct Engine {
		DeviceContext *dc;
		std::vector<DmaCopy> copies;
	};
	std::vector<Engine> engines_;
};

}  // namespace gaudi_ipc
