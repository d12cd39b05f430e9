// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: kernel-allocated command buffers.  A CB is kernel
 * memory that userspace fills through mmap() of the compute node at
 * offset cb_handle.  As on Gaudi2, no user queue takes such a CB by its
 * handle (sim_queue.c); one created with HL_CB_FLAGS_MAP is also mapped
 * into the context's device VA space (the driver's cb_map_mem()), and
 * queues take it by that address, which HL_CB_OP_INFO with
 * HL_CB_FLAGS_GET_DEVICE_VA returns.  A destroyed CB lives on while it is
 * mmapped; its device mapping goes at DESTROY.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "sim.h"

static void sim_cb_uncount(struct sim_ctx *ctx, u32 size)
{
	atomic_dec(&ctx->ncbs);
	atomic64_sub(size, &ctx->cb_bytes);
}

static void sim_cb_release(struct kref *ref)
{
	struct sim_cb *cb = container_of(ref, struct sim_cb, ref);

	sim_cb_uncount(cb->ctx, cb->size);
	vfree(cb->kaddr);
	kfree(cb);
	sim_stat_dec(SIM_STAT_CB);
}

/*
 * The last reference goes at DESTROY, at munmap or at close: always while
 * the open that created it lives (an mmap holds the file), so cb->ctx is
 * valid.
 */
void sim_cb_put(struct sim_cb *cb)
{
	kref_put(&cb->ref, sim_cb_release);
}

/* Takes a reference on the CB named by handle, or returns NULL. */
struct sim_cb *sim_cb_get(struct sim_ctx *ctx, u64 handle)
{
	struct sim_cb *cb = NULL;
	long id;

	if (handle & ~PAGE_MASK)
		return NULL;
	id = sim_mmap_id(handle >> PAGE_SHIFT, SIM_MMAP_TYPE_CB);
	if (id < 0)
		return NULL;
	mutex_lock(&ctx->lock);
	cb = idr_find(&ctx->cbs, id);
	if (cb)
		kref_get(&cb->ref);
	mutex_unlock(&ctx->lock);
	return cb;
}

/* Removes a CB's device mapping, if it has one. */
static void sim_cb_unmap(struct sim_ctx *ctx, struct sim_cb *cb)
{
	struct sim_va_hole *spare = sim_va_spare_alloc();

	mutex_lock(&ctx->lock);
	if (cb->va) {
		/* Without a spare hole the range is not reused: no harm. */
		sim_mem_unmap_kernel(ctx, cb->va, spare ? &spare : NULL);
		cb->va = NULL;
	}
	mutex_unlock(&ctx->lock);
	sim_va_spare_free(spare);
}

static int sim_cb_create(struct sim_ctx *ctx, struct hl_cb_in *in, u64 *out)
{
	struct sim_cb *cb;
	u32 size;
	int id, rc;

	if (in->flags & ~HL_CB_FLAGS_MAP)
		return -EINVAL;
	if (in->cb_size > HL_MAX_CB_SIZE)
		return -EINVAL;
	/* Like the real driver, at least one page. */
	size = PAGE_ALIGN(max_t(u32, in->cb_size, 1));

	/* A bound on what one open may hold in kernel memory. */
	if (atomic_inc_return(&ctx->ncbs) > SIM_MAX_CBS ||
	    atomic64_add_return(size, &ctx->cb_bytes) > SIM_MAX_CB_BYTES) {
		sim_cb_uncount(ctx, size);
		return -ENOSPC;
	}

	cb = kzalloc(sizeof(*cb), GFP_KERNEL_ACCOUNT);
	if (!cb) {
		sim_cb_uncount(ctx, size);
		return -ENOMEM;
	}
	kref_init(&cb->ref);
	atomic_set(&cb->mmap_count, 0);
	cb->ctx = ctx;
	cb->size = size;
	cb->kaddr = vmalloc_user(cb->size);
	if (!cb->kaddr) {
		kfree(cb);
		sim_cb_uncount(ctx, size);
		return -ENOMEM;
	}
	/* Complete (counted, with its id) before another thread can see it. */
	sim_stat_inc(SIM_STAT_CB);
	if (in->flags & HL_CB_FLAGS_MAP) {
		rc = sim_mem_map_kernel(ctx, cb->kaddr, cb->size, &cb->va);
		if (rc) {
			sim_cb_put(cb);
			return rc;
		}
	}
	mutex_lock(&ctx->lock);
	id = idr_alloc(&ctx->cbs, cb, 1, INT_MAX, GFP_KERNEL);
	if (id > 0)
		cb->id = id;
	mutex_unlock(&ctx->lock);
	if (id < 0) {
		sim_cb_unmap(ctx, cb);
		sim_cb_put(cb);
		return id;
	}
	*out = sim_mmap_handle(id, SIM_MMAP_TYPE_CB);
	return 0;
}

static int sim_cb_destroy(struct sim_ctx *ctx, struct hl_cb_in *in)
{
	struct sim_cb *cb;
	long id;

	if (in->flags || (in->cb_handle & ~PAGE_MASK))
		return -EINVAL;
	id = sim_mmap_id(in->cb_handle >> PAGE_SHIFT, SIM_MMAP_TYPE_CB);
	if (id < 0)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	cb = idr_remove(&ctx->cbs, id);
	mutex_unlock(&ctx->lock);
	if (!cb)
		return -EINVAL;
	sim_cb_unmap(ctx, cb);
	sim_cb_put(cb);
	return 0;
}

/*
 * HL_CB_OP_INFO: with HL_CB_FLAGS_GET_DEVICE_VA the address of a mapped
 * CB (EINVAL if it is not mapped); else, as the driver, the number of CSs
 * in flight that use it: none, as no user queue of Gaudi2 takes a CB by
 * its handle (sim_queue.c).
 */
static int sim_cb_info(struct sim_ctx *ctx, struct hl_cb_in *in, u64 *out)
{
	struct sim_cb *cb;
	int rc = 0;

	if (in->flags & ~HL_CB_FLAGS_GET_DEVICE_VA)
		return -EINVAL;
	cb = sim_cb_get(ctx, in->cb_handle);
	if (!cb)
		return -EINVAL;
	*out = 0;
	if (in->flags & HL_CB_FLAGS_GET_DEVICE_VA) {
		mutex_lock(&ctx->lock);
		if (cb->va)
			*out = cb->va->start;
		else
			rc = -EINVAL;
		mutex_unlock(&ctx->lock);
	}
	sim_cb_put(cb);
	return rc;
}

int sim_cb_ioctl(struct sim_ctx *ctx, union hl_cb_args *args)
{
	struct hl_cb_in in = args->in;
	u64 out = 0;
	int rc;

	switch (in.op) {
	case HL_CB_OP_CREATE:
		rc = sim_cb_create(ctx, &in, &out);
		break;
	case HL_CB_OP_DESTROY:
		rc = sim_cb_destroy(ctx, &in);
		break;
	case HL_CB_OP_INFO:
		rc = sim_cb_info(ctx, &in, &out);
		break;
	default:
		return -ENOTTY;
	}
	if (rc)
		return rc;
	memset(args, 0, sizeof(*args));
	args->out.cb_handle = out;	/* usage_cnt or device_va for INFO */
	return 0;
}

static void sim_cb_vm_open(struct vm_area_struct *vma)
{
	struct sim_cb *cb = vma->vm_private_data;

	kref_get(&cb->ref);
	atomic_inc(&cb->mmap_count);
}

static void sim_cb_vm_close(struct vm_area_struct *vma)
{
	struct sim_cb *cb = vma->vm_private_data;

	atomic_dec(&cb->mmap_count);
	sim_cb_put(cb);
}

static const struct vm_operations_struct sim_cb_vm_ops = {
	.open = sim_cb_vm_open,
	.close = sim_cb_vm_close,
};

int sim_cb_mmap(struct sim_ctx *ctx, struct vm_area_struct *vma)
{
	struct sim_cb *cb;
	int rc;

	if (sim_mmap_id(vma->vm_pgoff, SIM_MMAP_TYPE_CB) < 0)
		return -EINVAL;
	cb = sim_cb_get(ctx, vma->vm_pgoff << PAGE_SHIFT);
	if (!cb)
		return -EINVAL;
	/* The whole CB, as the real driver requires. */
	if (vma->vm_end - vma->vm_start != cb->size) {
		sim_cb_put(cb);
		return -EINVAL;
	}
	hl_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY |
			 VM_NORESERVE);
	/* remap_vmalloc_range() takes the offset into the CB, i.e. 0. */
	vma->vm_pgoff = 0;
	rc = remap_vmalloc_range(vma, cb->kaddr, 0);
	if (rc) {
		sim_cb_put(cb);
		return rc;
	}
	vma->vm_private_data = cb;
	vma->vm_ops = &sim_cb_vm_ops;
	atomic_inc(&cb->mmap_count);	/* the reference is the vma's now */
	return 0;
}

void sim_cb_ctx_fini(struct sim_ctx *ctx)
{
	struct sim_cb *cb;
	int id;

	mutex_lock(&ctx->lock);
	idr_for_each_entry(&ctx->cbs, cb, id) {
		idr_remove(&ctx->cbs, id);
		/* sim_mem_ctx_fini() removes the mapping with the others. */
		cb->va = NULL;
		sim_cb_put(cb);
	}
	mutex_unlock(&ctx->lock);
}
