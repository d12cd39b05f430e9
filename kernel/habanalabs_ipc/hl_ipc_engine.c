// SPDX-License-Identifier: GPL-2.0
/*
 * The copy engines' common steps, and the CPU engine.
 *
 * Where both regions of a copy have a kernel mapping (made at
 * registration) the CPU copies them, a chunked memcpy; where one has
 * none, or the engine module parameter says so, the DMA engine does
 * (hl_ipc_dma.c), chunk by chunk in the same loop.  A step copies up to a
 * byte budget of a job from where the previous step stopped, so a work
 * item can hand the CPU to other channels between slices of a large job.
 *
 * Each step of a segment first waits for its dma-buf ends' fences,
 * within fence_timeout_ms and checking every few milliseconds whether to
 * stop, then, for the CPU, lets the exporter prepare CPU access.  Only
 * then does it enter both regions' memory (hl_ipc_region_enter, unless
 * the job was built inside them) and copy, so a deregistration waits for
 * at most one chunk, never for a fence or an exporter.  Between chunks it
 * reschedules and checks whether to stop (hl_ipc_job_check()).
 */
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "hl_ipc.h"

/* How often a fence wait looks whether the copy must stop. */
#define HL_IPC_FENCE_SLICE_MS	10

/*
 * Wait for the fences of @r's dma-buf that an access of this kind must
 * wait for: at most fence_timeout_ms (-ETIMEDOUT), ending early when the
 * copy must stop, and on any signal in the submitting thread (-EINTR).
 */
static int hl_ipc_engine_fences(const struct hl_ipc_job *job,
				const struct hl_ipc_seg *seg,
				struct hl_ipc_region *r, bool write,
				bool in_caller)
{
	unsigned long left, slice;
	long ret;

	left = msecs_to_jiffies(READ_ONCE(hl_ipc_fence_timeout_ms));
	for (;;) {
		slice = min(left, msecs_to_jiffies(HL_IPC_FENCE_SLICE_MS));
		ret = hl_ipc_dmabuf_wait(r, write, in_caller, max(slice, 1UL));
		if (ret > 0)
			return 0;
		if (ret < 0)
			return -EINTR;
		ret = hl_ipc_job_check(job, seg, in_caller);
		if (ret)
			return ret;
		if (left <= slice)
			return -ETIMEDOUT;
		left -= slice;
	}
}

static int hl_ipc_engine_begin_one(const struct hl_ipc_job *job,
				   const struct hl_ipc_seg *seg,
				   struct hl_ipc_region *r, bool write,
				   bool in_caller)
{
	int ret;

	if (r->type != HL_IPC_REGION_DMABUF)
		return 0;
	ret = hl_ipc_engine_fences(job, seg, r, write, in_caller);
	if (ret)
		return ret;
	return hl_ipc_dmabuf_begin_cpu(r);
}

static void hl_ipc_engine_end_cpu(struct hl_ipc_region *r)
{
	if (r->type == HL_IPC_REGION_DMABUF)
		hl_ipc_dmabuf_end_cpu(r);
}

/* Begin CPU access to both ends; nothing is begun on failure. */
static int hl_ipc_engine_begin_cpu(const struct hl_ipc_job *job,
				   const struct hl_ipc_seg *seg, bool in_caller)
{
	int ret;

	ret = hl_ipc_engine_begin_one(job, seg, seg->src, false, in_caller);
	if (ret)
		return ret;
	ret = hl_ipc_engine_begin_one(job, seg, seg->dst, true, in_caller);
	if (ret)
		hl_ipc_engine_end_cpu(seg->src);
	return ret;
}

/* The DMA engine waits for the same fences, and begins no CPU access. */
static int hl_ipc_engine_begin_dma(const struct hl_ipc_job *job,
				   const struct hl_ipc_seg *seg, bool in_caller)
{
	int ret = 0;

	if (seg->src->type == HL_IPC_REGION_DMABUF)
		ret = hl_ipc_engine_fences(job, seg, seg->src, false,
					   in_caller);
	if (!ret && seg->dst->type == HL_IPC_REGION_DMABUF)
		ret = hl_ipc_engine_fences(job, seg, seg->dst, true,
					   in_caller);
	return ret;
}

/* Which engine copies @seg: the CPU where both ends allow it. */
static bool hl_ipc_engine_by_dma(const struct hl_ipc_seg *seg)
{
	return !seg->src->vaddr || !seg->dst->vaddr ||
	       READ_ONCE(hl_ipc_engine_mode) == HL_IPC_ENGINE_MODE_DMA;
}

/* Copy bytes [at, at + n) of the segment. */
static void hl_ipc_engine_copy(const struct hl_ipc_seg *seg, u64 at, u64 n)
{
	u8 *dst = seg->dst->vaddr + seg->dst_off + at;
	u8 *src = seg->src->vaddr + seg->src_off + at;
	u64 p, done;

	if (!seg->piece) {
		memcpy(dst, src, n);
	} else if (seg->memmove) {
		memmove(dst, src, n);
	} else if (seg->backward) {
		for (done = 0; done < n; done += p) {
			p = min(seg->piece, n - done);
			memcpy(dst + n - done - p, src + n - done - p, p);
		}
	} else {
		for (done = 0; done < n; done += p) {
			p = min(seg->piece, n - done);
			memcpy(dst + done, src + done, p);
		}
	}
}

/* Copy up to *budget bytes of one segment; 0 or -errno. */
static int hl_ipc_engine_seg(struct hl_ipc_job *job, struct hl_ipc_seg *seg,
			     u64 *budget, bool in_caller)
{
	bool dma = hl_ipc_engine_by_dma(seg);
	/*
	 * The DMA engine's waits look every few milliseconds whether to
	 * stop, so it takes larger chunks: fewer round trips to the engine.
	 */
	u64 chunk = dma ? max_t(u64, READ_ONCE(hl_ipc_chunk_size),
				HL_IPC_DMA_CHUNK) :
			  READ_ONCE(hl_ipc_chunk_size);
	int ret;

	if (seg->plan) {
		ret = hl_ipc_seg_plan(job, seg, in_caller);
		if (ret)
			return ret;
	}
	ret = dma ? hl_ipc_engine_begin_dma(job, seg, in_caller) :
		    hl_ipc_engine_begin_cpu(job, seg, in_caller);
	if (ret)
		return ret;
	/* A job built inside its regions is still inside. */
	if (!job->entered && !hl_ipc_region_enter(seg->src)) {
		ret = -ENOENT;
		goto out_cpu;
	}
	if (!job->entered && !hl_ipc_region_enter(seg->dst)) {
		ret = -ENOENT;
		goto out_src;
	}

	while (job->cur_done < seg->len && *budget) {
		u64 n = min3(chunk, seg->len - job->cur_done, *budget);
		/* Back to front when the destination lies above the source. */
		u64 at = seg->backward ? seg->len - job->cur_done - n :
					 job->cur_done;

		ret = hl_ipc_job_check(job, seg, in_caller);
		if (ret)
			break;
		if (dma) {
			ret = hl_ipc_dma_copy(job, seg, at, n, in_caller);
			/* Begun on an engine that has left since. */
			if (ret == -EOPNOTSUPP && job->dma_bytes)
				ret = -ENODEV;
			if (ret)
				break;
			job->dma_bytes += n;
		} else {
			hl_ipc_engine_copy(seg, at, n);
		}
		job->cur_done += n;
		*budget -= n;
		if (job->cur_done < seg->len)
			cond_resched();
	}

	if (!job->entered)
		hl_ipc_region_leave(seg->dst);
out_src:
	if (!job->entered)
		hl_ipc_region_leave(seg->src);
out_cpu:
	if (!dma) {
		hl_ipc_engine_end_cpu(seg->dst);
		hl_ipc_engine_end_cpu(seg->src);
	}
	return ret;
}

/*
 * Copy up to @budget bytes of @job, continuing where the last step
 * stopped.  Returns 0 when the job is complete, 1 when it has more to
 * copy, or -errno when it failed (it must not be stepped again).
 */
int hl_ipc_engine_step(struct hl_ipc_job *job, u64 budget, bool in_caller)
{
	int ret;

	while (job->cur_seg < job->nsegs) {
		struct hl_ipc_seg *seg = &job->segs[job->cur_seg];

		if (!budget)
			return 1;
		if (seg->len) {
			ret = hl_ipc_engine_seg(job, seg, &budget, in_caller);
			if (ret)
				return ret;
			if (job->cur_done < seg->len)
				return 1;
		}
		job->cur_seg++;
		job->cur_done = 0;
	}
	return 0;
}
