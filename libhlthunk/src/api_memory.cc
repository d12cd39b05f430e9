// SPDX-License-Identifier: MIT
// Device memory: allocate, map, unmap, free, export (hl-thunk compatible).
// Every mapping is recorded in the registration cache so channel copies can
// name memory by device address; unmap and free invalidate it.
#include <fcntl.h>

#include <cstring>

#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

int mem_ioctl(int fd, union hl_mem_args *a, const char *what)
{
	int rc = hl_memory(fd, a);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, what, rc);
	return rc;
}

}  // namespace

extern "C" hlthunk_public uint64_t hlthunk_device_memory_alloc(
	int fd, uint64_t size, uint64_t page_size, bool contiguous, bool shared)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	a.in.alloc.page_size = page_size;
	a.in.flags = (contiguous ? HL_MEM_CONTIGUOUS : 0) |
		     (shared ? HL_MEM_SHARED : 0);
	if (mem_ioctl(fd, &a, "allocating device memory") < 0)
		return 0;
	// Mappings cover whole pages, and dma-bufs are exported page-aligned.
	uint64_t page = page_size ? page_size : 4096;
	LibState::get().note_alloc(fd, a.out.handle, (size + page - 1) / page * page);
	return a.out.handle;
}

extern "C" hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = handle;
	int rc = mem_ioctl(fd, &a, "freeing device memory");
	if (rc < 0)
		return rc;
	auto &st = LibState::get();
	st.regs().remove_handle(fd, handle);
	st.forget_alloc(fd, handle);
	return 0;
}

extern "C" hlthunk_public uint64_t hlthunk_device_memory_map(int fd,
							     uint64_t handle,
							     uint64_t hint_addr)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	a.in.map_device.hint_addr = hint_addr;
	if (mem_ioctl(fd, &a, "mapping device memory") < 0)
		return 0;
	uint64_t va = a.out.device_virt_addr;
	auto &st = LibState::get();
	// Allocations made by another library instance (or before fork by a
	// handle we never saw) have no known size: such a mapping is usable
	// by everything but the channel calls.
	if (auto size = st.alloc_size(fd, handle))
		(void)st.regs().add({fd, va, *size, MappingKind::Device, handle,
				     0, 0});
	return va;
}

extern "C" hlthunk_public uint64_t hlthunk_host_memory_map(int fd,
							   void *host_virt_addr,
							   uint64_t hint_addr,
							   uint64_t host_size)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR;
	a.in.map_host.host_virt_addr = reinterpret_cast<uintptr_t>(host_virt_addr);
	a.in.map_host.hint_addr = hint_addr;
	a.in.map_host.mem_size = host_size;
	if (mem_ioctl(fd, &a, "mapping host memory") < 0)
		return 0;
	uint64_t va = a.out.device_virt_addr;
	(void)LibState::get().regs().add(
		{fd, va, host_size, MappingKind::Host, 0,
		 reinterpret_cast<uintptr_t>(host_virt_addr), 0});
	return va;
}

extern "C" hlthunk_public int hlthunk_memory_unmap(int fd,
						   uint64_t device_virt_addr)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = device_virt_addr;
	int rc = mem_ioctl(fd, &a, "unmapping device memory");
	if (rc < 0)
		return rc;
	LibState::get().regs().remove_mapping(fd, device_virt_addr);
	return 0;
}

extern "C" hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(
	int fd, uint64_t addr, uint64_t size, uint64_t offset, uint32_t flags)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.flags = flags;
	a.in.export_dmabuf_fd.addr = addr;
	a.in.export_dmabuf_fd.mem_size = size;
	a.in.export_dmabuf_fd.offset = offset;
	int rc = mem_ioctl(fd, &a, "exporting device memory as a dma-buf");
	if (rc < 0)
		return rc;
	return a.out.fd;
}

extern "C" hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(
	int fd, uint64_t addr, uint64_t size, uint32_t flags)
{
	// On the devices of this generation the memory is named by its mapped
	// device address (the driver's export takes a VA plus an offset).
	return hlthunk_device_mapped_memory_export_dmabuf_fd(fd, addr, size, 0,
							     flags);
}
