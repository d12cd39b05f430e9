// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user accounting.  Limits per context alone do not bound a user who
 * opens many contexts, so every context, channel, region and queued
 * asynchronous copy is also counted against the uid that opened the
 * context, and each uid's copies run on a workqueue of its own.  Pinned user memory is charged to the kernel's own per-user
 * locked_vm (hl_ipc_pin.c), which RLIMIT_MEMLOCK bounds across all of
 * that user's processes.
 */
#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "hl_ipc.h"

static DEFINE_XARRAY(hl_ipc_users);
static DEFINE_MUTEX(hl_ipc_users_lock);

struct hl_ipc_user *hl_ipc_user_get(kuid_t uid)
{
	unsigned long key = __kuid_val(uid);
	struct hl_ipc_user *u;
	int ret;

	mutex_lock(&hl_ipc_users_lock);
	u = xa_load(&hl_ipc_users, key);
	if (u) {
		refcount_inc(&u->ref);
		goto out;
	}
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u) {
		u = ERR_PTR(-ENOMEM);
		goto out;
	}
	refcount_set(&u->ref, 1);
	u->uid = uid;
	/*
	 * Unbound: each channel's work item runs wherever a CPU is free, so
	 * different channels copy in parallel while one channel's work item,
	 * never reentered, keeps that channel's copies in order.
	 */
	u->wq = alloc_workqueue("hl_ipc_u%u", WQ_UNBOUND,
				READ_ONCE(hl_ipc_user_max_workers),
				from_kuid(&init_user_ns, uid));
	if (!u->wq) {
		kfree(u);
		u = ERR_PTR(-ENOMEM);
		goto out;
	}
	ret = xa_err(xa_store(&hl_ipc_users, key, u, GFP_KERNEL_ACCOUNT));
	if (ret) {
		destroy_workqueue(u->wq);
		kfree(u);
		u = ERR_PTR(ret);
		goto out;
	}
	atomic_inc(&hl_ipc_stats.users);
out:
	mutex_unlock(&hl_ipc_users_lock);
	return u;
}

void hl_ipc_user_put(struct hl_ipc_user *u)
{
	if (!refcount_dec_and_mutex_lock(&u->ref, &hl_ipc_users_lock))
		return;
	xa_erase(&hl_ipc_users, __kuid_val(u->uid));
	mutex_unlock(&hl_ipc_users_lock);
	WARN_ON_ONCE(atomic_read(&u->contexts) || atomic_read(&u->channels) ||
		     atomic_read(&u->regions) || atomic_read(&u->jobs));
	/* Every channel is gone, and with it every work item. */
	destroy_workqueue(u->wq);
	kfree(u);
	atomic_dec(&hl_ipc_stats.users);
}

/*
 * Count one more object against @limit.  Concurrent callers may overshoot
 * by one each for an instant, never for long: each backs out at once.
 */
bool hl_ipc_user_charge(atomic_t *count, unsigned int limit)
{
	if (atomic_inc_return(count) <= (int)limit)
		return true;
	atomic_dec(count);
	return false;
}

void hl_ipc_user_uncharge(atomic_t *count)
{
	atomic_dec(count);
}

void hl_ipc_users_fini(void)
{
	/* Every context holds its user: none is left once all are closed. */
	WARN_ON(!xa_empty(&hl_ipc_users));
	xa_destroy(&hl_ipc_users);
}
