// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_ipc: node-local device-to-device IPC channels.
 *
 * Module entry: registers the /dev/hl_ipc misc device.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "hl_compat.h"

static const struct file_operations hl_ipc_fops = {
	.owner = THIS_MODULE,
};

static struct miscdevice hl_ipc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hl_ipc",
	.fops = &hl_ipc_fops,
	.mode = 0666,
};

static int __init hl_ipc_init(void)
{
	return misc_register(&hl_ipc_misc);
}

static void __exit hl_ipc_exit(void)
{
	misc_deregister(&hl_ipc_misc);
}

module_init(hl_ipc_init);
module_exit(hl_ipc_exit);

MODULE_DESCRIPTION("Node-local device-to-device IPC channels for Habana Gaudi");
MODULE_LICENSE("GPL");
