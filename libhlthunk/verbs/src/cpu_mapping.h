// SPDX-License-Identifier: MIT
// CpuMapping: a shared mmap of a byte range of a dma-buf, unmapped once.
#pragma once

#include <cstdint>
#include <utility>

#include "result.h"

namespace hlthunk_verbs {

class CpuMapping {
public:
	CpuMapping() = default;
	CpuMapping(CpuMapping &&o) noexcept
		: base_(std::exchange(o.base_, nullptr)),
		  len_(std::exchange(o.len_, 0)), skip_(o.skip_)
	{
	}
	CpuMapping &operator=(CpuMapping &&o) noexcept;
	CpuMapping(const CpuMapping &) = delete;
	CpuMapping &operator=(const CpuMapping &) = delete;
	~CpuMapping() { reset(); }

	// Maps the whole pages of dmabuf_fd that hold [offset, offset +
	// length), shared, writable if asked; the mapping holds its own
	// reference on the dma-buf.  -errno of mmap on failure.
	static hlthunk::Result<CpuMapping> map(int dmabuf_fd, uint64_t offset,
					       uint64_t length, bool writable);

	// The address of byte offset of the dma-buf given to map().
	void *start() const { return static_cast<char *>(base_) + skip_; }
	bool valid() const { return base_ != nullptr; }
	void reset();

private:
	void *base_ = nullptr;
	uint64_t len_ = 0;
	uint64_t skip_ = 0;  // offset - the page-aligned start of the mapping
};

}  // namespace hlthunk_verbs
