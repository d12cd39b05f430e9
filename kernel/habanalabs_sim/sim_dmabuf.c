// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: dma-buf exporter for a page range of device memory.
 *
 * Unlike the real Gaudi exporter (peer-to-peer only), these dma-bufs are
 * ordinary pages: importers may map them to an sg table, vmap them or
 * mmap them, and userspace may mmap the fd.  As with the real driver, a
 * dma-buf keeps its mapping in place (UNMAP is refused, so FREE is too)
 * and holds the compute file it was exported from, so the context is
 * released only after the last dma-buf; it also holds its own reference
 * on the backing object.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "sim.h"

struct sim_dmabuf {
	struct sim_ctx *ctx;		/* kept alive by a reference on its file */
	struct sim_va *va;		/* export_count held */
	struct sim_bo *bo;		/* reference */
	unsigned long first;		/* first page of bo */
	unsigned long npages;
};

static struct sg_table *sim_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct sim_dmabuf *sbuf = attach->dmabuf->priv;
	struct sg_table *sgt;
	int rc;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	rc = sg_alloc_table_from_pages(sgt, sbuf->bo->pages + sbuf->first,
				       sbuf->npages, 0,
				       sbuf->npages << PAGE_SHIFT, GFP_KERNEL);
	if (rc)
		goto err_free;
	rc = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (rc)
		goto err_table;
	sim_stat_inc(SIM_STAT_DMABUF_ATTACH);
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(rc);
}

static void sim_dmabuf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt,
			     enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	sim_stat_dec(SIM_STAT_DMABUF_ATTACH);
}

/* Drops an export count taken in sim_mem_export_hold(). */
static void sim_dmabuf_uncount(struct sim_ctx *ctx, struct sim_va *va)
{
	mutex_lock(&ctx->lock);
	va->export_count--;
	mutex_unlock(&ctx->lock);
}

static void sim_dmabuf_release(struct dma_buf *dmabuf)
{
	struct sim_dmabuf *sbuf = dmabuf->priv;
	struct sim_ctx *ctx = sbuf->ctx;

	sim_dmabuf_uncount(ctx, sbuf->va);
	sim_bo_put(sbuf->bo);
	/* Last: this may release the context. */
	fput(ctx->file);
	kfree(sbuf);
	sim_stat_dec(SIM_STAT_DMABUF);
}

/* The dma-buf core counts vmap users; we only create the mapping. */
static int sim_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct sim_dmabuf *sbuf = dmabuf->priv;
	void *vaddr;

	vaddr = vmap(sbuf->bo->pages + sbuf->first, sbuf->npages, VM_MAP,
		     PAGE_KERNEL);
	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	sim_stat_inc(SIM_STAT_DMABUF_VMAP);
	return 0;
}

static void sim_dmabuf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	vunmap(map->vaddr);
	sim_stat_dec(SIM_STAT_DMABUF_VMAP);
}

static int sim_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct sim_dmabuf *sbuf = dmabuf->priv;
	unsigned long i, n = vma_pages(vma);
	int rc;

	/*
	 * Private copies of device memory make no sense.  VM_MAYSHARE: a
	 * shared mapping of a read-only export has no VM_SHARED.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	/* The dma-buf core has checked vm_pgoff + n against the size. */
	if (vma->vm_pgoff > sbuf->npages || n > sbuf->npages - vma->vm_pgoff)
		return -EINVAL;

	hl_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	/*
	 * Ordinary refcounted pages inserted up front: pinning an mmap of
	 * a dma-buf (e.g. for a userptr mapping) then works too.
	 */
	for (i = 0; i < n; i++) {
		rc = vm_insert_page(vma, vma->vm_start + (i << PAGE_SHIFT),
				    sbuf->bo->pages[sbuf->first +
						    vma->vm_pgoff + i]);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The pages are cacheable host memory and every importer sees them
 * coherently, so there is nothing to flush around CPU access.
 */
static int sim_dmabuf_begin_cpu(struct dma_buf *dmabuf,
				enum dma_data_direction dir)
{
	return 0;
}

static int sim_dmabuf_end_cpu(struct dma_buf *dmabuf,
			      enum dma_data_direction dir)
{
	return 0;
}

static const struct dma_buf_ops sim_dmabuf_ops = {
	.map_dma_buf = sim_dmabuf_map,
	.unmap_dma_buf = sim_dmabuf_unmap,
	.release = sim_dmabuf_release,
	.mmap = sim_dmabuf_mmap,
	.vmap = sim_dmabuf_vmap,
	.vunmap = sim_dmabuf_vunmap,
	.begin_cpu_access = sim_dmabuf_begin_cpu,
	.end_cpu_access = sim_dmabuf_end_cpu,
};

/*
 * Returns the new fd, or a negative errno.  The caller has counted the
 * export on va (under ctx->lock, so va stays mapped); the count belongs to
 * the dma-buf from here on, or is dropped on failure.
 */
int sim_dmabuf_export(struct sim_ctx *ctx, struct sim_va *va, u64 offset,
		      u64 size, u32 flags)
{
	struct sim_bo *bo = va->bo;
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct sim_dmabuf *sbuf;
	struct dma_buf *dmabuf;
	int fd;

	sbuf = kzalloc(sizeof(*sbuf), GFP_KERNEL);
	if (!sbuf) {
		sim_dmabuf_uncount(ctx, va);
		return -ENOMEM;
	}
	sim_bo_get(bo);
	sbuf->bo = bo;
	sbuf->ctx = ctx;
	sbuf->va = va;
	sbuf->first = offset >> PAGE_SHIFT;
	sbuf->npages = size >> PAGE_SHIFT;

	exp.ops = &sim_dmabuf_ops;
	exp.size = size;
	/* As the real driver: the file's access mode is the caller's. */
	exp.flags = flags;
	exp.priv = sbuf;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		sim_bo_put(bo);
		kfree(sbuf);
		sim_dmabuf_uncount(ctx, va);
		return PTR_ERR(dmabuf);
	}
	get_file(ctx->file);
	sim_stat_inc(SIM_STAT_DMABUF);

	fd = dma_buf_fd(dmabuf, flags & O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);	/* the release drops all it holds */
	return fd;
}
