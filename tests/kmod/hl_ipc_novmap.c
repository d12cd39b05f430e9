// SPDX-License-Identifier: GPL-2.0
/*
 * Test exporter for habanalabs_ipc: dma-bufs that can be attached and
 * mapped for DMA but give no CPU access (no vmap), like the P2P-only
 * dma-bufs of real accelerators.  Any ioctl on /dev/hl_ipc_novmap returns
 * a new one-page dma-buf fd.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

static struct sg_table *novmap_map(struct dma_buf_attachment *at,
				   enum dma_data_direction dir)
{
	struct page *page = at->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	sg_set_page(sgt->sgl, page, PAGE_SIZE, 0);
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

static void novmap_unmap(struct dma_buf_attachment *at, struct sg_table *sgt,
			 enum dma_data_direction dir)
{
	dma_unmap_sgtable(at->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

static void novmap_release(struct dma_buf *dbuf)
{
	__free_page(dbuf->priv);
}

static const struct dma_buf_ops novmap_ops = {
	.map_dma_buf = novmap_map,
	.unmap_dma_buf = novmap_unmap,
	.release = novmap_release,
};

static long novmap_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dma_buf *dbuf;
	struct page *page;
	int fd;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	info.ops = &novmap_ops;
	info.size = PAGE_SIZE;
	info.flags = O_RDWR;
	info.priv = page;
	dbuf = dma_buf_export(&info);
	if (IS_ERR(dbuf)) {
		__free_page(page);
		return PTR_ERR(dbuf);
	}
	fd = dma_buf_fd(dbuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dbuf);
	return fd;
}

static const struct file_operations novmap_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = novmap_ioctl,
};

static struct miscdevice novmap_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hl_ipc_novmap",
	.fops = &novmap_fops,
	.mode = 0666,
};

module_misc_device(novmap_misc);

MODULE_DESCRIPTION("habanalabs_ipc test: a dma-buf exporter without CPU access");
MODULE_LICENSE("GPL");
MODULE_INFO(import_ns, "DMA_BUF");
