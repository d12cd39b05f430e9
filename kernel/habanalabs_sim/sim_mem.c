// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: device memory (ALLOC/FREE), the per-open device VA
 * space (MAP/UNMAP of device memory and of pinned host memory) and the
 * checks of EXPORT_DMABUF_FD.
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/log2.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "hl_user_pin.h"
#include "sim.h"

/*
 * Largest userptr mapping: 64 GiB (a page array of 128 MiB).  The driver
 * bounds it only by what can be pinned; RLIMIT_MEMLOCK bounds it here too.
 */
#define SIM_MAX_USERPTR_PAGES	(1ul << 24)

/* ---- backing objects ----------------------------------------------- */

/*
 * Pinned user pages are charged to the process, as RDMA charges its
 * memory registrations: to mm->pinned_vm, within RLIMIT_MEMLOCK unless
 * the caller has CAP_IPC_LOCK.  ENOMEM beyond it, as mlock() answers.
 */
static int sim_account_pinned(struct sim_bo *bo)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned;

	pinned = atomic64_add_return(bo->npages, &current->mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(bo->npages, &current->mm->pinned_vm);
		return -ENOMEM;
	}
	bo->mm = current->mm;
	mmgrab(bo->mm);
	return 0;
}

static void sim_unaccount_pinned(struct sim_bo *bo)
{
	if (!bo->mm)
		return;
	atomic64_sub(bo->npages, &bo->mm->pinned_vm);
	mmdrop(bo->mm);
	bo->mm = NULL;
}

static void sim_bo_release(struct kref *ref)
{
	struct sim_bo *bo = container_of(ref, struct sim_bo, ref);
	struct sim_device *sdev = bo->sdev;
	unsigned long i;

	if (bo->userptr) {
		/* The device may have written them. */
		unpin_user_pages_dirty_lock(bo->pages, bo->npages, true);
		sim_unaccount_pinned(bo);
		sim_stat_dec(SIM_STAT_USERPTR);
	} else if (bo->kernel) {
		for (i = 0; i < bo->npages; i++)
			put_page(bo->pages[i]);
	} else if (bo->sram) {
		for (i = 0; i < bo->npages; i++)
			if (bo->pages[i])
				__free_page(bo->pages[i]);
	} else {
		if (bo->kaddr)
			sim_bar_free(sdev->bar, bo->bar_off, bo->size);
		for (i = 0; bo->pages && i < bo->npages; i++)
			if (bo->pages[i])
				__free_page(bo->pages[i]);
		spin_lock(&sdev->mem_lock);
		sdev->mem_used -= bo->size;
		spin_unlock(&sdev->mem_lock);
	}
	kvfree(bo->pages);
	if (!bo->sram)
		sim_stat_dec(SIM_STAT_BO);
	kfree(bo);
}

void sim_bo_get(struct sim_bo *bo)
{
	kref_get(&bo->ref);
}

void sim_bo_put(struct sim_bo *bo)
{
	kref_put(&bo->ref, sim_bo_release);
}

/*
 * A kernel mapping of @bo from byte @off, and in *@len how many bytes of
 * it are contiguous there (to the end of the page, or of BAR memory);
 * sim_bo_unmap() ends it.
 */
void *sim_bo_map(struct sim_bo *bo, u64 off, u64 *len)
{
	if (bo->kaddr) {
		*len = bo->size - off;
		return bo->kaddr + off;
	}
	*len = PAGE_SIZE - (off & ~PAGE_MASK);
	return kmap_local_page(bo->pages[off >> PAGE_SHIFT]) +
	       (off & ~PAGE_MASK);
}

void sim_bo_unmap(struct sim_bo *bo, void *p)
{
	if (!bo->kaddr)
		kunmap_local(p);
}

/* Reads @len bytes at byte @off of @bo's pages, across page ends. */
void sim_bo_read(struct sim_bo *bo, u64 off, void *data, u32 len)
{
	u32 n;
	void *p;

	if (bo->kaddr) {
		memcpy(data, bo->kaddr + off, len);
		return;
	}
	while (len) {
		n = min_t(u64, len, PAGE_SIZE - (off & ~PAGE_MASK));
		p = kmap_local_page(bo->pages[off >> PAGE_SHIFT]);
		memcpy(data, p + (off & ~PAGE_MASK), n);
		kunmap_local(p);
		data += n;
		off += n;
		len -= n;
	}
}

/* Writes @len bytes at byte @off of @bo's pages, across page ends. */
void sim_bo_write(struct sim_bo *bo, u64 off, const void *data, u32 len)
{
	u32 n;
	void *p;

	if (bo->kaddr) {
		memcpy(bo->kaddr + off, data, len);
		return;
	}
	while (len) {
		n = min_t(u64, len, PAGE_SIZE - (off & ~PAGE_MASK));
		p = kmap_local_page(bo->pages[off >> PAGE_SHIFT]);
		memcpy(p + (off & ~PAGE_MASK), data, n);
		kunmap_local(p);
		data += n;
		off += n;
		len -= n;
	}
}

/* A BO of @npages, with an array for its pages unless it is BAR memory. */
static struct sim_bo *sim_bo_new(struct sim_device *sdev, unsigned long npages,
				 bool with_pages)
{
	struct sim_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return NULL;
	if (with_pages) {
		bo->pages = kvcalloc(npages, sizeof(*bo->pages),
				     GFP_KERNEL_ACCOUNT);
		if (!bo->pages) {
			kfree(bo);
			return NULL;
		}
	}
	kref_init(&bo->ref);
	bo->sdev = sdev;
	bo->npages = npages;
	bo->size = (u64)npages << PAGE_SHIFT;
	bo->page_size = PAGE_SIZE;
	sim_stat_inc(SIM_STAT_BO);
	return bo;
}

/* Device memory is charged at allocation and uncharged at release. */
static int sim_bo_alloc_device(struct sim_device *sdev, u64 size,
			       u64 page_size, struct sim_bo **out)
{
	unsigned long i, npages = size >> PAGE_SHIFT;
	struct sim_bo *bo;

	spin_lock(&sdev->mem_lock);
	if (size > sdev->mem_size - sdev->mem_used) {
		spin_unlock(&sdev->mem_lock);
		return -ENOMEM;
	}
	sdev->mem_used += size;
	spin_unlock(&sdev->mem_lock);

	bo = sim_bo_new(sdev, npages, !sdev->bar);
	if (!bo) {
		spin_lock(&sdev->mem_lock);
		sdev->mem_used -= size;
		spin_unlock(&sdev->mem_lock);
		return -ENOMEM;
	}
	bo->page_size = page_size;
	if (sdev->bar) {
		/* A range of the BAR, as contiguous as the device's pages. */
		if (sim_bar_alloc(sdev->bar, size, max_t(u64, page_size, PAGE_SIZE),
				  &bo->bar_off)) {
			sim_bo_put(bo);
			return -ENOMEM;
		}
		bo->kaddr = sdev->bar->kaddr + bo->bar_off;
		*out = bo;
		return 0;
	}
	/*
	 * Charged to the caller's memory cgroup, and given up when the caller
	 * is killed: a large allocation must not keep a dying process (say,
	 * one the OOM killer chose) allocating.
	 */
	for (i = 0; i < npages; i++) {
		if (fatal_signal_pending(current)) {
			sim_bo_put(bo);
			atomic_inc(&sim_alloc_interrupted);
			return -EINTR;
		}
		bo->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					  __GFP_NOWARN);
		if (!bo->pages[i]) {
			sim_bo_put(bo);
			return -ENOMEM;
		}
		if (!(i % 1024))
			cond_resched();
	}
	*out = bo;
	return 0;
}

/*
 * The device's SRAM: zeroed pages for its life, which every open's
 * queues reach at SIM_SRAM_BASE (the hardware keeps SRAM across opens).
 */
int sim_sram_init(struct sim_device *sdev, u64 size)
{
	unsigned long i, npages = size >> PAGE_SHIFT;
	struct sim_bo *bo;

	if (!npages)
		return 0;
	bo = sim_bo_new(sdev, npages, true);
	if (!bo)
		return -ENOMEM;
	/* The device's own memory, not an object of an open. */
	sim_stat_dec(SIM_STAT_BO);
	bo->sram = true;
	for (i = 0; i < npages; i++) {
		bo->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!bo->pages[i]) {
			sim_bo_put(bo);
			return -ENOMEM;
		}
	}
	sdev->sram = bo;
	return 0;
}

void sim_sram_fini(struct sim_device *sdev)
{
	if (sdev->sram)
		sim_bo_put(sdev->sram);
	sdev->sram = NULL;
}

/*
 * What a queue reaches at @addr for @len bytes: the device's SRAM, or the
 * mapping of @ctx that holds all of it; NULL if neither.  ctx->lock or
 * ctx->vas_lock held;
 * the caller takes its own reference.
 */
struct sim_bo *sim_mem_lookup(struct sim_ctx *ctx, u64 addr, u64 len,
			      u64 *off)
{
	struct sim_bo *sram = ctx->sdev->sram;
	struct sim_va *va;

	if (sram && addr >= SIM_SRAM_BASE && len <= sram->size &&
	    addr - SIM_SRAM_BASE <= sram->size - len) {
		*off = addr - SIM_SRAM_BASE;
		return sram;
	}
	va = sim_va_find(ctx, addr, len);
	if (!va)
		return NULL;
	*off = addr - va->start;
	return va->bo;
}

/*
 * As sim_mem_lookup(), with a reference on the memory.  Under vas_lock
 * only: the engine calls this while a CS runs, and must not wait behind
 * every thread of the open that maps, unmaps or submits.
 */
struct sim_bo *sim_mem_get(struct sim_ctx *ctx, u64 addr, u64 len, u64 *off)
{
	struct sim_bo *bo;

	spin_lock(&ctx->vas_lock);
	bo = sim_mem_lookup(ctx, addr, len, off);
	if (bo)
		sim_bo_get(bo);
	spin_unlock(&ctx->vas_lock);
	return bo;
}

/* Unmaps va; *spare: see sim_va_unplace() (NULL at release). */
static void sim_va_destroy(struct sim_ctx *ctx, struct sim_va *va,
			   struct sim_va_hole **spare)
{
	struct sim_alloc *alloc;

	sim_va_unplace(ctx, spare ? va->space : NULL, va, spare);
	if (va->handle) {
		alloc = idr_find(&ctx->allocs, va->handle);
		if (alloc)
			alloc->map_count--;
	}
	sim_bo_put(va->bo);
	kfree(va);
}

/* ---- operations ---------------------------------------------------- */

int sim_mem_alloc(struct sim_ctx *ctx, struct hl_mem_in *in, u64 *handle)
{
	struct sim_device *sdev = ctx->sdev;
	u64 page_size = in->alloc.page_size ? : PAGE_SIZE;
	struct sim_alloc *alloc;
	struct sim_bo *bo;
	u64 size;
	int rc, id;

	/* Every emulated allocation is contiguous, so the flag is honoured. */
	if (in->flags & ~HL_MEM_CONTIGUOUS)
		return -EINVAL;
	if (!in->alloc.mem_size)
		return -EINVAL;
	if (!is_power_of_2(page_size) ||
	    !(SIM_PAGE_ORDER_MASK & BIT_ULL(ilog2(page_size))))
		return -EINVAL;
	if (in->alloc.mem_size > sdev->mem_size)
		return -ENOMEM;
	size = round_up(in->alloc.mem_size, page_size);

	rc = sim_bo_alloc_device(sdev, size, page_size, &bo);
	if (rc)
		return rc;
	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL_ACCOUNT);
	if (!alloc) {
		sim_bo_put(bo);
		return -ENOMEM;
	}
	alloc->bo = bo;

	/* Complete (counted) before another thread can FREE the handle. */
	sim_stat_inc(SIM_STAT_ALLOC);
	mutex_lock(&ctx->lock);
	id = idr_alloc(&ctx->allocs, alloc, 1, INT_MAX, GFP_KERNEL);
	if (id >= 0)
		ctx->dram_used += size;
	mutex_unlock(&ctx->lock);
	if (id < 0) {
		sim_stat_dec(SIM_STAT_ALLOC);
		kfree(alloc);
		sim_bo_put(bo);
		return id;
	}
	*handle = id;
	return 0;
}

int sim_mem_free(struct sim_ctx *ctx, struct hl_mem_in *in)
{
	struct sim_alloc *alloc;
	u64 handle = in->free.handle;

	if (in->flags)
		return -EINVAL;
	if (!handle || handle > INT_MAX)
		return -EINVAL;

	mutex_lock(&ctx->lock);
	alloc = idr_find(&ctx->allocs, handle);
	if (!alloc) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	/* As the real driver: unmap first. */
	if (alloc->map_count) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	idr_remove(&ctx->allocs, handle);
	ctx->dram_used -= alloc->bo->size;
	mutex_unlock(&ctx->lock);

	/* Exported dma-bufs keep their own reference on the pages. */
	sim_bo_put(alloc->bo);
	kfree(alloc);
	sim_stat_dec(SIM_STAT_ALLOC);
	return 0;
}

/*
 * A new mapping and the spare hole its placing may need (sim_va.c), both
 * or neither: allocated before ctx->lock is taken.
 */
static struct sim_va *sim_va_prepare(struct sim_va_hole **spare)
{
	struct sim_va *va = kzalloc(sizeof(*va), GFP_KERNEL_ACCOUNT);

	*spare = sim_va_spare_alloc();
	if (va && *spare)
		return va;
	kfree(va);
	sim_va_spare_free(*spare);
	return NULL;
}

/* Frees what sim_va_prepare() gave, when the mapping was not placed. */
static void sim_va_unprepare(struct sim_va *va, struct sim_va_hole *spare)
{
	sim_va_spare_free(spare);
	kfree(va);
}

int sim_mem_map_device(struct sim_ctx *ctx, struct hl_mem_in *in,
		       u64 *vaddr)
{
	u64 handle = in->map_device.handle;
	struct sim_va_hole *spare;
	struct sim_alloc *alloc;
	struct sim_va *va;
	int rc;

	if (in->flags & ~HL_MEM_FORCE_HINT)
		return -EINVAL;
	if (!handle || handle > INT_MAX)
		return -EINVAL;
	va = sim_va_prepare(&spare);
	if (!va)
		return -ENOMEM;

	mutex_lock(&ctx->lock);
	alloc = idr_find(&ctx->allocs, handle);
	if (!alloc) {
		rc = -EINVAL;
		goto err;
	}
	va->bo = alloc->bo;
	va->size = alloc->bo->size;
	va->handle = handle;
	va->space = &ctx->dram_va;
	rc = sim_va_place(ctx, va->space, va, in->map_device.hint_addr,
			  max_t(u64, alloc->bo->page_size, PAGE_SIZE),
			  in->flags & HL_MEM_FORCE_HINT, &spare);
	if (rc)
		goto err;
	sim_bo_get(va->bo);
	alloc->map_count++;
	*vaddr = va->start;
	mutex_unlock(&ctx->lock);
	sim_va_spare_free(spare);
	return 0;
err:
	mutex_unlock(&ctx->lock);
	sim_va_unprepare(va, spare);
	return rc;
}

/*
 * Pin the pages as the real driver does, writable and long-term, with the
 * policy habanalabs_ipc shares (hl_user_pin.h): on 6.1 too, a writable
 * long-term pin of a file whose writeback it would break is refused, with
 * the EFAULT that GUP gives the real driver on later kernels.
 */
static int sim_pin(struct sim_bo *bo, unsigned long start)
{
	int rc = hl_user_pin(start, bo->npages, true, bo->pages);

	return rc == -EOPNOTSUPP ? -EFAULT : rc;
}

/*
 * Maps all of @bo into the host VA range: at @hint if usable (required
 * when @force), else where it fits.  Takes over the caller's reference
 * on @bo: the mapping keeps it, or it is dropped on failure.  *vaddr, the
 * mapping's first byte of data, is read under ctx->lock: another thread
 * of the open may unmap a user's mapping as soon as it is released.
 */
static struct sim_va *sim_map_host_bo(struct sim_ctx *ctx, struct sim_bo *bo,
				      u64 data_off, bool kernel,
				      u64 hint, bool force, u64 *vaddr)
{
	struct sim_va_hole *spare;
	struct sim_va *va;
	int rc;

	va = sim_va_prepare(&spare);
	if (!va) {
		sim_bo_put(bo);
		return ERR_PTR(-ENOMEM);
	}
	va->bo = bo;
	va->size = bo->size;
	va->data_off = data_off;
	va->space = &ctx->host_va;
	va->kernel = kernel;

	mutex_lock(&ctx->lock);
	rc = sim_va_place(ctx, va->space, va, hint, PAGE_SIZE, force, &spare);
	if (!rc)
		*vaddr = va->start + va->data_off;
	mutex_unlock(&ctx->lock);
	if (rc) {
		sim_va_unprepare(va, spare);
		sim_bo_put(bo);
		return ERR_PTR(rc);
	}
	sim_va_spare_free(spare);
	return va;
}

int sim_mem_map_host(struct sim_ctx *ctx, struct hl_mem_in *in,
		     u64 *vaddr)
{
	u64 addr = in->map_host.host_virt_addr;
	u64 len = in->map_host.mem_size;
	u64 start, end;
	unsigned long npages;
	struct sim_va *va;
	struct sim_bo *bo;
	int rc;

	if (in->flags & ~(HL_MEM_USERPTR | HL_MEM_FORCE_HINT))
		return -EINVAL;
	if (!addr || !len || addr + len < addr)
		return -EINVAL;
	start = addr & PAGE_MASK;
	end = PAGE_ALIGN(addr + len);
	if (end <= start)
		return -EINVAL;
	npages = (end - start) >> PAGE_SHIFT;
	if (npages > SIM_MAX_USERPTR_PAGES)
		return -EINVAL;

	bo = sim_bo_new(ctx->sdev, npages, true);
	if (!bo)
		return -ENOMEM;
	rc = sim_account_pinned(bo);
	if (!rc)
		rc = sim_pin(bo, start);
	if (rc) {
		sim_unaccount_pinned(bo);
		/* Nothing pinned: release as plain memory of zero pages. */
		bo->npages = 0;
		bo->size = 0;
		sim_bo_put(bo);
		return rc;
	}
	bo->userptr = true;
	sim_stat_inc(SIM_STAT_USERPTR);

	va = sim_map_host_bo(ctx, bo, addr - start, false,
			     in->map_host.hint_addr & PAGE_MASK,
			     in->flags & HL_MEM_FORCE_HINT, vaddr);
	return PTR_ERR_OR_ZERO(va);
}

int sim_mem_unmap(struct sim_ctx *ctx, struct hl_mem_in *in)
{
	struct sim_va_hole *spare;
	struct sim_va *va;
	int rc = 0;

	if (in->flags)
		return -EINVAL;
	/* Freed space may need a hole of its own. */
	spare = sim_va_spare_alloc();
	if (!spare)
		return -ENOMEM;
	mutex_lock(&ctx->lock);
	va = sim_va_lookup(ctx, in->unmap.device_virt_addr);
	/*
	 * As the real driver: exported memory stays mapped, and a mapped
	 * CB's address is not the user's to unmap.
	 */
	if (!va || va->export_count || va->kernel)
		rc = -EINVAL;
	else
		sim_va_destroy(ctx, va, &spare);
	mutex_unlock(&ctx->lock);
	sim_va_spare_free(spare);
	return rc;
}

/*
 * HL_MEM_OP_EXPORT_DMABUF_FD's checks: *@out is the mapping to export, its
 * export counted (sim_dmabuf_export() takes the count over).
 */
int sim_mem_export_hold(struct sim_ctx *ctx, const struct hl_mem_in *in,
			struct sim_va **out)
{
	u64 addr = in->export_dmabuf_fd.addr;
	u64 size = in->export_dmabuf_fd.mem_size;
	u64 offset = in->export_dmabuf_fd.offset;
	struct sim_va *va;

	if (in->flags & ~(O_ACCMODE | O_CLOEXEC))
		return -EINVAL;
	/* The real driver's checks, in its order. */
	if (!PAGE_ALIGNED(addr) || !size || !PAGE_ALIGNED(size) ||
	    !PAGE_ALIGNED(offset))
		return -EINVAL;

	mutex_lock(&ctx->lock);
	va = sim_va_lookup(ctx, addr);
	/* Only device memory can be exported; host memory cannot. */
	if (!va || !va->handle || offset > va->bo->size ||
	    size > va->bo->size - offset) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	/*
	 * As the real driver: the mapping cannot be unmapped while exported,
	 * and the dma-buf holds this open, so the context outlives it.
	 */
	va->export_count++;
	mutex_unlock(&ctx->lock);
	*out = va;
	return 0;
}

/*
 * Maps @size bytes of vmalloc memory at @kaddr (a page multiple) into the
 * context's host VA range, as the driver maps a CB created with
 * HL_CB_FLAGS_MAP into the device's MMU.  The mapping holds references on
 * the pages; only sim_mem_unmap_kernel() or the context's end remove it.
 */
int sim_mem_map_kernel(struct sim_ctx *ctx, void *kaddr, u32 size,
		       struct sim_va **out)
{
	unsigned long i, npages = size >> PAGE_SHIFT;
	struct sim_va *va;
	struct sim_bo *bo;
	u64 vaddr;

	bo = sim_bo_new(ctx->sdev, npages, true);
	if (!bo)
		return -ENOMEM;
	bo->kernel = true;
	for (i = 0; i < npages; i++) {
		bo->pages[i] = vmalloc_to_page(kaddr + i * PAGE_SIZE);
		get_page(bo->pages[i]);
	}
	/* The user cannot unmap it: va stays valid past ctx->lock. */
	va = sim_map_host_bo(ctx, bo, 0, true, 0, false, &vaddr);
	if (IS_ERR(va))
		return PTR_ERR(va);
	*out = va;
	return 0;
}

/* Removes a mapping of sim_mem_map_kernel(); ctx->lock held. */
void sim_mem_unmap_kernel(struct sim_ctx *ctx, struct sim_va *va,
			  struct sim_va_hole **spare)
{
	sim_va_destroy(ctx, va, spare);
}

void sim_mem_ctx_fini(struct sim_ctx *ctx)
{
	struct sim_alloc *alloc;
	struct rb_node *n;
	int id;

	mutex_lock(&ctx->lock);
	/* Exported dma-bufs hold the file: none can be left at release. */
	while ((n = rb_first(&ctx->vas))) {
		struct sim_va *va = rb_entry(n, struct sim_va, node);

		WARN_ON(va->export_count);
		sim_va_destroy(ctx, va, NULL);
	}
	sim_va_space_fini(&ctx->dram_va);
	sim_va_space_fini(&ctx->host_va);
	idr_for_each_entry(&ctx->allocs, alloc, id) {
		idr_remove(&ctx->allocs, id);
		sim_bo_put(alloc->bo);
		kfree(alloc);
		sim_stat_dec(SIM_STAT_ALLOC);
	}
	ctx->dram_used = 0;
	mutex_unlock(&ctx->lock);
}
