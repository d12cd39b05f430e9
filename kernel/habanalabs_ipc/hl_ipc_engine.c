// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU copy engine.
 *
 * Both regions of a copy are mapped into the kernel at registration, so a
 * copy is a chunked memcpy.  A step copies up to a byte budget of a job
 * from where the previous step stopped, so a work item can hand the CPU
 * to other channels between slices of a large job.  Around each step the
 * engine is inside both regions' memory (hl_ipc_region_enter, unless the
 * job was built inside them) with CPU access begun on dma-bufs; between
 * chunks it reschedules and checks whether to stop: a region was revoked
 * (-ENOENT), the job was cancelled (-ECANCELED), or, in the submitting
 * thread, a fatal signal (-EINTR).
 */
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "hl_ipc.h"

static int hl_ipc_engine_check(const struct hl_ipc_job *job,
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
	u64 chunk = READ_ONCE(hl_ipc_chunk_size);
	int ret = 0;

	/* A job built inside its regions is still inside. */
	if (!job->entered && !hl_ipc_region_enter(seg->src))
		return -ENOENT;
	if (!job->entered && !hl_ipc_region_enter(seg->dst)) {
		ret = -ENOENT;
		goto out_src;
	}
	ret = hl_ipc_region_begin_cpu(seg->src);
	if (ret)
		goto out_dst;
	ret = hl_ipc_region_begin_cpu(seg->dst);
	if (ret)
		goto out_cpu_src;

	while (job->cur_done < seg->len && *budget) {
		u64 n = min3(chunk, seg->len - job->cur_done, *budget);
		/* Back to front when the destination lies above the source. */
		u64 at = seg->backward ? seg->len - job->cur_done - n :
					 job->cur_done;

		ret = hl_ipc_engine_check(job, seg, in_caller);
		if (ret)
			break;
		hl_ipc_engine_copy(seg, at, n);
		job->cur_done += n;
		*budget -= n;
		if (job->cur_done < seg->len)
			cond_resched();
	}

	hl_ipc_region_end_cpu(seg->dst);
out_cpu_src:
	hl_ipc_region_end_cpu(seg->src);
out_dst:
	if (!job->entered)
		hl_ipc_region_leave(seg->dst);
out_src:
	if (!job->entered)
		hl_ipc_region_leave(seg->src);
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
