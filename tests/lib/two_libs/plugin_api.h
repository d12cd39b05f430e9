/* SPDX-License-Identifier: MIT */
/*
 * A plugin with its own, private copy of libhlthunk (linked statically,
 * symbols hidden), as a UCX transport or a runtime plugin would carry it.
 * The test program loads it with dlopen() next to the shared library.
 */
#ifndef HLTHUNK_TEST_PLUGIN_API_H
#define HLTHUNK_TEST_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

struct plugin_api {
	/* allocate and map size bytes on fd; 0 or -errno */
	int (*alloc_map)(int fd, uint64_t size, uint64_t *handle, uint64_t *va);
	int (*unmap_free)(int fd, uint64_t handle, uint64_t va);
	int (*channel_create)(int src_fd, int dst_fd, uint32_t *ch);
	int (*channel_destroy)(uint32_t ch);
	int (*copy)(uint32_t ch, int src_fd, int dst_fd, uint64_t dst,
		    uint64_t src, size_t len);
	int (*open_control)(int index);
	int (*close)(int fd);
};

#define PLUGIN_API_SYMBOL "hlthunk_test_plugin_api"
typedef const struct plugin_api *(*plugin_api_fn)(void);

#endif
