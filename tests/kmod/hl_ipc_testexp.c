// SPDX-License-Identifier: GPL-2.0
/*
 * Test exporter for habanalabs_ipc: dma-bufs whose exporter behaves in
 * ways the stock exporters of the test kernels do not, so that the
 * importer's handling of them can be tested (see hl_ipc_testexp.h).
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fcntl.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "generated/compat_config.h"
#include "hl_ipc_testexp.h"

static DECLARE_WAIT_QUEUE_HEAD(testexp_gate_wq);
static bool testexp_gate_open;
static atomic_t testexp_waiters = ATOMIC_INIT(0);

struct testexp_buf {
	u32 mode;
	size_t size;
	void *dev;	/* device memory: what mmap shows */
	void *cpu;	/* the CPU's copy: what vmap gives (SHADOW) */
};

/* A DMA mapping of device memory, for importers that ask for one. */
static struct sg_table *testexp_map(struct dma_buf_attachment *at,
				    enum dma_data_direction dir)
{
	struct testexp_buf *b = at->dmabuf->priv;
	unsigned int i, n = b->size >> PAGE_SHIFT;
	struct scatterlist *sg;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, n, GFP_KERNEL);
	if (ret)
		goto err_free;
	for_each_sgtable_sg(sgt, sg, i)
		sg_set_page(sg, vmalloc_to_page(b->dev + i * PAGE_SIZE),
			    PAGE_SIZE, 0);
	ret = dma_map_sgtable(at->dev, sgt, dir, 0);
	if (ret)
		goto err_table;
	return sgt;
err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void testexp_unmap(struct dma_buf_attachment *at,
			  struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(at->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void testexp_free(struct testexp_buf *b)
{
	vfree(b->cpu);
	vfree(b->dev);
	kfree(b);
}

static void testexp_release(struct dma_buf *dbuf)
{
	testexp_free(dbuf->priv);
}

static int testexp_vmap(struct dma_buf *dbuf, struct iosys_map *map)
{
	struct testexp_buf *b = dbuf->priv;

	if (b->mode == HL_TESTEXP_SHADOW) {
		iosys_map_set_vaddr(map, b->cpu);
		return 0;
	}
#ifndef HAVE_DMA_BUF_VMAP_UNLOCKED
	/* Before 6.2, exporters locked here; the importer must not. */
	if (b->mode == HL_TESTEXP_OLDLOCK) {
		if (dma_resv_is_locked(dbuf->resv))
			return -EDEADLK;
		dma_resv_lock(dbuf->resv, NULL);
		iosys_map_set_vaddr(map, b->dev);
		dma_resv_unlock(dbuf->resv);
		return 0;
	}
#endif
	iosys_map_set_vaddr(map, b->dev);
	return 0;
}

static void testexp_vunmap(struct dma_buf *dbuf, struct iosys_map *map)
{
}

static bool testexp_reads(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

static bool testexp_writes(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL;
}

static int testexp_gate(void)
{
	long ret;

	atomic_inc(&testexp_waiters);
	ret = wait_event_interruptible_timeout(testexp_gate_wq,
					       READ_ONCE(testexp_gate_open),
					       60 * HZ);
	atomic_dec(&testexp_waiters);
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}

static int testexp_begin_cpu(struct dma_buf *dbuf, enum dma_data_direction dir)
{
	struct testexp_buf *b = dbuf->priv;

	if (b->mode == HL_TESTEXP_GATED)
		return testexp_gate();

	if (b->mode == HL_TESTEXP_SHADOW && testexp_reads(dir))
		memcpy(b->cpu, b->dev, b->size);
	return 0;
}

static int testexp_end_cpu(struct dma_buf *dbuf, enum dma_data_direction dir)
{
	struct testexp_buf *b = dbuf->priv;

	if (b->mode == HL_TESTEXP_SHADOW && testexp_writes(dir))
		memcpy(b->dev, b->cpu, b->size);
	return 0;
}

static int testexp_mmap(struct dma_buf *dbuf, struct vm_area_struct *vma)
{
	struct testexp_buf *b = dbuf->priv;

	return remap_vmalloc_range(vma, b->dev, vma->vm_pgoff);
}

static const struct dma_buf_ops testexp_ops = {
	.map_dma_buf = testexp_map,
	.unmap_dma_buf = testexp_unmap,
	.release = testexp_release,
	.vmap = testexp_vmap,
	.vunmap = testexp_vunmap,
	.begin_cpu_access = testexp_begin_cpu,
	.end_cpu_access = testexp_end_cpu,
	.mmap = testexp_mmap,
};

static int testexp_move(unsigned long fd)
{
	struct dma_buf *dbuf = dma_buf_get(fd);

	if (IS_ERR(dbuf))
		return PTR_ERR(dbuf);
	if (dbuf->ops != &testexp_ops) {
		dma_buf_put(dbuf);
		return -EINVAL;
	}
	dma_resv_lock(dbuf->resv, NULL);
	dma_buf_move_notify(dbuf);
	dma_resv_unlock(dbuf->resv);
	dma_buf_put(dbuf);
	return 0;
}

static long testexp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct hl_testexp_create c;
	struct testexp_buf *b;
	struct dma_buf *dbuf;
	int fd;

	if (cmd == HL_TESTEXP_GATE) {
		WRITE_ONCE(testexp_gate_open, !!arg);
		wake_up_all(&testexp_gate_wq);
		return 0;
	}
	if (cmd == HL_TESTEXP_WAITERS)
		return atomic_read(&testexp_waiters);
	if (cmd == HL_TESTEXP_MOVE)
		return testexp_move(arg);
	if (cmd != HL_TESTEXP_CREATE)
		return -ENOTTY;
	if (copy_from_user(&c, (void __user *)arg, sizeof(c)))
		return -EFAULT;
	if (c.mode < HL_TESTEXP_SHADOW || c.mode > HL_TESTEXP_GATED ||
	    (c.flags != O_RDWR && c.flags != O_RDONLY) || !c.size ||
	    c.size > SZ_64M || !PAGE_ALIGNED(c.size))
		return -EINVAL;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->mode = c.mode;
	b->size = c.size;
	b->dev = vmalloc_user(c.size);
	b->cpu = c.mode == HL_TESTEXP_SHADOW ? vzalloc(c.size) : NULL;
	if (!b->dev || (c.mode == HL_TESTEXP_SHADOW && !b->cpu)) {
		testexp_free(b);
		return -ENOMEM;
	}
	info.ops = &testexp_ops;
	info.size = c.size;
	info.flags = c.flags;
	info.priv = b;
	dbuf = dma_buf_export(&info);
	if (IS_ERR(dbuf)) {
		testexp_free(b);
		return PTR_ERR(dbuf);
	}
	fd = dma_buf_fd(dbuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dbuf);
	return fd;
}

static const struct file_operations testexp_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = testexp_ioctl,
};

static struct miscdevice testexp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hl_ipc_testexp",
	.fops = &testexp_fops,
	.mode = 0666,
};

module_misc_device(testexp_misc);

MODULE_DESCRIPTION("habanalabs_ipc test: dma-buf exporters with unusual behaviour");
MODULE_LICENSE("GPL");
MODULE_INFO(import_ns, "DMA_BUF");
