// SPDX-License-Identifier: MIT
// habanalabs device ioctls in either numbering.
//
// Current kernels number the ioctls in the accel (DRM) space; the driver of
// older kernels (nodes /dev/hl<N>) used magic 'H'.  The accel numbering is
// tried first and the legacy one only when the node does not know it.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "uapi/habanalabs_abi.h"
#include "uapi/habanalabs_extra.h"
#include "sys_ioctl.h"

namespace hlthunk {

inline int hl_ioctl(int fd, unsigned long drm_req, unsigned long legacy_req,
		    void *arg)
{
	int rc = sys_ioctl(fd, drm_req, arg);
	if (rc == -ENOTTY)
		rc = sys_ioctl(fd, legacy_req, arg);
	return rc;
}

inline int hl_info(int fd, struct hl_info_args *a)
{
	return hl_ioctl(fd, DRM_IOCTL_HL_INFO, HL_LEGACY_IOCTL_INFO, a);
}
inline int hl_memory(int fd, union hl_mem_args *a)
{
	return hl_ioctl(fd, DRM_IOCTL_HL_MEMORY, HL_LEGACY_IOCTL_MEMORY, a);
}
inline int hl_cb(int fd, union hl_cb_args *a)
{
	return hl_ioctl(fd, DRM_IOCTL_HL_CB, HL_LEGACY_IOCTL_CB, a);
}
inline int hl_cs(int fd, union hl_cs_args *a)
{
	return hl_ioctl(fd, DRM_IOCTL_HL_CS, HL_LEGACY_IOCTL_CS, a);
}
inline int hl_wait_cs(int fd, union hl_wait_cs_args *a)
{
	return hl_ioctl(fd, DRM_IOCTL_HL_WAIT_CS, HL_LEGACY_IOCTL_WAIT_CS, a);
}

// HL_MEM_OP_EXPORT_DMABUF_FD: a dma-buf of size bytes, offset bytes into
// the device memory mapped at addr (page aligned, as the driver requires;
// see page_span()).  The new fd, or -errno.
inline int hl_export_dmabuf(int fd, uint64_t addr, uint64_t size,
			    uint64_t offset, uint32_t flags)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.flags = flags;
	a.in.export_dmabuf_fd.addr = addr;
	a.in.export_dmabuf_fd.mem_size = size;
	a.in.export_dmabuf_fd.offset = offset;
	int rc = hl_memory(fd, &a);
	return rc < 0 ? rc : a.out.fd;
}

// The whole pages (the kernel's) holding bytes [rel, rel + size) of a
// mapping of map_size bytes: the range an export of them asks for.
struct PageSpan {
	uint64_t first;		// offset of the first page in the mapping
	uint64_t len;		// whole pages, at most to the mapping's end
};

inline PageSpan page_span(uint64_t rel, uint64_t size, uint64_t map_size)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	const uint64_t first = rel / page * page;
	const uint64_t end = std::min((rel + size + page - 1) / page * page,
				      map_size);
	return {first, end - first};
}

}  // namespace hlthunk
