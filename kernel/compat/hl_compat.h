/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small shims over kernel API differences between the supported kernels.
 * Which side applies is decided by compat/configure's probes, never by
 * LINUX_VERSION_CODE.
 */
#ifndef HL_COMPAT_H
#define HL_COMPAT_H

#include <linux/device.h>
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

#endif /* HL_COMPAT_H */
