// SPDX-License-Identifier: MIT
// The C ABI of libhlthunk-verbs: argument checks, the export of device
// memory through libhlthunk, and the registration itself.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <new>
#include <string>

#include "dmabuf_file.h"
#include "hlthunk.h"
#include "hlthunk_verbs.h"
#include "last_error.h"
#include "registration.h"
#include "unique_fd.h"

using namespace hlthunk_verbs;

namespace {

constexpr uint32_t kKnownFlags = HLTHUNK_VERBS_REG_DMABUF_ONLY |
				  HLTHUNK_VERBS_REG_ALLOW_STAGED;
constexpr uint32_t kBothWays = HLTHUNK_VERBS_REG_DMABUF_ONLY |
			       HLTHUNK_VERBS_REG_ALLOW_STAGED;

uint64_t page_size()
{
	return static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

std::string device_name(ibv_pd *pd)
{
	const char *n = pd && pd->context && pd->context->device
				? ibv_get_device_name(pd->context->device)
				: nullptr;
	return n ? n : "?";
}

std::string hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return buf;
}

std::string describe(const char *what, uint64_t addr, uint64_t size,
		     ibv_pd *pd)
{
	char buf[160];
	snprintf(buf, sizeof(buf), "registering %" PRIu64 " bytes of %s at 0x%" PRIx64
		 " with %s", size, what, addr, device_name(pd).c_str());
	return buf;
}

int finish(hlthunk::Result<std::unique_ptr<hlthunk_verbs_mr>> r,
	   struct hlthunk_verbs_mr **out)
{
	if (!r)
		return r.error();  // errno and the message are set
	*out = r.value().release();
	return 0;
}

// Nothing but a return value crosses the C ABI.
template <typename F>
int guarded(const std::string &what, F &&f)
{
	try {
		return f();
	} catch (const std::bad_alloc &) {
		return fail(ENOMEM, what, "out of memory");
	} catch (...) {
		return fail(EIO, what, "unexpected internal error");
	}
}

}  // namespace

extern "C" hlthunk_verbs_public int hlthunk_verbs_reg_device_memory(
	struct ibv_pd *pd, int fd, uint64_t device_va, uint64_t size,
	int access, uint32_t flags, struct hlthunk_verbs_mr **mr)
{
	const char *kind = "device memory";
	return guarded("registering device memory", [&]() -> int {
		const std::string what = describe(kind, device_va, size, pd);
		if (!pd || !mr)
			return fail(EINVAL, what, "no protection domain or no "
						  "place for the result");
		if (flags & ~kKnownFlags)
			return fail(EINVAL, what, "unknown flags");
		if ((flags & kBothWays) == kBothWays)
			return fail(EINVAL, what,
				    "HLTHUNK_VERBS_REG_DMABUF_ONLY and "
				    "HLTHUNK_VERBS_REG_ALLOW_STAGED exclude "
				    "each other");
		if (size == 0)
			return fail(EINVAL, what, "the size is 0");
		if (device_va + size < device_va)
			return fail(ERANGE, what, "the range wraps around 2^64");
		if (fd < 0 || fcntl(fd, F_GETFD) < 0)
			return fail(EBADF, what, "the device fd is not open");
		if (hlthunk_get_device_name_from_fd(fd) == HLTHUNK_DEVICE_INVALID)
			return fail(ENOTTY, what,
				    "the fd is not a Gaudi device node");

		uint64_t offset = 0;
		int dfd = hlthunk_device_memory_export_dmabuf_range(
			fd, device_va, size, O_RDWR | O_CLOEXEC, &offset);
		if (dfd < 0) {
			int e = -dfd;
			std::string why = hlthunk_ipc_last_error();
			if (e == EFAULT)
				why = "no device memory mapped through "
				      "libhlthunk on this fd holds the address "
				      "(" + why + ")";
			return fail(e, what, why);
		}
		// Both paths take their own reference on the dma-buf.
		hlthunk::UniqueFd dmabuf(dfd);
		return finish(register_dmabuf_range({pd, dmabuf.get(), offset,
						     size, device_va, access,
						     flags, what, fd}),
			      mr);
	});
}

extern "C" hlthunk_verbs_public int hlthunk_verbs_reg_dmabuf(
	struct ibv_pd *pd, int dmabuf_fd, uint64_t offset, uint64_t length,
	uint64_t iova, int access, uint32_t flags, struct hlthunk_verbs_mr **mr)
{
	return guarded("registering a dma-buf", [&]() -> int {
		const std::string what = describe("a dma-buf", offset, length, pd);
		if (!pd || !mr)
			return fail(EINVAL, what, "no protection domain or no "
						  "place for the result");
		if (flags & ~kKnownFlags)
			return fail(EINVAL, what, "unknown flags");
		if (flags & HLTHUNK_VERBS_REG_ALLOW_STAGED)
			return fail(EINVAL, what,
				    "HLTHUNK_VERBS_REG_ALLOW_STAGED is for "
				    "device memory only "
				    "(hlthunk_verbs_reg_device_memory): a stage "
				    "needs the device's DMA engine");
		if (length == 0)
			return fail(EINVAL, what, "the length is 0");
		if (offset + length < offset)
			return fail(ERANGE, what, "the range wraps around 2^64");
		if ((offset ^ iova) & (page_size() - 1))
			return fail(EINVAL, what, "iova and offset must have the "
						  "same offset within a page");
		auto size = dmabuf_size(dmabuf_fd);
		if (!size)
			return fail(-size.error(), what,
				    size.error() == -EBADF
					    ? "the dma-buf fd is not open"
					    : "the fd is not a dma-buf");
		if (length > *size || offset > *size - length)
			return fail(ERANGE, what,
				    "the range runs past the end of the "
				    "dma-buf (" + std::to_string(*size) +
					    " bytes)");
		return finish(register_dmabuf_range({pd, dmabuf_fd, offset,
						     length, iova, access,
						     flags, what}),
			      mr);
	});
}

extern "C" hlthunk_verbs_public int hlthunk_verbs_dereg_mr(
	struct hlthunk_verbs_mr *mr)
{
	if (!mr)
		return 0;
	return guarded("deregistering a memory region", [&]() -> int {
		int rc = ibv_dereg_mr(mr->mr);
		if (rc) {
			int e = rc > 0 ? rc : (errno > 0 ? errno : EIO);
			return fail(e, "deregistering a memory region",
				    "the verbs provider refused (" +
					    errno_name(e) +
					    "); it stays registered");
		}
		mr->mr = nullptr;
		delete mr;  // then the CPU mapping, if any, goes
		return 0;
	});
}

extern "C" hlthunk_verbs_public int hlthunk_verbs_mr_sync(
	struct hlthunk_verbs_mr *mr, uint64_t iova, uint64_t length,
	int direction)
{
	return guarded("syncing a memory region", [&]() -> int {
		char what[128];
		snprintf(what, sizeof(what), "syncing %" PRIu64
			 " bytes at 0x%" PRIx64 " %s", length, iova,
			 direction == HLTHUNK_VERBS_SYNC_FOR_NIC ? "for the NIC"
			 : direction == HLTHUNK_VERBS_SYNC_FOR_DEVICE
				 ? "for the device"
				 : "in an unknown direction");
		if (!mr)
			return fail(EINVAL, what, "no registration");
		if (direction != HLTHUNK_VERBS_SYNC_FOR_NIC &&
		    direction != HLTHUNK_VERBS_SYNC_FOR_DEVICE)
			return fail(EINVAL, what,
				    "unknown direction " +
					    std::to_string(direction));
		if (length == 0)
			return fail(EINVAL, what, "the length is 0");
		if (iova + length < iova)
			return fail(ERANGE, what, "the range wraps around 2^64");
		if (iova < mr->iova || iova + length > mr->iova + mr->length)
			return fail(ERANGE, what,
				    "the range is not inside the registration "
				    "(" + std::to_string(mr->length) +
					    " bytes at " + hex(mr->iova) + ")");
		if (!mr->stage)
			return 0;  // the NIC reaches the memory itself
		int rc = direction == HLTHUNK_VERBS_SYNC_FOR_NIC
				 ? mr->stage->to_stage(iova, length)
				 : mr->stage->to_device(iova, length);
		if (rc == -ETIMEDOUT)
			return fail(ETIMEDOUT, what,
				    "the device's DMA engine took longer than "
				    "60 s");
		if (rc < 0)
			return fail(-rc, what,
				    "the device's DMA engine failed (" +
					    errno_name(-rc) +
					    "): the range is in neither "
					    "state, sync it again");
		return 0;
	});
}

extern "C" hlthunk_verbs_public struct ibv_mr *
hlthunk_verbs_mr_ibv(const struct hlthunk_verbs_mr *mr)
{
	return mr ? mr->mr : nullptr;
}

extern "C" hlthunk_verbs_public uint64_t
hlthunk_verbs_mr_iova(const struct hlthunk_verbs_mr *mr)
{
	return mr ? mr->iova : 0;
}

extern "C" hlthunk_verbs_public uint64_t
hlthunk_verbs_mr_length(const struct hlthunk_verbs_mr *mr)
{
	return mr ? mr->length : 0;
}

extern "C" hlthunk_verbs_public int
hlthunk_verbs_mr_path(const struct hlthunk_verbs_mr *mr)
{
	return mr ? mr->path : 0;
}

extern "C" hlthunk_verbs_public int
hlthunk_verbs_mr_dmabuf_error(const struct hlthunk_verbs_mr *mr)
{
	return mr ? mr->dmabuf_err : 0;
}

extern "C" hlthunk_verbs_public const char *hlthunk_verbs_path_name(int path)
{
	switch (path) {
	case HLTHUNK_VERBS_PATH_DMABUF:
		return "dmabuf";
	case HLTHUNK_VERBS_PATH_CPU_MAPPING:
		return "cpu-mapping";
	case HLTHUNK_VERBS_PATH_STAGED:
		return "staged";
	default:
		return "unknown";
	}
}

extern "C" hlthunk_verbs_public const char *hlthunk_verbs_last_error(void)
{
	return last_error();
}
