/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shims over kernel API differences between the supported kernels.
 * Which side applies is decided by compat/configure's probes, never by
 * LINUX_VERSION_CODE.
 */
#ifndef HL_COMPAT_H
#define HL_COMPAT_H

#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/module.h>

#include "generated/compat_config.h"

#ifdef HAVE_CLASS_CREATE_ONE_ARG
#define hl_class_create(name) class_create(name)
#else
#define hl_class_create(name) class_create(THIS_MODULE, name)
#endif

/*
 * MODULE_IMPORT_NS() takes a token before 6.13 and a string after; both
 * expand to this modinfo tag, which works everywhere.
 */
#define HL_IMPORT_DMA_BUF_NS() MODULE_INFO(import_ns, "DMA_BUF")

#ifdef HAVE_PIN_USER_PAGES_NO_VMAS
#define hl_pin_user_pages(start, n, flags, pages) \
	pin_user_pages(start, n, flags, pages)
#else
#define hl_pin_user_pages(start, n, flags, pages) \
	pin_user_pages(start, n, flags, pages, NULL)
#endif

static inline void hl_vma_set_flags(struct vm_area_struct *vma,
				    unsigned long flags)
{
#ifdef HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * dma-buf importer calls.  Since the 6.2 locking rules the importer holds
 * the reservation lock around vmap and map_attachment; the _unlocked
 * helpers do that for us.  Where they are missing, take the lock
 * ourselves so that exporters always see the same convention.
 */
static inline int hl_dma_buf_vmap(struct dma_buf *dbuf, struct iosys_map *map)
{
#ifdef HAVE_DMA_BUF_VMAP_UNLOCKED
	return dma_buf_vmap_unlocked(dbuf, map);
#else
	int ret;

	dma_resv_lock(dbuf->resv, NULL);
	ret = dma_buf_vmap(dbuf, map);
	dma_resv_unlock(dbuf->resv);
	return ret;
#endif
}

static inline void hl_dma_buf_vunmap(struct dma_buf *dbuf,
				     struct iosys_map *map)
{
#ifdef HAVE_DMA_BUF_VMAP_UNLOCKED
	dma_buf_vunmap_unlocked(dbuf, map);
#else
	dma_resv_lock(dbuf->resv, NULL);
	dma_buf_vunmap(dbuf, map);
	dma_resv_unlock(dbuf->resv);
#endif
}

static inline struct sg_table *
hl_dma_buf_map_attachment(struct dma_buf_attachment *attach,
			  enum dma_data_direction dir)
{
#ifdef HAVE_DMA_BUF_MAP_ATTACHMENT_UNLOCKED
	return dma_buf_map_attachment_unlocked(attach, dir);
#else
	struct sg_table *sgt;

	dma_resv_lock(attach->dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(attach, dir);
	dma_resv_unlock(attach->dmabuf->resv);
	return sgt;
#endif
}

static inline void hl_dma_buf_unmap_attachment(struct dma_buf_attachment *attach,
					       struct sg_table *sgt,
					       enum dma_data_direction dir)
{
#ifdef HAVE_DMA_BUF_MAP_ATTACHMENT_UNLOCKED
	dma_buf_unmap_attachment_unlocked(attach, sgt, dir);
#else
	dma_resv_lock(attach->dmabuf->resv, NULL);
	dma_buf_unmap_attachment(attach, sgt, dir);
	dma_resv_unlock(attach->dmabuf->resv);
#endif
}

#endif /* HL_COMPAT_H */
