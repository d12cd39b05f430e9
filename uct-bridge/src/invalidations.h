// SPDX-License-Identifier: MIT
// Invalidating deregistrations (UCT_MD_MEM_DEREG_FLAG_INVALIDATE) of the
// memory domain.  Deregistering a handle revokes its own keys before it
// returns, but another registration of the same memory still lets peers
// reach it; UCT calls an invalidation complete once the memory "will not
// be accessed anymore", so its completion waits for the last registration
// that covers any of its bytes.  Memory is named as the program
// registered it, by device and address range: an overlap that is not the
// same memory (a range unmapped and mapped again) only delays a
// completion, it never calls one early.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "memh.h"
#include "ucx.h"

namespace gaudi_ipc {

class Invalidations {
public:
	// m is registered (its keys may reach its memory).
	void added(const Memh *m);
	// m was deregistered and its keys revoked; with comp, invalidating.
	// Returns the completions now due, to be called by the caller.
	std::vector<uct_completion_t *> removed(const Memh *m, uct_completion_t *comp);
	// The domain closes: the completions still waiting.
	std::vector<uct_completion_t *> drain();

private:
	struct Range {
		bool device;
		char bus[sizeof(Memh::bus)];
		uint64_t addr, length;
		explicit Range(const Memh &m);
		bool overlaps(const Range &o) const;
	};
	struct Waiter {
		Range range;
		uct_completion_t *comp;
	};
	bool covered(const Range &r) const;

	std::mutex mu_;
	std::unordered_set<const Memh *> live_;
	std::vector<Waiter> waiting_;
};

}  // namespace gaudi_ipc
