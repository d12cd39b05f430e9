/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs_ipc internal definitions shared by the module's files.
 */
#ifndef HL_IPC_H
#define HL_IPC_H

#include <linux/atomic.h>
#include <linux/dma-buf.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "habanalabs_ipc.h"

struct device;
struct file;
struct page;
struct seq_file;
struct mm_struct;

/* Module parameters (hl_ipc_main.c). */
extern unsigned int hl_ipc_max_regions;
extern unsigned int hl_ipc_max_channels;
extern unsigned int hl_ipc_max_batch;
extern unsigned int hl_ipc_chunk_size;

/* The misc device; dma-bufs are attached to it as the importer. */
extern struct device *hl_ipc_dev;
extern struct workqueue_struct *hl_ipc_wq;

/* A device named by an fd, reduced to what identifies it. */
struct hl_ipc_devid {
	u32 kind;	/* HL_IPC_DEV_KIND_* */
	u32 major;
	u32 index;	/* minor >> 1: compute and control nodes coincide */
};

int hl_ipc_devid_from_fd(int fd, bool host, struct hl_ipc_devid *id);

/* Global counters, exported through sysfs (hl_ipc_stats.c). */
struct hl_ipc_stats {
	atomic64_t copies;	/* completed copy jobs */
	atomic64_t bytes;	/* bytes copied */
	atomic64_t errors;	/* jobs that ended with an error */
	atomic_t contexts;
	atomic_t regions;
	atomic_t channels;
	atomic_t jobs;		/* submitted, not yet freed */
	atomic64_t pinned_pages;	/* user pages pinned by regions */
};

extern struct hl_ipc_stats hl_ipc_stats;

/* One open file of /dev/hl_ipc. */
struct hl_ipc_ctx {
	struct mutex lock;		/* regions list, channel creation */
	struct list_head regions;	/* regions this context registered */
	unsigned int nregions;
	struct xarray channels;		/* id -> struct hl_ipc_channel */
	unsigned int nchannels;
	wait_queue_head_t poll_wq;
	pid_t tgid;
};

struct hl_ipc_region {
	struct kref ref;
	u64 cookie;
	u32 idx;			/* index in the global xarray */
	u32 type;			/* HL_IPC_REGION_DMABUF / _USER */
	u32 flags;			/* HL_IPC_REGION_* */
	bool revoked;			/* deregistered: stop copies */
	kuid_t uid;
	struct hl_ipc_ctx *owner;	/* compared only, under owner->lock */
	struct list_head node;		/* in owner->regions */
	struct hl_ipc_devid dev;
	u8 *vaddr;			/* kernel mapping of byte 0 */
	u64 size;

	/* HL_IPC_REGION_DMABUF */
	struct dma_buf *dbuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map map;

	/* HL_IPC_REGION_USER */
	struct page **pages;
	unsigned long npages;
	struct mm_struct *mm;		/* charged for the pinned pages */
	void *vbase;
};

int hl_ipc_region_register(struct hl_ipc_ctx *ctx,
			   struct hl_ipc_region_register *args);
int hl_ipc_region_deregister(struct hl_ipc_ctx *ctx, u64 cookie);
int hl_ipc_region_query(struct hl_ipc_ctx *ctx,
			struct hl_ipc_region_query *args);
struct hl_ipc_region *hl_ipc_region_get(struct hl_ipc_ctx *ctx, u64 cookie,
					bool write);
void hl_ipc_region_put(struct hl_ipc_region *r);
void hl_ipc_region_revoke_all(struct hl_ipc_ctx *ctx);
void hl_ipc_regions_init(void);
void hl_ipc_regions_fini(void);

/* One copy inside a job, with references on both regions. */
struct hl_ipc_seg {
	struct hl_ipc_region *src;
	struct hl_ipc_region *dst;
	u64 src_off;
	u64 dst_off;
	u64 len;
};

struct hl_ipc_job {
	struct kref ref;
	struct list_head node;		/* in channel->pending */
	u64 seq;
	int status;
	bool done;
	bool cancel;			/* the sync submitter was killed */
	u32 nsegs;
	struct hl_ipc_seg segs[];
};

struct hl_ipc_job *hl_ipc_job_alloc(u32 nsegs);
void hl_ipc_job_put(struct hl_ipc_job *job);
int hl_ipc_seg_init(struct hl_ipc_ctx *ctx, struct hl_ipc_seg *seg,
		    u64 src_cookie, u64 src_off, u64 dst_cookie, u64 dst_off,
		    u64 len);

struct hl_ipc_channel {
	struct kref ref;
	u32 id;
	struct hl_ipc_ctx *ctx;
	pid_t tgid;
	struct hl_ipc_devid src;
	struct hl_ipc_devid dst;

	spinlock_t lock;		/* everything below up to wq */
	struct list_head pending;
	bool busy;			/* a job is being copied */
	bool dead;			/* being destroyed */
	u64 next_seq;			/* last seq handed out */
	u64 completed_seq;
	u64 reported_seq;		/* highest seq returned by WAIT */
	wait_queue_head_t wq;
	struct work_struct work;

	struct xarray errors;		/* seq -> failed job's -errno */
	unsigned int nerrors;

	struct list_head gnode;		/* global list, for debugfs */
	atomic64_t copies;
	atomic64_t bytes;
	atomic64_t failures;
};

int hl_ipc_channel_create(struct hl_ipc_ctx *ctx,
			  struct hl_ipc_channel_create *args);
int hl_ipc_channel_destroy(struct hl_ipc_ctx *ctx, u32 id);
struct hl_ipc_channel *hl_ipc_channel_get(struct hl_ipc_ctx *ctx, u32 id);
void hl_ipc_channel_put(struct hl_ipc_channel *ch);
void hl_ipc_channel_destroy_all(struct hl_ipc_ctx *ctx);
int hl_ipc_channel_submit(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
			  bool async, u64 *seq);
int hl_ipc_channel_wait(struct hl_ipc_channel *ch, struct hl_ipc_wait *args);
bool hl_ipc_ctx_has_completions(struct hl_ipc_ctx *ctx);
void hl_ipc_channels_show(struct seq_file *m);

/* The CPU copy engine (hl_ipc_copy.c). */
int hl_ipc_engine_run(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
		      bool in_caller);
long hl_ipc_ioctl_copy(struct hl_ipc_ctx *ctx, void __user *uarg);
long hl_ipc_ioctl_copy_batch(struct hl_ipc_ctx *ctx, void __user *uarg);

void hl_ipc_show_fdinfo(struct seq_file *m, struct file *file);

int hl_ipc_stats_init(void);
void hl_ipc_stats_fini(void);
extern const struct attribute_group *hl_ipc_attr_groups[];

#endif /* HL_IPC_H */
