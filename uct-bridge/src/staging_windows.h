// SPDX-License-Identifier: MIT
// A peer's staging memory as this process's devices see it: mapped (and
// so pinned) on a device only where this process's pieces use it, in a
// window per (device, slot) as long as the longest piece moved through
// that slot (a power of two of at least 64 KiB, at most the slot).  All
// the windows of an interface, whatever their peer, count against one
// cap of the interface's own (PinBudget): a window that would exceed it
// first unmaps those not in use, least recently used first.  So whatever
// an owner offers, an initiator pins what its transfers use, up to its own
// limit.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device_contexts.h"

namespace gaudi_ipc {

class StagingWindows;

class PinBudget {
public:
	explicit PinBudget(uint64_t cap) : cap_(cap) {}
	PinBudget(const PinBudget &) = delete;
	PinBudget &operator=(const PinBudget &) = delete;

	uint64_t cap() const { return cap_; }
	uint64_t used() const { return used_; }
	// Room for `bytes` more, unmapping windows not in use, least recently
	// used first, of any peer; false if the windows in use leave no room.
	bool reserve(uint64_t bytes);
	void release(uint64_t bytes) { used_ -= bytes; }
	uint64_t tick() { return ++clock_; }
	void join(StagingWindows *w) { members_.push_back(w); }
	void leave(StagingWindows *w);

private:
	uint64_t cap_;
	uint64_t used_ = 0;
	uint64_t clock_ = 0;
	std::vector<StagingWindows *> members_;
};

class StagingWindows {
public:
	// The staging memory of a peer's mailbox: slot i at base + i * slot_size.
	StagingWindows(PinBudget &budget, unsigned char *base, uint64_t slot_size);
	StagingWindows(const StagingWindows &) = delete;
	StagingWindows &operator=(const StagingWindows &) = delete;
	~StagingWindows();

	// The device VA of byte 0 of `slot` on dev, at least `len` bytes of it
	// mapped; the window is in use until done().  0 or -errno: -ENOSPC
	// when the windows in use leave no room under the cap.
	int va(int dev, DeviceContext &dc, uint32_t slot, uint64_t len, uint64_t *out);
	// The plan that used the windows has run (or was dropped).
	void done();

private:
	friend class PinBudget;
	struct Window {
		int dev;
		uint32_t slot;
		uint64_t last_use;
		bool in_use;
		std::unique_ptr<DeviceMapping> map;
	};
	// Unmaps the least recently used window not in use; its bytes (0:
	// none could go).
	uint64_t evict_one();
	uint64_t oldest_unused() const;
	void unmap(size_t i);

	PinBudget &budget_;
	unsigned char *base_;
	uint64_t slot_size_;
	std::vector<Window> windows_;
};

}  // namespace gaudi_ipc
