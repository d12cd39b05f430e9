// SPDX-License-Identifier: MIT
// RegistrationCache: device VAs -> registered /dev/hl_ipc regions.
//
// Every mapping made through the library (device memory, pinned host
// memory, imported peer regions) is recorded per device fd.  The first copy
// that touches a mapping registers the whole mapping once (export as
// dma-buf + register, done by the injected Registrar); later copies of any
// sub-range reuse the cookie.  Unmapping, freeing or closing drops the
// entry; the registration itself ends when the last in-flight user lets go
// of it, so a concurrent copy never sees a dead cookie.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "interval_map.h"
#include "result.h"
#include "unique_fd.h"

namespace hlthunk {

enum class MappingKind {
	Device,    // device memory from HL_MEM_OP_MAP of an allocation handle
	Host,      // pinned host memory mapped for the device
	Imported,  // a peer's cookie given a local address; never deregistered
};

struct MappingDesc {
	int fd;             // device fd the mapping lives in
	uint64_t va;        // device virtual address of its start
	uint64_t size;
	MappingKind kind;
	uint64_t handle;    // Device: allocation handle
	uint64_t host_addr; // Host: user address
	uint64_t cookie;    // Imported: the peer's cookie
};

// What registering a mapping produced: its cookie and what keeps it alive.
struct Registration {
	uint64_t cookie = 0;
	UniqueFd dmabuf;  // the exported dma-buf, Device only
};

class Region {
public:
	using Deregister = std::function<void(uint64_t cookie)>;

	explicit Region(MappingDesc d) : desc_(d) {}
	~Region();
	Region(const Region &) = delete;
	Region &operator=(const Region &) = delete;

	const MappingDesc &desc() const { return desc_; }

private:
	friend class RegistrationCache;
	MappingDesc desc_;
	std::mutex mu_;  // serialises the one-time registration
	// Set once reg_ is final: later users read reg_ without the lock.
	std::atomic<bool> registered_{false};
	Registration reg_;
	Deregister dereg_;
};

// A resolved address: the region (kept alive while held), its cookie and
// the offset of the address inside the region.
struct Resolved {
	std::shared_ptr<Region> region;
	uint64_t cookie;
	uint64_t offset;
};

class RegistrationCache {
public:
	using Registrar = std::function<Result<Registration>(const MappingDesc &)>;

	RegistrationCache(Registrar reg, Region::Deregister dereg)
		: register_(std::move(reg)), deregister_(std::move(dereg))
	{
	}

	// Records a mapping; -EEXIST if it overlaps one of the same fd.
	Result<void> add(const MappingDesc &d);
	// The cookie for [addr, addr + len) in fd's address space, registering
	// the containing mapping on first use.  -EFAULT: no mapping holds addr;
	// -ERANGE: the range runs past the end of the mapping.
	Result<Resolved> resolve(int fd, uint64_t addr, uint64_t len);
	// The mapping holding addr, without registering it.
	Result<MappingDesc> lookup(int fd, uint64_t addr) const;
	// Invalidation.  Each returns how many mappings were dropped.
	size_t remove_mapping(int fd, uint64_t va);
	size_t remove_handle(int fd, uint64_t handle);
	size_t remove_fd(int fd);
	// In a child after fork: keeps the mappings (the device fds are shared
	// with the parent) but forgets the registrations, which belong to the
	// parent's context, without ending them.  Single-threaded use only.
	void reset_after_fork();
	// Held across fork() so the child never inherits a held lock.
	void fork_lock() { mu_.lock(); }
	void fork_unlock() { mu_.unlock(); }
	size_t size() const;
	// Changes whenever a mapping goes away: a copy of what resolve()
	// returned, kept outside the cache, is valid while this is unchanged.
	uint64_t generation() const { return gen_.load(std::memory_order_acquire); }

private:
	void bump() { gen_.fetch_add(1, std::memory_order_acq_rel); }

	std::atomic<uint64_t> gen_{1};
	Registrar register_;
	Region::Deregister deregister_;
	// A plain mutex, not a reader-writer lock: copies take the lock-free
	// per-thread path, and glibc's rwlocks cannot be released in a child
	// after fork (they know their writer by thread id).
	mutable std::mutex mu_;
	std::map<int, IntervalMap<std::shared_ptr<Region>>> by_fd_;
};

}  // namespace hlthunk
