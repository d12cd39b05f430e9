// SPDX-License-Identifier: MIT
// The plugin: every call goes to its own copy of libhlthunk.
#include <cerrno>

#include "hlthunk.h"
#include "plugin_api.h"

namespace {

int alloc_map(int fd, uint64_t size, uint64_t *handle, uint64_t *va)
{
	*handle = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!*handle)
		return -errno;
	*va = hlthunk_device_memory_map(fd, *handle, 0);
	if (!*va) {
		int err = -errno;
		hlthunk_device_memory_free(fd, *handle);
		return err;
	}
	return 0;
}

int unmap_free(int fd, uint64_t handle, uint64_t va)
{
	int rc = hlthunk_memory_unmap(fd, va);
	return rc ? rc : hlthunk_device_memory_free(fd, handle);
}

int copy(uint32_t ch, int src_fd, int dst_fd, uint64_t dst, uint64_t src,
	 size_t len)
{
	return hlthunk_ipc_channel_copy(ch, src_fd, dst_fd,
					reinterpret_cast<void *>(dst),
					reinterpret_cast<void *>(src), len);
}

int open_control(int index) { return hlthunk_open_control(index, nullptr); }

const plugin_api api = {alloc_map, unmap_free, hlthunk_ipc_channel_create,
			hlthunk_ipc_channel_destroy, copy, open_control,
			hlthunk_close};

}  // namespace

extern "C" __attribute__((visibility("default"))) const plugin_api *
hlthunk_test_plugin_api(void)
{
	return &api;
}
