// SPDX-License-Identifier: GPL-2.0
#include "sim_buffer.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "habanalabs_abi.h"
#include "habanalabs_extra.h"
#include "ipc_util.h"

namespace hlipc {

static int sim_fd = -1;

bool sim_available()
{
	return access("/dev/hlsim0", F_OK) == 0 && sim_device_fd() >= 0;
}

int sim_device_fd()
{
	if (sim_fd >= 0)
		return sim_fd;
	int fd = open("/dev/hlsim0", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sim_fd = fd;
	return fd;
}

static int mem(int fd, hl_mem_args *a)
{
	if (ioctl(fd, DRM_IOCTL_HL_MEMORY, a) == 0)
		return 0;
	if (errno == ENOTTY && ioctl(fd, HL_LEGACY_IOCTL_MEMORY, a) == 0)
		return 0;
	return -errno;
}

int sim_alloc(Buffer *b)
{
	int fd = sim_device_fd();
	if (fd < 0)
		return fd;
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = b->map_size;
	int ret = mem(fd, &a);
	if (ret)
		return ret;
	uint64_t handle = a.out.handle;
	b->sim_handle = handle;
	b->aux_fd = fd;

	a = {};
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	if ((ret = mem(fd, &a)))
		return ret;
	uint64_t va = a.out.device_virt_addr;
	b->sim_va = va;

	a = {};
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.flags = O_RDWR | O_CLOEXEC;
	a.in.export_dmabuf_fd.addr = va;
	a.in.export_dmabuf_fd.mem_size = b->map_size;
	if ((ret = mem(fd, &a)))
		return ret;
	b->dmabuf = a.out.fd;
	b->sim_va = va;
	b->sim_handle = handle;
	return 0;
}

void sim_free(Buffer *b)
{
	// Called after the dma-buf fd is closed; the shared device fd stays.
	if (b->aux_fd < 0)
		return;
	hl_mem_args a{};
	if (b->sim_va) {
		a.in.op = HL_MEM_OP_UNMAP;
		a.in.unmap.device_virt_addr = b->sim_va;
		mem(b->aux_fd, &a);
	}
	a = {};
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = b->sim_handle;
	mem(b->aux_fd, &a);
	b->aux_fd = -1;
}

int sim_export(const Buffer &b, int flags, uint64_t offset, uint64_t size)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.flags = static_cast<uint32_t>(flags);
	a.in.export_dmabuf_fd.addr = b.sim_va;
	a.in.export_dmabuf_fd.mem_size = size ? size : b.map_size - offset;
	a.in.export_dmabuf_fd.offset = offset;
	int ret = mem(b.aux_fd, &a);
	return ret ? ret : static_cast<int>(a.out.fd);
}

int sim_map_host(void *p, size_t len, uint64_t *va)
{
	int fd = sim_device_fd();
	if (fd < 0)
		return fd;
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_MAP;
	a.in.flags = HL_MEM_USERPTR;
	a.in.map_host.host_virt_addr = reinterpret_cast<uint64_t>(p);
	a.in.map_host.mem_size = len;
	int ret = mem(fd, &a);
	if (!ret)
		*va = a.out.device_virt_addr;
	return ret;
}

int sim_unmap(uint64_t va)
{
	int fd = sim_device_fd();
	if (fd < 0)
		return fd;
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	return mem(fd, &a);
}

}  // namespace hlipc
