// SPDX-License-Identifier: GPL-2.0
/*
 * Regions: registered memory named by a global cookie.
 *
 * A dma-buf region is attached and mapped through the importer API and
 * mapped into the kernel once, at registration, so that copies need no
 * per-copy mapping.  A user region is pinned with FOLL_LONGTERM, charged
 * to RLIMIT_MEMLOCK like RDMA memory registrations, and vmapped.
 *
 * Cookies: the low 24 bits are the index in a global xarray, the high 40
 * bits are random, so knowing one cookie tells nothing about another.
 * The registry holds one reference; every copy in flight holds one more,
 * so deregistering only revokes (lookups fail, running copies stop at
 * their next chunk) and the memory goes when the last copy lets go.
 */
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "hl_ipc.h"

#define HL_IPC_COOKIE_IDX_BITS	24
#define HL_IPC_COOKIE_IDX_MASK	((1U << HL_IPC_COOKIE_IDX_BITS) - 1)
/* User regions are limited to 1 TiB: the page count must fit an int. */
#define HL_IPC_USER_MAX_LEN	(1ULL << 40)

static DEFINE_XARRAY_ALLOC1(hl_ipc_regions);
static u32 hl_ipc_regions_next;

static void hl_ipc_region_unmap_dmabuf(struct hl_ipc_region *r)
{
	if (r->vaddr)
		hl_dma_buf_vunmap(r->dbuf, &r->map);
	if (r->sgt)
		hl_dma_buf_unmap_attachment(r->attach, r->sgt, DMA_BIDIRECTIONAL);
	if (r->attach)
		dma_buf_detach(r->dbuf, r->attach);
	dma_buf_put(r->dbuf);
}

static void hl_ipc_region_unpin_user(struct hl_ipc_region *r)
{
	if (r->vbase)
		vunmap(r->vbase);
	if (r->pages) {
		unpin_user_pages_dirty_lock(r->pages, r->npages,
					    r->flags & HL_IPC_REGION_WRITE);
		kvfree(r->pages);
	}
	if (r->mm) {
		atomic64_sub(r->npages, &r->mm->pinned_vm);
		atomic64_sub(r->npages, &hl_ipc_stats.pinned_pages);
		mmdrop(r->mm);
	}
}

static void hl_ipc_region_free(struct kref *ref)
{
	struct hl_ipc_region *r = container_of(ref, struct hl_ipc_region, ref);

	if (r->type == HL_IPC_REGION_DMABUF)
		hl_ipc_region_unmap_dmabuf(r);
	else
		hl_ipc_region_unpin_user(r);
	kfree(r);
	atomic_dec(&hl_ipc_stats.regions);
}

void hl_ipc_region_put(struct hl_ipc_region *r)
{
	kref_put(&r->ref, hl_ipc_region_free);
}

static int hl_ipc_region_import_dmabuf(struct hl_ipc_region *r, int fd)
{
	struct file *f;
	int ret;

	/* Tell a closed fd (EBADF) from an open fd of the wrong kind. */
	f = fget(fd);
	if (!f)
		return -EBADF;
	fput(f);

	r->dbuf = dma_buf_get(fd);
	if (IS_ERR(r->dbuf)) {
		ret = PTR_ERR(r->dbuf);
		r->dbuf = NULL;
		return ret == -EBADF ? -EBADF : -ENODEV;
	}
	r->size = r->dbuf->size;

	r->attach = dma_buf_attach(r->dbuf, hl_ipc_dev);
	if (IS_ERR(r->attach)) {
		ret = PTR_ERR(r->attach);
		r->attach = NULL;
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	}
	/* Keeps the backing storage resident for the region's lifetime. */
	r->sgt = hl_dma_buf_map_attachment(r->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(r->sgt)) {
		ret = PTR_ERR(r->sgt);
		r->sgt = NULL;
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	}
	/* The CPU engine needs a kernel mapping; P2P-only exporters refuse. */
	ret = hl_dma_buf_vmap(r->dbuf, &r->map);
	if (ret)
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	if (r->map.is_iomem) {
		hl_dma_buf_vunmap(r->dbuf, &r->map);
		return -EOPNOTSUPP;
	}
	r->vaddr = r->map.vaddr;
	return 0;
}

static int hl_ipc_region_charge(struct hl_ipc_region *r)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned;

	pinned = atomic64_add_return(r->npages, &current->mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(r->npages, &current->mm->pinned_vm);
		return -ENOMEM;
	}
	atomic64_add(r->npages, &hl_ipc_stats.pinned_pages);
	mmgrab(current->mm);
	r->mm = current->mm;
	return 0;
}

static int hl_ipc_region_pin_user(struct hl_ipc_region *r, u64 addr, u64 len)
{
	unsigned int gup = FOLL_LONGTERM;
	unsigned long start, done = 0;
	u64 end;
	int ret;

	if (!len)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end) || len > HL_IPC_USER_MAX_LEN ||
	    end > TASK_SIZE)
		return -ERANGE;
	if (r->flags & HL_IPC_REGION_WRITE)
		gup |= FOLL_WRITE;

	start = addr & PAGE_MASK;
	r->npages = (PAGE_ALIGN(end) - start) >> PAGE_SHIFT;
	r->size = len;

	if (!current->mm)
		return -EFAULT;
	ret = hl_ipc_region_charge(r);
	if (ret)
		return ret;

	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages)
		return -ENOMEM;

	while (done < r->npages) {
		int n = min_t(unsigned long, r->npages - done, 512);

		ret = pin_user_pages_fast(start + done * PAGE_SIZE, n, gup,
					  r->pages + done);
		if (ret <= 0) {
			/* Unpin just what we got; the free path sees none. */
			unpin_user_pages(r->pages, done);
			kvfree(r->pages);
			r->pages = NULL;
			return ret == -ENOMEM ? -ENOMEM : -EFAULT;
		}
		done += ret;
		if (fatal_signal_pending(current)) {
			unpin_user_pages(r->pages, done);
			kvfree(r->pages);
			r->pages = NULL;
			return -EINTR;
		}
	}

	r->vbase = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	if (!r->vbase)
		return -ENOMEM;
	r->vaddr = (u8 *)r->vbase + offset_in_page(addr);
	return 0;
}

static int hl_ipc_region_publish(struct hl_ipc_ctx *ctx, struct hl_ipc_region *r)
{
	u32 idx;
	int ret;

	mutex_lock(&ctx->lock);
	if (ctx->nregions >= READ_ONCE(hl_ipc_max_regions)) {
		mutex_unlock(&ctx->lock);
		return -ENOSPC;
	}
	ret = xa_alloc_cyclic(&hl_ipc_regions, &idx, NULL,
			      XA_LIMIT(1, HL_IPC_COOKIE_IDX_MASK),
			      &hl_ipc_regions_next, GFP_KERNEL);
	if (ret < 0) {
		mutex_unlock(&ctx->lock);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	r->idx = idx;
	r->cookie = (get_random_u64() << HL_IPC_COOKIE_IDX_BITS) | idx;
	/* The reserved NULL slot becomes visible to lookups only now. */
	xa_store(&hl_ipc_regions, idx, r, GFP_KERNEL);
	list_add_tail(&r->node, &ctx->regions);
	ctx->nregions++;
	mutex_unlock(&ctx->lock);
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

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	kref_init(&r->ref);
	atomic_inc(&hl_ipc_stats.regions);
	INIT_LIST_HEAD(&r->node);
	r->type = args->type;
	r->flags = args->flags;
	r->uid = current_euid();
	r->owner = ctx;

	ret = hl_ipc_devid_from_fd(args->dev_fd,
				   args->flags & HL_IPC_REGION_DEV_HOST, &r->dev);
	if (ret)
		goto err;
	if (r->type == HL_IPC_REGION_DMABUF)
		ret = hl_ipc_region_import_dmabuf(r, args->fd);
	else
		ret = hl_ipc_region_pin_user(r, args->addr, args->length);
	if (ret)
		goto err;
	ret = hl_ipc_region_publish(ctx, r);
	if (ret)
		goto err;

	args->cookie = r->cookie;
	args->size = r->size;
	return 0;

err:
	/* Partially set-up regions are undone by the normal free path. */
	if (r->type == HL_IPC_REGION_DMABUF && !r->dbuf) {
		kfree(r);
		atomic_dec(&hl_ipc_stats.regions);
	} else {
		hl_ipc_region_put(r);
	}
	return ret;
}

/* Unpublish a region of ctx; called with ctx->lock held. */
static void hl_ipc_region_revoke(struct hl_ipc_ctx *ctx, struct hl_ipc_region *r)
{
	xa_erase(&hl_ipc_regions, r->idx);
	WRITE_ONCE(r->revoked, true);
	list_del_init(&r->node);
	ctx->nregions--;
	hl_ipc_region_put(r);
}

int hl_ipc_region_deregister(struct hl_ipc_ctx *ctx, u64 cookie)
{
	struct hl_ipc_region *r;
	int ret = -ENOENT;

	mutex_lock(&ctx->lock);
	xa_lock(&hl_ipc_regions);
	r = xa_load(&hl_ipc_regions, cookie & HL_IPC_COOKIE_IDX_MASK);
	if (r && r->cookie != cookie)
		r = NULL;
	xa_unlock(&hl_ipc_regions);
	/* Only the owner deregisters; anyone else learns nothing more. */
	if (r && r->owner == ctx) {
		hl_ipc_region_revoke(ctx, r);
		ret = 0;
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

void hl_ipc_region_revoke_all(struct hl_ipc_ctx *ctx)
{
	struct hl_ipc_region *r, *tmp;

	mutex_lock(&ctx->lock);
	list_for_each_entry_safe(r, tmp, &ctx->regions, node)
		hl_ipc_region_revoke(ctx, r);
	mutex_unlock(&ctx->lock);
}

/*
 * Look a cookie up for use by ctx and take a reference.  Returns
 * ERR_PTR(-ENOENT) for unknown or revoked cookies, -EACCES for another
 * uid's region without HL_IPC_REGION_ANY_USER, -EROFS for a write to a
 * read-only region.
 */
struct hl_ipc_region *hl_ipc_region_get(struct hl_ipc_ctx *ctx, u64 cookie,
					bool write)
{
	struct hl_ipc_region *r;

	xa_lock(&hl_ipc_regions);
	r = xa_load(&hl_ipc_regions, cookie & HL_IPC_COOKIE_IDX_MASK);
	if (r && r->cookie == cookie)
		kref_get(&r->ref);
	else
		r = NULL;
	xa_unlock(&hl_ipc_regions);
	if (!r)
		return ERR_PTR(-ENOENT);

	if (r->owner != ctx && !(r->flags & HL_IPC_REGION_ANY_USER) &&
	    !uid_eq(r->uid, current_euid())) {
		hl_ipc_region_put(r);
		return ERR_PTR(-EACCES);
	}
	if (write && !(r->flags & HL_IPC_REGION_WRITE)) {
		hl_ipc_region_put(r);
		return ERR_PTR(-EROFS);
	}
	return r;
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

void hl_ipc_regions_init(void)
{
	/* Start the cyclic index at a random point as well. */
	hl_ipc_regions_next = get_random_u32() & HL_IPC_COOKIE_IDX_MASK;
}

void hl_ipc_regions_fini(void)
{
	/* Every context is closed before unload; nothing can be left. */
	WARN_ON(!xa_empty(&hl_ipc_regions));
	xa_destroy(&hl_ipc_regions);
}
