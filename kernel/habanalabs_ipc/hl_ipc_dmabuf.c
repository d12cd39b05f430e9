// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf regions.  The CPU engine needs only a kernel mapping, so the
 * buffer is vmapped once, at registration, and nothing else: no
 * attachment and no DMA mapping that the engine would not use (under
 * swiotlb an unused mapping copies a stale bounce buffer back over the
 * data when it is unmapped).  A vmap keeps the backing storage in place
 * until vunmap.  Copies bracket their CPU access with
 * dma_buf_begin/end_cpu_access (hl_ipc_region.c).
 */
#include <linux/dma-buf.h>
#include <linux/file.h>
#include <linux/fs.h>

#include "hl_compat.h"
#include "hl_ipc.h"

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
	r->base = 0;

	/* Writing needs what write(2) on the dma-buf would need. */
	if ((r->flags & HL_IPC_REGION_WRITE) &&
	    !(dbuf->file->f_mode & FMODE_WRITE))
		return -EACCES;

	/* The CPU engine needs a kernel mapping; P2P-only exporters refuse. */
	ret = hl_dma_buf_vmap(dbuf, &r->map);
	if (ret)
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	if (r->map.is_iomem) {
		hl_dma_buf_vunmap(dbuf, &r->map);
		iosys_map_clear(&r->map);
		return -EOPNOTSUPP;
	}
	r->vaddr = r->map.vaddr;
	return 0;
}

/* Undo whatever hl_ipc_dmabuf_import() got done. */
void hl_ipc_dmabuf_release(struct hl_ipc_region *r)
{
	if (!r->dbuf)
		return;
	if (r->vaddr)
		hl_dma_buf_vunmap(r->dbuf, &r->map);
	dma_buf_put(r->dbuf);
}
