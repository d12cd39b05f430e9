// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: the emulated devices, their char nodes and sysfs
 * attributes, open/release and ioctl dispatch (INFO is sim_info.c's).
 *
 * Device i has the compute node minor 2*i ("hlsim<i>", one open at a
 * time) and the control node minor 2*i+1 ("hlsim_controlD<i>", INFO
 * only), mirroring the legacy habanalabs "hl<i>"/"hl_controlD<i>" nodes.
 */
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hl_compat.h"
#include "sim.h"

static struct class *sim_class;
static dev_t sim_devt_base;
static struct sim_device sim_devs[SIM_MAX_DEVICES];
static DEFINE_MUTEX(sim_devs_lock);	/* which slots are live */
static u64 sim_sram_size;

/* ---- sysfs --------------------------------------------------------- */

static ssize_t device_type_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "GAUDI2\n");
}
static DEVICE_ATTR_RO(device_type);

static ssize_t pci_addr_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	struct sim_device *sdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", sdev->pci_addr);
}
static DEVICE_ATTR_RO(pci_addr);

static ssize_t memory_size_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct sim_device *sdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", sdev->mem_size);
}
static DEVICE_ATTR_RO(memory_size);

static ssize_t memory_used_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct sim_device *sdev = dev_get_drvdata(dev);
	u64 used;

	spin_lock(&sdev->mem_lock);
	used = sdev->mem_used;
	spin_unlock(&sdev->mem_lock);
	return sysfs_emit(buf, "%llu\n", used);
}
static DEVICE_ATTR_RO(memory_used);

static ssize_t status_show(struct device *dev,
			   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "operational\n");
}
static DEVICE_ATTR_RO(status);

static ssize_t device_index_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct sim_device *sdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", sdev->index);
}
static DEVICE_ATTR_RO(device_index);

static ssize_t in_use_show(struct device *dev,
			   struct device_attribute *attr, char *buf)
{
	struct sim_device *sdev = dev_get_drvdata(dev);
	bool busy;

	mutex_lock(&sdev->open_lock);
	busy = sdev->compute_busy;
	mutex_unlock(&sdev->open_lock);
	return sysfs_emit(buf, "%d\n", busy);
}
static DEVICE_ATTR_RO(in_use);

static struct attribute *sim_dev_attrs[] = {
	&dev_attr_device_type.attr,
	&dev_attr_pci_addr.attr,
	&dev_attr_memory_size.attr,
	&dev_attr_memory_used.attr,
	&dev_attr_status.attr,
	&dev_attr_device_index.attr,
	&dev_attr_in_use.attr,
	NULL
};
ATTRIBUTE_GROUPS(sim_dev);

/* ---- file operations ----------------------------------------------- */

static int sim_open(struct inode *inode, struct file *file)
{
	struct sim_device *sdev = container_of(inode->i_cdev,
					       struct sim_device, cdev);
	bool control = iminor(inode) & 1;
	struct sim_ctx *ctx;

	ctx = kvzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->sdev = sdev;
	ctx->control = control;
	mutex_init(&ctx->lock);
	idr_init(&ctx->allocs);
	idr_init(&ctx->cbs);
	idr_init(&ctx->ts_bufs);
	mutex_init(&ctx->ts_reg_lock);
	ctx->vas = RB_ROOT;
	spin_lock_init(&ctx->vas_lock);
	sim_va_space_init(&ctx->dram_va, SIM_DRAM_VA_BASE, SIM_DRAM_VA_SIZE);
	sim_va_space_init(&ctx->host_va, SIM_HOST_VA_BASE, SIM_HOST_VA_SIZE);
	spin_lock_init(&ctx->cs_lock);
	INIT_LIST_HEAD(&ctx->cs_pending);
	init_waitqueue_head(&ctx->abort_wq);
	init_waitqueue_head(&ctx->room_wq);
	mutex_init(&ctx->notify_lock);

	if (!control) {
		mutex_lock(&sdev->open_lock);
		if (sdev->compute_busy) {
			mutex_unlock(&sdev->open_lock);
			mutex_destroy(&ctx->ts_reg_lock);
			mutex_destroy(&ctx->notify_lock);
			kvfree(ctx);
			return -EBUSY;
		}
		sdev->compute_busy = true;
		/* A new context: the sync manager as the driver leaves it. */
		mutex_lock(&sdev->engine);
		sim_sm_reset(sdev);
		mutex_unlock(&sdev->engine);
		sdev->open_count++;
		sdev->last_open = ktime_get();
		mutex_unlock(&sdev->open_lock);
		sim_stat_inc(SIM_STAT_CTX);
	}

	ctx->file = file;
	file->private_data = ctx;
	/* Device memory is not a file: no seeking, no read or write. */
	return nonseekable_open(inode, file);
}

static int sim_release(struct inode *inode, struct file *file)
{
	struct sim_ctx *ctx = file->private_data;
	struct sim_device *sdev = ctx->sdev;

	if (!ctx->control) {
		mutex_lock(&sdev->open_lock);
		sdev->compute_in_release = true;
		mutex_unlock(&sdev->open_lock);
		/* In-flight CSs hold references on what they copy. */
		sim_cs_ctx_fini(ctx);
		sim_irq_ctx_fini(ctx);
		sim_ts_ctx_fini(ctx);
		sim_cb_ctx_fini(ctx);
		sim_mem_ctx_fini(ctx);
		sim_notify_ctx_fini(ctx);
		sim_debug_ctx_fini(ctx);
		mutex_lock(&sdev->open_lock);
		sdev->compute_busy = false;
		sdev->compute_in_release = false;
		sdev->last_open_period_ms =
			ktime_ms_delta(ktime_get(), sdev->last_open);
		mutex_unlock(&sdev->open_lock);
		sim_stat_dec(SIM_STAT_CTX);
	}
	idr_destroy(&ctx->allocs);
	idr_destroy(&ctx->cbs);
	idr_destroy(&ctx->ts_bufs);
	mutex_destroy(&ctx->ts_reg_lock);
	mutex_destroy(&ctx->notify_lock);
	mutex_destroy(&ctx->lock);
	kvfree(ctx);
	return 0;
}

/* Both the accel ('d') and the former misc ('H') numbering are accepted. */
static int sim_ioctl_nr(unsigned int cmd)
{
	switch (cmd) {
	case DRM_IOCTL_HL_INFO:
	case HL_LEGACY_IOCTL_INFO:
		return HL_IOCTL_INFO;
	case DRM_IOCTL_HL_CB:
	case HL_LEGACY_IOCTL_CB:
		return HL_IOCTL_CB;
	case DRM_IOCTL_HL_CS:
	case HL_LEGACY_IOCTL_CS:
		return HL_IOCTL_CS;
	case DRM_IOCTL_HL_WAIT_CS:
	case HL_LEGACY_IOCTL_WAIT_CS:
		return HL_IOCTL_WAIT_CS;
	case DRM_IOCTL_HL_MEMORY:
	case HL_LEGACY_IOCTL_MEMORY:
		return HL_IOCTL_MEMORY;
	case DRM_IOCTL_HL_DEBUG:
	case HL_LEGACY_IOCTL_DEBUG:
		return HL_IOCTL_DEBUG;
	default:
		return -1;
	}
}

/*
 * HL_IOCTL_MEMORY: each operation to the part that does it (sim_mem.c
 * for memory and mappings, sim_dmabuf.c for exports, sim_ts.c for
 * timestamp buffers).
 */
static int sim_memory_ioctl(struct sim_ctx *ctx, union hl_mem_args *args)
{
	struct hl_mem_in in = args->in;
	struct sim_va *va;
	u64 out = 0;
	int rc;

	/* Only TS_ALLOC has elements. */
	if (in.num_of_elements && in.op != HL_MEM_OP_TS_ALLOC)
		return -EINVAL;

	switch (in.op) {
	case HL_MEM_OP_ALLOC:
		rc = sim_mem_alloc(ctx, &in, &out);
		break;
	case HL_MEM_OP_FREE:
		rc = sim_mem_free(ctx, &in);
		break;
	case HL_MEM_OP_MAP:
		if (in.flags & HL_MEM_USERPTR)
			rc = sim_mem_map_host(ctx, &in, &out);
		else
			rc = sim_mem_map_device(ctx, &in, &out);
		break;
	case HL_MEM_OP_UNMAP:
		rc = sim_mem_unmap(ctx, &in);
		break;
	case HL_MEM_OP_EXPORT_DMABUF_FD:
		rc = sim_mem_export_hold(ctx, &in, &va);
		if (rc)
			return rc;
		rc = sim_dmabuf_export(ctx, va, in.export_dmabuf_fd.offset,
				       in.export_dmabuf_fd.mem_size, in.flags);
		if (rc < 0)
			return rc;
		memset(args, 0, sizeof(*args));
		args->out.fd = rc;
		return 0;
	case HL_MEM_OP_MAP_BLOCK:
		/*
		 * The driver's answer for an address outside every block
		 * user space may map: this device has none.
		 */
		return -EINVAL;
	case HL_MEM_OP_TS_ALLOC:
		rc = sim_ts_alloc(ctx, in.num_of_elements, &out);
		break;
	default:
		return -ENOTTY;
	}
	if (rc)
		return rc;
	memset(args, 0, sizeof(*args));
	args->out.handle = out;
	return 0;
}

union sim_ioctl_args {
	struct hl_info_args info;
	union hl_cb_args cb;
	union hl_cs_args cs;
	union hl_wait_cs_args wait;
	union hl_mem_args mem;
	struct hl_debug_args debug;
};

static long sim_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct sim_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	union sim_ioctl_args a;
	unsigned int size = _IOC_SIZE(cmd);
	int nr = sim_ioctl_nr(cmd);
	int rc;

	if (nr < 0)
		return -ENOTTY;
	/* Like the real driver, a control node serves INFO only. */
	if (ctx->control && nr != HL_IOCTL_INFO)
		return -ENOTTY;
	if (copy_from_user(&a, uarg, size))
		return -EFAULT;

	switch (nr) {
	case HL_IOCTL_INFO:
		rc = sim_info_ioctl(ctx, &a.info);
		break;
	case HL_IOCTL_DEBUG:
		rc = sim_debug_ioctl(ctx, &a.debug);
		break;
	case HL_IOCTL_CB:
		rc = sim_cb_ioctl(ctx, &a.cb);
		break;
	case HL_IOCTL_CS:
		rc = sim_cs_ioctl(ctx, &a.cs);
		break;
	case HL_IOCTL_WAIT_CS:
		rc = sim_wait_cs_ioctl(ctx, &a.wait);
		break;
	case HL_IOCTL_MEMORY:
		rc = sim_memory_ioctl(ctx, &a.mem);
		break;
	default:
		return -ENOTTY;
	}
	/*
	 * Output is copied back on failure too, as the driver does: WAIT_CS
	 * reports a status along with -EIO, INFO how much it wrote.  If this
	 * copy fails after an export, the new fd stays in the caller's table,
	 * as with the real driver.
	 */
	if (copy_to_user(uarg, &a, size) && !rc)
		rc = -EFAULT;
	return rc;
}

static int sim_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct sim_ctx *ctx = file->private_data;

	if (ctx->control)
		return -EPERM;
	if ((vma->vm_pgoff & SIM_MMAP_TYPE_MASK) == SIM_MMAP_TYPE_TS)
		return sim_ts_mmap(ctx, vma);
	return sim_cb_mmap(ctx, vma);
}

static const struct file_operations sim_fops = {
	/* habanalabs_ipc recognises our nodes by this owner's name. */
	.owner = THIS_MODULE,
	.open = sim_open,
	.release = sim_release,
	.unlocked_ioctl = sim_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = sim_mmap,
};

/* ---- creation ------------------------------------------------------ */

static void sim_device_fini(struct sim_device *sdev)
{
	if (sdev->dev_control)
		device_destroy(sim_class, sdev->devt + 1);
	if (sdev->dev_compute)
		device_destroy(sim_class, sdev->devt);
	cdev_del(&sdev->cdev);
	destroy_workqueue(sdev->wq);
	sim_sram_fini(sdev);
	sim_irq_fini(sdev);
	sim_sm_fini(sdev);
	mutex_destroy(&sdev->engine);
	mutex_destroy(&sdev->open_lock);
}

static int sim_device_init(struct sim_device *sdev, unsigned int index,
			   struct sim_bar *bar, u64 mem_size, u64 sram_size)
{
	struct device *parent = bar ? &bar->pdev->dev : NULL;
	int rc;

	sdev->index = index;
	sdev->devt = MKDEV(MAJOR(sim_devt_base), 2 * index);
	sdev->bar = bar;
	sdev->mem_size = bar ? bar->size : mem_size;
	spin_lock_init(&sdev->mem_lock);
	spin_lock_init(&sdev->event_lock);
	mutex_init(&sdev->open_lock);
	mutex_init(&sdev->engine);
	sdev->created = ktime_get();
	/*
	 * A PCI device's own bus id; a RAM device's is stable per index: bus
	 * 0x10 + index, like slots in one server.
	 */
	if (bar)
		strscpy(sdev->pci_addr, pci_name(bar->pdev),
			sizeof(sdev->pci_addr));
	else
		snprintf(sdev->pci_addr, sizeof(sdev->pci_addr),
			 "0000:%02x:00.0", 0x10 + index);

	rc = sim_sm_init(sdev);
	if (rc)
		goto err_mutex;
	rc = sim_irq_init(sdev);
	if (rc)
		goto err_sm;
	rc = sim_sram_init(sdev, sram_size);
	if (rc)
		goto err_irq;
	sdev->wq = alloc_ordered_workqueue("hlsim%u-cs", 0, index);
	if (!sdev->wq) {
		rc = -ENOMEM;
		goto err_sram;
	}

	cdev_init(&sdev->cdev, &sim_fops);
	sdev->cdev.owner = THIS_MODULE;
	rc = cdev_add(&sdev->cdev, sdev->devt, 2);
	if (rc)
		goto err_wq;

	sdev->dev_compute = device_create(sim_class, parent, sdev->devt, sdev,
					  "hlsim%u", index);
	if (IS_ERR(sdev->dev_compute)) {
		rc = PTR_ERR(sdev->dev_compute);
		sdev->dev_compute = NULL;
		goto err;
	}
	sdev->dev_control = device_create(sim_class, parent, sdev->devt + 1,
					  sdev, "hlsim_controlD%u", index);
	if (IS_ERR(sdev->dev_control)) {
		rc = PTR_ERR(sdev->dev_control);
		sdev->dev_control = NULL;
		goto err;
	}
	return 0;
err:
	sim_device_fini(sdev);
	return rc;

err_wq:
	destroy_workqueue(sdev->wq);
err_sram:
	sim_sram_fini(sdev);
err_irq:
	sim_irq_fini(sdev);
err_sm:
	sim_sm_fini(sdev);
err_mutex:
	mutex_destroy(&sdev->engine);
	mutex_destroy(&sdev->open_lock);
	return rc;
}

/*
 * The devices live in slots: RAM devices are added at load, PCI devices
 * as their functions probe (sim_pci.c).  A slot's index gives its minors
 * and its node names.
 */
int sim_devices_init(u64 sram_size)
{
	int rc;

	sim_sram_size = sram_size;
	rc = alloc_chrdev_region(&sim_devt_base, 0, 2 * SIM_MAX_DEVICES,
				 SIM_NAME);
	if (rc)
		return rc;
	sim_class = hl_class_create(SIM_NAME);
	if (IS_ERR(sim_class)) {
		unregister_chrdev_region(sim_devt_base, 2 * SIM_MAX_DEVICES);
		return PTR_ERR(sim_class);
	}
	sim_class->dev_groups = sim_dev_groups;
	return 0;
}

/*
 * A device with @bar's memory, or with @mem_size bytes of RAM if @bar is
 * NULL, in the first free slot.
 */
int sim_device_add(struct sim_bar *bar, u64 mem_size)
{
	unsigned int i;
	int rc = -ENOSPC;

	mutex_lock(&sim_devs_lock);
	for (i = 0; i < SIM_MAX_DEVICES; i++) {
		if (sim_devs[i].live)
			continue;
		rc = sim_device_init(&sim_devs[i], i, bar, mem_size,
				     sim_sram_size);
		if (!rc)
			sim_devs[i].live = true;
		break;
	}
	mutex_unlock(&sim_devs_lock);
	if (rc == -ENOSPC)
		pr_err(SIM_NAME ": more than %d devices\n", SIM_MAX_DEVICES);
	else if (!rc)
		dev_info(sim_devs[i].dev_compute,
			 "emulated GAUDI2 at %s, %llu MiB of %s memory, %llu MiB of SRAM\n",
			 sim_devs[i].pci_addr, sim_devs[i].mem_size >> 20,
			 bar ? "BAR" : "RAM", sim_sram_size >> 20);
	return rc;
}

/* Removes the device whose memory is @parent's BAR; returns its BAR. */
struct sim_bar *sim_device_remove(struct device *parent)
{
	struct sim_bar *bar = NULL;
	unsigned int i;

	mutex_lock(&sim_devs_lock);
	for (i = 0; i < SIM_MAX_DEVICES; i++) {
		struct sim_device *sdev = &sim_devs[i];

		if (sdev->live && sdev->bar && &sdev->bar->pdev->dev == parent) {
			bar = sdev->bar;
			sim_device_fini(sdev);
			memset(sdev, 0, sizeof(*sdev));
			break;
		}
	}
	mutex_unlock(&sim_devs_lock);
	return bar;
}

/* At unload, after the PCI devices went: the RAM devices, the class. */
void sim_devices_fini(void)
{
	unsigned int i;

	mutex_lock(&sim_devs_lock);
	for (i = 0; i < SIM_MAX_DEVICES; i++) {
		if (!sim_devs[i].live)
			continue;
		WARN_ON(sim_devs[i].bar);
		sim_device_fini(&sim_devs[i]);
		memset(&sim_devs[i], 0, sizeof(sim_devs[i]));
	}
	mutex_unlock(&sim_devs_lock);
	class_destroy(sim_class);
	unregister_chrdev_region(sim_devt_base, 2 * SIM_MAX_DEVICES);
}
