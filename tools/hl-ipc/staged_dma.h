// SPDX-License-Identifier: MIT
// StagedDma: moves data with the device's own DMA engine through command
// submission: one LIN_DMA packet in a command buffer on a PDMA queue.
// This is the fallback path (device -> pinned host memory -> device) that
// channels replace.
#pragma once

#include <cstdint>

#include "mapping.h"

namespace hlipc {

class StagedDma {
public:
	StagedDma() = default;
	StagedDma(const StagedDma &) = delete;
	StagedDma &operator=(const StagedDma &) = delete;
	~StagedDma();

	// Creates and maps the command buffer on device fd.  0 or -errno.
	int init(int fd);
	// Copies len bytes between two device VAs of this device (device
	// memory or host memory mapped with hlthunk_host_memory_map) and waits
	// for completion.  0 or -errno.
	int copy(uint64_t dst_va, uint64_t src_va, uint32_t len);

private:
	int fd_ = -1;
	uint64_t cb_ = 0;
	Mapping cb_view_;
};

}  // namespace hlipc
