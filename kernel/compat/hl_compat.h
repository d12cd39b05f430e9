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
 * dma-buf vmap.  Since the 6.2 locking rules the importer holds the
 * reservation lock around vmap, which dma_buf_vmap_unlocked() does for
 * us.  Kernels without that helper follow the older rules: dma_buf_vmap()
 * serialises on the dma-buf's own mutex and exporters of that era may
 * take the reservation lock inside their vmap, so it must be called
 * without it (holding it would deadlock them).
 */
static inline int hl_dma_buf_vmap(struct dma_buf *dbuf, struct iosys_map *map)
{
#ifdef HAVE_DMA_BUF_VMAP_UNLOCKED
	return dma_buf_vmap_unlocked(dbuf, map);
#else
	return dma_buf_vmap(dbuf, map);
#endif
}

static inline void hl_dma_buf_vunmap(struct dma_buf *dbuf,
				     struct iosys_map *map)
{
#ifdef HAVE_DMA_BUF_VMAP_UNLOCKED
	dma_buf_vunmap_unlocked(dbuf, map);
#else
	dma_buf_vunmap(dbuf, map);
#endif
}

#endif /* HL_COMPAT_H */
