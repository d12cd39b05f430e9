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
 * Which mappings may be pinned, and how, is the policy both modules share
 * (hl_user_pin.h): writable regions take only memory whose writeback a
 * long-term pin cannot break, and read-only regions of private mappings
 * pin the owner's own pages, never a copy-on-write page its next write
 * would replace.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "hl_ipc.h"
#include "hl_user_pin.h"

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
	r->backing = r;

	ret = hl_ipc_pin_charge(r);
	if (ret)
		return ret;
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages),
				  GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	ret = hl_user_pin(start, r->npages, write, r->pages);
	if (ret) {
		kvfree(r->pages);
		r->pages = NULL;
		return ret;
	}
	r->vbase = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	if (!r->vbase)
		return -ENOMEM;
	r->vaddr = (u8 *)r->vbase + offset_in_page(addr);
	return hl_ipc_share_scan(r);
}

/* Undo whatever hl_ipc_pin_user() got done. */
void hl_ipc_unpin_user(struct hl_ipc_region *r)
{
	if (r->vbase)
		vunmap(r->vbase);
	hl_ipc_share_free(r);
	if (r->pages) {
		unpin_user_pages_dirty_lock(r->pages, r->npages,
					    r->flags & HL_IPC_REGION_WRITE);
		kvfree(r->pages);
	}
	hl_ipc_pin_uncharge(r);
}
