// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf regions.  The CPU engine needs only a kernel mapping, so the
 * buffer is vmapped once, at registration, and nothing else: no
 * attachment and no DMA mapping that the engine would not use (under
 * swiotlb an unused mapping copies a stale bounce buffer back over the
 * data when it is unmapped).  A vmap keeps the backing storage in place
 * until vunmap, and shows which pages it is: the region's identity
 * (hl_ipc_share.c).  Copies bracket their CPU access below.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "hl_ipc.h"

/* The page behind a kernel address of the vmap, or NULL if none is. */
static struct page *hl_ipc_dmabuf_page(const void *addr)
{
	if (is_vmalloc_addr(addr))
		return vmalloc_to_page(addr);
	if (virt_addr_valid(addr))
		return virt_to_page(addr);
	return NULL;
}

/*
 * The pages the vmap shows.  A mapping not made of pages (an exporter
 * that hands out I/O memory without saying so) leaves the identity of the
 * memory unknown: refused, as I/O memory is.
 */
static int hl_ipc_dmabuf_pages(struct hl_ipc_region *r)
{
	unsigned long i;

	r->npages = DIV_ROUND_UP(r->size, PAGE_SIZE);
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < r->npages; i++) {
		r->pages[i] = hl_ipc_dmabuf_page(r->vaddr + i * PAGE_SIZE);
		if (!r->pages[i] || !pfn_valid(page_to_pfn(r->pages[i])))
			return -EOPNOTSUPP;
		if (!(i % 1024))
			cond_resched();
	}
	return hl_ipc_share_scan(r);
}

int hl_ipc_dmabuf_import(struct hl_ipc_region *r, int fd)
{
	struct dma_buf *dbuf;
	struct file *f;
	int ret;

	/* Tell a closed fd (EBADF) from an open fd of the wrong kind. */
	f = fget(fd);
	if (!f)
		return -EBADF;
	fput(f);

	dbuf = dma_buf_get(fd);
	if (IS_ERR(dbuf))
		return PTR_ERR(dbuf) == -EBADF ? -EBADF : -ENODEV;
	r->dbuf = dbuf;
	r->size = dbuf->size;
	r->backing = dbuf;

	/* Writing needs what write(2) on the dma-buf would need. */
	if ((r->flags & HL_IPC_REGION_WRITE) &&
	    !(dbuf->file->f_mode & FMODE_WRITE))
		return -EACCES;

	/*
	 * The CPU engine needs a kernel mapping.  An exporter that gives
	 * none (a Gaudi's, peer to peer only) may still let the DMA engine
	 * reach the memory: asked now, so that a refusal (no engine, or the
	 * PCI topology) is EOPNOTSUPP at registration.
	 */
	ret = hl_dma_buf_vmap(dbuf, &r->map);
	if (ret == -ENOMEM)
		return ret;
	if (!ret && r->map.is_iomem) {
		hl_dma_buf_vunmap(dbuf, &r->map);
		ret = -EOPNOTSUPP;
	}
	if (ret) {
		iosys_map_clear(&r->map);
		if (READ_ONCE(hl_ipc_engine_mode) == HL_IPC_ENGINE_MODE_CPU)
			return -EOPNOTSUPP;
		return hl_ipc_dma_region_prepare(r);
	}
	r->vaddr = r->map.vaddr;
	return hl_ipc_dmabuf_pages(r);
}

/* Undo whatever hl_ipc_dmabuf_import() got done. */
void hl_ipc_dmabuf_release(struct hl_ipc_region *r)
{
	if (!r->dbuf)
		return;
	hl_ipc_share_free(r);
	kvfree(r->pages);
	if (r->vaddr)
		hl_dma_buf_vunmap(r->dbuf, &r->map);
	dma_buf_put(r->dbuf);
}

/*
 * Wait for the fences an access must wait for (all of them for a write,
 * the writers' for a read), as dma_buf_begin_cpu_access() would, but at
 * most @timeout jiffies: what dma_resv_wait_timeout() returns.
 */
long hl_ipc_dmabuf_wait(struct hl_ipc_region *r, bool write, bool intr,
			unsigned long timeout)
{
	return dma_resv_wait_timeout(r->dbuf->resv, dma_resv_usage_rw(write),
				     intr, timeout);
}

/*
 * Let the exporter make the data visible to the CPU (exporters with
 * caches or bounce buffers need it), after hl_ipc_dmabuf_wait().  This is
 * dma_buf_begin_cpu_access() without its own fence wait, which has no
 * bound: anyone who holds the dma-buf can attach fences to it.
 *
 * Both ends say DMA_BIDIRECTIONAL: the destination is read-modify-written
 * as far as the exporter can tell, and for the source it costs at most a
 * writeback of unchanged data, while udmabuf (6.12) maps its sync table
 * with the direction of the first call and unmaps it bidirectionally, so
 * any other direction trips the DMA API's checks.
 */
int hl_ipc_dmabuf_begin_cpu(struct hl_ipc_region *r)
{
	const struct dma_buf_ops *ops = r->dbuf->ops;
	int ret;

	if (!ops->begin_cpu_access)
		return 0;
	ret = ops->begin_cpu_access(r->dbuf, DMA_BIDIRECTIONAL);
	if (ret == -ERESTARTSYS || ret == -EINTR)
		return -EINTR;
	return ret ? -EIO : 0;
}

void hl_ipc_dmabuf_end_cpu(struct hl_ipc_region *r)
{
	dma_buf_end_cpu_access(r->dbuf, DMA_BIDIRECTIONAL);
}
