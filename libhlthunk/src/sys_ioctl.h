// SPDX-License-Identifier: MIT
// ioctl that restarts on EINTR/EAGAIN, as drmIoctl does, returning -errno.
#pragma once

#include <sys/ioctl.h>

#include <cerrno>

namespace hlthunk {

// Returns the ioctl's non-negative result, or a negative errno.
inline int sys_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ::ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret < 0 ? -errno : ret;
}

}  // namespace hlthunk
