/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Long-term pins of user memory, for both modules: habanalabs_ipc's user
 * regions and habanalabs_sim's userptr mappings.  One policy decides
 * which mappings may be pinned and with which GUP flags, so that the
 * pinned pages stay the pages the process goes on using.
 *
 * Writable pins: a writable long-term pin of a file mapping whose
 * filesystem tracks dirty pages loses writeback (6.5 and later refuse it
 * inside GUP, 6.1 does not), so only anonymous, shmem and hugetlbfs
 * memory and private mappings may be pinned writable, on every kernel
 * alike.
 *
 * Read-only pins of copy-on-write (private) mappings: without FOLL_WRITE,
 * 6.1 pins whatever the page table holds, e.g. the shared zero page of
 * memory not written yet or the page cache page of a MAP_PRIVATE file;
 * the owner's next write then moves its mapping to a new page and the pin
 * keeps the old one for ever (later kernels unshare such pages
 * themselves).  So these pins break copy-on-write first, with FOLL_WRITE,
 * and with FOLL_FORCE when the mapping is not writable right now: the
 * pages become the owner's private pages before they are pinned, as a
 * first write would make them.  Mappings that can never be written (no
 * VM_MAYWRITE) cannot move to another page and are pinned as they are;
 * so are private hugetlb mappings, where GUP refuses FOLL_FORCE writes.
 *
 * Pinning runs under one mmap_read_lock, so the mappings checked are the
 * ones pinned, and notices fatal signals between batches.
 */
#ifndef HL_USER_PIN_H
#define HL_USER_PIN_H

#include <linux/backing-dev.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>

#include "hl_compat.h"

/* Pages pinned per call, so that fatal signals are noticed in between. */
#define HL_USER_PIN_BATCH	512UL

/* May a device or the CPU keep writing to this mapping for a long time? */
static inline bool hl_user_pin_writable_ok(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED) || !vma->vm_file)
		return true;		/* anonymous, or private copies */
	if (is_vm_hugetlb_page(vma))
		return true;
	if (vma->vm_ops && vma->vm_ops->page_mkwrite)
		return false;		/* the filesystem wants to know */
	return !mapping_can_writeback(vma->vm_file->f_mapping);
}

/*
 * The GUP flags for a long-term pin of @vma's pages: 0 and *gup set, or
 * -EOPNOTSUPP for a writable pin the policy above refuses, or -EFAULT for
 * a writable pin of memory the process may not write.
 */
static inline int hl_user_pin_flags(struct vm_area_struct *vma, bool write,
				    unsigned int *gup)
{
	vm_flags_t f = vma->vm_flags;

	*gup = FOLL_LONGTERM;
	if (write) {
		if (!(f & VM_WRITE))
			return -EFAULT;
		if (!hl_user_pin_writable_ok(vma))
			return -EOPNOTSUPP;
		*gup |= FOLL_WRITE;
	} else if (is_cow_mapping(f)) {
		if (f & VM_WRITE)
			*gup |= FOLL_WRITE;
		else if (!is_vm_hugetlb_page(vma))
			*gup |= FOLL_WRITE | FOLL_FORCE;
	}
	return 0;
}

/*
 * Pin @npages pages of the caller's memory from page-aligned @start into
 * @pages.  0 when all are pinned; otherwise nothing stays pinned and the
 * result is -EFAULT (a hole, or memory GUP cannot pin), -EOPNOTSUPP (see
 * hl_user_pin_flags()), -ENOMEM or -EINTR (a fatal signal).
 */
static inline int hl_user_pin(unsigned long start, unsigned long npages,
			      bool write, struct page **pages)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long addr, done = 0;
	unsigned int gup;
	long n;
	int ret = 0;

	if (!mm)
		return -EFAULT;
	mmap_read_lock(mm);
	while (done < npages) {
		addr = start + (done << PAGE_SHIFT);
		vma = vma_lookup(mm, addr);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		ret = hl_user_pin_flags(vma, write, &gup);
		if (ret)
			break;
		n = min3(npages - done, (vma->vm_end - addr) >> PAGE_SHIFT,
			 HL_USER_PIN_BATCH);
		n = hl_pin_user_pages(addr, n, gup, pages + done);
		if (n <= 0) {
			if (n == -ENOMEM)
				ret = -ENOMEM;
			else if (n == -EINTR || n == -ERESTARTSYS)
				ret = -EINTR;
			else
				ret = -EFAULT;
			break;
		}
		done += n;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
	}
	mmap_read_unlock(mm);
	if (ret)
		unpin_user_pages(pages, done);
	return ret;
}

#endif /* HL_USER_PIN_H */
