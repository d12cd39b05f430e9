// SPDX-License-Identifier: GPL-2.0
// habanalabs_sim device memory exported as a dma-buf, for the region-kind
// matrix.  One compute-node fd per process is kept open: the node is
// exclusive, so every buffer of the process shares it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hlipc {
struct Buffer;
bool sim_available();
int sim_alloc(Buffer *b);
void sim_free(Buffer *b);
// The process's compute node fd for device 0 (opened on first use), or -errno.
int sim_device_fd();
// Export another dma-buf of b's device memory with the fd flags given
// (O_RDONLY, O_RDWR, O_CLOEXEC): size bytes (0: all of it) from offset;
// the new fd, or -errno.
int sim_export(const Buffer &b, int flags, uint64_t offset = 0, uint64_t size = 0);
// Map host memory for the device (a userptr mapping); 0 or -errno, and
// the device address in *va.  sim_unmap() undoes it.
int sim_map_host(void *p, size_t len, uint64_t *va);
int sim_unmap(uint64_t va);
}  // namespace hlipc
