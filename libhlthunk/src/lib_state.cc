// SPDX-License-Identifier: MIT
#include "lib_state.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "c_return.h"
#include "dev_discovery.h"
#include "dev_ioctl.h"
#include "ipc_kernel.h"
#include "unique_fd.h"

namespace hlthunk {

namespace {

// Imported regions get addresses in the top half of the 64-bit space,
// which no device address space of the supported devices reaches.
constexpr uint64_t kImportBase = 0xff00000000000000ull;
constexpr uint64_t kImportAlign = 1ull << 21;

Result<FileId> file_id(int fd)
{
	struct stat st;
	if (::fstat(fd, &st) < 0)
		return errno_err();
	if (!S_ISCHR(st.st_mode))
		return Err{-ENOTTY};
	FileId id;
	id.dev = st.st_dev;
	id.ino = st.st_ino;
	id.rdev = st.st_rdev;
	return id;
}

// The cache's check before it uses a remembered fd again.
int verify_fd(int fd, const FileId &want)
{
	auto id = file_id(fd);
	if (!id)
		return id.error();
	return *id == want ? 0 : -EBADF;
}

// Registers a mapped device allocation (exported as a dma-buf) or host
// mapping for the access asked.
Result<uint64_t> register_mapping(const MappingDesc &d, int export_fd,
				  Access access)
{
	auto &st = LibState::get();
	auto ipc_fd = st.ipc_fd();
	if (!ipc_fd)
		return Err{ipc_fd.error()};
	uint32_t flags = HL_IPC_REGION_READ;
	if (access == Access::ReadWrite)
		flags |= HL_IPC_REGION_WRITE;

	if (d.kind == MappingKind::Host) {
		auto r = ipc::register_user(*ipc_fd, d.host_addr, d.size,
					    HL_IPC_FD_HOST,
					    flags | HL_IPC_REGION_DEV_HOST);
		if (!r)
			return Err{r.error()};
		return r->cookie;
	}

	int rc = hl_export_dmabuf(export_fd, d.va, d.size, 0, O_RDWR | O_CLOEXEC);
	if (rc < 0)
		return Err{rc};
	// The region holds its own reference to the dma-buf once registered.
	UniqueFd dmabuf(rc);
	auto r = ipc::register_dmabuf(*ipc_fd, dmabuf.get(), export_fd, flags);
	if (!r)
		return Err{r.error()};
	return r->cookie;
}

void deregister_cookie(uint64_t cookie)
{
	auto &st = LibState::get();
	int fd = st.ipc_fd_fast();
	// Failing here only means the context already dropped the region.
	if (fd >= 0)
		(void)ipc::deregister(fd, cookie);
}

}  // namespace

LibState &LibState::get()
{
	// Never destroyed: regions deregister through it until process exit.
	static LibState *s = new LibState();
	return *s;
}

namespace {

// The fork handlers are registered when the library is loaded, not on
// first use of the state: a thread may be inside device discovery (which
// needs no state) when another forks.
__attribute__((constructor)) void register_fork_handlers()
{
	try {
		(void)LibState::get();
	} catch (...) {
		// Out of memory at load: the first call will try again.
	}
}

}  // namespace

LibState::LibState()
	: next_import_va_(kImportBase),
	  regs_(register_mapping, deregister_cookie, verify_fd),
	  channels_(
		  [this](int src, int dst) -> Result<uint32_t> {
			  auto fd = ipc_fd();
			  if (!fd)
				  return Err{fd.error()};
			  return ipc::channel_create(*fd, src, dst);
		  },
		  [this](uint32_t id) -> Result<void> {
			  auto fd = ipc_fd();
			  if (!fd)
				  return Err{fd.error()};
			  return ipc::channel_destroy(*fd, id);
		  })
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

Result<int> LibState::ipc_fd()
{
	int fd = ipc_fd_.load(std::memory_order_acquire);
	if (fd >= 0)
		return fd;
	std::lock_guard<std::mutex> l(ipc_mu_);
	fd = ipc_fd_.load(std::memory_order_relaxed);
	if (fd >= 0)
		return fd;
	fd = ::open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		set_last_error(Op::OpenIpc, "opening " HL_IPC_DEVICE_PATH, err);
		return Err{err};
	}
	ipc_fd_.store(fd, std::memory_order_release);
	return fd;
}

Result<uint32_t> LibState::max_batch()
{
	uint32_t n = max_batch_.load(std::memory_order_relaxed);
	if (n)
		return n;
	auto fd = ipc_fd();
	if (!fd)
		return Err{fd.error()};
	auto i = ipc::info(*fd);
	if (!i)
		return Err{i.error()};
	max_batch_.store(i->max_batch, std::memory_order_relaxed);
	return i->max_batch;
}

Result<FdNode> LibState::node_of(int fd)
{
	auto id = file_id(fd);
	if (!id)
		return Err{id.error()};
	{
		std::lock_guard<std::mutex> l(mu_);
		auto it = by_rdev_.find(id->rdev);
		if (it != by_rdev_.end()) {
			FdNode n = it->second;
			n.file = *id;
			return n;
		}
	}
	auto dn = node_of_devnum(id->rdev);
	if (!dn)
		return Err{dn.error()};
	FdNode n;
	n.dev = DeviceKey{static_cast<int>(dn->name.kind()), dn->name.index};
	n.name = dn->name;
	n.pci_bus = dn->pci_bus;
	{
		std::lock_guard<std::mutex> l(mu_);
		by_rdev_.emplace(id->rdev, n);
	}
	n.file = *id;
	return n;
}

void LibState::note_alloc(DeviceKey dev, uint64_t handle, uint64_t size)
{
	std::lock_guard<std::mutex> l(mu_);
	allocs_[{dev, handle}] = size;
}

std::optional<uint64_t> LibState::alloc_size(DeviceKey dev, uint64_t handle)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = allocs_.find({dev, handle});
	if (it == allocs_.end())
		return std::nullopt;
	return it->second;
}

void LibState::forget_alloc(DeviceKey dev, uint64_t handle)
{
	std::lock_guard<std::mutex> l(mu_);
	allocs_.erase({dev, handle});
}

void LibState::forget_context(DeviceKey dev)
{
	regs_.remove_context(dev);
	std::lock_guard<std::mutex> l(mu_);
	for (auto it = allocs_.lower_bound({dev, 0});
	     it != allocs_.end() && it->first.first == dev;)
		it = allocs_.erase(it);
}

void LibState::sweep_closed()
{
	regs_.sweep_closed();
}

uint64_t LibState::reserve_import_va(uint64_t size)
{
	uint64_t span = (size + kImportAlign - 1) & ~(kImportAlign - 1);
	return next_import_va_.fetch_add(span ? span : kImportAlign);
}

// fork(): the child gets its own /dev/hl_ipc context on first use.  Its
// device fds (and so its mappings) are the parent's, but cookies and
// channels of the parent's context are not its to end: they are forgotten
// without being deregistered or destroyed, and re-made on first use.
// The locks are taken around fork so the child never inherits one held by
// another thread.
void LibState::atfork_prepare()
{
	// In the order the library nests them: a channel is created, and a
	// mapping registered, with /dev/hl_ipc possibly being opened inside.
	auto &s = get();
	s.channels_.fork_lock();
	s.regs_.fork_lock();
	s.mu_.lock();
	s.ipc_mu_.lock();
	// Device discovery (libudev) is never entered with another of these
	// held: its lock comes last.
	discovery_fork_lock();
}

void LibState::atfork_parent()
{
	auto &s = get();
	discovery_fork_unlock();
	s.ipc_mu_.unlock();
	s.mu_.unlock();
	s.regs_.fork_unlock();
	s.channels_.fork_unlock();
}

void LibState::atfork_child()
{
	auto &s = get();
	discovery_fork_unlock();
	s.ipc_mu_.unlock();
	s.mu_.unlock();
	s.regs_.fork_unlock();
	s.channels_.fork_unlock();
	int fd = s.ipc_fd_.exchange(-1);
	if (fd >= 0)
		::close(fd);  // the parent's context lives on in the parent
	s.max_batch_ = 0;
	s.regs_.reset_after_fork();
	s.channels_.forget_all();
}

}  // namespace hlthunk
