// SPDX-License-Identifier: MIT
// Export of any byte range of mapped device memory as a dma-buf: the
// driver names memory by the VA of a whole mapping plus a page-aligned
// offset, so the range is widened to whole pages of its mapping and the
// caller learns where its first byte landed.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

constexpr const char *kWhat = "exporting a device memory range as a dma-buf";

}  // namespace

extern "C" hlthunk_public int hlthunk_device_memory_export_dmabuf_range(
	int fd, uint64_t addr, uint64_t size, uint32_t flags, uint64_t *offset)
{
	return c_entry("hlthunk_device_memory_export_dmabuf_range", [&]() -> int {
		if (!offset || size == 0)
			return c_fail(Op::Generic, kWhat, -EINVAL);
		if (addr + size < addr)
			return c_fail(Op::Generic, kWhat, -ERANGE);

		auto &st = LibState::get();
		auto n = st.node_of(fd);
		if (!n)
			return c_fail(Op::Generic, kWhat, n.error());
		auto m = st.regs().lookup(n->dev, addr);
		if (!m)
			return c_fail(Op::Generic, kWhat, m.error());
		if (m->kind != MappingKind::Device)
			return c_fail(Op::Generic, kWhat, -EINVAL);

		const uint64_t rel = addr - m->va;
		if (size > m->size - rel)
			return c_fail(Op::Generic, kWhat, -ERANGE);
		const PageSpan span = page_span(rel, size, m->size);
		// Through the memory's compute context (fd may be a control
		// node of the device).
		std::shared_ptr<UniqueFd> keep;
		auto cfd = st.regs().context_fd(*m, fd, &keep);
		if (!cfd)
			return c_fail(Op::Generic, kWhat, cfd.error());
		int rc = hl_export_dmabuf(*cfd, m->va, span.len, span.first, flags);
		if (rc < 0) {
			// Unmapped by another thread since the lookup: say so, as
			// if the lookup had come later.
			if (!st.regs().lookup(n->dev, addr))
				return c_fail(Op::Generic, kWhat, -EFAULT);
			return c_fail(Op::DeviceIoctl, kWhat, rc);
		}
		*offset = rel - span.first;
		return rc;
	});
}
