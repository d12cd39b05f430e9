// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: validated copy descriptors holding their regions.
 *
 * A synchronous single copy builds its job on the caller's stack, inside
 * its regions (hl_ipc_region_get_entered()) rather than holding
 * references, which is all a copy that runs at once needs.  Only when it
 * has to wait in a channel's queue does it move to the heap and trade
 * that for references: a job must never sit in a queue inside a region,
 * or a deregistration would wait for the queue.  Everything else is
 * allocated, charged to the caller's memory cgroup, with references.
 */
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "hl_ipc.h"

void hl_ipc_job_init(struct hl_ipc_job *job, bool entered)
{
	/* Segments are filled in by hl_ipc_job_add(). */
	memset(job, 0, offsetof(struct hl_ipc_job, one));
	kref_init(&job->ref);
	INIT_LIST_HEAD(&job->node);
	job->segs = &job->one;
	job->entered = entered;
}

struct hl_ipc_job *hl_ipc_job_alloc(u32 nsegs)
{
	struct hl_ipc_job *job;

	/* A batch of max_batch descriptors is too large for kmalloc. */
	job = kvmalloc(struct_size(job, more, nsegs > 1 ? nsegs : 0),
		       GFP_KERNEL_ACCOUNT);
	if (!job)
		return NULL;
	hl_ipc_job_init(job, false);
	job->heap = true;
	if (nsegs > 1)
		job->segs = job->more;
	atomic_inc(&hl_ipc_stats.jobs);
	return job;
}

/* Let go of a region the job holds, whichever way it holds it. */
static void hl_ipc_job_drop_region(const struct hl_ipc_job *job,
				   struct hl_ipc_region *r)
{
	if (job->entered)
		hl_ipc_region_leave(r);
	else
		hl_ipc_region_put(r);
}

/*
 * Look a region up the way the job holds its regions; a job built inside
 * its regions is built inside an RCU read section.
 */
static struct hl_ipc_region *hl_ipc_job_get_region(struct hl_ipc_ctx *ctx,
						   const struct hl_ipc_job *job,
						   u64 cookie, bool write)
{
	if (job->entered)
		return hl_ipc_region_get_entered(ctx, cookie, write);
	return hl_ipc_region_get(ctx, cookie, write);
}

/* Drop the regions of a job that never left its builder's hands. */
void hl_ipc_job_release(struct hl_ipc_job *job)
{
	u32 i;

	for (i = 0; i < job->nsegs; i++) {
		hl_ipc_job_drop_region(job, job->segs[i].src);
		hl_ipc_job_drop_region(job, job->segs[i].dst);
	}
	job->nsegs = 0;
}

/*
 * Move a one-copy job built on the stack to the heap, holding references
 * instead of being inside its regions; the stack job is left empty.  NULL
 * when out of memory (the stack job then still holds its regions).
 */
struct hl_ipc_job *hl_ipc_job_move(struct hl_ipc_job *job)
{
	struct hl_ipc_job *heap = hl_ipc_job_alloc(1);

	if (!heap)
		return NULL;
	heap->one = job->one;
	heap->nsegs = job->nsegs;
	if (job->entered && job->nsegs) {
		hl_ipc_region_hold(heap->one.src);
		hl_ipc_region_hold(heap->one.dst);
	}
	job->nsegs = 0;
	return heap;
}

static void hl_ipc_job_free(struct kref *ref)
{
	struct hl_ipc_job *job = container_of(ref, struct hl_ipc_job, ref);

	hl_ipc_job_release(job);
	kvfree(job);
	atomic_dec(&hl_ipc_stats.jobs);
}

/* Only for jobs from hl_ipc_job_alloc(). */
void hl_ipc_job_put(struct hl_ipc_job *job)
{
	kref_put(&job->ref, hl_ipc_job_free);
}

u64 hl_ipc_job_bytes(const struct hl_ipc_job *job)
{
	u64 bytes = 0;
	u32 i;

	for (i = 0; i < job->nsegs; i++)
		bytes += job->segs[i].len;
	return bytes;
}

/*
 * How to copy a segment whose ends may share bytes.  One region, or two
 * regions of one dma-buf, are the same bytes at the same offsets: where
 * the ranges overlap, copy in pieces no longer than the distance between
 * them (their kernel mappings may differ, so neither memcpy nor memmove
 * on them is safe in general), in the order that never overwrites bytes
 * still to be read.  Regions that may share pages with others are
 * planned from the pages themselves before the copy starts.
 */
static void hl_ipc_seg_geometry(struct hl_ipc_seg *seg)
{
	const struct hl_ipc_region *s = seg->src, *d = seg->dst;
	u64 dist;

	if (!hl_ipc_ends_may_share(s, seg->src_off, d, seg->dst_off, seg->len))
		return;
	if (s->share || d->share) {
		seg->plan = true;
		return;
	}
	seg->backward = seg->dst_off > seg->src_off;
	dist = seg->backward ? seg->dst_off - seg->src_off :
			       seg->src_off - seg->dst_off;
	seg->memmove = s->vaddr == d->vaddr;
	seg->piece = dist;
	if (!dist)
		seg->len = 0;		/* the very same bytes: nothing to do */
}

/*
 * Validate one descriptor into the job's next segment.  On error the
 * segment holds no references and the job is unchanged.  Never sleeps:
 * a synchronous copy calls it inside an RCU read section.
 */
int hl_ipc_job_add(struct hl_ipc_ctx *ctx, struct hl_ipc_job *job,
		   const struct hl_ipc_copy_desc *d)
{
	struct hl_ipc_seg *seg = &job->segs[job->nsegs];
	int ret;

	if (!d->length || d->flags || d->pad)
		return -EINVAL;
	memset(seg, 0, sizeof(*seg));
	seg->src = hl_ipc_job_get_region(ctx, job, d->src_cookie, false);
	if (IS_ERR(seg->src))
		return PTR_ERR(seg->src);
	seg->dst = hl_ipc_job_get_region(ctx, job, d->dst_cookie, true);
	if (IS_ERR(seg->dst)) {
		ret = PTR_ERR(seg->dst);
		goto err_src;
	}
	ret = -ERANGE;
	if (!hl_ipc_region_covers(seg->src, d->src_offset, d->length) ||
	    !hl_ipc_region_covers(seg->dst, d->dst_offset, d->length))
		goto err_dst;
	seg->src_off = d->src_offset;
	seg->dst_off = d->dst_offset;
	seg->len = d->length;
	hl_ipc_seg_geometry(seg);
	job->nsegs++;
	return 0;

err_dst:
	hl_ipc_job_drop_region(job, seg->dst);
err_src:
	hl_ipc_job_drop_region(job, seg->src);
	return ret;
}
