// SPDX-License-Identifier: MIT
#include "registration.h"

#include <unistd.h>

#include <cerrno>

#include "hlthunk_verbs.h"
#include "last_error.h"

namespace hlthunk_verbs {

using hlthunk::Err;

namespace {

// The answers of a provider (or kernel) without dma-buf memory regions:
// libibverbs' default for providers that lack the call, a kernel driver
// without reg_user_mr_dmabuf, and kernels older than the method.
bool no_dmabuf_support(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS || err == EPROTONOSUPPORT;
}

// Access that makes the kernel pin the pages for writing.
bool writable(int access)
{
	return access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
}

// Fills the registration made up front (so that nothing can fail once
// the memory region exists).
std::unique_ptr<hlthunk_verbs_mr> wrap(std::unique_ptr<hlthunk_verbs_mr> out,
				       ibv_mr *mr, int path, int dmabuf_err,
				       const DmabufRange &r, CpuMapping map,
				       std::unique_ptr<Stage> stage = nullptr)
{
	out->mapping = std::move(map);
	out->stage = std::move(stage);
	out->mr = mr;
	out->path = path;
	out->dmabuf_err = dmabuf_err;
	out->iova = r.iova;
	out->length = r.length;
	return out;
}

// Why the provider did not take the dma-buf.  A provider with dma-buf
// memory regions answers EBADF for an fd that is not open (the kernel
// looks the fd up only after the driver's capability check), one
// without them EOPNOTSUPP.
std::string dmabuf_refusal(ibv_pd *pd, int err)
{
	const long page = sysconf(_SC_PAGESIZE);
	errno = 0;
	ibv_mr *probe = ibv_reg_dmabuf_mr(pd, 0, static_cast<size_t>(page), 0,
					  -1, IBV_ACCESS_LOCAL_WRITE);
	const int perr = errno;
	if (probe)
		ibv_dereg_mr(probe);  // cannot happen with fd -1
	if (!probe && perr == EBADF)
		return "the verbs provider refused this dma-buf "
		       "(ibv_reg_dmabuf_mr: " +
		       errno_name(err) +
		       "), although it has dma-buf memory regions: it cannot "
		       "reach this exporter's memory";
	return "the verbs provider has no dma-buf memory regions "
	       "(ibv_reg_dmabuf_mr: " +
	       errno_name(err) + ")";
}

const char kNeedDmabuf[] =
	"; this memory reaches the NIC only through a verbs provider with "
	"dma-buf memory regions (see Documentation/rdma.md), or through a "
	"stage in host memory (HLTHUNK_VERBS_REG_ALLOW_STAGED)";

// The NIC reaches the memory directly: a dma-buf memory region, or one
// over a CPU mapping of the dma-buf.  *derr receives what
// ibv_reg_dmabuf_mr answered (0 if it took the dma-buf).
hlthunk::Result<std::unique_ptr<hlthunk_verbs_mr>> register_direct(
	const DmabufRange &r, int *derr_out)
{
	auto out = std::make_unique<hlthunk_verbs_mr>();
	*derr_out = 0;
	errno = 0;
	ibv_mr *mr = ibv_reg_dmabuf_mr(r.pd, r.offset, r.length, r.iova, r.fd,
				       r.access);
	if (mr)
		return wrap(std::move(out), mr, HLTHUNK_VERBS_PATH_DMABUF, 0, r,
			    CpuMapping());

	const int derr = errno_or(EIO);
	*derr_out = derr;
	if (!no_dmabuf_support(derr))
		return Err{fail(derr, r.what,
				"the verbs provider failed to register the "
				"dma-buf (ibv_reg_dmabuf_mr: " +
					errno_name(derr) + ")")};
	if (r.flags & HLTHUNK_VERBS_REG_DMABUF_ONLY)
		return Err{fail(EOPNOTSUPP, r.what,
				dmabuf_refusal(r.pd, derr) +
					" and HLTHUNK_VERBS_REG_DMABUF_ONLY "
					"rules out the CPU-mapping fallback")};

	auto map = CpuMapping::map(r.fd, r.offset, r.length, writable(r.access));
	if (!map) {
		int e = -map.error();
		if (e == ENOMEM || e == EACCES)
			return Err{fail(e, r.what,
					dmabuf_refusal(r.pd, derr) +
						", and mapping the dma-buf "
						"failed (mmap: " +
						errno_name(e) + ")")};
		return Err{fail(EOPNOTSUPP, r.what,
				dmabuf_refusal(r.pd, derr) +
					" and the exporter gives no CPU "
					"mapping of it (mmap: " +
					errno_name(e) + ")" + kNeedDmabuf)};
	}

	errno = 0;
	mr = ibv_reg_mr_iova(r.pd, map->start(), r.length, r.iova, r.access);
	if (!mr) {
		int e = errno_or(EIO);
		map->reset();  // before the probe below: nothing left behind
		if (e == EFAULT || e == EOPNOTSUPP)
			return Err{fail(EOPNOTSUPP, r.what,
					dmabuf_refusal(r.pd, derr) +
						" and the exporter's CPU "
						"mapping cannot be pinned "
						"(ibv_reg_mr: " +
						errno_name(e) + ")" +
						kNeedDmabuf)};
		return Err{fail(e, r.what,
				dmabuf_refusal(r.pd, derr) +
					"; registering the CPU mapping "
					"failed (ibv_reg_mr: " +
					errno_name(e) + ")")};
	}
	return wrap(std::move(out), mr, HLTHUNK_VERBS_PATH_CPU_MAPPING, -derr,
		    r, std::move(*map));
}

// Whether the direct paths failed for want of a way to the memory, which
// a stage in host memory gives: no dma-buf memory regions and no CPU
// mapping (EOPNOTSUPP), or a provider with dma-buf memory regions whose
// exporter refused to map the memory for it (EPERM: a Gaudi exporter on a
// kernel without peer-to-peer DMA).
bool stage_helps(int err, int derr)
{
	return err == -EOPNOTSUPP || (err == -EPERM && derr == EPERM);
}

// The NIC reaches a stage in host memory; hlthunk_verbs_mr_sync() moves
// the bytes between it and the device memory.
hlthunk::Result<std::unique_ptr<hlthunk_verbs_mr>> register_staged(
	const DmabufRange &r, int derr, const std::string &direct_failure)
{
	const std::string what = r.what + " through a stage in host memory";
	std::string why;
	auto stage = Stage::create(r.device_fd, r.fd, r.iova, r.length, &why);
	if (!stage)
		return Err{fail(-stage.error(), what,
				why + "; directly: " + direct_failure)};
	// The stage starts as the device memory is: a peer's read before any
	// sync, or a partial write synced whole, finds the device's bytes.
	int rc = (*stage)->to_stage(r.iova, r.length);
	if (rc < 0)
		return Err{fail(-rc, what,
				"copying the device memory into the stage "
				"failed (" + errno_name(-rc) + ")")};
	errno = 0;
	ibv_mr *mr = ibv_reg_mr_iova(r.pd, (*stage)->host_start(), r.length,
				     r.iova, r.access);
	if (!mr) {
		int e = errno_or(EIO);
		return Err{fail(e, what,
				"registering the stage failed (ibv_reg_mr: " +
					errno_name(e) + "); directly: " +
					direct_failure)};
	}
	return wrap(std::make_unique<hlthunk_verbs_mr>(), mr,
		    HLTHUNK_VERBS_PATH_STAGED, -derr, r, CpuMapping(),
		    std::move(*stage));
}

}  // namespace

hlthunk::Result<std::unique_ptr<hlthunk_verbs_mr>> register_dmabuf_range(
	const DmabufRange &r)
{
	int derr = 0;
	auto direct = register_direct(r, &derr);
	if (direct || !(r.flags & HLTHUNK_VERBS_REG_ALLOW_STAGED) ||
	    r.device_fd < 0 || !stage_helps(direct.error(), derr))
		return direct;
	return register_staged(r, derr, last_error());
}

}  // namespace hlthunk_verbs
