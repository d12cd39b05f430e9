/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * habanalabs_ipc: node-local device-to-device copies between registered
 * memory regions, through /dev/hl_ipc.
 *
 * Object model: a context is one open file of /dev/hl_ipc.  A region is
 * registered memory (a dma-buf or a user address range) named by a global
 * 64-bit cookie that other processes may use.  A channel joins a source
 * and a destination device and is an ordered queue of copies.
 *
 * ABI rules: every struct has fixed-width fields and explicit padding;
 * unknown flags and non-zero reserved/padding fields are rejected with
 * EINVAL; new fields are only ever added in place of reserved ones, and
 * HL_IPC_ABI_VERSION / the INFO feature bits say what exists.
 *
 * ioctl magic 0xDA, numbers 0x00-0x1F (free in the kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst).
 *
 * Full reference with every errno: Documentation/uapi-hl-ipc.md.
 */
#ifndef _UAPI_HABANALABS_IPC_H
#define _UAPI_HABANALABS_IPC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HL_IPC_DEVICE_PATH	"/dev/hl_ipc"
#define HL_IPC_ABI_VERSION	1
#define HL_IPC_IOCTL_MAGIC	0xDA

/*
 * The host (system memory, no accelerator) is named by fd HL_IPC_FD_HOST
 * together with the matching *_HOST flag; either alone is EINVAL/EBADF.
 */
#define HL_IPC_FD_HOST		(-1)

/* INFO feature bits */
#define HL_IPC_FEAT_DMABUF	(1ULL << 0) /* dma-buf regions */
#define HL_IPC_FEAT_USER_MEM	(1ULL << 1) /* user address range regions */
#define HL_IPC_FEAT_ASYNC	(1ULL << 2) /* async copies, WAIT, poll() */
#define HL_IPC_FEAT_BATCH	(1ULL << 3) /* COPY_BATCH */
#define HL_IPC_FEAT_ANY_USER	(1ULL << 4) /* HL_IPC_REGION_ANY_USER */
#define HL_IPC_FEAT_QUERY	(1ULL << 5) /* REGION_QUERY */

/* Copy engines (INFO.engines bit mask) */
#define HL_IPC_ENGINE_CPU	(1U << 0)
#define HL_IPC_ENGINE_DMA	(1U << 1) /* a DMA engine: memory the CPU cannot map */

struct hl_ipc_info {
	__u32 abi_version;	/* out: HL_IPC_ABI_VERSION */
	__u32 flags;		/* in: must be 0 */
	__u64 features;		/* out: HL_IPC_FEAT_* */
	__u32 max_regions;	/* out: regions per context */
	__u32 max_channels;	/* out: channels per context */
	__u32 max_batch;	/* out: descriptors per COPY_BATCH */
	__u32 chunk_size;	/* out: copy engine chunk in bytes */
	__u32 engines;		/* out: HL_IPC_ENGINE_* */
	__u32 pad;		/* in: must be 0 */
	__u64 reserved[6];	/* in: must be 0; out: 0 */
};

/* Region types */
#define HL_IPC_REGION_DMABUF	1 /* fd is a dma-buf; addr and length 0 */
#define HL_IPC_REGION_USER	2 /* addr/length name user memory; fd -1 */

/* Region flags */
#define HL_IPC_REGION_READ	(1U << 0) /* may be a copy source (required) */
#define HL_IPC_REGION_WRITE	(1U << 1) /* may be a copy destination */
#define HL_IPC_REGION_ANY_USER	(1U << 2) /* any uid may use the cookie */
#define HL_IPC_REGION_DEV_HOST	(1U << 3) /* memory belongs to the host */
#define HL_IPC_REGION_FLAGS_ALL	0xfU

struct hl_ipc_region_register {
	__u32 type;		/* in: HL_IPC_REGION_DMABUF or _USER */
	__u32 flags;		/* in: HL_IPC_REGION_* */
	__s32 fd;		/* in: dma-buf fd (DMABUF), -1 (USER) */
	__s32 dev_fd;		/* in: device node fd, or HL_IPC_FD_HOST
				 *     with HL_IPC_REGION_DEV_HOST
				 */
	__u64 addr;		/* in: user address (USER), 0 (DMABUF) */
	__u64 length;		/* in: bytes (USER), 0 (DMABUF) */
	__u64 cookie;		/* out: global handle of the region */
	__u64 size;		/* out: usable bytes of the region */
	__u64 reserved[4];	/* in: must be 0 */
};

struct hl_ipc_region_deregister {
	__u64 cookie;		/* in: a region this context registered */
	__u32 flags;		/* in: must be 0 */
	__u32 pad;		/* in: must be 0 */
	__u64 reserved[2];	/* in: must be 0 */
};

/* Device kinds reported by REGION_QUERY */
#define HL_IPC_DEV_KIND_HOST	0
#define HL_IPC_DEV_KIND_SIM	1 /* habanalabs_sim */
#define HL_IPC_DEV_KIND_HL	2 /* habanalabs */

struct hl_ipc_region_query {
	__u64 cookie;		/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 region_flags;	/* out: HL_IPC_REGION_* given at register */
	__u64 size;		/* out */
	__u32 type;		/* out: HL_IPC_REGION_DMABUF or _USER */
	__u32 dev_kind;		/* out: HL_IPC_DEV_KIND_* */
	__u32 dev_major;	/* out: char major of the device (0: host) */
	__u32 dev_index;	/* out: minor >> 1 (0: host) */
	__u64 reserved[4];	/* in: must be 0; out: 0 */
};

/* Channel flags */
#define HL_IPC_CHANNEL_SRC_HOST	(1U << 0) /* src_fd is HL_IPC_FD_HOST */
#define HL_IPC_CHANNEL_DST_HOST	(1U << 1) /* dst_fd is HL_IPC_FD_HOST */
#define HL_IPC_CHANNEL_FLAGS_ALL 0x3U

struct hl_ipc_channel_create {
	__s32 src_fd;		/* in: device node fd or HL_IPC_FD_HOST */
	__s32 dst_fd;		/* in: device node fd or HL_IPC_FD_HOST */
	__u32 flags;		/* in: HL_IPC_CHANNEL_* */
	__u32 channel_id;	/* out: non-zero, private to this context */
	__u64 reserved[4];	/* in: must be 0 */
};

struct hl_ipc_channel_destroy {
	__u32 channel_id;	/* in */
	__u32 flags;		/* in: must be 0 */
	__u64 reserved[2];	/* in: must be 0 */
};

/* Copy flags */
#define HL_IPC_COPY_ASYNC	(1U << 0) /* return at once with seq */
#define HL_IPC_COPY_FLAGS_ALL	0x1U

struct hl_ipc_copy {
	__u32 channel_id;	/* in */
	__u32 flags;		/* in: HL_IPC_COPY_* */
	__u64 src_cookie;	/* in */
	__u64 src_offset;	/* in: bytes from the region start */
	__u64 dst_cookie;	/* in */
	__u64 dst_offset;	/* in */
	__u64 length;		/* in: bytes, > 0 */
	__u64 seq;		/* out: sequence number on the channel */
	__u64 reserved[4];	/* in: must be 0 */
};

/* One descriptor of a batch; fields as in struct hl_ipc_copy. */
struct hl_ipc_copy_desc {
	__u64 src_cookie;
	__u64 src_offset;
	__u64 dst_cookie;
	__u64 dst_offset;
	__u64 length;
	__u32 flags;		/* in: must be 0 */
	__u32 pad;		/* in: must be 0 */
};

/*
 * A batch is validated as a whole (nothing is queued if any descriptor
 * is bad; error_index names the first bad one) and then runs as one job
 * with one sequence number, descriptors in array order.
 */
struct hl_ipc_copy_batch {
	__u32 channel_id;	/* in */
	__u32 flags;		/* in: HL_IPC_COPY_* */
	__u64 descs;		/* in: user pointer to hl_ipc_copy_desc[] */
	__u32 count;		/* in: 1 .. INFO.max_batch */
	__u32 error_index;	/* out: first rejected descriptor, on error */
	__u64 seq;		/* out */
	__u64 reserved[4];	/* in: must be 0 */
};

/* WAIT timeouts */
#define HL_IPC_WAIT_INFINITE	(-1LL)

struct hl_ipc_wait {
	__u32 channel_id;	/* in */
	__u32 flags;		/* in: must be 0 */
	__u64 seq;		/* in: 1 .. last submitted seq */
	__s64 timeout_ns;	/* in: < 0 forever, 0 just check */
	__s32 status;		/* out: 0 or -errno of the copy job seq */
	__u32 pad;		/* in: must be 0 */
	__u64 completed_seq;	/* out: all seqs <= this have completed */
	__u64 reserved[4];	/* in: must be 0 */
};

#define HL_IPC_IOCTL_INFO \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x00, struct hl_ipc_info)
#define HL_IPC_IOCTL_REGION_REGISTER \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x01, struct hl_ipc_region_register)
#define HL_IPC_IOCTL_REGION_DEREGISTER \
	_IOW(HL_IPC_IOCTL_MAGIC, 0x02, struct hl_ipc_region_deregister)
#define HL_IPC_IOCTL_REGION_QUERY \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x03, struct hl_ipc_region_query)
#define HL_IPC_IOCTL_CHANNEL_CREATE \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x04, struct hl_ipc_channel_create)
#define HL_IPC_IOCTL_CHANNEL_DESTROY \
	_IOW(HL_IPC_IOCTL_MAGIC, 0x05, struct hl_ipc_channel_destroy)
#define HL_IPC_IOCTL_COPY \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x06, struct hl_ipc_copy)
#define HL_IPC_IOCTL_COPY_BATCH \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x07, struct hl_ipc_copy_batch)
#define HL_IPC_IOCTL_WAIT \
	_IOWR(HL_IPC_IOCTL_MAGIC, 0x08, struct hl_ipc_wait)
/* Does nothing; the floor for per-ioctl overhead in benchmarks. */
#define HL_IPC_IOCTL_NOP \
	_IO(HL_IPC_IOCTL_MAGIC, 0x09)

#endif /* _UAPI_HABANALABS_IPC_H */
