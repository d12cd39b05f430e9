// SPDX-License-Identifier: GPL-2.0
/*
 * Device identity from a file descriptor.
 *
 * A device is named by an fd of one of its nodes.  We accept character
 * devices whose file operations belong to the habanalabs or habanalabs_sim
 * module and reduce them to (driver, major, minor >> 1): the compute node
 * (minor 2i) and the control node (minor 2i + 1) are the same device.  The
 * file is not kept: compute nodes are exclusive and must be re-openable as
 * soon as their owner closes them.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/string.h>

#include "hl_ipc.h"

static u32 hl_ipc_owner_kind(struct file *f)
{
	struct module *owner = f->f_op ? f->f_op->owner : NULL;

	if (!owner)
		return HL_IPC_DEV_KIND_HOST;
	if (!strcmp(module_name(owner), "habanalabs_sim"))
		return HL_IPC_DEV_KIND_SIM;
	if (!strcmp(module_name(owner), "habanalabs"))
		return HL_IPC_DEV_KIND_HL;
	return HL_IPC_DEV_KIND_HOST;
}

int hl_ipc_devid_from_fd(int fd, bool host, struct hl_ipc_devid *id)
{
	struct inode *inode;
	struct file *f;
	int ret = 0;

	memset(id, 0, sizeof(*id));
	if (host)
		return fd == HL_IPC_FD_HOST ? 0 : -EINVAL;
	if (fd < 0)
		return -EBADF;
	f = fget(fd);
	if (!f)
		return -EBADF;
	inode = file_inode(f);
	id->kind = hl_ipc_owner_kind(f);
	/* HOST here means "no device driver of ours owns this file". */
	if (!S_ISCHR(inode->i_mode) || id->kind == HL_IPC_DEV_KIND_HOST) {
		ret = -ENODEV;
	} else {
		id->major = imajor(inode);
		id->index = iminor(inode) >> 1;
	}
	fput(f);
	return ret;
}
