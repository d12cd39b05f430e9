// SPDX-License-Identifier: MIT
// The process-wide state of the library: what it knows of each device, the
// /dev/hl_ipc context, and the registration and channel caches.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "channel_cache.h"
#include "device_key.h"
#include "node_name.h"
#include "registration_cache.h"
#include "result.h"

namespace hlthunk {

// What an fd is open on, looked up from the fd itself on every call (never
// remembered by fd number, which the program may close and reuse).
struct FdNode {
	FileId file;
	DeviceKey dev;
	NodeName name;
	std::string pci_bus;  // "dddd:bb:dd.f", empty if unknown
	bool compute() const { return !name.control; }
};

class LibState {
public:
	static LibState &get();

	// The /dev/hl_ipc fd, opened on first use (one context per process).
	Result<int> ipc_fd();
	// The fd if already open, else -1 (no locking, for the copy path).
	int ipc_fd_fast() const { return ipc_fd_.load(std::memory_order_acquire); }
	// Copies the kernel accepts in one batch (asked once).
	Result<uint32_t> max_batch();

	// The node fd is open on: fstat() now, then what the device number is
	// (looked up once per device number).  -EBADF for a closed fd,
	// -ENOTTY for one that is not a habanalabs or habanalabs_sim node.
	Result<FdNode> node_of(int fd);

	// Sizes of allocations by (device, handle), to know how long a
	// mapping is.  Forgotten with the device's context.
	void note_alloc(DeviceKey dev, uint64_t handle, uint64_t size);
	std::optional<uint64_t> alloc_size(DeviceKey dev, uint64_t handle);
	void forget_alloc(DeviceKey dev, uint64_t handle);

	// The device's compute context is gone (closed through the library)
	// or new (just opened): forget its mappings and allocations.
	void forget_context(DeviceKey dev);
	// Before opening a device: let go of contexts the program closed with
	// close(2) (their mappings would keep them open).
	void sweep_closed();

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
	std::atomic<uint32_t> max_batch_{0};

	std::mutex mu_;  // plain: see RegistrationCache::mu_
	std::map<uint64_t, FdNode> by_rdev_;  // file left empty
	std::map<std::pair<DeviceKey, uint64_t>, uint64_t> allocs_;

	std::atomic<uint64_t> next_import_va_;
	RegistrationCache regs_;
	ChannelCache channels_;
};

}  // namespace hlthunk
