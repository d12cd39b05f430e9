// SPDX-License-Identifier: MIT
// The staged path's data movers on a device: its DMA engine, driven the
// way runtimes do it through libhlthunk (LIN_DMA packets in a command
// buffer, submitted on a PDMA queue and waited for), and host memory
// mapped for that engine.
#pragma once

#include <cstdint>
#include <vector>

#include "resources.h"

namespace gaudi_ipc {

// One copy between two device VAs of one device (device memory, or host
// memory mapped for it).
struct DmaCopy {
	uint64_t dst;
	uint64_t src;
	uint64_t len;
};

// One command buffer on one compute fd; submissions run one at a time.
class DmaEngine {
public:
	DmaEngine() = default;
	DmaEngine(const DmaEngine &) = delete;
	DmaEngine &operator=(const DmaEngine &) = delete;
	~DmaEngine();

	// Creates the command buffer on fd (a compute node).  0 or -errno.
	int init(int fd);
	int fd() const { return fd_; }
	// Copies len bytes between two device VAs of this device (device
	// memory, or host memory mapped for it) and waits up to timeout_us.
	// 0 or -errno (-ETIMEDOUT, -EIO when the device aborted it).
	int copy(uint64_t dst_va, uint64_t src_va, uint64_t len, uint64_t timeout_us)
	{
		return copy({{dst_va, src_va, len}}, timeout_us);
	}
	// Several copies in one command submission (one LIN_DMA packet each;
	// a command submission costs far more than a packet).
	int copy(const std::vector<DmaCopy> &copies, uint64_t timeout_us);

private:
	int fd_ = -1;
	uint64_t cb_ = 0;
	Mapping cb_view_;
};

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
