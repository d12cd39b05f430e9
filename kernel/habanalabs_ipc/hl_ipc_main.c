// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_ipc: node-local device-to-device IPC channels.
 *
 * Module entry: module parameters, the /dev/hl_ipc misc device, contexts
 * (one per open file) and ioctl dispatch.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>

#include "hl_compat.h"
#include "hl_ipc.h"

unsigned int hl_ipc_max_regions = 4096;
module_param_named(max_regions, hl_ipc_max_regions, uint, 0644);
MODULE_PARM_DESC(max_regions, "Regions per context (default 4096)");

unsigned int hl_ipc_max_channels = 64;
module_param_named(max_channels, hl_ipc_max_channels, uint, 0644);
MODULE_PARM_DESC(max_channels, "Channels per context (default 64)");

unsigned int hl_ipc_max_batch = 256;
module_param_named(max_batch, hl_ipc_max_batch, uint, 0644);
MODULE_PARM_DESC(max_batch, "Descriptors per batched copy (default 256)");

unsigned int hl_ipc_chunk_size = 256 * 1024;
module_param_named(chunk_size, hl_ipc_chunk_size, uint, 0644);
MODULE_PARM_DESC(chunk_size,
		 "Bytes copied between reschedule points (default 262144, min 4096)");

struct device *hl_ipc_dev;
struct workqueue_struct *hl_ipc_wq;

static int hl_ipc_open(struct inode *inode, struct file *file)
{
	struct hl_ipc_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->regions);
	xa_init_flags(&ctx->channels, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&ctx->poll_wq);
	ctx->tgid = task_tgid_nr(current);
	file->private_data = ctx;
	atomic_inc(&hl_ipc_stats.contexts);
	return nonseekable_open(inode, file);
}

static int hl_ipc_release(struct inode *inode, struct file *file)
{
	struct hl_ipc_ctx *ctx = file->private_data;

	/* Channels first: their jobs may reference our regions. */
	hl_ipc_channel_destroy_all(ctx);
	hl_ipc_region_revoke_all(ctx);
	xa_destroy(&ctx->channels);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
	atomic_dec(&hl_ipc_stats.contexts);
	return 0;
}

static __poll_t hl_ipc_poll(struct file *file, poll_table *wait)
{
	struct hl_ipc_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->poll_wq, wait);
	return hl_ipc_ctx_has_completions(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

static bool hl_ipc_zero(const u64 *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
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
	a.chunk_size = max_t(u32, READ_ONCE(hl_ipc_chunk_size), PAGE_SIZE);
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

static long hl_ipc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
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

static const struct file_operations hl_ipc_fops = {
	.owner = THIS_MODULE,
	.open = hl_ipc_open,
	.release = hl_ipc_release,
	.unlocked_ioctl = hl_ipc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = hl_ipc_poll,
	.show_fdinfo = hl_ipc_show_fdinfo,
};

static struct miscdevice hl_ipc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hl_ipc",
	.fops = &hl_ipc_fops,
	.mode = 0666,
};

static int __init hl_ipc_init(void)
{
	int ret;

	/*
	 * Unbound: each channel's work item runs wherever a CPU is free, so
	 * different channels copy in parallel while one channel's work item,
	 * never reentered, keeps that channel's copies in order.
	 */
	hl_ipc_wq = alloc_workqueue("hl_ipc", WQ_UNBOUND, 0);
	if (!hl_ipc_wq)
		return -ENOMEM;
	hl_ipc_regions_init();
	hl_ipc_misc.groups = hl_ipc_attr_groups;
	ret = misc_register(&hl_ipc_misc);
	if (ret)
		goto err_wq;
	hl_ipc_dev = hl_ipc_misc.this_device;
	/* Importer device for dma-buf attachments: no IOMMU, any address. */
	ret = dma_coerce_mask_and_coherent(hl_ipc_dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_misc;
	ret = hl_ipc_stats_init();
	if (ret)
		goto err_misc;
	return 0;

err_misc:
	misc_deregister(&hl_ipc_misc);
err_wq:
	hl_ipc_regions_fini();
	destroy_workqueue(hl_ipc_wq);
	return ret;
}

static void __exit hl_ipc_exit(void)
{
	hl_ipc_stats_fini();
	misc_deregister(&hl_ipc_misc);
	hl_ipc_regions_fini();
	destroy_workqueue(hl_ipc_wq);
}

module_init(hl_ipc_init);
module_exit(hl_ipc_exit);

MODULE_DESCRIPTION("Node-local device-to-device IPC channels for Habana Gaudi");
MODULE_LICENSE("GPL");
MODULE_VERSION(HL_MODULE_VERSION);
MODULE_INFO(abi_version, __stringify(HL_IPC_ABI_VERSION));
HL_IMPORT_DMA_BUF_NS();
