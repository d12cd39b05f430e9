// SPDX-License-Identifier: GPL-2.0
/*
 * User regions: a range of the caller's memory, pinned with FOLL_LONGTERM
 * and vmapped for the CPU engine.
 *
 * The pages are charged like io_uring's registered buffers: to the
 * user's locked_vm, so that RLIMIT_MEMLOCK bounds the user across all of
 * its processes (not each mm on its own), unless the caller has
 * CAP_IPC_LOCK; mm->pinned_vm shows them in the process's status.
 *
 * A writable long-term pin of a file mapping whose filesystem tracks
 * dirty pages loses writeback (newer kernels refuse it inside GUP, 6.1
 * does not), so writable regions accept only anonymous, shmem and
 * hugetlbfs memory, on every kernel alike.  The check and the pin run
 * under one mmap_read_lock, so the mapping checked is the one pinned.
 */
#include <linux/backing-dev.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "hl_ipc.h"

/* Pages pinned per call, so fatal signals are noticed between batches. */
#define HL_IPC_PIN_BATCH	512

static int hl_ipc_pin_charge(struct hl_ipc_region *r)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	long cur, new;

	if (!capable(CAP_IPC_LOCK)) {
		user = get_current_user();
		cur = atomic_long_read(&user->locked_vm);
		do {
			new = cur + r->npages;
			if (new > limit) {
				free_uid(user);
				return -ENOMEM;
			}
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
		r->locked_user = user;
	}
	atomic64_add(r->npages, &current->mm->pinned_vm);
	atomic64_add(r->npages, &hl_ipc_stats.pinned_pages);
	mmgrab(current->mm);
	r->mm = current->mm;
	return 0;
}

static void hl_ipc_pin_uncharge(struct hl_ipc_region *r)
{
	if (r->locked_user) {
		atomic_long_sub(r->npages, &r->locked_user->locked_vm);
		free_uid(r->locked_user);
		r->locked_user = NULL;
	}
	if (r->mm) {
		atomic64_sub(r->npages, &r->mm->pinned_vm);
		atomic64_sub(r->npages, &hl_ipc_stats.pinned_pages);
		mmdrop(r->mm);
		r->mm = NULL;
	}
}

/* May the CPU engine keep writing to this mapping for a long time? */
static bool hl_ipc_vma_writable_pin_ok(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED) || !vma->vm_file)
		return true;		/* anonymous, or private copies */
	if (is_vm_hugetlb_page(vma))
		return true;
	if (vma->vm_ops && vma->vm_ops->page_mkwrite)
		return false;		/* the filesystem wants to know */
	return !mapping_can_writeback(vma->vm_file->f_mapping);
}

static int hl_ipc_check_vmas(struct mm_struct *mm, unsigned long start,
			     unsigned long end)
{
	struct vm_area_struct *vma;
	unsigned long addr = start;

	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma)
			return -EFAULT;
		if (!hl_ipc_vma_writable_pin_ok(vma))
			return -EOPNOTSUPP;
		addr = vma->vm_end;
	}
	return 0;
}

static int hl_ipc_pin_pages(struct hl_ipc_region *r, unsigned long start,
			    bool write)
{
	unsigned int gup = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);
	struct mm_struct *mm = current->mm;
	unsigned long done = 0;
	long n;
	int ret = 0;

	mmap_read_lock(mm);
	if (write)
		ret = hl_ipc_check_vmas(mm, start,
					start + r->npages * PAGE_SIZE);
	while (!ret && done < r->npages) {
		n = min_t(unsigned long, r->npages - done, HL_IPC_PIN_BATCH);
		n = hl_pin_user_pages(start + done * PAGE_SIZE, n, gup,
				      r->pages + done);
		if (n <= 0) {
			ret = n == -ENOMEM ? -ENOMEM : -EFAULT;
			break;
		}
		done += n;
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	mmap_read_unlock(mm);
	if (ret) {
		/* Unpin what we got; the release path sees no pages. */
		unpin_user_pages(r->pages, done);
		return ret;
	}
	return 0;
}

int hl_ipc_pin_user(struct hl_ipc_region *r, u64 addr, u64 len)
{
	bool write = r->flags & HL_IPC_REGION_WRITE;
	unsigned long start;
	u64 end;
	int ret;

	if (!len)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end) || len > HL_IPC_USER_MAX_LEN ||
	    end > TASK_SIZE)
		return -ERANGE;
	if (!current->mm)
		return -EFAULT;

	start = addr & PAGE_MASK;
	r->npages = (PAGE_ALIGN(end) - start) >> PAGE_SHIFT;
	r->size = len;
	r->backing = current->mm;
	r->base = addr;

	ret = hl_ipc_pin_charge(r);
	if (ret)
		return ret;
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	ret = hl_ipc_pin_pages(r, start, write);
	if (ret) {
		kvfree(r->pages);
		r->pages = NULL;
		return ret;
	}
	r->vbase = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	if (!r->vbase)
		return -ENOMEM;
	r->vaddr = (u8 *)r->vbase + offset_in_page(addr);
	return 0;
}

/* Undo whatever hl_ipc_pin_user() got done. */
void hl_ipc_unpin_user(struct hl_ipc_region *r)
{
	if (r->vbase)
		vunmap(r->vbase);
	if (r->pages) {
		unpin_user_pages_dirty_lock(r->pages, r->npages,
					    r->flags & HL_IPC_REGION_WRITE);
		kvfree(r->pages);
	}
	hl_ipc_pin_uncharge(r);
}
