// SPDX-License-Identifier: MIT
// Thin typed wrappers of the /dev/hl_ipc ioctls.
#pragma once

#include <cstdint>

#include "result.h"
#include "sys_ioctl.h"
#include "uapi/habanalabs_ipc.h"

namespace hlthunk::ipc {

struct Registered {
	uint64_t cookie;
	uint64_t size;
};

Result<struct hl_ipc_info> info(int ipc_fd);
Result<Registered> register_dmabuf(int ipc_fd, int dmabuf_fd, int dev_fd,
				   uint32_t flags);
Result<Registered> register_user(int ipc_fd, uint64_t addr, uint64_t len,
				 int dev_fd, uint32_t flags);
Result<void> deregister(int ipc_fd, uint64_t cookie);
Result<struct hl_ipc_region_query> query(int ipc_fd, uint64_t cookie);
Result<uint32_t> channel_create(int ipc_fd, int src_fd, int dst_fd);
Result<void> channel_destroy(int ipc_fd, uint32_t id);
// HL_IPC_IOCTL_COPY, the one place that builds it: 0 or -errno, and the
// copy's sequence number in *seq.  Inline: the synchronous copy of a few
// bytes is the fast path, and this is all of its work but the ioctl.
inline int copy_ioctl(int ipc_fd, uint32_t channel, uint32_t flags,
		      uint64_t src_cookie, uint64_t src_off,
		      uint64_t dst_cookie, uint64_t dst_off, uint64_t len,
		      uint64_t *seq)
{
	struct hl_ipc_copy a = {};
	a.channel_id = channel;
	a.flags = flags;
	a.src_cookie = src_cookie;
	a.src_offset = src_off;
	a.dst_cookie = dst_cookie;
	a.dst_offset = dst_off;
	a.length = len;
	int rc = sys_ioctl(ipc_fd, HL_IPC_IOCTL_COPY, &a);
	*seq = a.seq;
	return rc;
}
// Returns the sequence number of the copy.
Result<uint64_t> copy(int ipc_fd, uint32_t channel, uint32_t flags,
		      uint64_t src_cookie, uint64_t src_off,
		      uint64_t dst_cookie, uint64_t dst_off, uint64_t len);
Result<uint64_t> copy_batch(int ipc_fd, uint32_t channel, uint32_t flags,
			    const struct hl_ipc_copy_desc *descs,
			    uint32_t count);
// 0 or the copy's -errno; -ETIMEDOUT when not done in time.
Result<void> wait(int ipc_fd, uint32_t channel, uint64_t seq,
		  int64_t timeout_ns);

}  // namespace hlthunk::ipc
