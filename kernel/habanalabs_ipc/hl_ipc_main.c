// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_ipc: node-local device-to-device IPC channels.
 *
 * Module entry: the /dev/hl_ipc misc device and its contexts (one per
 * open file).  ioctls are parsed in hl_ipc_ioctl.c.
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stringify.h>

#include "hl_compat.h"
#include "hl_ipc.h"

static int hl_ipc_open(struct inode *inode, struct file *file)
{
	struct hl_ipc_user *user;
	struct hl_ipc_ctx *ctx;

	/* Objects are charged to whoever opened the file, like its access. */
	user = hl_ipc_user_get(file->f_cred->euid);
	if (IS_ERR(user))
		return PTR_ERR(user);
	if (!hl_ipc_user_charge(&user->contexts,
				READ_ONCE(hl_ipc_user_max_contexts))) {
		hl_ipc_user_put(user);
		return -EMFILE;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx) {
		hl_ipc_user_uncharge(&user->contexts);
		hl_ipc_user_put(user);
		return -ENOMEM;
	}
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->regions);
	xa_init_flags(&ctx->channels, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	init_waitqueue_head(&ctx->poll_wq);
	ctx->user = user;
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
	hl_ipc_user_uncharge(&ctx->user->contexts);
	hl_ipc_user_put(ctx->user);
	kfree(ctx);
	atomic_dec(&hl_ipc_stats.contexts);
	return 0;
}

static __poll_t hl_ipc_poll(struct file *file, poll_table *wait)
{
	struct hl_ipc_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->poll_wq, wait);
	/* Queued before the check; pairs with hl_ipc_channel_finish(). */
	smp_mb();
	return hl_ipc_ctx_has_completions(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
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

/*
 * Root only by default: the udev rules (70-habanalabs-ipc.rules) hand the
 * node to group "hl", so access is an administrator's decision.
 */
static struct miscdevice hl_ipc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hl_ipc",
	.fops = &hl_ipc_fops,
	.mode = 0600,
	.groups = hl_ipc_attr_groups,
};

static int __init hl_ipc_init(void)
{
	int ret;

	ret = hl_ipc_regions_init();
	if (ret)
		return ret;
	ret = hl_ipc_dma_init();
	if (ret)
		goto err_regions;
	hl_ipc_stats_init();
	/* Last: once the node exists, everything must be ready. */
	ret = misc_register(&hl_ipc_misc);
	if (ret)
		goto err_stats;
	return 0;

err_stats:
	hl_ipc_stats_fini();
	hl_ipc_dma_fini();
err_regions:
	hl_ipc_regions_fini();
	return ret;
}

static void __exit hl_ipc_exit(void)
{
	misc_deregister(&hl_ipc_misc);
	hl_ipc_stats_fini();
	hl_ipc_dma_fini();
	hl_ipc_regions_fini();
	hl_ipc_users_fini();
}

module_init(hl_ipc_init);
module_exit(hl_ipc_exit);

MODULE_DESCRIPTION("Node-local device-to-device IPC channels for Habana Gaudi");
MODULE_LICENSE("GPL");
MODULE_VERSION(HL_MODULE_VERSION);
MODULE_INFO(abi_version, __stringify(HL_IPC_ABI_VERSION));
HL_IMPORT_DMA_BUF_NS();
