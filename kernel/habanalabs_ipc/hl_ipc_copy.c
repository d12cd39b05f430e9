// SPDX-License-Identifier: GPL-2.0
/*
 * How a copy request is carried out.
 *
 * An asynchronous copy or a batch becomes a job on the heap, queued on its
 * channel (an asynchronous copy is a batch of one).  A synchronous copy builds its job on the stack and, on an idle
 * channel, runs it in the caller (hl_ipc_copy_sync()).  A small one
 * between user regions that cannot share bytes does not even build a job
 * (hl_ipc_copy_small()).  Every path reports errors the same way; the
 * paths differ only in what they cost.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "hl_ipc.h"

/*
 * A small copy between user-memory regions: looked up, checked and copied
 * in one RCU read section, without a job and without entering the
 * regions.  1 when it is not one for this path (the channel is busy, a
 * region is a dma-buf, not yet used by a synchronous copy, or may overlap
 * the other end, or anything is wrong): hl_ipc_copy_sync() then does it,
 * and reports any error as usual.
 */
static int hl_ipc_copy_small(struct hl_ipc_ctx *ctx, u32 channel_id,
			     const struct hl_ipc_copy_desc *desc, u64 *seq)
{
	struct hl_ipc_region *src, *dst;
	struct hl_ipc_channel *ch;
	int ret = 1;

	rcu_read_lock();
	ch = hl_ipc_channel_find(ctx, channel_id);
	src = hl_ipc_region_peek(ctx, desc->src_cookie, desc->src_offset,
				 desc->length, false);
	dst = hl_ipc_region_peek(ctx, desc->dst_cookie, desc->dst_offset,
				 desc->length, true);
	/* Ends that may share bytes are hl_ipc_job_add()'s to sort out. */
	if (ch && src && dst &&
	    !hl_ipc_ends_may_share(src, desc->src_offset, dst,
				   desc->dst_offset, desc->length))
		ret = hl_ipc_channel_copy_small(ch,
						dst->vaddr + desc->dst_offset,
						src->vaddr + desc->src_offset,
						desc->length, seq);
	rcu_read_unlock();
	return ret;
}

/*
 * A synchronous copy builds its job on the stack, inside its regions, and
 * on an idle channel runs it right here without a reference on the
 * channel: the channel is looked up, the regions entered and the channel
 * claimed in one RCU read section, and a claimed channel outlives its
 * running job.  Only a busy channel costs a reference (and a heap job).
 * A copy with a dma-buf end holds references instead of staying inside:
 * it must wait for the dma-buf's fences, and nobody's deregistration may
 * wait for those.
 */
static int hl_ipc_copy_sync(struct hl_ipc_ctx *ctx, u32 channel_id,
			    const struct hl_ipc_copy_desc *desc, u64 *seq)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_job job;
	int ret;

	hl_ipc_job_init(&job, true);
	rcu_read_lock();
	ch = hl_ipc_channel_find(ctx, channel_id);
	if (!ch) {
		rcu_read_unlock();
		return -ENOENT;
	}
	ret = hl_ipc_job_add(ctx, &job, desc);
	if (!ret && (job.one.src->type == HL_IPC_REGION_DMABUF ||
		     job.one.dst->type == HL_IPC_REGION_DMABUF)) {
		hl_ipc_region_hold(job.one.src);
		hl_ipc_region_hold(job.one.dst);
		job.entered = false;
	}
	if (!ret)
		ret = hl_ipc_channel_claim(ch, &job, seq);
	if (ret == -EBUSY && !hl_ipc_channel_tryget(ch))
		ret = -ENOENT;
	rcu_read_unlock();

	if (!ret) {
		ret = hl_ipc_channel_run(ch, &job);
	} else if (ret == -EBUSY) {
		ret = hl_ipc_channel_submit(ctx, ch, &job, false, seq);
		hl_ipc_channel_put(ch);
	}
	hl_ipc_job_release(&job);
	return ret;
}

/*
 * @count copies as one job with one sequence number, in array order.
 * Nothing is queued unless every descriptor is valid; *@bad is the index
 * of the first that is not.
 */
int hl_ipc_copy_batch(struct hl_ipc_ctx *ctx, u32 channel_id,
		      const struct hl_ipc_copy_desc *descs, u32 count,
		      bool async, u64 *seq, u32 *bad)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_job *job;
	int ret = 0;
	u32 i;

	*seq = 0;
	ch = hl_ipc_channel_get(ctx, channel_id);
	if (!ch)
		return -ENOENT;
	job = hl_ipc_job_alloc(count);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < count; i++) {
		ret = hl_ipc_job_add(ctx, job, &descs[i]);
		if (ret) {
			*bad = i;
			hl_ipc_job_put(job);
			goto out;
		}
	}
	ret = hl_ipc_channel_submit(ctx, ch, job, async, seq);
out:
	hl_ipc_channel_put(ch);
	return ret;
}

/*
 * One copy on channel @channel_id.  *@seq is its sequence number, or 0
 * when it got none; a synchronous copy that failed may have one.
 */
int hl_ipc_copy(struct hl_ipc_ctx *ctx, u32 channel_id,
		const struct hl_ipc_copy_desc *desc, bool async, u64 *seq)
{
	u32 bad;

	*seq = 0;
	if (async)
		return hl_ipc_copy_batch(ctx, channel_id, desc, 1, true, seq,
					 &bad);
	/* The small path is the CPU's; the engine parameter may say DMA. */
	if (desc->length && desc->length <= HL_IPC_SMALL_COPY_MAX &&
	    READ_ONCE(hl_ipc_engine_mode) != HL_IPC_ENGINE_MODE_DMA &&
	    !hl_ipc_copy_small(ctx, channel_id, desc, seq))
		return 0;
	return hl_ipc_copy_sync(ctx, channel_id, desc, seq);
}
