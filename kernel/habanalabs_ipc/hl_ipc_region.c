// SPDX-License-Identifier: GPL-2.0
/*
 * Regions: registered memory named by a global cookie.
 *
 * A cookie is 64 random bits and nothing else: it is the key of a hash
 * table, so one cookie tells nothing about another and guessing takes
 * about 2^64 / (number of live regions) tries.  A cookie that is unknown
 * and one that the caller may not use get the same answer (ENOENT), and
 * both are counted as failed lookups.
 *
 * Lifetime: the table holds one reference, every queued job that uses the
 * region holds another (a copy that runs at once is only inside it, see
 * hl_ipc_region_get_entered()).  Deregistering removes the cookie, marks
 * the region revoked and then waits until no copy is inside its memory
 * any more: copies notice the revocation at their next chunk, and wait
 * for dma-buf fences and exporters before they enter (hl_ipc_engine.c),
 * so the wait is bounded by one chunk, and once DEREGISTER returns the
 * memory is
 * never touched again (the guarantee RDMA gives for deregistered MRs).
 * A small copy of user memory does not even enter (hl_ipc_region_peek()):
 * it uses the memory inside an RCU read section, so deregistering a
 * region that such copies may have used also waits a grace period.
 * The memory itself is released with the last reference.
 *
 * Lookups run under RCU; the struct is freed after a grace period.
 */
#include <linux/dma-buf.h>
#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "hl_ipc.h"

static struct rhashtable hl_ipc_regions;

/*
 * Cookies are random, but a user sees its own and may keep only those
 * that land in one bucket; jhash with the table's random seed spreads
 * them anew at every rehash, which a folded cookie would not.
 */
static u32 hl_ipc_cookie_hash(const void *data, u32 len, u32 seed)
{
	u64 cookie = *(const u64 *)data;

	return jhash_2words((u32)cookie, (u32)(cookie >> 32), seed);
}

static int hl_ipc_region_cmp(struct rhashtable_compare_arg *arg,
			     const void *obj)
{
	const struct hl_ipc_region *r = obj;

	return r->cookie != *(const u64 *)arg->key;
}

static const struct rhashtable_params hl_ipc_region_params = {
	.key_len = sizeof(u64),
	.key_offset = offsetof(struct hl_ipc_region, cookie),
	.head_offset = offsetof(struct hl_ipc_region, hnode),
	.automatic_shrinking = true,
	.hashfn = hl_ipc_cookie_hash,
	.obj_cmpfn = hl_ipc_region_cmp,
};

static void hl_ipc_region_free(struct kref *ref)
{
	struct hl_ipc_region *r = container_of(ref, struct hl_ipc_region, ref);

	/* The engine's mapping first: it covers the memory released below. */
	hl_ipc_dma_region_release(r);
	if (r->type == HL_IPC_REGION_DMABUF)
		hl_ipc_dmabuf_release(r);
	else
		hl_ipc_unpin_user(r);
	kfree_rcu(r, rcu);
	atomic_dec(&hl_ipc_stats.regions);
}

void hl_ipc_region_put(struct hl_ipc_region *r)
{
	kref_put(&r->ref, hl_ipc_region_free);
}

static int hl_ipc_region_publish(struct hl_ipc_ctx *ctx,
				 struct hl_ipc_region *r)
{
	struct hl_ipc_region *old;
	int tries;

	lockdep_assert_held(&ctx->lock);
	if (ctx->nregions >= READ_ONCE(hl_ipc_max_regions))
		return -ENOSPC;
	/* A clash of two random 64-bit values: try another. */
	for (tries = 0; tries < 8; tries++) {
		do {
			r->cookie = get_random_u64();
		} while (!r->cookie);
		old = rhashtable_lookup_get_insert_fast(&hl_ipc_regions,
							&r->hnode,
							hl_ipc_region_params);
		if (!old)
			break;
		if (IS_ERR(old))
			return PTR_ERR(old) == -ENOMEM ? -ENOMEM : -ENOSPC;
	}
	if (tries == 8)
		return -ENOSPC;
	list_add_tail(&r->node, &ctx->regions);
	ctx->nregions++;
	return 0;
}

int hl_ipc_region_register(struct hl_ipc_ctx *ctx,
			   struct hl_ipc_region_register *args)
{
	struct hl_ipc_region *r;
	int ret;

	if (args->flags & ~HL_IPC_REGION_FLAGS_ALL ||
	    !(args->flags & HL_IPC_REGION_READ))
		return -EINVAL;
	if (args->type == HL_IPC_REGION_DMABUF) {
		if (args->addr || args->length)
			return -EINVAL;
	} else if (args->type == HL_IPC_REGION_USER) {
		if (args->fd != -1)
			return -EINVAL;
	} else {
		return -EINVAL;
	}

	if (!hl_ipc_user_charge(&ctx->user->regions,
				READ_ONCE(hl_ipc_user_max_regions)))
		return -ENOSPC;
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r) {
		hl_ipc_user_uncharge(&ctx->user->regions);
		return -ENOMEM;
	}
	kref_init(&r->ref);
	atomic_inc(&hl_ipc_stats.regions);
	INIT_LIST_HEAD(&r->node);
	init_rwsem(&r->dma_sem);
	r->type = args->type;
	r->flags = args->flags;
	r->uid = ctx->user->uid;
	r->owner = ctx;

	ret = hl_ipc_devid_from_fd(args->dev_fd,
				   args->flags & HL_IPC_REGION_DEV_HOST, &r->dev);
	if (ret)
		goto err;
	if (r->type == HL_IPC_REGION_DMABUF)
		ret = hl_ipc_dmabuf_import(r, args->fd);
	else
		ret = hl_ipc_pin_user(r, args->addr, args->length);
	if (ret)
		goto err;

	/* Complete: only now may a lookup find it. */
	mutex_lock(&ctx->lock);
	ret = hl_ipc_region_publish(ctx, r);
	mutex_unlock(&ctx->lock);
	if (ret)
		goto err;

	args->cookie = r->cookie;
	args->size = r->size;
	return 0;

err:
	/* The release path undoes a partial set-up. */
	hl_ipc_region_put(r);
	hl_ipc_user_uncharge(&ctx->user->regions);
	return ret;
}

/* Take a region of ctx out of reach; called with ctx->lock held. */
static void hl_ipc_region_unpublish(struct hl_ipc_ctx *ctx,
				    struct hl_ipc_region *r)
{
	lockdep_assert_held(&ctx->lock);
	rhashtable_remove_fast(&hl_ipc_regions, &r->hnode,
			       hl_ipc_region_params);
	list_del_init(&r->node);
	ctx->nregions--;
	hl_ipc_user_uncharge(&ctx->user->regions);
	WRITE_ONCE(r->revoked, true);
	smp_mb();	/* pairs with hl_ipc_region_enter() */
}

/*
 * Wait for copies inside the memory to leave.  True when small copies
 * may also be using it from inside an RCU read section, so that the
 * caller must wait a grace period before it drops the table's reference
 * or returns: the acquire sees small_ok set by any copy that was inside.
 */
static bool hl_ipc_region_drain(struct hl_ipc_region *r)
{
	wait_var_event(&r->active, !atomic_read_acquire(&r->active));
	return READ_ONCE(r->small_ok);
}

int hl_ipc_region_deregister(struct hl_ipc_ctx *ctx, u64 cookie)
{
	struct hl_ipc_region *r;

	/*
	 * Only the owner deregisters, and only the owner unpublishes, under
	 * its lock: a region found here with owner == ctx cannot go away
	 * until we drop the lock.  Anyone else only compares the pointer,
	 * under RCU.
	 */
	mutex_lock(&ctx->lock);
	rcu_read_lock();
	r = rhashtable_lookup(&hl_ipc_regions, &cookie, hl_ipc_region_params);
	if (r && r->owner != ctx)
		r = NULL;
	rcu_read_unlock();
	if (r)
		hl_ipc_region_unpublish(ctx, r);
	mutex_unlock(&ctx->lock);
	if (!r)
		return -ENOENT;
	if (hl_ipc_region_drain(r))
		synchronize_rcu();
	hl_ipc_region_put(r);
	return 0;
}

void hl_ipc_region_revoke_all(struct hl_ipc_ctx *ctx)
{
	struct hl_ipc_region *r, *tmp;
	bool grace = false;
	LIST_HEAD(gone);

	mutex_lock(&ctx->lock);
	list_for_each_entry_safe(r, tmp, &ctx->regions, node) {
		hl_ipc_region_unpublish(ctx, r);
		list_add_tail(&r->node, &gone);
	}
	mutex_unlock(&ctx->lock);
	list_for_each_entry(r, &gone, node)
		grace |= hl_ipc_region_drain(r);
	/* One grace period for all of them. */
	if (grace)
		synchronize_rcu();
	list_for_each_entry_safe(r, tmp, &gone, node) {
		list_del_init(&r->node);
		hl_ipc_region_put(r);
	}
}

static bool hl_ipc_region_usable(const struct hl_ipc_region *r,
				 const struct hl_ipc_ctx *ctx)
{
	return r->owner == ctx || (r->flags & HL_IPC_REGION_ANY_USER) ||
	       uid_eq(r->uid, ctx->user->uid);
}

/*
 * Under rcu_read_lock(): the region of a cookie, usable by ctx, with a
 * reference taken or, with @enter, entered; NULL if there is none.
 * Unknown, revoked and another uid's regions (without
 * HL_IPC_REGION_ANY_USER) look alike.
 */
static struct hl_ipc_region *hl_ipc_region_find(struct hl_ipc_ctx *ctx,
						u64 cookie, bool enter)
{
	struct hl_ipc_region *r;

	r = rhashtable_lookup(&hl_ipc_regions, &cookie, hl_ipc_region_params);
	if (r && (!hl_ipc_region_usable(r, ctx) ||
		  !(enter ? hl_ipc_region_enter(r) : kref_get_unless_zero(&r->ref))))
		r = NULL;
	return r;
}

/*
 * The result of a lookup: a missing region is ERR_PTR(-ENOENT) and
 * counted as a failed lookup; a write to a region registered without
 * HL_IPC_REGION_WRITE is -EROFS.
 */
static struct hl_ipc_region *hl_ipc_region_found(struct hl_ipc_ctx *ctx,
						 struct hl_ipc_region *r,
						 bool write, bool enter)
{
	if (!r) {
		atomic64_inc(&ctx->lookup_failures);
		atomic64_inc(&hl_ipc_stats.lookup_failures);
		return ERR_PTR(-ENOENT);
	}
	if (write && !(r->flags & HL_IPC_REGION_WRITE)) {
		if (enter)
			hl_ipc_region_leave(r);
		else
			hl_ipc_region_put(r);
		return ERR_PTR(-EROFS);
	}
	return r;
}

/* Look a cookie up for use by ctx and take a reference. */
struct hl_ipc_region *hl_ipc_region_get(struct hl_ipc_ctx *ctx, u64 cookie,
					bool write)
{
	struct hl_ipc_region *r;

	rcu_read_lock();
	r = hl_ipc_region_find(ctx, cookie, false);
	rcu_read_unlock();
	return hl_ipc_region_found(ctx, r, write, false);
}

/*
 * The same inside the caller's RCU read section, entering the region
 * instead of taking a reference: cheaper for a copy that runs at once,
 * and it keeps the region (and its memory) as well, because a
 * deregistration waits for everyone inside.  Leave with
 * hl_ipc_region_leave(); never stay inside while waiting for something
 * else than the copy itself.
 */
struct hl_ipc_region *hl_ipc_region_get_entered(struct hl_ipc_ctx *ctx,
						u64 cookie, bool write)
{
	struct hl_ipc_region *r;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "entered region lookup outside an RCU read section");
	r = hl_ipc_region_found(ctx, hl_ipc_region_find(ctx, cookie, true),
				write, true);
	/*
	 * Inside, so a deregistration will see it: from now on small
	 * copies may skip entering.  Only user memory: a dma-buf needs
	 * CPU access begun, which may sleep.
	 */
	if (!IS_ERR(r) && r->type == HL_IPC_REGION_USER &&
	    !READ_ONCE(r->small_ok))
		WRITE_ONCE(r->small_ok, true);
	return r;
}

/*
 * Under rcu_read_lock(): the region of a cookie for a small copy that
 * uses the memory inside the read section without entering it, with
 * [off, off + len) checked; NULL when the copy must take the general
 * path, which also reports any error.
 */
struct hl_ipc_region *hl_ipc_region_peek(struct hl_ipc_ctx *ctx, u64 cookie,
					 u64 off, u64 len, bool write)
{
	struct hl_ipc_region *r;

	r = rhashtable_lookup(&hl_ipc_regions, &cookie, hl_ipc_region_params);
	if (!r || !READ_ONCE(r->small_ok) || READ_ONCE(r->revoked) ||
	    !hl_ipc_region_usable(r, ctx) ||
	    (write && !(r->flags & HL_IPC_REGION_WRITE)) ||
	    !hl_ipc_region_covers(r, off, len))
		return NULL;
	return r;
}

/* Turn an entered region into a referenced one. */
void hl_ipc_region_hold(struct hl_ipc_region *r)
{
	/* Inside, the table's reference cannot be dropped yet. */
	kref_get(&r->ref);
	hl_ipc_region_leave(r);
}

int hl_ipc_region_query(struct hl_ipc_ctx *ctx, struct hl_ipc_region_query *args)
{
	struct hl_ipc_region *r;

	r = hl_ipc_region_get(ctx, args->cookie, false);
	if (IS_ERR(r))
		return PTR_ERR(r);
	args->region_flags = r->flags;
	args->size = r->size;
	args->type = r->type;
	args->dev_kind = r->dev.kind;
	args->dev_major = r->dev.major;
	args->dev_index = r->dev.index;
	hl_ipc_region_put(r);
	return 0;
}

int hl_ipc_regions_init(void)
{
	int ret;

	ret = rhashtable_init(&hl_ipc_regions, &hl_ipc_region_params);
	if (ret)
		return ret;
	ret = hl_ipc_frames_init();
	if (ret)
		rhashtable_destroy(&hl_ipc_regions);
	return ret;
}

void hl_ipc_regions_fini(void)
{
	/* Every context is closed before unload; nothing can be left. */
	WARN_ON(atomic_read(&hl_ipc_stats.regions));
	rhashtable_destroy(&hl_ipc_regions);
	hl_ipc_frames_fini();
}
