// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch.  One table names each ioctl's handler and argument;
 * hl_ipc_ioctl() copies the argument in, rejects reserved words that are
 * not zero, calls the handler on the kernel's copy and copies the result
 * out.  Handlers check their own flags and hand the request on to
 * regions, copies and channels.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hl_ipc.h"

typedef int hl_ipc_ioctl_fn(struct hl_ipc_ctx *ctx, void *arg);

struct hl_ipc_ioctl_desc {
	unsigned int cmd;
	hl_ipc_ioctl_fn *func;
	/* Takes back a success whose result could not be copied out. */
	void (*undo)(struct hl_ipc_ctx *ctx, void *arg);
	u16 reserved;			/* offset of the reserved words */
	u16 nreserved;			/* how many u64 */
	bool out_on_error;		/* the result is copied out on failure too */
};

/* Every argument of an ioctl, so that one buffer on the stack holds any. */
union hl_ipc_ioctl_arg {
	struct hl_ipc_info info;
	struct hl_ipc_region_register reg;
	struct hl_ipc_region_deregister dereg;
	struct hl_ipc_region_query query;
	struct hl_ipc_channel_create create;
	struct hl_ipc_channel_destroy destroy;
	struct hl_ipc_copy copy;
	struct hl_ipc_copy_batch batch;
	struct hl_ipc_wait wait;
};

static int hl_ipc_info_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_info *info = arg;

	if (info->flags || info->pad)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->abi_version = HL_IPC_ABI_VERSION;
	info->features = HL_IPC_FEAT_DMABUF | HL_IPC_FEAT_USER_MEM |
			 HL_IPC_FEAT_ASYNC | HL_IPC_FEAT_BATCH |
			 HL_IPC_FEAT_ANY_USER | HL_IPC_FEAT_QUERY;
	info->max_regions = READ_ONCE(hl_ipc_max_regions);
	info->max_channels = READ_ONCE(hl_ipc_max_channels);
	info->max_batch = READ_ONCE(hl_ipc_max_batch);
	info->chunk_size = READ_ONCE(hl_ipc_chunk_size);
	info->engines = HL_IPC_ENGINE_CPU |
			(hl_ipc_dma_available() ? HL_IPC_ENGINE_DMA : 0);
	return 0;
}

static int hl_ipc_register_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	return hl_ipc_region_register(ctx, arg);
}

static void hl_ipc_register_undo(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_region_register *reg = arg;

	hl_ipc_region_deregister(ctx, reg->cookie);
}

static int hl_ipc_deregister_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_region_deregister *dereg = arg;

	if (dereg->flags || dereg->pad)
		return -EINVAL;
	return hl_ipc_region_deregister(ctx, dereg->cookie);
}

static int hl_ipc_query_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_region_query *query = arg;

	if (query->flags)
		return -EINVAL;
	return hl_ipc_region_query(ctx, query);
}

static int hl_ipc_create_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	return hl_ipc_channel_create(ctx, arg);
}

static void hl_ipc_create_undo(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_channel_create *create = arg;

	hl_ipc_channel_destroy(ctx, create->channel_id);
}

static int hl_ipc_destroy_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_channel_destroy *destroy = arg;

	if (destroy->flags)
		return -EINVAL;
	return hl_ipc_channel_destroy(ctx, destroy->channel_id);
}

/* A failed synchronous copy may have consumed a seq: reported too. */
static int hl_ipc_copy_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_copy *copy = arg;
	const struct hl_ipc_copy_desc desc = {
		.src_cookie = copy->src_cookie,
		.src_offset = copy->src_offset,
		.dst_cookie = copy->dst_cookie,
		.dst_offset = copy->dst_offset,
		.length = copy->length,
	};
	u64 seq;
	int ret;

	if (copy->flags & ~HL_IPC_COPY_FLAGS_ALL)
		return -EINVAL;
	ret = hl_ipc_copy(ctx, copy->channel_id, &desc,
			  copy->flags & HL_IPC_COPY_ASYNC, &seq);
	if (seq)
		copy->seq = seq;
	return ret;
}

/* On a bad descriptor, error_index names it. */
static int hl_ipc_batch_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_copy_batch *batch = arg;
	struct hl_ipc_copy_desc *descs;
	u32 bad = 0;
	u64 seq;
	int ret;

	if (batch->flags & ~HL_IPC_COPY_FLAGS_ALL || batch->error_index ||
	    !batch->count)
		return -EINVAL;
	if (batch->count > READ_ONCE(hl_ipc_max_batch))
		return -E2BIG;
	descs = kvmalloc_array(batch->count, sizeof(*descs),
			       GFP_KERNEL_ACCOUNT);
	if (!descs)
		return -ENOMEM;
	if (copy_from_user(descs, u64_to_user_ptr(batch->descs),
			   array_size(batch->count, sizeof(*descs)))) {
		kvfree(descs);
		return -EFAULT;
	}
	ret = hl_ipc_copy_batch(ctx, batch->channel_id, descs, batch->count,
				batch->flags & HL_IPC_COPY_ASYNC, &seq, &bad);
	kvfree(descs);
	if (seq)
		batch->seq = seq;
	batch->error_index = bad;
	return ret;
}

static int hl_ipc_wait_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	struct hl_ipc_wait *wait = arg;
	struct hl_ipc_channel *ch;
	int ret;

	if (wait->flags || wait->pad)
		return -EINVAL;
	ch = hl_ipc_channel_get(ctx, wait->channel_id);
	if (!ch)
		return -ENOENT;
	ret = hl_ipc_channel_wait(ch, wait);
	hl_ipc_channel_put(ch);
	return ret;
}

static int hl_ipc_nop_ioctl(struct hl_ipc_ctx *ctx, void *arg)
{
	return 0;
}

#define HL_IPC_IOCTL_DEF(_cmd, _type, _func, _undo, _out_on_error)	\
	[_IOC_NR(_cmd)] = {						\
		.cmd = _cmd + BUILD_BUG_ON_ZERO(_IOC_SIZE(_cmd) !=	\
						sizeof(_type)),		\
		.func = _func,						\
		.undo = _undo,						\
		.reserved = offsetof(_type, reserved),			\
		.nreserved = ARRAY_SIZE(((_type *)NULL)->reserved),	\
		.out_on_error = _out_on_error,				\
	}

static const struct hl_ipc_ioctl_desc hl_ipc_ioctls[] = {
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_INFO, struct hl_ipc_info,
			 hl_ipc_info_ioctl, NULL, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_REGION_REGISTER,
			 struct hl_ipc_region_register, hl_ipc_register_ioctl,
			 hl_ipc_register_undo, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_REGION_DEREGISTER,
			 struct hl_ipc_region_deregister,
			 hl_ipc_deregister_ioctl, NULL, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_REGION_QUERY, struct hl_ipc_region_query,
			 hl_ipc_query_ioctl, NULL, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_CHANNEL_CREATE,
			 struct hl_ipc_channel_create, hl_ipc_create_ioctl,
			 hl_ipc_create_undo, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_CHANNEL_DESTROY,
			 struct hl_ipc_channel_destroy, hl_ipc_destroy_ioctl,
			 NULL, false),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_COPY, struct hl_ipc_copy,
			 hl_ipc_copy_ioctl, NULL, true),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_COPY_BATCH, struct hl_ipc_copy_batch,
			 hl_ipc_batch_ioctl, NULL, true),
	HL_IPC_IOCTL_DEF(HL_IPC_IOCTL_WAIT, struct hl_ipc_wait,
			 hl_ipc_wait_ioctl, NULL, false),
	[_IOC_NR(HL_IPC_IOCTL_NOP)] = {
		.cmd = HL_IPC_IOCTL_NOP,
		.func = hl_ipc_nop_ioctl,
	},
};

static bool hl_ipc_reserved_zero(const void *arg,
				 const struct hl_ipc_ioctl_desc *desc)
{
	const u64 *word = arg + desc->reserved;
	u64 any = 0;
	unsigned int i;

	/* One test at the end: every call checks its reserved words. */
	for (i = 0; i < desc->nreserved; i++)
		any |= word[i];
	return !any;
}

long hl_ipc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hl_ipc_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct hl_ipc_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int size = _IOC_SIZE(cmd);
	union hl_ipc_ioctl_arg buf;
	int ret;

	if (_IOC_TYPE(cmd) != HL_IPC_IOCTL_MAGIC ||
	    nr >= ARRAY_SIZE(hl_ipc_ioctls))
		return -ENOTTY;
	desc = &hl_ipc_ioctls[array_index_nospec(nr,
						 ARRAY_SIZE(hl_ipc_ioctls))];
	if (cmd != desc->cmd || !desc->func)
		return -ENOTTY;

	if ((cmd & IOC_IN) && copy_from_user(&buf, uarg, size))
		return -EFAULT;
	if (!hl_ipc_reserved_zero(&buf, desc))
		return -EINVAL;
	ret = desc->func(ctx, &buf);
	if (!(cmd & IOC_OUT) || (ret && !desc->out_on_error))
		return ret;
	if (copy_to_user(uarg, &buf, size)) {
		if (ret)
			return ret;
		if (desc->undo)
			desc->undo(ctx, &buf);
		return -EFAULT;
	}
	return ret;
}
