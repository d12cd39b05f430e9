// SPDX-License-Identifier: MIT
// ChannelCache: the library's channel ids and the kernel channels behind
// them.
//
// Creating a kernel channel is an ioctl and channels are a limited
// resource, so every caller asking for the same (source device,
// destination device) pair shares one kernel channel.  But each create
// returns an id of its own: destroying it ends that id only (the kernel
// channel goes with its last id), so one component's extra destroy can
// never end another's channel.  An id is a slot index plus the slot's
// generation: once destroyed, the id fails (-ENOENT) on every call, even
// after the slot or the kernel's channel number is used again.
//
// Calls that hand a kernel channel number to the kernel hold the kernel
// channel "in flight" meanwhile; its destruction waits for them (outside
// the cache's lock), so a number the kernel may give to a new channel is
// never used for the old one.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "device_key.h"
#include "result.h"

namespace hlthunk {

// A kernel channel.  These objects are never freed (their storage is
// reused), so a thread holding a pointer to one from a stale memo may
// still touch its counter: it then sees the generation moved and backs off.
struct KernelChannel {
	uint32_t kid = 0;               // the kernel's channel number
	DeviceKey src{-1, -1}, dst{-1, -1};
	int ids = 0;                    // live library ids on it (cache lock)
	std::atomic<int> inflight{0};   // calls using kid right now
};

// A kernel channel held for one call; lets go when destroyed.
class ChannelUse {
public:
	ChannelUse() = default;
	explicit ChannelUse(KernelChannel *k) : k_(k) {}
	ChannelUse(ChannelUse &&o) noexcept : k_(o.k_) { o.k_ = nullptr; }
	ChannelUse &operator=(ChannelUse &&o) noexcept
	{
		reset();
		k_ = o.k_;
		o.k_ = nullptr;
		return *this;
	}
	~ChannelUse() { reset(); }
	ChannelUse(const ChannelUse &) = delete;
	ChannelUse &operator=(const ChannelUse &) = delete;
	KernelChannel *operator->() const { return k_; }
	KernelChannel *get() const { return k_; }
	void reset()
	{
		if (k_)
			k_->inflight.fetch_sub(1, std::memory_order_release);
		k_ = nullptr;
	}

private:
	KernelChannel *k_ = nullptr;
};

class ChannelCache {
public:
	using Create = std::function<Result<uint32_t>(int src_fd, int dst_fd)>;
	using Destroy = std::function<Result<void>(uint32_t kid)>;

	// Ids live at most this many at once (the rest: -ENOSPC).
	static constexpr unsigned kSlotBits = 12;
	static constexpr uint32_t kMaxIds = 1u << kSlotBits;

	ChannelCache(Create c, Destroy d)
		: create_(std::move(c)), destroy_(std::move(d))
	{
	}

	// A new id on the kernel channel of (src, dst), creating that
	// channel through the fds if the pair has none.
	Result<uint32_t> acquire(DeviceKey src, DeviceKey dst, int src_fd,
				 int dst_fd);
	// Ends id; the last id of a kernel channel destroys it, once calls in
	// flight on it have returned.  -ENOENT for an id that is not live
	// (never made, destroyed already, or made before fork()).
	Result<void> release(uint32_t id);
	// The kernel channel of a live id, held in flight until the returned
	// object goes.  -ENOENT for an id that is not live.
	Result<ChannelUse> use(uint32_t id);
	// Whether id is live (for a check after a call that did not hold
	// the channel, such as a wait).
	bool live(uint32_t id) const;
	// The kernel channel of a live id without holding it: for the
	// per-thread memo, which checks generation() around its use.
	KernelChannel *peek(uint32_t id) const;
	// Live ids, and ids on the kernel channel of id.
	size_t size() const;
	int ids_sharing(uint32_t id) const;
	// Forgets everything without destroying (child after fork): every
	// id made before becomes stale.
	void forget_all();
	// Changes whenever an id ends (see FastPath).
	uint64_t generation() const { return gen_.load(std::memory_order_acquire); }
	// Held across fork() so the child never inherits a held lock.
	void fork_lock() { mu_.lock(); }
	void fork_unlock() { mu_.unlock(); }

private:
	struct Slot {
		uint32_t gen = 0;             // 0: free
		KernelChannel *k = nullptr;
	};
	static uint32_t make_id(uint32_t slot, uint32_t gen)
	{
		return gen << kSlotBits | slot;
	}
	const Slot *find(uint32_t id) const;
	void free_slot(uint32_t slot);

	std::atomic<uint64_t> gen_{1};
	Create create_;
	Destroy destroy_;
	mutable std::mutex mu_;
	std::vector<Slot> slots_;
	// Freed slots, oldest first (a slot's next id comes as late as
	// possible): a ring of kMaxIds entries, allocated once, so that ending
	// an id never allocates.
	std::vector<uint32_t> free_ring_;
	uint32_t free_head_ = 0, free_count_ = 0;
	std::vector<uint32_t> next_gen_;   // per slot, survives reuse
	std::deque<KernelChannel> kchans_;  // stable addresses, never shrinks
	std::vector<KernelChannel *> free_kchans_;
	std::map<std::pair<DeviceKey, DeviceKey>, KernelChannel *> by_pair_;
};

}  // namespace hlthunk
