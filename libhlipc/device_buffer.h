// SPDX-License-Identifier: MIT
// DeviceBuffer: device memory allocated and mapped through libhlthunk,
// with a CPU view through its exported dma-buf (habanalabs_sim dma-bufs
// support mmap) so programs can fill and check it.
#pragma once

#include <cstdint>
#include <string>

#include "hlthunk.h"
#include "mapping.h"

namespace hlipc {

class DeviceBuffer {
public:
	DeviceBuffer() = default;
	DeviceBuffer(DeviceBuffer &&o) noexcept;
	DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
	DeviceBuffer(const DeviceBuffer &) = delete;
	DeviceBuffer &operator=(const DeviceBuffer &) = delete;
	~DeviceBuffer() { reset(); }

	// Allocates and maps size bytes (a page multiple) on device fd.
	// Returns 0 or a negative errno.
	int create(int fd, uint64_t size);
	// Maps the dma-buf for CPU access (read/write).  0 or -errno.
	int map_cpu();

	uint64_t va() const { return va_; }
	uint64_t size() const { return size_; }
	int fd() const { return fd_; }
	unsigned char *cpu() const { return view_.bytes(); }
	void reset();
	// Like reset(), but stops at a failed unmap (the driver refuses to
	// unmap exported memory) and returns its -errno, keeping the buffer.
	int try_reset();
	// Drops the CPU view and its dma-buf, keeping the device mapping.
	void reset_view();
	// Forgets the memory without unmapping or freeing it (its fd was
	// closed, which released it).
	void forget();

private:
	int fd_ = -1;
	uint64_t handle_ = 0;
	uint64_t va_ = 0;
	uint64_t size_ = 0;
	int dmabuf_ = -1;
	Mapping view_;
};

// A byte pattern that differs per buffer (seed) and per offset.
inline unsigned char pattern_byte(uint32_t seed, uint64_t off)
{
	// The seed goes into the product, so that every seed gives another
	// sequence in the byte kept (the top one).
	uint64_t x = (off + 1 + ((uint64_t)seed << 40)) * 0x9e3779b97f4a7c15ull;
	return static_cast<unsigned char>(x >> 56);
}
void fill_pattern(unsigned char *p, uint64_t len, uint32_t seed, uint64_t base = 0);
// Offset of the first byte that differs from the pattern, or -1.
int64_t check_pattern(const unsigned char *p, uint64_t len, uint32_t seed,
		      uint64_t base = 0);

}  // namespace hlipc
