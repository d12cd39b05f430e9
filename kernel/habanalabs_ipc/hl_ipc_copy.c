// SPDX-License-Identifier: GPL-2.0
/*
 * Copies: validation of copy descriptors into jobs, and the CPU copy
 * engine.
 *
 * Both regions of a copy are mapped into the kernel at registration, so
 * the engine is a chunked memcpy.  Between chunks it reschedules and
 * checks whether the copy must stop: a region was revoked (-ENOENT), the
 * channel is being destroyed or the sync submitter was killed
 * (-ECANCELED), or, when it runs in the caller, a fatal signal (-EINTR).
 */
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hl_ipc.h"

struct hl_ipc_job *hl_ipc_job_alloc(u32 nsegs)
{
	struct hl_ipc_job *job;

	job = kzalloc(struct_size(job, segs, nsegs), GFP_KERNEL);
	if (!job)
		return NULL;
	kref_init(&job->ref);
	INIT_LIST_HEAD(&job->node);
	atomic_inc(&hl_ipc_stats.jobs);
	return job;
}

static void hl_ipc_job_free(struct kref *ref)
{
	struct hl_ipc_job *job = container_of(ref, struct hl_ipc_job, ref);
	u32 i;

	for (i = 0; i < job->nsegs; i++) {
		hl_ipc_region_put(job->segs[i].src);
		hl_ipc_region_put(job->segs[i].dst);
	}
	kfree(job);
	atomic_dec(&hl_ipc_stats.jobs);
}

void hl_ipc_job_put(struct hl_ipc_job *job)
{
	kref_put(&job->ref, hl_ipc_job_free);
}

static int hl_ipc_check_range(const struct hl_ipc_region *r, u64 off, u64 len)
{
	u64 end;

	if (check_add_overflow(off, len, &end) || end > r->size)
		return -ERANGE;
	return 0;
}

/* Fill seg with referenced regions; on error seg holds no references. */
int hl_ipc_seg_init(struct hl_ipc_ctx *ctx, struct hl_ipc_seg *seg,
		    u64 src_cookie, u64 src_off, u64 dst_cookie, u64 dst_off,
		    u64 len)
{
	int ret;

	if (!len)
		return -EINVAL;
	seg->src = hl_ipc_region_get(ctx, src_cookie, false);
	if (IS_ERR(seg->src)) {
		ret = PTR_ERR(seg->src);
		seg->src = NULL;
		return ret;
	}
	seg->dst = hl_ipc_region_get(ctx, dst_cookie, true);
	if (IS_ERR(seg->dst)) {
		ret = PTR_ERR(seg->dst);
		goto err;
	}
	ret = hl_ipc_check_range(seg->src, src_off, len);
	if (!ret)
		ret = hl_ipc_check_range(seg->dst, dst_off, len);
	if (ret) {
		hl_ipc_region_put(seg->dst);
		goto err;
	}
	seg->src_off = src_off;
	seg->dst_off = dst_off;
	seg->len = len;
	return 0;
err:
	hl_ipc_region_put(seg->src);
	seg->src = NULL;
	seg->dst = NULL;
	return ret;
}

static int hl_ipc_engine_check(struct hl_ipc_channel *ch,
			       struct hl_ipc_job *job,
			       const struct hl_ipc_seg *seg, bool in_caller)
{
	if (READ_ONCE(seg->src->revoked) || READ_ONCE(seg->dst->revoked))
		return -ENOENT;
	if (READ_ONCE(ch->dead) || READ_ONCE(job->cancel))
		return -ECANCELED;
	if (in_caller && fatal_signal_pending(current))
		return -EINTR;
	return 0;
}

int hl_ipc_engine_run(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
		      bool in_caller)
{
	u64 chunk = max_t(u64, READ_ONCE(hl_ipc_chunk_size), PAGE_SIZE);
	u32 i;
	int ret;

	for (i = 0; i < job->nsegs; i++) {
		const struct hl_ipc_seg *seg = &job->segs[i];
		u8 *src = seg->src->vaddr + seg->src_off;
		u8 *dst = seg->dst->vaddr + seg->dst_off;
		bool same = seg->src == seg->dst;
		/*
		 * Within one region the ranges may overlap: then chunks go
		 * back to front when the destination is above the source,
		 * so that no chunk reads what an earlier one overwrote.
		 */
		bool backward = same && seg->dst_off > seg->src_off;
		u64 done = 0;

		while (done < seg->len) {
			u64 n = min(chunk, seg->len - done);
			u64 at = backward ? seg->len - done - n : done;

			ret = hl_ipc_engine_check(ch, job, seg, in_caller);
			if (ret)
				return ret;
			if (same)
				memmove(dst + at, src + at, n);
			else
				memcpy(dst + at, src + at, n);
			done += n;
			if (done < seg->len)
				cond_resched();
		}
	}
	return 0;
}

static bool hl_ipc_zero(const u64 *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

long hl_ipc_ioctl_copy(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_job *job;
	struct hl_ipc_copy a;
	bool async;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~HL_IPC_COPY_FLAGS_ALL ||
	    !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	async = a.flags & HL_IPC_COPY_ASYNC;

	ch = hl_ipc_channel_get(ctx, a.channel_id);
	if (!ch)
		return -ENOENT;
	job = hl_ipc_job_alloc(1);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	ret = hl_ipc_seg_init(ctx, &job->segs[0], a.src_cookie, a.src_offset,
			      a.dst_cookie, a.dst_offset, a.length);
	if (ret) {
		hl_ipc_job_put(job);
		goto out;
	}
	job->nsegs = 1;

	/* A failed sync copy still consumed a seq; report it too. */
	ret = hl_ipc_channel_submit(ch, job, async, &a.seq);
	if (put_user(a.seq, &((struct hl_ipc_copy __user *)uarg)->seq) && !ret)
		ret = -EFAULT;
out:
	hl_ipc_channel_put(ch);
	return ret;
}

long hl_ipc_ioctl_copy_batch(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_copy_batch __user *ub = uarg;
	struct hl_ipc_copy_desc *descs = NULL;
	struct hl_ipc_channel *ch;
	struct hl_ipc_copy_batch a;
	struct hl_ipc_job *job;
	u32 i, bad = 0;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~HL_IPC_COPY_FLAGS_ALL || a.error_index ||
	    !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)) || !a.count)
		return -EINVAL;
	if (a.count > READ_ONCE(hl_ipc_max_batch))
		return -E2BIG;

	ch = hl_ipc_channel_get(ctx, a.channel_id);
	if (!ch)
		return -ENOENT;
	descs = kvmalloc_array(a.count, sizeof(*descs), GFP_KERNEL);
	job = hl_ipc_job_alloc(a.count);
	if (!descs || !job) {
		ret = -ENOMEM;
		goto err_job;
	}
	if (copy_from_user(descs, u64_to_user_ptr(a.descs),
			   array_size(a.count, sizeof(*descs)))) {
		ret = -EFAULT;
		goto err_job;
	}
	for (i = 0; i < a.count; i++) {
		const struct hl_ipc_copy_desc *d = &descs[i];

		bad = i;
		if (d->flags || d->pad) {
			ret = -EINVAL;
			goto err_job;
		}
		ret = hl_ipc_seg_init(ctx, &job->segs[i], d->src_cookie,
				      d->src_offset, d->dst_cookie,
				      d->dst_offset, d->length);
		if (ret)
			goto err_job;
		job->nsegs = i + 1;
	}
	kvfree(descs);

	ret = hl_ipc_channel_submit(ch, job, a.flags & HL_IPC_COPY_ASYNC,
				    &a.seq);
	if (put_user(a.seq, &ub->seq) && !ret)
		ret = -EFAULT;
	hl_ipc_channel_put(ch);
	return ret;

err_job:
	if (job)
		hl_ipc_job_put(job);
	kvfree(descs);
	hl_ipc_channel_put(ch);
	if (ret != -ENOMEM && ret != -EFAULT && put_user(bad, &ub->error_index))
		ret = -EFAULT;
	return ret;
}
