// SPDX-License-Identifier: MIT
// habanalabs device ioctls in either numbering.
//
// Current kernels number the ioctls in the accel (DRM) space; the driver of
// older kernels (nodes /dev/hl<N>) used magic 'H'.  The accel numbering is
// tried first and the legacy one only when the node does not know it.
#pragma once

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

}  // namespace hlthunk
