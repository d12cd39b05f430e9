/* SPDX-License-Identifier: GPL-2.0 */
// vgem, the kernel's virtual GEM driver: the in-kernel dma-buf importer
// and exporter the tests use (PRIME).
#pragma once

#include <cstdint>

namespace hlipc {

// The DRM card node that vgem created, opened read-write, or -1.
int open_vgem();
// Imports the dma-buf DMABUF into vgem (PRIME): 0 and its GEM handle in
// *HANDLE, or -errno.  vgem maps its attachment at import.
int vgem_import(int vgem, int dmabuf, uint32_t *handle);
// Closes GEM handle HANDLE: 0 or -errno.
int vgem_close(int vgem, uint32_t handle);

}  // namespace hlipc
