// SPDX-License-Identifier: MIT
// DeviceSide: the emulated Gaudi device a test process owns, and its own
// DMA engine to fill and read device memory independently of the NIC: a
// pinned host staging buffer mapped for the device, moved by LIN_DMA
// command submissions through libhlthunk (hlipc::StagedDma).  So a check
// of device memory never goes through the path under test.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "device_buffer.h"
#include "staged_dma.h"

namespace mntest {

class DeviceSide {
public:
	DeviceSide() = default;
	DeviceSide(const DeviceSide &) = delete;
	DeviceSide &operator=(const DeviceSide &) = delete;
	~DeviceSide() { close(); }

	// Opens a free device (the compute node is exclusive: each process
	// of a host gets another) with staging room for max_len bytes.
	int open(uint64_t max_len, std::string *why);
	// Drops the DMA engine and staging and closes the device.
	void close();
	int fd() const { return fd_; }
	// The device's PCI address, for reports.
	std::string bus_id() const;

	// Writes the pattern of seed (hlipc::pattern_byte, from offset
	// base) to [va, va + len).  0 or -errno.
	int write_pattern(uint64_t va, uint64_t len, uint32_t seed,
			  uint64_t base = 0);
	// Reads [va, va + len) and compares it with the pattern of seed from
	// base; returns the offset of the first wrong byte, -1 if all match,
	// or -2 if the DMA failed.
	int64_t check_pattern(uint64_t va, uint64_t len, uint32_t seed,
			      uint64_t base = 0);

private:
	int stage_map(uint64_t len);

	int fd_ = -1;
	std::unique_ptr<hlipc::StagedDma> dma_;
	hlipc::Mapping stage_;
	uint64_t stage_va_ = 0;
};

}  // namespace mntest
