// SPDX-License-Identifier: GPL-2.0
#include "vgem.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <drm.h>

namespace hlipc {

int open_vgem()
{
	DIR *d = opendir("/dev/dri");
	if (!d)
		return -1;
	int found = -1;
	while (dirent *e = readdir(d)) {
		if (strncmp(e->d_name, "card", 4))
			continue;
		std::string path = std::string("/dev/dri/") + e->d_name;
		int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		char name[32] = {};
		drm_version v{};
		v.name = name;
		v.name_len = sizeof(name) - 1;
		if (ioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, "vgem")) {
			found = fd;
			break;
		}
		close(fd);
	}
	closedir(d);
	return found;
}

int vgem_import(int vgem, int dmabuf, uint32_t *handle)
{
	drm_prime_handle h{};
	h.fd = dmabuf;
	if (ioctl(vgem, DRM_IOCTL_PRIME_FD_TO_HANDLE, &h))
		return -errno;
	*handle = h.handle;
	return 0;
}

int vgem_close(int vgem, uint32_t handle)
{
	drm_gem_close c{};
	c.handle = handle;
	return ioctl(vgem, DRM_IOCTL_GEM_CLOSE, &c) ? -errno : 0;
}

}  // namespace hlipc
