// SPDX-License-Identifier: GPL-2.0
// /dev/hl_ipc calls the benchmarks share (header-only: they build without
// sanitizers, the tests' library with them).  -errno or 0; results in *out.
#pragma once

#include <sys/ioctl.h>

#include <cerrno>
#include <cstdint>

#include "habanalabs_ipc.h"

namespace hlbench {

inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

// Host memory [p, p + len) as a read-write region of context ctx.
inline int reg_user(int ctx, void *p, uint64_t len, uint64_t *out)
{
	hl_ipc_region_register r{};
	r.type = HL_IPC_REGION_USER;
	r.flags = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE | HL_IPC_REGION_DEV_HOST;
	r.fd = -1;
	r.dev_fd = HL_IPC_FD_HOST;
	r.addr = reinterpret_cast<uintptr_t>(p);
	r.length = len;
	int ret = xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r);
	if (!ret)
		*out = r.cookie;
	return ret;
}

// A channel from src_fd to dst_fd (a device node, or HL_IPC_FD_HOST for
// host memory) in context ctx; its id in *out.
inline int create_channel(int ctx, int src_fd, int dst_fd, uint32_t *out)
{
	hl_ipc_channel_create c{};
	c.src_fd = src_fd;
	c.dst_fd = dst_fd;
	if (src_fd == HL_IPC_FD_HOST)
		c.flags |= HL_IPC_CHANNEL_SRC_HOST;
	if (dst_fd == HL_IPC_FD_HOST)
		c.flags |= HL_IPC_CHANNEL_DST_HOST;
	int ret = xioctl(ctx, HL_IPC_IOCTL_CHANNEL_CREATE, &c);
	if (!ret)
		*out = c.channel_id;
	return ret;
}

}  // namespace hlbench
