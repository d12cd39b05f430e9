// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: dma-buf exporter for a page range of device memory.
 *
 * Device memory in a PCI BAR (pci_memory=1) is exported as the driver's
 * habanalabs_dmabuf_ops export it (drivers/accel/habanalabs/common/
 * memory.c): attach, map, unmap and release only, no CPU access; attach
 * marks an importer the PCI topology keeps from the BAR
 * (pci_p2pdma_distance() fails, as it always does on a kernel without
 * CONFIG_PCI_P2PDMA) as not peer to peer, and map then refuses it with
 * EPERM; otherwise the sg table holds the BAR's addresses mapped for the
 * importer with dma_map_resource().
 *
 * Device memory in RAM (the default) is ordinary pages, which the real
 * driver never exports: importers may map them to an sg table, vmap them
 * or mmap them, and userspace may mmap the fd; the option for tests that
 * need an exporter with CPU access.
 *
 * Either way, as with the real driver, a dma-buf keeps its mapping in
 * place (UNMAP is refused, so FREE is too) and holds the compute file it
 * was exported from, so the context is released only after the last
 * dma-buf; it also holds its own reference on the backing object.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
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

/* hl_dmabuf_attach(): the topology decides, map refuses. */
static int sim_dmabuf_p2p_attach(struct dma_buf *dmabuf,
				 struct dma_buf_attachment *attach)
{
	struct sim_dmabuf *sbuf = dmabuf->priv;

	if (pci_p2pdma_distance(sbuf->bo->sdev->bar->pdev, attach->dev,
				true) < 0)
		attach->peer2peer = false;
	return 0;
}

static void sim_dmabuf_p2p_unmap_sgt(struct device *dev,
				     struct sg_table *sgt,
				     enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		if (sg_dma_len(sg))
			dma_unmap_resource(dev, sg_dma_address(sg),
					   sg_dma_len(sg), dir,
					   DMA_ATTR_SKIP_CPU_SYNC);
	/* sg_free_table() walks orig_nents. */
	sgt->orig_nents = sgt->nents;
	sg_free_table(sgt);
	kfree(sgt);
}

/*
 * hl_map_dmabuf(): the BAR's addresses, mapped for the importer in
 * segments it takes, and no CPU list (orig_nents 0), as the driver's.
 */
static struct sg_table *sim_dmabuf_p2p_map(struct dma_buf_attachment *attach,
					   enum dma_data_direction dir)
{
	struct sim_dmabuf *sbuf = attach->dmabuf->priv;
	struct sim_bo *bo = sbuf->bo;
	phys_addr_t phys = bo->sdev->bar->phys + bo->bar_off +
			   ((u64)sbuf->first << PAGE_SHIFT);
	u64 left = (u64)sbuf->npages << PAGE_SHIFT, seg, n;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	dma_addr_t addr;
	int rc;

	if (!attach->peer2peer)
		return ERR_PTR(-EPERM);
	seg = ALIGN_DOWN(dma_get_max_seg_size(attach->dev), PAGE_SIZE);
	if (!seg)
		return ERR_PTR(-EINVAL);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	rc = sg_alloc_table(sgt, DIV_ROUND_UP(left, seg), GFP_KERNEL);
	if (rc) {
		kfree(sgt);
		return ERR_PTR(rc);
	}
	for_each_sgtable_dma_sg(sgt, sg, i) {
		n = min(left, seg);
		addr = dma_map_resource(attach->dev, phys, n, dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(attach->dev, addr)) {
			sgt->nents = i;
			sim_dmabuf_p2p_unmap_sgt(attach->dev, sgt, dir);
			return ERR_PTR(-ENOMEM);
		}
		sg_dma_address(sg) = addr;
		sg_dma_len(sg) = n;
		phys += n;
		left -= n;
	}
	sgt->orig_nents = 0;
	sim_stat_inc(SIM_STAT_DMABUF_ATTACH);
	return sgt;
}

static void sim_dmabuf_p2p_unmap(struct dma_buf_attachment *attach,
				 struct sg_table *sgt,
				 enum dma_data_direction dir)
{
	sim_dmabuf_p2p_unmap_sgt(attach->dev, sgt, dir);
	sim_stat_dec(SIM_STAT_DMABUF_ATTACH);
}

/* The driver's four operations, and no others. */
static const struct dma_buf_ops sim_dmabuf_p2p_ops = {
	.attach = sim_dmabuf_p2p_attach,
	.map_dma_buf = sim_dmabuf_p2p_map,
	.unmap_dma_buf = sim_dmabuf_p2p_unmap,
	.release = sim_dmabuf_release,
};

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

	exp.ops = bo->kaddr ? &sim_dmabuf_p2p_ops : &sim_dmabuf_ops;
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
