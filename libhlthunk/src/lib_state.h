// SPDX-License-Identifier: MIT
// The process-wide state of the library: what it knows of each device fd,
// the /dev/hl_ipc context, and the registration and channel caches.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "channel_cache.h"
#include "registration_cache.h"
#include "result.h"

namespace hlthunk {

class LibState {
public:
	static LibState &get();

	// The /dev/hl_ipc fd, opened on first use (one context per process).
	Result<int> ipc_fd();
	// The fd if already open, else -1 (no locking, for the copy path).
	int ipc_fd_fast() const { return ipc_fd_.load(std::memory_order_acquire); }

	// Device identity of an fd, looked up once and remembered until
	// hlthunk_close; -ENOTTY for an fd that is not a device node.
	Result<DeviceKey> device_of(int fd);

	// Sizes of allocations by (fd, handle), to know how long a mapping is.
	void note_alloc(int fd, uint64_t handle, uint64_t size);
	std::optional<uint64_t> alloc_size(int fd, uint64_t handle);
	void forget_alloc(int fd, uint64_t handle);

	// hlthunk_close: forget everything about fd.
	void forget_fd(int fd);

	// An address no device hands out, for an imported peer region.
	uint64_t reserve_import_va(uint64_t size);

	RegistrationCache &regs() { return regs_; }
	ChannelCache &channels() { return channels_; }

private:
	LibState();
	static void atfork_prepare();
	static void atfork_parent();
	static void atfork_child();

	std::mutex ipc_mu_;
	std::atomic<int> ipc_fd_{-1};

	std::mutex fd_mu_;  // plain: see RegistrationCache::mu_
	std::map<int, DeviceKey> fd_keys_;
	std::map<std::pair<int, uint64_t>, uint64_t> allocs_;

	std::atomic<uint64_t> next_import_va_;
	RegistrationCache regs_;
	ChannelCache channels_;
};

}  // namespace hlthunk
