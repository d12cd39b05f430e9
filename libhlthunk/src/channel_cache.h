// SPDX-License-Identifier: MIT
// ChannelCache: one kernel channel per (source device, destination device).
//
// Creating a channel is an ioctl and channels are a limited resource, so
// every caller asking for the same device pair shares one channel; a
// reference count decides when it is really destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "device_key.h"
#include "result.h"

namespace hlthunk {

class ChannelCache {
public:
	using Create = std::function<Result<uint32_t>(int src_fd, int dst_fd)>;
	using Destroy = std::function<Result<void>(uint32_t id)>;

	ChannelCache(Create c, Destroy d)
		: create_(std::move(c)), destroy_(std::move(d))
	{
	}

	// The channel for (src, dst), created through the fds on first use.
	Result<uint32_t> acquire(DeviceKey src, DeviceKey dst, int src_fd,
				 int dst_fd);
	// Drops one reference; destroys the channel with the last.  -ENOENT
	// for an id this cache does not hold (never created, or destroyed).
	Result<void> release(uint32_t id);
	bool contains(uint32_t id) const;
	// The device pair of a channel this cache holds.
	Result<std::pair<DeviceKey, DeviceKey>> pair_of(uint32_t id) const;
	int refs(uint32_t id) const;
	size_t size() const;
	// Forgets every channel without destroying it (child after fork).
	void forget_all();
	// Changes whenever a channel goes away (see RegistrationCache).
	uint64_t generation() const { return gen_.load(std::memory_order_acquire); }
	// Held across fork() so the child never inherits a held lock.
	void fork_lock() { mu_.lock(); }
	void fork_unlock() { mu_.unlock(); }

private:
	struct Entry {
		uint32_t id;
		int refs;
	};
	std::atomic<uint64_t> gen_{1};
	Create create_;
	Destroy destroy_;
	mutable std::mutex mu_;
	std::map<std::pair<DeviceKey, DeviceKey>, Entry> by_pair_;
	std::map<uint32_t, std::pair<DeviceKey, DeviceKey>> by_id_;
};

}  // namespace hlthunk
