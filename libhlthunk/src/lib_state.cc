// SPDX-License-Identifier: MIT
#include "lib_state.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
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

// Exports a mapped device allocation as a dma-buf and registers it.
Result<Registration> register_mapping(const MappingDesc &d)
{
	auto &st = LibState::get();
	auto ipc_fd = st.ipc_fd();
	if (!ipc_fd)
		return Err{ipc_fd.error()};
	const uint32_t rw = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;

	if (d.kind == MappingKind::Host) {
		auto r = ipc::register_user(*ipc_fd, d.host_addr, d.size,
					    HL_IPC_FD_HOST,
					    rw | HL_IPC_REGION_DEV_HOST);
		if (!r)
			return Err{r.error()};
		Registration reg;
		reg.cookie = r->cookie;
		return reg;
	}

	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.flags = O_RDWR | O_CLOEXEC;
	a.in.export_dmabuf_fd.addr = d.va;
	a.in.export_dmabuf_fd.mem_size = d.size;
	int rc = hl_memory(d.fd, &a);
	if (rc < 0)
		return Err{rc};
	// The region holds its own reference to the dma-buf once registered.
	UniqueFd dmabuf(a.out.fd);
	auto r = ipc::register_dmabuf(*ipc_fd, dmabuf.get(), d.fd, rw);
	if (!r)
		return Err{r.error()};
	Registration reg;
	reg.cookie = r->cookie;
	return reg;
}

void deregister_cookie(uint64_t cookie)
{
	auto &st = LibState::get();
	auto fd = st.ipc_fd();
	// Failing here only means the context already dropped the region.
	if (fd)
		(void)ipc::deregister(*fd, cookie);
}

}  // namespace

LibState &LibState::get()
{
	// Never destroyed: regions deregister through it until process exit.
	static LibState *s = new LibState();
	return *s;
}

LibState::LibState()
	: next_import_va_(kImportBase), regs_(register_mapping, deregister_cookie),
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

Result<DeviceKey> LibState::device_of(int fd)
{
	{
		std::lock_guard<std::mutex> l(fd_mu_);
		auto it = fd_keys_.find(fd);
		if (it != fd_keys_.end())
			return it->second;
	}
	auto n = node_of_fd(fd);
	if (!n)
		return Err{n.error()};
	DeviceKey k{static_cast<int>(n->name.kind()), n->name.index};
	std::lock_guard<std::mutex> l(fd_mu_);
	fd_keys_[fd] = k;
	return k;
}

void LibState::note_alloc(int fd, uint64_t handle, uint64_t size)
{
	std::lock_guard<std::mutex> l(fd_mu_);
	allocs_[{fd, handle}] = size;
}

std::optional<uint64_t> LibState::alloc_size(int fd, uint64_t handle)
{
	std::lock_guard<std::mutex> l(fd_mu_);
	auto it = allocs_.find({fd, handle});
	if (it == allocs_.end())
		return std::nullopt;
	return it->second;
}

void LibState::forget_alloc(int fd, uint64_t handle)
{
	std::lock_guard<std::mutex> l(fd_mu_);
	allocs_.erase({fd, handle});
}

void LibState::forget_fd(int fd)
{
	regs_.remove_fd(fd);
	std::lock_guard<std::mutex> l(fd_mu_);
	fd_keys_.erase(fd);
	for (auto it = allocs_.lower_bound({fd, 0});
	     it != allocs_.end() && it->first.first == fd;)
		it = allocs_.erase(it);
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
	s.fd_mu_.lock();
	s.ipc_mu_.lock();
}

void LibState::atfork_parent()
{
	auto &s = get();
	s.ipc_mu_.unlock();
	s.fd_mu_.unlock();
	s.regs_.fork_unlock();
	s.channels_.fork_unlock();
}

void LibState::atfork_child()
{
	auto &s = get();
	s.ipc_mu_.unlock();
	s.fd_mu_.unlock();
	s.regs_.fork_unlock();
	s.channels_.fork_unlock();
	int fd = s.ipc_fd_.exchange(-1);
	if (fd >= 0)
		::close(fd);  // the parent's context lives on in the parent
	s.regs_.reset_after_fork();
	s.channels_.forget_all();
}

}  // namespace hlthunk
