// SPDX-License-Identifier: MIT
// The staged path's data movers on a device: its DMA engine, driven the
// way runtimes do it through libhlthunk (LIN_DMA packets in a command
// buffer, submitted on a PDMA queue and waited for), and host memory
// mapped for that engine.
#pragma once

#include <cstdint>

#include "staged_dma.h"

namespace gaudi_ipc {

// The DMA engine is libhlipc's, the one hl-ipc demo drives too.
using DmaCopy = hlipc::DmaCopy;
using DmaEngine = hlipc::StagedDma;

// Host memory mapped into a device's address space (pinned), so its DMA
// engine can reach it.
class HostOnDevice {
public:
	HostOnDevice() = default;
	HostOnDevice(const HostOnDevice &) = delete;
	HostOnDevice &operator=(const HostOnDevice &) = delete;
	~HostOnDevice() { reset(); }

	// Maps [p, p + len) (page-aligned) on fd's device.  0 or -errno.
	int map(int fd, void *p, uint64_t len);
	void reset();
	bool valid() const { return va_ != 0; }
	int fd() const { return fd_; }
	uint64_t va() const { return va_; }

private:
	int fd_ = -1;
	uint64_t va_ = 0;
};

}  // namespace gaudi_ipc
