// SPDX-License-Identifier: MIT
#include "cpu_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace hlthunk_verbs {

using hlthunk::Err;

CpuMapping &CpuMapping::operator=(CpuMapping &&o) noexcept
{
	if (this != &o) {
		reset();
		base_ = std::exchange(o.base_, nullptr);
		len_ = std::exchange(o.len_, 0);
		skip_ = o.skip_;
	}
	return *this;
}

hlthunk::Result<CpuMapping> CpuMapping::map(int dmabuf_fd, uint64_t offset,
					    uint64_t length, bool writable)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	const uint64_t first = offset / page * page;
	const uint64_t end = (offset + length + page - 1) / page * page;
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	void *p = mmap(nullptr, end - first, prot, MAP_SHARED, dmabuf_fd,
		       static_cast<off_t>(first));
	if (p == MAP_FAILED)
		return Err{-errno};
	CpuMapping m;
	m.base_ = p;
	m.len_ = end - first;
	m.skip_ = offset - first;
	return m;
}

void CpuMapping::reset()
{
	if (base_)
		munmap(base_, len_);
	base_ = nullptr;
	len_ = 0;
}

}  // namespace hlthunk_verbs
