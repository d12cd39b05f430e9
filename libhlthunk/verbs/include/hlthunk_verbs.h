/* SPDX-License-Identifier: MIT */
/*
 * hlthunk_verbs.h - register Gaudi device memory with an RDMA NIC (verbs).
 *
 * libhlthunk-verbs is a separate library so that programs which never use
 * RDMA never load libibverbs: link it (pkg-config libhlthunk-verbs, CMake
 * hlthunk::hlthunk_verbs) only where verbs are used.
 *
 * A registration exports the memory as a dma-buf and asks the verbs
 * provider for a dma-buf memory region (ibv_reg_dmabuf_mr), so the NIC
 * reaches device memory directly.  When the provider has no dma-buf
 * memory regions (EOPNOTSUPP, ENOSYS: soft-RoCE, older NICs) and the
 * exporter allows CPU mappings, the dma-buf is mapped into the process
 * and that mapping is registered (ibv_reg_mr) instead; otherwise the call
 * fails, naming the missing capability.  A caller that asks for it
 * (HLTHUNK_VERBS_REG_ALLOW_STAGED) gets a third path where the other two
 * fail: a stage in host memory that the NIC reads and writes, and that
 * the caller keeps in step with the device memory by
 * hlthunk_verbs_mr_sync().  hlthunk_verbs_mr_path() says which path a
 * registration took.  See Documentation/rdma.md.
 *
 * Conventions as in hlthunk.h: int calls return 0 or a negative errno
 * (errno set too), and every call is thread-safe.
 */
#ifndef HLTHUNK_VERBS_H
#define HLTHUNK_VERBS_H

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define hlthunk_verbs_public __attribute__((visibility("default")))

/* A registration: an ibv_mr plus what keeps its memory reachable. */
struct hlthunk_verbs_mr;

/* How the NIC reaches the memory of a registration. */
enum hlthunk_verbs_path {
	/* ibv_reg_dmabuf_mr: the NIC maps the dma-buf itself (peer to peer) */
	HLTHUNK_VERBS_PATH_DMABUF = 1,
	/* ibv_reg_mr of a CPU mapping (mmap) of the dma-buf */
	HLTHUNK_VERBS_PATH_CPU_MAPPING = 2,
	/* ibv_reg_mr of a stage in host memory, moved to and from the device
	 * memory by the device's DMA engine in hlthunk_verbs_mr_sync() */
	HLTHUNK_VERBS_PATH_STAGED = 3,
};

/* Flags of the registration calls. */
/* Fail with the provider's error rather than fall back to a CPU mapping. */
#define HLTHUNK_VERBS_REG_DMABUF_ONLY	(1u << 0)
/* Device memory only: where neither direct path works (no dma-buf memory
 * regions and no CPU mapping, or the exporter refused the NIC peer-to-peer
 * access), register a stage in host memory instead
 * (HLTHUNK_VERBS_PATH_STAGED).  Only for callers that call
 * hlthunk_verbs_mr_sync() around the NIC's use of the memory: without it
 * the NIC sees stale bytes and the device never gets what arrived.  The
 * stage is as large as the registration and starts as a copy of the
 * device memory. */
#define HLTHUNK_VERBS_REG_ALLOW_STAGED	(1u << 1)

/* Registers size bytes of device memory at device_va, an address inside a
 * mapping made by hlthunk_device_memory_map on device fd, with pd.
 * access: IBV_ACCESS_* as for ibv_reg_mr.  The memory region's address
 * (its iova, what a peer names in RDMA READ/WRITE) is device_va.  On
 * success *mr receives the registration; end it with
 * hlthunk_verbs_dereg_mr.
 * Errors: -EINVAL (NULL pd or mr, size 0, unknown flags, a mapping of
 * host memory, DMABUF_ONLY and ALLOW_STAGED together), -EBADF (fd not
 * open), -ENOTTY (fd not a device node), -EFAULT (no device-memory mapping of fd holds device_va), -ERANGE
 * (device_va + size wraps or runs past the mapping), -EOPNOTSUPP (the
 * provider has no dma-buf memory regions and the exporter gives no CPU
 * mapping the provider can register, or DMABUF_ONLY was asked), and the
 * provider's own errors (-ENOMEM, -EACCES, ...).  The message of
 * hlthunk_verbs_last_error() says which. */
hlthunk_verbs_public int hlthunk_verbs_reg_device_memory(
	struct ibv_pd *pd, int fd, uint64_t device_va, uint64_t size,
	int access, uint32_t flags, struct hlthunk_verbs_mr **mr);

/* The same for any dma-buf: length bytes from offset, at address iova in
 * the memory region (same offset in a page as offset).  The caller keeps
 * its dmabuf_fd; the registration holds its own reference.
 * Errors as above, plus -EBADF (dmabuf_fd not open), -EINVAL (not a
 * dma-buf, or iova and offset differ within a page), -ERANGE (the range
 * runs past the dma-buf's end or wraps).  ALLOW_STAGED is for device
 * memory only (-EINVAL here): a stage needs the device's DMA engine. */
hlthunk_verbs_public int hlthunk_verbs_reg_dmabuf(
	struct ibv_pd *pd, int dmabuf_fd, uint64_t offset, uint64_t length,
	uint64_t iova, int access, uint32_t flags, struct hlthunk_verbs_mr **mr);

/* Deregisters and frees mr (NULL: nothing to do).  If the provider
 * refuses (the memory region is still in use, e.g. bound to a memory
 * window), returns its error and mr stays valid. */
hlthunk_verbs_public int hlthunk_verbs_dereg_mr(struct hlthunk_verbs_mr *mr);

/* Directions of hlthunk_verbs_mr_sync. */
enum hlthunk_verbs_sync {
	/* device memory -> stage: before the NIC reads the range (a local
	 * SEND or RDMA WRITE from it, a peer's RDMA READ of it) */
	HLTHUNK_VERBS_SYNC_FOR_NIC = 1,
	/* stage -> device memory: after the NIC wrote the range (a local
	 * RDMA READ or RECV into it completed, a peer's RDMA WRITE arrived) */
	HLTHUNK_VERBS_SYNC_FOR_DEVICE = 2,
};

/* Brings length bytes at iova (inside the registration) up to date for
 * the NIC or for the device, with the device's DMA engine, and returns
 * when they are.  A registration of another path has nothing to move:
 * 0 at once, so a program may call it whatever path it got.  The NIC
 * must not use the range while it is synced; syncs of one registration
 * run one at a time, and none may run during hlthunk_verbs_dereg_mr.
 * Calling it piece by piece lets the DMA of one piece overlap the NIC's
 * transfer of another.
 * Errors: -EINVAL (NULL mr, length 0, unknown direction), -ERANGE (the
 * range wraps or is not inside the registration), -EIO (the device
 * aborted the copy: the range is in neither state, sync it again),
 * -ETIMEDOUT (the copy outlived its bound of 60 s; it has ended when the
 * call returns). */
hlthunk_verbs_public int hlthunk_verbs_mr_sync(struct hlthunk_verbs_mr *mr,
					       uint64_t iova, uint64_t length,
					       int direction);

/* The verbs memory region (lkey, rkey) of a registration. */
hlthunk_verbs_public struct ibv_mr *
hlthunk_verbs_mr_ibv(const struct hlthunk_verbs_mr *mr);
/* Its address in the memory region's address space (iova) and length. */
hlthunk_verbs_public uint64_t
hlthunk_verbs_mr_iova(const struct hlthunk_verbs_mr *mr);
hlthunk_verbs_public uint64_t
hlthunk_verbs_mr_length(const struct hlthunk_verbs_mr *mr);
/* Which path it took (enum hlthunk_verbs_path), 0 for NULL. */
hlthunk_verbs_public int hlthunk_verbs_mr_path(const struct hlthunk_verbs_mr *mr);
/* What ibv_reg_dmabuf_mr answered before the fallback: 0 if the dma-buf
 * path was taken, else its negative errno (-EOPNOTSUPP for soft-RoCE). */
hlthunk_verbs_public int
hlthunk_verbs_mr_dmabuf_error(const struct hlthunk_verbs_mr *mr);

/* "dmabuf", "cpu-mapping", "staged" or "unknown". */
hlthunk_verbs_public const char *hlthunk_verbs_path_name(int path);
/* The message of the last failure of this library in this thread, saying
 * what failed and what to do; empty if nothing failed yet. */
hlthunk_verbs_public const char *hlthunk_verbs_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_VERBS_H */
