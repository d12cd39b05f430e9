// SPDX-License-Identifier: MIT
// StagedDma: moves data with a device's own DMA engine the way runtimes
// do it through libhlthunk: LIN_DMA packets in a command buffer of the
// user's (host memory mapped into the device), submitted on a PDMA queue
// and waited for.  This is the staged path (device ->
// pinned host memory -> device) that channels replace; hl-ipc demo and
// the gaudi_ipc transport's staged path both move data with it.
#pragma once

#include <cstdint>
#include <vector>

#include "mapping.h"

namespace hlipc {

// One copy between two device VAs of one device (device memory, or host
// memory mapped for it with hlthunk_host_memory_map).
struct DmaCopy {
	uint64_t dst;
	uint64_t src;
	uint64_t len;
};

// One command buffer on one compute fd; submissions run one at a time.
class StagedDma {
public:
	static constexpr uint64_t kDefaultTimeoutUs = 60ull * 1000 * 1000;

	StagedDma() = default;
	StagedDma(const StagedDma &) = delete;
	StagedDma &operator=(const StagedDma &) = delete;
	~StagedDma();

	// Allocates the command buffer and maps it into device fd.  0 or
	// -errno.
	int init(int fd);
	int fd() const { return fd_; }
	// Copies len bytes between two device VAs of this device and waits up
	// to timeout_us.  0 or -errno: -EIO when the device aborted it,
	// -ETIMEDOUT when it took longer.  A submission is never given up
	// while it runs: one that outlives the timeout is waited for to its
	// end (in rounds of timeout_us) before the call returns -ETIMEDOUT,
	// so the command buffer and the memory it moves can be reused as
	// soon as the call returns, whatever it returned.
	int copy(uint64_t dst_va, uint64_t src_va, uint64_t len,
		 uint64_t timeout_us = kDefaultTimeoutUs)
	{
		return copy({{dst_va, src_va, len}}, timeout_us);
	}
	// Several copies in one command submission, one LIN_DMA packet each
	// (a submission costs far more than a packet); -E2BIG if they do not
	// fit the command buffer.  Returns as copy() above.
	int copy(const std::vector<DmaCopy> &copies, uint64_t timeout_us);

private:
	int fd_ = -1;
	uint64_t cb_ = 0;	// the command buffer's device address
	Mapping cb_view_;	// and its pages in this process
};

}  // namespace hlipc
