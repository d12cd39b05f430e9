// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: the queues that run a CS's commands.
 *
 * The packets a queue runs: NOP; LIN_DMA (a copy, swapping the bytes of
 * 16-, 32- or 64-bit elements if asked; no memset); MSG_LONG to memory or
 * to the sync manager and queue fences, MSG_SHORT to the sync manager
 * (sim_sm.c); FENCE, which waits for the queue's fence counter; STOP,
 * which ends the CB; CP_DMA, which hands a CB to the queue manager's
 * lower CP (its commands run in its place); LOAD_AND_EXE into the CP's
 * predicates, which decide whether the packets that name one run, or
 * into its scalars, and the packet they hold; CB_LIST, which calls the
 * CB a table entry names by an index read as it runs (that CB is read,
 * checked and resolved then, and an error in it fails the CS).  The
 * jobs of a CS run as the queues of the device do, side by side: a queue
 * that waits on a fence lets the others run, and a CS whose queues all
 * wait on fences that none of them will signal waits, as on the device,
 * until it times out or its owner closes.
 *
 * Every command is bounded (a copy is chunked, a sync-manager write's
 * cascade has a bound of steps): the CPU is handed on before each, and
 * the CS stops at the next once its deadline passes or its owner closes.
 */
#include <linux/bsearch.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/swab.h>

#include "sim_cs.h"

/* 0 to go on; -EIO when the owner closes, -ETIMEDOUT past the deadline. */
int sim_cs_check(const struct sim_cs *cs)
{
	if (atomic_read(&cs->ctx->aborting))
		return -EIO;
	if (ktime_after(ktime_get(), cs->deadline))
		return -ETIMEDOUT;
	return 0;
}

/* A copy that swaps the bytes of each 2-, 4- or 8-byte element. */
static int sim_dma_swap_copy(struct sim_cs *cs, const struct sim_cmd *op)
{
	u64 buf[32];	/* a multiple of every element: none is split */
	u32 done = 0, n, i;
	int rc;

	while (done < op->len) {
		n = min_t(u32, op->len - done, sizeof(buf));
		sim_bo_read(op->src, op->src_off + done, buf, n);
		for (i = 0; i < n / op->swap; i++) {
			if (op->swap == 2)
				swab16s((u16 *)buf + i);
			else if (op->swap == 4)
				swab32s((u32 *)buf + i);
			else
				swab64s(buf + i);
		}
		sim_bo_write(op->dst, op->dst_off + done, buf, n);
		done += n;
		if (!(done % SZ_64K)) {
			rc = sim_cs_check(cs);
			if (rc)
				return rc;
			cond_resched();
		}
	}
	return 0;
}

static int sim_dma_copy(struct sim_cs *cs, const struct sim_cmd *op)
{
	u64 soff = op->src_off, doff = op->dst_off, slen, dlen;
	u32 left = op->len, chunk, n = 0;
	void *s, *d;
	int rc;

	if (op->swap)
		return sim_dma_swap_copy(cs, op);

	while (left) {
		s = sim_bo_map(op->src, soff, &slen);
		d = sim_bo_map(op->dst, doff, &dlen);
		/* At most a page between checks, whatever the memory. */
		chunk = min3((u64)left, min(slen, dlen), PAGE_SIZE);
		memcpy(d, s, chunk);
		sim_bo_unmap(op->dst, d);
		sim_bo_unmap(op->src, s);
		soff += chunk;
		doff += chunk;
		left -= chunk;
		if (!(++n % 256)) {
			rc = sim_cs_check(cs);
			if (rc)
				return rc;
			cond_resched();
		}
	}
	return 0;
}


static int sim_page_cmp(const void *a, const void *b)
{
	const struct page *x = *(struct page * const *)a;
	const struct page *y = *(struct page * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether a copy's source and destination share a page, so that each
 * repetition reads what the last one wrote.  Pages, not addresses: two
 * mappings may hold the same memory.  True when it cannot tell.
 */
static bool sim_dma_overlaps(const struct sim_cmd *op)
{
	pgoff_t s0 = op->src_off >> PAGE_SHIFT, d0 = op->dst_off >> PAGE_SHIFT;
	pgoff_t ns = ((op->src_off + op->len - 1) >> PAGE_SHIFT) - s0 + 1;
	pgoff_t nd = ((op->dst_off + op->len - 1) >> PAGE_SHIFT) - d0 + 1;
	struct page **src;
	bool hit = false;
	pgoff_t i;

	/* BAR memory is no other memory: only a range of itself overlaps. */
	if (!op->src->pages || !op->dst->pages)
		return op->src == op->dst &&
		       op->src_off < op->dst_off + op->len &&
		       op->dst_off < op->src_off + op->len;

	src = kvmalloc_array(ns, sizeof(*src), GFP_KERNEL);
	if (!src)
		return true;
	memcpy(src, op->src->pages + s0, ns * sizeof(*src));
	sort(src, ns, sizeof(*src), sim_page_cmp, NULL);
	for (i = 0; i < nd && !hit; i++)
		hit = bsearch(&op->dst->pages[d0 + i], src, ns, sizeof(*src),
			      sim_page_cmp);
	kvfree(src);
	return hit;
}

/*
 * A LIN_DMA, as many times as its CB repeats it; stops when told to.
 * Copying the same bytes again between pages that do not overlap changes
 * nothing, so such a run (a bandwidth test's thousands of copies) is
 * done once; an overlapping one (an in-place swap) runs every time.
 */
static int sim_dma_run(struct sim_cs *cs, const struct sim_cmd *op)
{
	u32 i, n = op->repeat;
	int rc;

	if (n > 1 && !sim_dma_overlaps(op))
		n = 1;
	for (i = 0; i < n; i++) {
		rc = sim_dma_copy(cs, op);
		if (!rc)
			rc = sim_cs_check(cs);
		if (rc)
			return rc;
		cond_resched();
	}
	return 0;
}

/* The predicates a LOAD_AND_EXE names, as a map: bit i is predicate i. */
static u32 sim_pred_map(const struct sim_cmd *op)
{
	__le32 words[GAUDI2_QM_PREDICATES];
	u32 map = 0;
	unsigned int i;

	sim_bo_read(op->src, op->src_off, words, op->len);
	if (op->value)
		return le32_to_cpu(words[0]);
	for (i = 0; i < GAUDI2_QM_PREDICATES; i++)
		if (le32_to_cpu(words[i]) & 1)
			map |= BIT(i);
	return map;
}

/*
 * Runs the packet LOAD_AND_EXE finds in the scalars: one that writes a
 * word (MSG_LONG, MSG_SHORT) or NOP, checked as any packet of a CB but
 * only now, as its bytes were only now known.  The device reports
 * anything else, or a write to memory not mapped, as an error of the
 * queue: the CS fails (EIO, as an aborted one).
 */
static int sim_scalars_exe(struct sim_cs *cs, const struct sim_job *job,
			   const struct sim_cmd *op, const __le32 *r)
{
	struct sim_device *sdev = cs->ctx->sdev;
	bool upper = op->value & GAUDI2_PKT_LOAD_AND_EXE_CFG_ETYPE_MASK;
	struct sim_cmd cmd;
	struct sim_bo *bo;
	u64 off;
	int len;

	/* All four registers, or the upper two (R2, R3). */
	len = sim_parse_packet(sdev, (const u8 *)(r + (upper ? 2 : 0)),
			       (upper ? 2 : 4) * sizeof(u32), &cmd);
	if (len <= 0)
		return -EIO;
	if (cmd.pred && !sim_sm_pred(sdev, job->queue, op->lower, cmd.pred))
		return 0;
	switch (cmd.kind) {
	case U8_MAX:
		return 0;
	case SIM_CMD_REG_WRITE:
		sim_sm_reg_write(cs->ctx, cmd.reg, cmd.value);
		return 0;
	case SIM_CMD_MEM_WRITE:
		bo = sim_mem_get(cs->ctx, cmd.dst_va, cmd.len, &off);
		if (!bo)
			return -EIO;
		sim_bo_write(bo, off, &cmd.value, sizeof(cmd.value));
		sim_bo_put(bo);
		return 0;
	}
	return -EIO;
}

static int sim_scalars_run(struct sim_cs *cs, const struct sim_job *job,
			   const struct sim_cmd *op)
{
	__le32 *r = sim_sm_scalars(cs->ctx->sdev, job->queue, op->lower);

	if (!r)
		return -EIO;
	if (op->len)
		sim_bo_read(op->src, op->src_off, r, op->len);
	if (!(op->value & GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK))
		return 0;
	return sim_scalars_exe(cs, job, op, r);
}

/* One command that does not wait. */
static int sim_cmd_run(struct sim_cs *cs, const struct sim_job *job,
		       const struct sim_cmd *op)
{
	switch (op->kind) {
	case SIM_CMD_SCALARS:
		return sim_scalars_run(cs, job, op);
	case SIM_CMD_LOAD_PRED:
		sim_sm_pred_load(cs->ctx->sdev, job->queue, op->lower,
				 sim_pred_map(op));
		return 0;
	case SIM_CMD_DMA:
		return sim_dma_run(cs, op);
	case SIM_CMD_MEM_WRITE:
		sim_bo_write(op->dst, op->dst_off, &op->value, sizeof(op->value));
		return 0;
	case SIM_CMD_REG_WRITE:
		sim_sm_reg_write(cs->ctx, op->reg, op->value);
		return 0;
	case SIM_CMD_SOB_SIGNAL:
		sim_sm_sob_signal(cs->ctx, op->reg, op->value);
		return 0;
	}
	return 0;
}

/*
 * CB_LIST: reads the index, then the table's entry, which must be a
 * CP_DMA to the CP itself, and has the job run that CB before it goes
 * on.  What the index and the table hold is known only now, so the CB is
 * read and checked now: a bad entry or CB, memory not mapped, or calls
 * past the bounds are an error of the queue, which fails the CS (EIO).
 */
static int sim_cb_list_call(struct sim_cs *cs, struct sim_job *job,
			    const struct sim_cmd *op)
{
	struct sim_frame *f;
	__le32 index;
	u8 entry[16];
	u64 off, at, cb_va;
	struct sim_bo *bo;
	bool fence = false;
	u32 cb_size;
	int rc;

	if (job->depth == SIM_MAX_CALLS)
		return -EIO;
	sim_bo_read(op->src, op->src_off, &index, sizeof(index));
	if (check_add_overflow(op->dst_va,
			       (u64)le32_to_cpu(index) * sizeof(entry), &at))
		return -EIO;
	bo = sim_mem_get(cs->ctx, at, sizeof(entry), &off);
	if (!bo)
		return -EIO;
	sim_bo_read(bo, off, entry, sizeof(entry));
	sim_bo_put(bo);
	if (sim_parse_call(entry, &cb_va, &cb_size))
		return -EIO;

	if (!job->calls) {
		job->calls = kcalloc(SIM_MAX_CALLS, sizeof(*job->calls),
				     GFP_KERNEL);
		if (!job->calls)
			return -EIO;
	}
	f = &job->calls[job->depth++];
	if (!cb_size)
		return 0;	/* an empty CB: the frame ends at once */
	rc = sim_parse_frame(cs->ctx, cb_va, cb_size, f, &fence);
	if (!rc && cs->called_ops + f->nops > SIM_MAX_CALLED_OPS)
		rc = -E2BIG;
	if (!rc)
		rc = sim_frame_resolve(cs->ctx, f);
	cs->called_ops += f->nops;
	/* The frame is freed with the CS, whatever the error. */
	return rc ? -EIO : 0;
}

/* The CB @job runs now: the last one it called, or its own. */
static struct sim_frame *sim_job_frame(struct sim_job *job)
{
	return job->depth ? &job->calls[job->depth - 1] : &job->own;
}

/*
 * Runs the jobs as the queues would, side by side: each until it ends or
 * waits on a fence, then the next, while any of them moves.
 */
int sim_cs_run_jobs(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;
	bool moved, waiting;
	unsigned int i;
	int rc;

	do {
		moved = false;
		waiting = false;
		for (i = 0; i < cs->njobs; i++) {
			struct sim_job *job = &cs->jobs[i];
			struct sim_frame *f;

			for (;;) {
				const struct sim_cmd *op;

				f = sim_job_frame(job);
				if (f->next == f->nops) {
					if (!job->depth)
						break;
					/* A called CB ended: back to its caller. */
					sim_frame_free(f);
					job->depth--;
					moved = true;
					continue;
				}
				op = &f->ops[f->next];
				/* Every command is bounded: the CPU is handed on between them. */
				cond_resched();
				rc = sim_cs_check(cs);
				if (rc)
					return rc;
				if (op->pred &&
				    !sim_sm_pred(sdev, job->queue, op->lower,
						 op->pred)) {
					/* Its predicate is clear: skipped. */
				} else if (op->kind == SIM_CMD_FENCE) {
					if (!sim_sm_fence_pass(sdev, job->queue,
							       op->lower,
							       op->fence_id,
							       op->fence_target,
							       op->fence_dec)) {
						waiting = true;
						break;
					}
				} else if (op->kind == SIM_CMD_SOB_WAIT) {
					if (!sim_sm_sob_reached(sdev, op->reg,
								op->value)) {
						waiting = true;
						break;
					}
				} else if (op->kind == SIM_CMD_CB_LIST) {
					/* Goes on after it when the call ends. */
					f->next++;
					moved = true;
					rc = sim_cb_list_call(cs, job, op);
					if (rc)
						return rc;
					continue;
				} else {
					rc = sim_cmd_run(cs, job, op);
					if (rc)
						return rc;
				}
				f->next++;
				moved = true;
			}
		}
	} while (waiting && moved);
	if (!waiting)
		return 0;
	/*
	 * Every queue left waits on a fence no queue of this CS will raise:
	 * as on the device, the CS hangs until its deadline or its owner
	 * closes.
	 */
	while (!(rc = sim_cs_check(cs)))
		wait_event_interruptible_timeout(cs->ctx->abort_wq,
						 atomic_read(&cs->ctx->aborting),
						 HZ / 10);
	return rc;
}
