/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs_ipc internal definitions shared by the module's files.
 *
 * Data flows one way: hl_ipc_ioctl.c dispatches a request, hl_ipc_copy.c
 * chooses how a copy runs, hl_ipc_job.c turns copy descriptors into a job
 * holding its regions, hl_ipc_channel.c queues and orders jobs,
 * hl_ipc_engine.c copies; a small synchronous copy goes to the channel
 * without a job.  Regions
 * (hl_ipc_region.c, with hl_ipc_dmabuf.c and hl_ipc_pin.c behind it) and
 * per-user accounting (hl_ipc_user.c) are used from above and call
 * nothing above them.
 */
#ifndef HL_IPC_H
#define HL_IPC_H

#include <linux/atomic.h>
#include <linux/dma-buf.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "habanalabs_ipc.h"

struct file;
struct mm_struct;
struct page;
struct seq_file;
struct user_struct;
struct hl_ipc_share;
struct hl_ipc_dma_map;
struct mem_cgroup;

/* Module parameters (hl_ipc_params.c); always within their bounds. */
extern unsigned int hl_ipc_max_regions;		/* per context */
extern unsigned int hl_ipc_max_channels;	/* per context */
extern unsigned int hl_ipc_max_batch;		/* descriptors per batch */
extern unsigned int hl_ipc_chunk_size;		/* bytes between checks */
extern unsigned int hl_ipc_max_pending;		/* queued jobs per channel */
extern unsigned int hl_ipc_user_max_contexts;
extern unsigned int hl_ipc_user_max_channels;
extern unsigned int hl_ipc_user_max_regions;
extern unsigned int hl_ipc_user_max_jobs;	/* queued async jobs */
extern unsigned int hl_ipc_user_max_workers;	/* copies running at once */
extern unsigned int hl_ipc_fence_timeout_ms;	/* dma-buf fence wait bound */
extern unsigned int hl_ipc_dma_timeout_ms;	/* DMA descriptors wait bound */

/* Which engine copies (module parameter "engine"). */
enum hl_ipc_engine_mode {
	HL_IPC_ENGINE_MODE_AUTO,	/* CPU where both ends allow, else DMA */
	HL_IPC_ENGINE_MODE_CPU,		/* CPU only */
	HL_IPC_ENGINE_MODE_DMA,		/* the DMA engine for every copy */
};

extern enum hl_ipc_engine_mode hl_ipc_engine_mode;

/* User regions are limited to 64 GiB: a 128 MiB page array at most. */
#define HL_IPC_USER_MAX_LEN	(64ULL << 30)

/* A device named by an fd, reduced to what identifies it. */
struct hl_ipc_devid {
	u32 kind;	/* HL_IPC_DEV_KIND_* */
	u32 major;
	u32 index;	/* minor >> 1: compute and control nodes coincide */
};

int hl_ipc_devid_from_fd(int fd, bool host, struct hl_ipc_devid *id);

/*
 * Global counters, exported through sysfs (hl_ipc_stats.c).  Those every
 * copy updates are per CPU, so copies on different CPUs share no cache
 * line.
 */
struct hl_ipc_pcpu_stats {
	unsigned long copies;	/* completed copy jobs */
	unsigned long bytes;	/* bytes copied */
	unsigned long small_copies;	/* of them, without a job */
	unsigned long dma_bytes;	/* of the bytes, by a DMA engine */
};

DECLARE_PER_CPU(struct hl_ipc_pcpu_stats, hl_ipc_pcpu_stats);

struct hl_ipc_stats {
	atomic64_t errors;	/* jobs that ended with an error */
	atomic64_t lookup_failures;	/* cookies not found or not usable */
	atomic_t contexts;
	atomic_t regions;
	atomic_t channels;
	atomic_t jobs;		/* submitted, not yet freed */
	atomic_t users;		/* uids with an open context */
	atomic64_t pinned_pages;	/* user pages pinned by regions */
};

extern struct hl_ipc_stats hl_ipc_stats;

/*
 * Everything one uid holds, across its contexts, so that limits bound a
 * user and not just one open file (hl_ipc_user.c).
 */
struct hl_ipc_user {
	refcount_t ref;
	kuid_t uid;
	/*
	 * Where this user's channels copy: a workqueue of its own, so that
	 * its work items, however long they wait, hold at most
	 * user_max_workers workers and never delay another user's.
	 */
	struct workqueue_struct *wq;
	atomic_t contexts;
	atomic_t channels;
	atomic_t regions;
	atomic_t jobs;		/* queued async jobs */
};

struct hl_ipc_user *hl_ipc_user_get(kuid_t uid);
void hl_ipc_user_put(struct hl_ipc_user *u);
bool hl_ipc_user_charge(atomic_t *count, unsigned int limit);
void hl_ipc_user_uncharge(atomic_t *count);
void hl_ipc_users_fini(void);

/* One open file of /dev/hl_ipc. */
struct hl_ipc_ctx {
	struct mutex lock;		/* regions list, channel ids */
	struct list_head regions;	/* regions this context registered */
	unsigned int nregions;
	struct xarray channels;		/* id -> complete channels only */
	u32 next_channel;		/* ids are handed out cyclically */
	unsigned int nchannels;
	wait_queue_head_t poll_wq;
	struct hl_ipc_user *user;	/* the opener's euid */
	atomic64_t lookup_failures;
	pid_t tgid;
};

struct hl_ipc_region {
	struct kref ref;
	struct rhash_head hnode;	/* in the cookie table */
	struct rcu_head rcu;
	u64 cookie;
	u32 type;			/* HL_IPC_REGION_DMABUF / _USER */
	u32 flags;			/* HL_IPC_REGION_* */
	bool revoked;			/* deregistered: stop copies */
	atomic_t active;		/* engine sections inside the memory */
	/*
	 * Small copies may use the memory from inside an RCU read section
	 * without entering it (hl_ipc_region_peek()); set only from inside,
	 * so that deregistration, having waited for those, knows to wait a
	 * grace period too.
	 */
	bool small_ok;
	kuid_t uid;
	struct hl_ipc_ctx *owner;	/* compared only */
	struct list_head node;		/* in owner->regions */
	struct hl_ipc_devid dev;
	u8 *vaddr;			/* kernel mapping of byte 0 */
	u64 size;

	/*
	 * What the memory is, to tell when two regions are the same bytes at
	 * the same offsets: the dma-buf, or for user memory the region
	 * itself.  Regions that may share pages with others have share set
	 * (hl_ipc_share.c).
	 */
	const void *backing;
	struct hl_ipc_share *share;	/* pages other regions may hold */

	/* The pages behind vaddr: pinned (user), or what the vmap shows. */
	struct page **pages;
	unsigned long npages;

	/*
	 * The memory as the DMA engine's device sees it, once a copy needed
	 * it (hl_ipc_dma.c); copies hold dma_sem for reading while they use
	 * it, mapping takes it for writing.
	 */
	struct rw_semaphore dma_sem;
	struct hl_ipc_dma_map *dma;

	/* HL_IPC_REGION_DMABUF; vaddr NULL when only the DMA engine reaches it */
	struct dma_buf *dbuf;
	struct iosys_map map;
	bool frames_counted;		/* in hl_ipc_frames.c */

	/* HL_IPC_REGION_USER */
	struct mm_struct *mm;		/* pinned_vm shows the pages */
	struct user_struct *locked_user;	/* charged locked_vm, or NULL */
	void *vbase;
};

int hl_ipc_region_register(struct hl_ipc_ctx *ctx,
			   struct hl_ipc_region_register *args);
int hl_ipc_region_deregister(struct hl_ipc_ctx *ctx, u64 cookie);
int hl_ipc_region_query(struct hl_ipc_ctx *ctx,
			struct hl_ipc_region_query *args);
struct hl_ipc_region *hl_ipc_region_get(struct hl_ipc_ctx *ctx, u64 cookie,
					bool write);
struct hl_ipc_region *hl_ipc_region_get_entered(struct hl_ipc_ctx *ctx,
						u64 cookie, bool write);
struct hl_ipc_region *hl_ipc_region_peek(struct hl_ipc_ctx *ctx, u64 cookie,
					 u64 off, u64 len, bool write);
void hl_ipc_region_hold(struct hl_ipc_region *r);
void hl_ipc_region_put(struct hl_ipc_region *r);
void hl_ipc_region_revoke_all(struct hl_ipc_ctx *ctx);

/*
 * Copies enter a region's memory and leave it; a deregistration marks the
 * region revoked and waits until nobody is inside.  Inline: every copy
 * does both twice.
 */
static inline void hl_ipc_region_leave(struct hl_ipc_region *r)
{
	/*
	 * Once active drops to 0 a deregistration may go on and drop the
	 * last reference; the region is freed after an RCU grace period,
	 * which this read section holds off until the check is done.
	 * atomic_dec_and_test() is a full barrier before the load.
	 */
	rcu_read_lock();
	if (atomic_dec_and_test(&r->active) && READ_ONCE(r->revoked))
		wake_up_var(&r->active);
	rcu_read_unlock();
}

/*
 * Enter the region's memory, or learn that it was revoked.  Pairs with
 * the barrier in hl_ipc_region_unpublish(): either the revoker sees us
 * inside and waits, or we see the revocation and stay out.
 */
static inline bool hl_ipc_region_enter(struct hl_ipc_region *r)
{
	atomic_inc(&r->active);
	smp_mb__after_atomic();	/* count visible before the check */
	if (likely(!READ_ONCE(r->revoked)))
		return true;
	hl_ipc_region_leave(r);
	return false;
}

int hl_ipc_regions_init(void);
void hl_ipc_regions_fini(void);

/* Backends of a region's memory (hl_ipc_dmabuf.c, hl_ipc_pin.c). */
int hl_ipc_dmabuf_import(struct hl_ipc_region *r, int fd);
void hl_ipc_dmabuf_release(struct hl_ipc_region *r);
long hl_ipc_dmabuf_wait(struct hl_ipc_region *r, bool write, bool intr,
			unsigned long timeout);
int hl_ipc_dmabuf_begin_cpu(struct hl_ipc_region *r);
void hl_ipc_dmabuf_end_cpu(struct hl_ipc_region *r);
int hl_ipc_pin_user(struct hl_ipc_region *r, u64 addr, u64 len);
void hl_ipc_unpin_user(struct hl_ipc_region *r);

/*
 * One copy of a job.  When both ends share bytes, it is copied in pieces
 * of at most @piece bytes that cannot overlap, back to front when a
 * shared byte's destination index is below its source index; @memmove
 * says that both ends use the same kernel mapping, so whole chunks can be
 * moved.  @plan: the ends may share pages, which hl_ipc_seg_plan() works
 * out before the first byte is copied.
 */
struct hl_ipc_seg {
	struct hl_ipc_region *src;
	struct hl_ipc_region *dst;
	u64 src_off;
	u64 dst_off;
	u64 len;
	u64 piece;		/* 0: no overlap */
	bool backward;
	bool memmove;
	bool plan;
};

struct hl_ipc_job {
	struct kref ref;
	struct list_head node;		/* in channel->pending */
	u64 seq;
	int status;
	bool done;
	bool cancel;			/* stop at the next chunk */
	bool async;			/* charged to the user's job count */
	bool heap;			/* from hl_ipc_job_alloc() */
	bool entered;			/* segments inside their regions */
	u32 nsegs;
	/* Progress, so that a job can be copied in several slices. */
	u32 cur_seg;
	u64 cur_done;
	u64 dma_bytes;			/* of them, copied by the DMA engine */
	struct hl_ipc_seg *segs;	/* &one, or the array after the job */
	struct hl_ipc_seg one;
	struct hl_ipc_seg more[];
};

void hl_ipc_job_init(struct hl_ipc_job *job, bool entered);
struct hl_ipc_job *hl_ipc_job_alloc(u32 nsegs);
struct hl_ipc_job *hl_ipc_job_move(struct hl_ipc_job *job);
void hl_ipc_job_put(struct hl_ipc_job *job);
void hl_ipc_job_release(struct hl_ipc_job *job);
int hl_ipc_job_add(struct hl_ipc_ctx *ctx, struct hl_ipc_job *job,
		   const struct hl_ipc_copy_desc *d);
u64 hl_ipc_job_bytes(const struct hl_ipc_job *job);

/* Carrying out copy requests (hl_ipc_copy.c). */
int hl_ipc_copy(struct hl_ipc_ctx *ctx, u32 channel_id,
		const struct hl_ipc_copy_desc *desc, bool async, u64 *seq);
int hl_ipc_copy_batch(struct hl_ipc_ctx *ctx, u32 channel_id,
		      const struct hl_ipc_copy_desc *descs, u32 count,
		      bool async, u64 *seq, u32 *bad);

/*
 * Why a copy must stop now, or 0: a region was revoked (-ENOENT), the job
 * was cancelled (-ECANCELED) or, in the submitting thread, a fatal signal
 * is pending (-EINTR).
 */
static inline int hl_ipc_job_check(const struct hl_ipc_job *job,
				   const struct hl_ipc_seg *seg, bool in_caller)
{
	if (READ_ONCE(seg->src->revoked) || READ_ONCE(seg->dst->revoked))
		return -ENOENT;
	if (READ_ONCE(job->cancel))
		return -ECANCELED;
	if (in_caller && fatal_signal_pending(current))
		return -EINTR;
	return 0;
}

/*
 * The copy engines: the CPU (hl_ipc_engine.c), which also runs the DMA
 * engine (hl_ipc_dma.c) in chunks of at least HL_IPC_DMA_CHUNK bytes.
 */
#define HL_IPC_DMA_CHUNK	SZ_16M
int hl_ipc_engine_step(struct hl_ipc_job *job, u64 budget, bool in_caller);
int hl_ipc_dma_init(void);
void hl_ipc_dma_fini(void);
bool hl_ipc_dma_available(void);
int hl_ipc_dma_region_prepare(struct hl_ipc_region *r);
void hl_ipc_dma_region_release(struct hl_ipc_region *r);
int hl_ipc_dma_copy(const struct hl_ipc_job *job, struct hl_ipc_seg *seg,
		    u64 at, u64 n, bool in_caller);
ssize_t hl_ipc_dma_describe(char *buf);

/* Memory identity (hl_ipc_share.c, hl_ipc_frames.c). */
int hl_ipc_share_scan(struct hl_ipc_region *r);
void hl_ipc_share_free(struct hl_ipc_region *r);
int hl_ipc_seg_plan(const struct hl_ipc_job *job, struct hl_ipc_seg *seg,
		    bool in_caller);
int hl_ipc_frames_init(void);
void hl_ipc_frames_fini(void);
int hl_ipc_frames_add(struct page **pages, unsigned long n,
		      unsigned long *shared);
void hl_ipc_frames_del(struct page **pages, unsigned long n);
bool hl_ipc_frames_held(struct page *page);

/*
 * Small copies (hl_ipc_channel_copy_small()) run without a job, in one
 * RCU read section and one lock section of their channel: at most a
 * page, so that neither is held for long.
 */
#define HL_IPC_SMALL_COPY_MAX	4096

/* Whether [off, off + len) lies inside the region, without overflowing. */
static inline bool hl_ipc_region_covers(const struct hl_ipc_region *r,
					u64 off, u64 len)
{
	return off <= r->size && len <= r->size - off;
}

/*
 * Whether a copy's two ends may share bytes: regions that may share pages
 * with others, or the same memory (one dma-buf, or one user region) with
 * ranges that meet.  hl_ipc_seg_geometry() works out how to copy such
 * ends; a small copy leaves them to it.
 */
static inline bool hl_ipc_ends_may_share(const struct hl_ipc_region *src,
					 u64 soff,
					 const struct hl_ipc_region *dst,
					 u64 doff, u64 len)
{
	if (src->share || dst->share)
		return true;
	return src->backing == dst->backing && soff < doff + len &&
	       doff < soff + len;
}

static inline void hl_ipc_engine_copy_small(u8 *dst, const u8 *src, u64 len)
{
	memcpy(dst, src, len);
}

struct hl_ipc_channel {
	struct kref ref;
	struct rcu_head rcu;
	u32 id;
	struct hl_ipc_ctx *ctx;		/* valid until the channel is killed */
	struct workqueue_struct *workq;	/* the user's */
	struct mem_cgroup *memcg;	/* the creator's, for error records */
	pid_t tgid;
	struct hl_ipc_devid src;
	struct hl_ipc_devid dst;

	spinlock_t lock;		/* everything below up to wq */
	struct list_head pending;
	unsigned int npending;
	struct hl_ipc_job *running;	/* being copied right now */
	bool dead;			/* destroyed: no new jobs */
	u64 next_seq;			/* last seq handed out */
	u64 completed_seq;
	u64 async_done_seq;		/* last async job completed */
	u64 reported_seq;		/* highest seq returned by WAIT */
	u64 cancel_seq;			/* first seq cancelled by destroy */
	u64 forgotten_seq;		/* error records <= this may be lost */
	unsigned int nerrors;
	wait_queue_head_t wq;
	struct work_struct work;

	struct xarray errors;		/* seq -> failed job's -errno */

	struct list_head gnode;		/* global list, for debugfs */
	u64 copies;			/* under lock */
	u64 bytes;			/* under lock */
	u64 dma_bytes;			/* under lock: of them, by the DMA engine */
	atomic64_t failures;
};

int hl_ipc_channel_create(struct hl_ipc_ctx *ctx,
			  struct hl_ipc_channel_create *args);
int hl_ipc_channel_destroy(struct hl_ipc_ctx *ctx, u32 id);
struct hl_ipc_channel *hl_ipc_channel_find(struct hl_ipc_ctx *ctx, u32 id);
bool hl_ipc_channel_tryget(struct hl_ipc_channel *ch);
struct hl_ipc_channel *hl_ipc_channel_get(struct hl_ipc_ctx *ctx, u32 id);
int hl_ipc_channel_claim(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
			 u64 *seq);
int hl_ipc_channel_run(struct hl_ipc_channel *ch, struct hl_ipc_job *job);
int hl_ipc_channel_copy_small(struct hl_ipc_channel *ch, u8 *dst,
			      const u8 *src, u64 len, u64 *seq);
void hl_ipc_channel_put(struct hl_ipc_channel *ch);
void hl_ipc_channel_destroy_all(struct hl_ipc_ctx *ctx);
int hl_ipc_channel_submit(struct hl_ipc_ctx *ctx, struct hl_ipc_channel *ch,
			  struct hl_ipc_job *job, bool async, u64 *seq);
int hl_ipc_channel_wait(struct hl_ipc_channel *ch, struct hl_ipc_wait *args);
bool hl_ipc_ctx_has_completions(struct hl_ipc_ctx *ctx);
void hl_ipc_channels_show(struct seq_file *m);

long hl_ipc_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

void hl_ipc_show_fdinfo(struct seq_file *m, struct file *file);

void hl_ipc_stats_init(void);
void hl_ipc_stats_fini(void);
extern const struct attribute_group *hl_ipc_attr_groups[];

#endif /* HL_IPC_H */
