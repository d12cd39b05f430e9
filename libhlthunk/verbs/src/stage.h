// SPDX-License-Identifier: MIT
// Stage: host memory that stands in for a range of device memory towards
// the NIC, when the NIC can reach the device memory neither by dma-buf nor
// through a CPU mapping (a Gaudi host whose kernel refuses peer to peer).
// The NIC reads and writes the stage; the device's own DMA engine moves
// bytes between the stage and the device memory when the caller asks
// (hlthunk_verbs_mr_sync).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "mapping.h"
#include "result.h"
#include "staged_dma.h"
#include "unique_fd.h"

namespace hlthunk_verbs {

class Stage {
	struct Private {};

public:
	explicit Stage(Private) {}
	Stage(const Stage &) = delete;
	Stage &operator=(const Stage &) = delete;
	~Stage();

	// A stage of [device_va, device_va + length) of device fd.  Holds its
	// own references: the device file (a duplicate of fd, so that a
	// closed or reused fd number cannot redirect a sync) and the dma-buf
	// of the range (so that the device memory outlives the registration
	// as with the other paths).  -errno on failure, with what failed in
	// *why.
	static hlthunk::Result<std::unique_ptr<Stage>> create(
		int fd, int dmabuf_fd, uint64_t device_va, uint64_t length,
		std::string *why);

	// Where the NIC sees device_va: the stage's byte of the same offset
	// in the range (and the same offset within a page).
	void *host_start() const;

	// Moves [va, va + len) (inside the range, checked by the caller)
	// between the device memory and the stage with the device's DMA
	// engine, and waits for it.  0 or -errno (-EIO: the device aborted
	// the copy, -ETIMEDOUT).  Calls on one stage run one at a time.
	int to_device(uint64_t va, uint64_t len);
	int to_stage(uint64_t va, uint64_t len);

private:
	// The device's address of the stage's byte for device address va.
	uint64_t stage_va(uint64_t va) const;
	int copy(uint64_t dst, uint64_t src, uint64_t len);

	hlthunk::UniqueFd device_;
	hlthunk::UniqueFd dmabuf_;
	hlipc::Mapping host_;		// whole pages
	uint64_t host_dev_va_ = 0;	// host_ mapped into the device
	uint64_t in_page_ = 0;		// device_va's offset within a page
	uint64_t device_va_ = 0;
	std::mutex lock_;		// the DMA's one command buffer
	hlipc::StagedDma dma_;
};

}  // namespace hlthunk_verbs
