// SPDX-License-Identifier: MIT
#include "ipc_kernel.h"

#include <cstring>

#include "sys_ioctl.h"

namespace hlthunk::ipc {

Result<struct hl_ipc_info> info(int ipc_fd)
{
	struct hl_ipc_info a;
	memset(&a, 0, sizeof(a));
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_INFO, &a);
	if (rc < 0)
		return Err{rc};
	return a;
}

static Result<Registered> do_register(int ipc_fd,
				      struct hl_ipc_region_register *a)
{
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_REGION_REGISTER, a);
	if (rc < 0)
		return Err{rc};
	return Registered{a->cookie, a->size};
}

Result<Registered> register_dmabuf(int ipc_fd, int dmabuf_fd, int dev_fd,
				   uint32_t flags)
{
	struct hl_ipc_region_register a;
	memset(&a, 0, sizeof(a));
	a.type = HL_IPC_REGION_DMABUF;
	a.flags = flags;
	a.fd = dmabuf_fd;
	a.dev_fd = dev_fd;
	return do_register(ipc_fd, &a);
}

Result<Registered> register_user(int ipc_fd, uint64_t addr, uint64_t len,
				 int dev_fd, uint32_t flags)
{
	struct hl_ipc_region_register a;
	memset(&a, 0, sizeof(a));
	a.type = HL_IPC_REGION_USER;
	a.flags = flags;
	a.fd = -1;
	a.dev_fd = dev_fd;
	a.addr = addr;
	a.length = len;
	return do_register(ipc_fd, &a);
}

Result<void> deregister(int ipc_fd, uint64_t cookie)
{
	struct hl_ipc_region_deregister a;
	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_REGION_DEREGISTER, &a);
	if (rc < 0)
		return Err{rc};
	return {};
}

Result<struct hl_ipc_region_query> query(int ipc_fd, uint64_t cookie)
{
	struct hl_ipc_region_query a;
	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_REGION_QUERY, &a);
	if (rc < 0)
		return Err{rc};
	return a;
}

Result<uint32_t> channel_create(int ipc_fd, int src_fd, int dst_fd)
{
	struct hl_ipc_channel_create a;
	memset(&a, 0, sizeof(a));
	a.src_fd = src_fd;
	a.dst_fd = dst_fd;
	// HL_IPC_FD_HOST names the host, which the uapi wants said by a flag.
	if (src_fd == HL_IPC_FD_HOST)
		a.flags |= HL_IPC_CHANNEL_SRC_HOST;
	if (dst_fd == HL_IPC_FD_HOST)
		a.flags |= HL_IPC_CHANNEL_DST_HOST;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_CHANNEL_CREATE, &a);
	if (rc < 0)
		return Err{rc};
	return a.channel_id;
}

Result<void> channel_destroy(int ipc_fd, uint32_t id)
{
	struct hl_ipc_channel_destroy a;
	memset(&a, 0, sizeof(a));
	a.channel_id = id;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_CHANNEL_DESTROY, &a);
	if (rc < 0)
		return Err{rc};
	return {};
}

Result<uint64_t> copy(int ipc_fd, uint32_t channel, uint32_t flags,
		      uint64_t src_cookie, uint64_t src_off,
		      uint64_t dst_cookie, uint64_t dst_off, uint64_t len)
{
	uint64_t seq;
	int rc = copy_ioctl(ipc_fd, channel, flags, src_cookie, src_off,
			    dst_cookie, dst_off, len, &seq);
	if (rc < 0)
		return Err{rc};
	return seq;
}

Result<uint64_t> copy_batch(int ipc_fd, uint32_t channel, uint32_t flags,
			    const struct hl_ipc_copy_desc *descs,
			    uint32_t count)
{
	struct hl_ipc_copy_batch a;
	memset(&a, 0, sizeof(a));
	a.channel_id = channel;
	a.flags = flags;
	a.descs = reinterpret_cast<uintptr_t>(descs);
	a.count = count;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_COPY_BATCH, &a);
	if (rc < 0)
		return Err{rc};
	return a.seq;
}

Result<void> wait(int ipc_fd, uint32_t channel, uint64_t seq,
		  int64_t timeout_ns)
{
	struct hl_ipc_wait a;
	memset(&a, 0, sizeof(a));
	a.channel_id = channel;
	a.seq = seq;
	a.timeout_ns = timeout_ns;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_WAIT, &a);
	if (rc < 0)
		return Err{rc};
	if (a.status < 0)
		return Err{a.status};
	return {};
}

}  // namespace hlthunk::ipc
