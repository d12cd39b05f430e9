// SPDX-License-Identifier: GPL-2.0
// habanalabs_sim device memory exported as a dma-buf, for the region-kind
// matrix.  One compute-node fd per process is kept open: the node is
// exclusive, so every buffer of the process shares it.
#pragma once

namespace hlipc {
struct Buffer;
bool sim_available();
int sim_alloc(Buffer *b);
void sim_free(Buffer *b);
// The process's compute node fd for device 0 (opened on first use), or -errno.
int sim_device_fd();
}  // namespace hlipc
