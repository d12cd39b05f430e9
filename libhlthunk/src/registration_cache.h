// SPDX-License-Identifier: MIT
// RegistrationCache: device addresses -> registered /dev/hl_ipc regions.
//
// Addresses are kept per *device* (DeviceKey), not per fd number: a process
// has at most one compute context of a device (the driver allows one
// compute open), so "address X of device D" names one mapping however many
// fds (compute or control) the caller holds on D.  The fd a mapping was
// made on is remembered with its file identity and checked before it is
// used again (to export the memory), so a closed and reused fd number is
// never taken for the old file.
//
// Every mapping made through the library (device memory, pinned host
// memory, imported peer regions) is recorded.  Device memory is registered
// on first use, separately for reading (copy source) and for writing (copy
// destination), so a registration grants only the access it is used for;
// host memory is registered when it is mapped, so the registration pins the
// very pages the device mapping uses.  A registration is shared by the
// cache and by calls that resolved it; it ends (deregistered) when the last
// holder drops it.  While any registration of a device lives, the cache
// holds a duplicate of its compute fd (the anchor), so the context cannot
// be replaced behind the cache's back: another compute open of that device
// fails until the cache lets go.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "device_key.h"
#include "interval_map.h"
#include "result.h"
#include "unique_fd.h"

namespace hlthunk {

enum class MappingKind {
	Device,    // device memory from HL_MEM_OP_MAP of an allocation handle
	Host,      // pinned host memory mapped for the device
	Imported,  // a peer's cookie given a local address; never deregistered
};

// What a registration may be used for.  /dev/hl_ipc requires READ on every
// region, so the two levels are "read" and "read and write".
enum class Access { Read = 0, ReadWrite = 1 };
constexpr int kAccessLevels = 2;

struct MappingDesc {
	DeviceKey dev;       // the device whose address space holds it
	uint64_t va;         // device virtual address of its start
	uint64_t size;
	MappingKind kind;
	uint64_t handle;     // Device: allocation handle
	uint64_t host_addr;  // Host: user address
	uint64_t cookie;     // Imported: the peer's cookie
	int fd;              // the fd it was made on ...
	FileId file;         // ... and that fd's file at the time
};

// A live registration: its cookie, deregistered when the last holder lets
// go, and the anchor that keeps the device context in place meanwhile.
class Registration {
public:
	using Deregister = std::function<void(uint64_t cookie)>;

	Registration(uint64_t cookie, Deregister d, std::shared_ptr<UniqueFd> anchor)
		: cookie_(cookie), dereg_(std::move(d)), anchor_(std::move(anchor))
	{
	}
	~Registration();
	Registration(const Registration &) = delete;
	Registration &operator=(const Registration &) = delete;

	uint64_t cookie() const { return cookie_; }
	// After fork: the parent's registration is not the child's to end.
	void disown() { dereg_ = nullptr; }

private:
	uint64_t cookie_;
	Deregister dereg_;
	std::shared_ptr<UniqueFd> anchor_;
};

// A resolved address: the registration (kept alive while held), its cookie
// and the offset of the address inside the mapping.
struct Resolved {
	std::shared_ptr<Registration> reg;  // null for an imported mapping
	uint64_t cookie;
	uint64_t offset;
	MappingDesc desc;
};

class RegistrationCache {
public:
	// Registers [desc.va, desc.va + desc.size) for `access` and returns the
	// cookie.  export_fd is an fd of desc.dev's compute context, checked
	// by the cache.  Host memory is registered by add(), Device memory here.
	using Registrar = std::function<Result<uint64_t>(
		const MappingDesc &desc, int export_fd, Access access)>;
	using Deregister = Registration::Deregister;
	// Checks that fd is still the file `file` names (the same node) and an
	// fd of a compute context; 0 or a negative errno.
	using Verify = std::function<int(int fd, const FileId &file)>;

	RegistrationCache(Registrar reg, Deregister dereg, Verify verify)
		: register_(std::move(reg)), deregister_(std::move(dereg)),
		  verify_(std::move(verify))
	{
	}

	// Records a mapping the driver (or the import) just handed out.  Any
	// recorded mapping of the device that overlaps it is stale (the driver
	// does not hand out an address in use) and is dropped.  A host mapping
	// is registered here (read and write); if that fails the mapping is
	// recorded as unusable by copies, with the error, and never pinned
	// later.  -EINVAL for an empty or wrapping range.
	Result<void> add(const MappingDesc &d);
	// The registration for [addr, addr + len) of dev, registering the
	// containing mapping for `access` on first use.  call_fd is the fd the
	// caller passed (used for the export if it is the right context).
	// -EFAULT: no mapping holds addr; -ERANGE: the range runs past its end.
	Result<Resolved> resolve(DeviceKey dev, int call_fd, uint64_t addr,
				 uint64_t len, Access access);
	// The mapping holding addr, without registering it.
	Result<MappingDesc> lookup(DeviceKey dev, uint64_t addr) const;
	// The Device and Host mappings, of any device, that hold addr (not
	// imported ones): which device an address belongs to.  `fits` is
	// false for a mapping that ends before addr + len.  Defined in
	// registration_lookup.cc.
	struct Holder {
		MappingDesc desc;
		bool fits;
	};
	std::vector<Holder> holders_of(uint64_t addr, uint64_t len) const;
	// An fd of the compute context mapping d lives in, to export from:
	// the anchor if one is held (*keep then holds it while the fd is
	// used), else call_fd or d's own fd if still d's node.  -EBADF if
	// none is.
	Result<int> context_fd(const MappingDesc &d, int call_fd,
			       std::shared_ptr<UniqueFd> *keep);

	// Invalidation.  Each returns what it dropped; dropping releases the
	// cache's hold on the registrations (they end once no call holds
	// them).  remove_mapping returns the mapping so it can be put back.
	std::optional<MappingDesc> remove_mapping(DeviceKey dev, uint64_t va);
	// Whatever overlaps [va, va + len) of dev (stale once the driver hands
	// that range out again).
	size_t evict(DeviceKey dev, uint64_t va, uint64_t len);
	size_t remove_handle(DeviceKey dev, uint64_t handle);
	// Everything of dev made on a compute context (Device and Host).
	size_t remove_context(DeviceKey dev);
	// Everything recorded as made on fd while it was `file`.
	size_t remove_origin(int fd, const FileId &file);
	// Mappings whose origin fd no longer is its file, for devices whose
	// every recorded origin fd is gone (the context was closed with
	// close(2)): dropped, releasing the anchor.
	size_t sweep_closed();
	// hlthunk_ipc_deregister of a cookie the cache made: the cache lets go
	// of it (it is registered afresh on next use).  False if not ours.
	bool drop_cookie(uint64_t cookie);

	// In a child after fork: keeps the mappings (the device fds are shared
	// with the parent) but forgets the registrations, which belong to the
	// parent's context, without ending them.  Single-threaded use only.
	void reset_after_fork();
	// Held across fork() so the child never inherits a held lock.
	void fork_lock() { mu_.lock(); }
	void fork_unlock() { mu_.unlock(); }
	size_t size() const;
	// Changes whenever the cache changes: a copy of what resolve()
	// returned, kept outside the cache, is valid while this is unchanged.
	uint64_t generation() const { return gen_.load(std::memory_order_acquire); }

private:
	struct Region {
		MappingDesc desc;
		std::shared_ptr<Registration> reg[kAccessLevels];
		int reg_error = 0;  // Host: registering at map time failed
	};
	using RegionPtr = std::shared_ptr<Region>;
	struct Space {
		IntervalMap<RegionPtr> map;
		// The Device mappings of each allocation handle (handle -> va),
		// so forgetting a freed handle costs no more with many mappings.
		std::multimap<uint64_t, uint64_t> by_handle;
		std::weak_ptr<UniqueFd> anchor;

		void index(const MappingDesc &d);
		void unindex(const MappingDesc &d);
	};

	void bump() { gen_.fetch_add(1, std::memory_order_acq_rel); }
	Result<std::shared_ptr<Registration>> make_registration(
		std::unique_lock<std::mutex> &l, const RegionPtr &r, int call_fd,
		Access access);
	Result<std::shared_ptr<UniqueFd>> anchor_for(Space &s, int fd);
	Result<int> pick_context_fd(Space &s, const MappingDesc &d, int call_fd);

	std::atomic<uint64_t> gen_{1};
	Registrar register_;
	Deregister deregister_;
	Verify verify_;
	// A plain mutex, not a reader-writer lock: copies take the lock-free
	// per-thread path, and glibc's rwlocks cannot be released in a child
	// after fork (they know their writer by thread id).  Registration (an
	// ioctl) runs under it: it is rare, and it keeps first uses from
	// racing each other.
	mutable std::mutex mu_;
	std::map<DeviceKey, Space> spaces_;
};

}  // namespace hlthunk
