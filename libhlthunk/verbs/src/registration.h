// SPDX-License-Identifier: MIT
// The two ways of giving a NIC a dma-buf: a dma-buf memory region, or a
// memory region over a CPU mapping of the dma-buf when the provider has
// no dma-buf memory regions.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <string>

#include "cpu_mapping.h"
#include "result.h"
#include "stage.h"

// The C ABI's opaque registration.  Members are destroyed in reverse
// order: the memory region goes (unpinning the pages) before the mapping.
struct hlthunk_verbs_mr {
	hlthunk_verbs::CpuMapping mapping;  // CPU-mapping path only
	std::unique_ptr<hlthunk_verbs::Stage> stage;  // staged path only
	ibv_mr *mr = nullptr;
	int path = 0;
	int dmabuf_err = 0;  // -errno of ibv_reg_dmabuf_mr, 0 if it worked
	uint64_t iova = 0;
	uint64_t length = 0;
};

namespace hlthunk_verbs {

struct DmabufRange {
	ibv_pd *pd;
	int fd;
	uint64_t offset;
	uint64_t length;
	uint64_t iova;
	int access;
	uint32_t flags;
	std::string what;  // for messages: "registering ... with <device>"
	int device_fd = -1;  // device memory only: the staged path needs it
};

// Registers the range, dma-buf path first, then the CPU mapping, then
// (with HLTHUNK_VERBS_REG_ALLOW_STAGED, device memory only) a stage in
// host memory.  Arguments are already checked.  On failure the thread's
// last error says why; the result is -errno.
hlthunk::Result<std::unique_ptr<hlthunk_verbs_mr>> register_dmabuf_range(
	const DmabufRange &r);

}  // namespace hlthunk_verbs
