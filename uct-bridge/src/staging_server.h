// SPDX-License-Identifier: MIT
// The owner's half of the staged path: an interface's mailbox, and the
// serving of what peers post in it.  A put's data waits in the slot's
// staging memory and is moved into the registered memory; a get's is
// moved out of it into the slot.  Device memory is moved by this
// process's DMA engine of that device, host memory by the CPU.
//
// Serving runs from the interface's progress and from UCX's async thread
// (the request doorbell), whichever comes first: one-sided users such as
// ucx_perftest never call progress on the target.  A mutex keeps the two
// apart.
#pragma once

#include <cstdint>
#include <mutex>

#include "device_dma.h"
#include "doorbell.h"
#include "mailbox.h"

namespace gaudi_ipc {

class StagingServer {
public:
	// 0 or -errno.
	int init(uint32_t slots, uint64_t slot_size, uint64_t nonce,
		 uint64_t dma_timeout_us);
	const Mailbox &mailbox() const { return mb_; }
	const Doorbell &bell() const { return bell_; }
	// Serves every posted slot; with `block` false it returns 0 at once
	// if another thread is serving.  Returns how many it served.
	unsigned serve(bool block);
	// Whether some slot waits to be served.
	bool has_posted() const;
	// Drops what the DMA engines hold (before the interface closes).
	void shutdown();

private:
	int execute(uint32_t op, uint64_t key, uint64_t offset, uint64_t len,
		    uint32_t slot);
	void free_abandoned();

	std::mutex mu_;
	Mailbox mb_;
	Doorbell bell_;
	uint64_t dma_timeout_us_ = 0;
	DeviceDmaSet dma_;
	HostOnDevices staging_on_;  // after dma_: unmapped first
	uint64_t last_sweep_ns_ = 0;
};

}  // namespace gaudi_ipc
