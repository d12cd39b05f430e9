// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: timestamp buffers (HL_MEM_OP_TS_ALLOC).  A buffer is an
 * array of u64 elements that the user maps at its handle and into which
 * a fired timestamp registration (sim_irq.c) writes the time.  As with
 * the driver, every element has its registration record made with the
 * buffer, there is no op to free one (it lives until the open closes and
 * no mapping is left) and a buffer can be mapped once.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hl_compat.h"
#include "sim.h"

static void sim_ts_release(struct kref *ref)
{
	struct sim_ts_buf *buf = container_of(ref, struct sim_ts_buf, ref);

	kvfree(buf->nodes);
	vfree(buf->stamps);
	kfree(buf);
	sim_stat_dec(SIM_STAT_TS_BUF);
}

void sim_ts_put(struct sim_ts_buf *buf)
{
	kref_put(&buf->ref, sim_ts_release);
}

/* Takes a reference on the buffer named by @handle, or returns NULL. */
struct sim_ts_buf *sim_ts_get(struct sim_ctx *ctx, u64 handle)
{
	struct sim_ts_buf *buf;
	long id;

	if (handle & ~PAGE_MASK)
		return NULL;
	id = sim_mmap_id(handle >> PAGE_SHIFT, SIM_MMAP_TYPE_TS);
	if (id < 0)
		return NULL;
	mutex_lock(&ctx->lock);
	buf = idr_find(&ctx->ts_bufs, id);
	if (buf)
		kref_get(&buf->ref);
	mutex_unlock(&ctx->lock);
	return buf;
}

int sim_ts_alloc(struct sim_ctx *ctx, u32 count, u64 *handle)
{
	struct sim_ts_buf *buf;
	int id = -ENOSPC;
	u32 i;

	/* The driver answers 0 with ENOMEM (its empty allocation fails). */
	if (!count || count > TS_MAX_ELEMENTS_NUM)
		return -EINVAL;
	/* Reserved before anything is allocated. */
	mutex_lock(&ctx->lock);
	if (ctx->ts_elements + count <= SIM_MAX_TS_ELEMENTS) {
		ctx->ts_elements += count;
		id = 0;
	}
	mutex_unlock(&ctx->lock);
	if (id)
		return id;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		goto unreserve;
	kref_init(&buf->ref);
	buf->ctx = ctx;
	buf->count = count;
	buf->stamps = vmalloc_user(array_size(count, sizeof(u64)));
	buf->nodes = kvcalloc(count, sizeof(*buf->nodes), GFP_KERNEL_ACCOUNT);
	if (!buf->stamps || !buf->nodes) {
		kvfree(buf->nodes);
		vfree(buf->stamps);
		kfree(buf);
		goto unreserve;
	}
	for (i = 0; i < count; i++)
		buf->nodes[i].buf = buf;
	sim_stat_inc(SIM_STAT_TS_BUF);

	mutex_lock(&ctx->lock);
	id = idr_alloc(&ctx->ts_bufs, buf, 1, INT_MAX, GFP_KERNEL);
	if (id > 0)
		buf->id = id;
	else
		ctx->ts_elements -= count;
	mutex_unlock(&ctx->lock);
	if (id < 0) {
		sim_ts_put(buf);
		return id;
	}
	*handle = sim_mmap_handle(id, SIM_MMAP_TYPE_TS);
	return 0;

unreserve:
	mutex_lock(&ctx->lock);
	ctx->ts_elements -= count;
	mutex_unlock(&ctx->lock);
	return -ENOMEM;
}

/*
 * Each vma holds a reference.  VM_DONTCOPY keeps fork() from copying the
 * vma, but munmap() or mprotect() of part of it splits it and mremap()
 * moves it: the core calls .open for every new piece and .close for every
 * piece that goes.
 */
static void sim_ts_vm_open(struct vm_area_struct *vma)
{
	struct sim_ts_buf *buf = vma->vm_private_data;

	kref_get(&buf->ref);
}

static void sim_ts_vm_close(struct vm_area_struct *vma)
{
	sim_ts_put(vma->vm_private_data);
}

static const struct vm_operations_struct sim_ts_vm_ops = {
	.open = sim_ts_vm_open,
	.close = sim_ts_vm_close,
};

int sim_ts_mmap(struct sim_ctx *ctx, struct vm_area_struct *vma)
{
	struct sim_ts_buf *buf;
	int rc;

	buf = sim_ts_get(ctx, vma->vm_pgoff << PAGE_SHIFT);
	if (!buf)
		return -EINVAL;
	/* All of it, and once, as the driver's hl_mem_mgr_mmap(). */
	if (vma->vm_end - vma->vm_start !=
	    PAGE_ALIGN((u64)buf->count * sizeof(u64)) ||
	    atomic_cmpxchg(&buf->mapped, 0, 1)) {
		sim_ts_put(buf);
		return -EINVAL;
	}
	hl_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY |
			 VM_NORESERVE);
	vma->vm_pgoff = 0;
	rc = remap_vmalloc_range(vma, buf->stamps, 0);
	if (rc) {
		atomic_set(&buf->mapped, 0);
		sim_ts_put(buf);
		return rc;
	}
	vma->vm_private_data = buf;	/* the reference is the vma's now */
	vma->vm_ops = &sim_ts_vm_ops;
	return 0;
}

/*
 * At close, after sim_irq_ctx_fini() dropped every registration still
 * waiting: the handles.  A mapped buffer lives on.
 */
void sim_ts_ctx_fini(struct sim_ctx *ctx)
{
	struct sim_ts_buf *buf;
	int id;

	mutex_lock(&ctx->lock);
	idr_for_each_entry(&ctx->ts_bufs, buf, id) {
		idr_remove(&ctx->ts_bufs, id);
		mutex_unlock(&ctx->lock);
		sim_ts_put(buf);
		mutex_lock(&ctx->lock);
	}
	ctx->ts_elements = 0;
	mutex_unlock(&ctx->lock);
}
