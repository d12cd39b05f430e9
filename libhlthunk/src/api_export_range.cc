// SPDX-License-Identifier: MIT
// Export of any byte range of mapped device memory as a dma-buf: the
// driver names memory by the VA of a whole mapping plus a page-aligned
// offset, so the range is widened to whole pages of its mapping and the
// caller learns where its first byte landed.
#include <unistd.h>

#include <cerrno>

#include "c_return.h"
#include "hlthunk.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

constexpr const char *kWhat = "exporting a device memory range as a dma-buf";

}  // namespace

extern "C" hlthunk_public int hlthunk_device_memory_export_dmabuf_range(
	int fd, uint64_t addr, uint64_t size, uint32_t flags, uint64_t *offset)
{
	if (!offset || size == 0)
		return c_fail(Op::Generic, kWhat, -EINVAL);
	if (addr + size < addr)
		return c_fail(Op::Generic, kWhat, -ERANGE);

	auto m = LibState::get().regs().lookup(fd, addr);
	if (!m)
		return c_fail(Op::Generic, kWhat, m.error());
	if (m->kind != MappingKind::Device)
		return c_fail(Op::Generic, kWhat, -EINVAL);

	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	const uint64_t rel = addr - m->va;
	if (size > m->size - rel)
		return c_fail(Op::Generic, kWhat, -ERANGE);
	const uint64_t first = rel / page * page;
	const uint64_t end = (rel + size + page - 1) / page * page;
	if (end > m->size)
		return c_fail(Op::Generic, kWhat, -ERANGE);

	int dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(
		fd, m->va, end - first, first, flags);
	if (dmabuf < 0) {
		// Unmapped by another thread since the lookup: say so, as if
		// the lookup had come later.
		if (!LibState::get().regs().lookup(fd, addr))
			return c_fail(Op::Generic, kWhat, -EFAULT);
		return dmabuf;  // errno and the last error are set
	}
	*offset = rel - first;
	return dmabuf;
}
