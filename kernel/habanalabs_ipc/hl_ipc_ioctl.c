// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl parsing: copy arguments in, reject what the ABI reserves, call
 * into regions, jobs and channels, copy results out.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hl_ipc.h"

static bool hl_ipc_zero(const u64 *p, size_t n)
{
	u64 any = 0;

	/* One test at the end: every copy checks its reserved words. */
	while (n--)
		any |= *p++;
	return !any;
}

static long hl_ipc_ioctl_info(void __user *uarg)
{
	struct hl_ipc_info a;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.pad || !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.abi_version = HL_IPC_ABI_VERSION;
	a.features = HL_IPC_FEAT_DMABUF | HL_IPC_FEAT_USER_MEM |
		     HL_IPC_FEAT_ASYNC | HL_IPC_FEAT_BATCH |
		     HL_IPC_FEAT_ANY_USER | HL_IPC_FEAT_QUERY;
	a.max_regions = READ_ONCE(hl_ipc_max_regions);
	a.max_channels = READ_ONCE(hl_ipc_max_channels);
	a.max_batch = READ_ONCE(hl_ipc_max_batch);
	a.chunk_size = READ_ONCE(hl_ipc_chunk_size);
	a.engines = HL_IPC_ENGINE_CPU;
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static long hl_ipc_ioctl_register(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_region_register a;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (!hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	ret = hl_ipc_region_register(ctx, &a);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		hl_ipc_region_deregister(ctx, a.cookie);
		return -EFAULT;
	}
	return 0;
}

static long hl_ipc_ioctl_deregister(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_region_deregister a;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.pad || !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	return hl_ipc_region_deregister(ctx, a.cookie);
}

static long hl_ipc_ioctl_query(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_region_query a;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	ret = hl_ipc_region_query(ctx, &a);
	if (ret)
		return ret;
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static long hl_ipc_ioctl_chan_create(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_channel_create a;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (!hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	ret = hl_ipc_channel_create(ctx, &a);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		hl_ipc_channel_destroy(ctx, a.channel_id);
		return -EFAULT;
	}
	return 0;
}

static long hl_ipc_ioctl_chan_destroy(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_channel_destroy a;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	return hl_ipc_channel_destroy(ctx, a.channel_id);
}

/*
 * A small copy between user-memory regions: looked up, checked and copied
 * in one RCU read section, without a job and without entering the
 * regions.  1 when it is not one for this path (the channel is busy, a
 * region is a dma-buf, not yet used by a synchronous copy, or may overlap
 * the other end, or anything is wrong): hl_ipc_copy_sync() then does it,
 * and reports any error as usual.
 */
static int hl_ipc_copy_small(struct hl_ipc_ctx *ctx, u32 id,
			     const struct hl_ipc_copy_desc *d, u64 *seq)
{
	struct hl_ipc_region *src, *dst;
	struct hl_ipc_channel *ch;
	int ret = 1;

	rcu_read_lock();
	ch = hl_ipc_channel_find(ctx, id);
	src = hl_ipc_region_peek(ctx, d->src_cookie, d->src_offset, d->length,
				 false);
	dst = hl_ipc_region_peek(ctx, d->dst_cookie, d->dst_offset, d->length,
				 true);
	/* Ends that may share bytes are hl_ipc_job_add()'s to sort out. */
	if (ch && src && dst &&
	    !hl_ipc_ends_may_share(src, d->src_offset, dst, d->dst_offset,
				   d->length))
		ret = hl_ipc_channel_copy_small(ch, dst->vaddr + d->dst_offset,
						src->vaddr + d->src_offset,
						d->length, seq);
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
static long hl_ipc_copy_sync(struct hl_ipc_ctx *ctx, u32 id,
			     const struct hl_ipc_copy_desc *d, u64 *seq)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_job job;
	long ret;

	*seq = 0;
	hl_ipc_job_init(&job, true);
	rcu_read_lock();
	ch = hl_ipc_channel_find(ctx, id);
	if (!ch) {
		rcu_read_unlock();
		return -ENOENT;
	}
	ret = hl_ipc_job_add(ctx, &job, d);
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

static long hl_ipc_copy_async(struct hl_ipc_ctx *ctx, u32 id,
			      const struct hl_ipc_copy_desc *d, u64 *seq)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_job *job;
	long ret;

	*seq = 0;
	ch = hl_ipc_channel_get(ctx, id);
	if (!ch)
		return -ENOENT;
	job = hl_ipc_job_alloc(1);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	ret = hl_ipc_job_add(ctx, job, d);
	if (ret) {
		hl_ipc_job_put(job);
		goto out;
	}
	ret = hl_ipc_channel_submit(ctx, ch, job, true, seq);
out:
	hl_ipc_channel_put(ch);
	return ret;
}

static long hl_ipc_ioctl_copy(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_copy __user *ua = uarg;
	struct hl_ipc_copy_desc d;
	struct hl_ipc_copy a;
	u64 seq;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~HL_IPC_COPY_FLAGS_ALL ||
	    !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	d = (struct hl_ipc_copy_desc) {
		.src_cookie = a.src_cookie, .src_offset = a.src_offset,
		.dst_cookie = a.dst_cookie, .dst_offset = a.dst_offset,
		.length = a.length,
	};
	seq = 0;
	if (a.flags & HL_IPC_COPY_ASYNC)
		ret = hl_ipc_copy_async(ctx, a.channel_id, &d, &seq);
	else if (!d.length || d.length > HL_IPC_SMALL_COPY_MAX ||
		 hl_ipc_copy_small(ctx, a.channel_id, &d, &seq))
		ret = hl_ipc_copy_sync(ctx, a.channel_id, &d, &seq);
	else
		ret = 0;
	/* A failed sync copy still consumed a seq; report it too. */
	if (seq && put_user(seq, &ua->seq) && !ret)
		ret = -EFAULT;
	return ret;
}

static long hl_ipc_ioctl_copy_batch(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_copy_batch __user *ub = uarg;
	struct hl_ipc_copy_desc *descs = NULL;
	struct hl_ipc_job *job = NULL;
	struct hl_ipc_channel *ch;
	struct hl_ipc_copy_batch a;
	u32 i, bad = 0;
	u64 seq;
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
	descs = kvmalloc_array(a.count, sizeof(*descs), GFP_KERNEL_ACCOUNT);
	job = hl_ipc_job_alloc(a.count);
	if (!descs || !job) {
		ret = -ENOMEM;
		goto err;
	}
	if (copy_from_user(descs, u64_to_user_ptr(a.descs),
			   array_size(a.count, sizeof(*descs)))) {
		ret = -EFAULT;
		goto err;
	}
	for (i = 0; i < a.count; i++) {
		bad = i;
		if (descs[i].flags || descs[i].pad) {
			ret = -EINVAL;
			goto err_desc;
		}
		ret = hl_ipc_job_add(ctx, job, &descs[i]);
		if (ret)
			goto err_desc;
	}
	kvfree(descs);

	ret = hl_ipc_channel_submit(ctx, ch, job, a.flags & HL_IPC_COPY_ASYNC,
				    &seq);
	if (seq && put_user(seq, &ub->seq) && !ret)
		ret = -EFAULT;
	hl_ipc_channel_put(ch);
	return ret;

err_desc:
	if (put_user(bad, &ub->error_index))
		ret = -EFAULT;
err:
	if (job)
		hl_ipc_job_put(job);
	kvfree(descs);
	hl_ipc_channel_put(ch);
	return ret;
}

static long hl_ipc_ioctl_wait(struct hl_ipc_ctx *ctx, void __user *uarg)
{
	struct hl_ipc_channel *ch;
	struct hl_ipc_wait a;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.pad || !hl_ipc_zero(a.reserved, ARRAY_SIZE(a.reserved)))
		return -EINVAL;
	ch = hl_ipc_channel_get(ctx, a.channel_id);
	if (!ch)
		return -ENOENT;
	ret = hl_ipc_channel_wait(ch, &a);
	hl_ipc_channel_put(ch);
	if (ret)
		return ret;
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

long hl_ipc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hl_ipc_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case HL_IPC_IOCTL_NOP:
		return 0;
	case HL_IPC_IOCTL_INFO:
		return hl_ipc_ioctl_info(uarg);
	case HL_IPC_IOCTL_REGION_REGISTER:
		return hl_ipc_ioctl_register(ctx, uarg);
	case HL_IPC_IOCTL_REGION_DEREGISTER:
		return hl_ipc_ioctl_deregister(ctx, uarg);
	case HL_IPC_IOCTL_REGION_QUERY:
		return hl_ipc_ioctl_query(ctx, uarg);
	case HL_IPC_IOCTL_CHANNEL_CREATE:
		return hl_ipc_ioctl_chan_create(ctx, uarg);
	case HL_IPC_IOCTL_CHANNEL_DESTROY:
		return hl_ipc_ioctl_chan_destroy(ctx, uarg);
	case HL_IPC_IOCTL_COPY:
		return hl_ipc_ioctl_copy(ctx, uarg);
	case HL_IPC_IOCTL_COPY_BATCH:
		return hl_ipc_ioctl_copy_batch(ctx, uarg);
	case HL_IPC_IOCTL_WAIT:
		return hl_ipc_ioctl_wait(ctx, uarg);
	default:
		return -ENOTTY;
	}
}
