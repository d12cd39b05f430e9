// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: command submission on the PDMA queues and the LIN_DMA
 * engine that executes it, plus WAIT_CS.
 *
 * At submission every command buffer is copied (so later writes through
 * its mmap cannot change a validated CS), parsed, and each LIN_DMA
 * address range is resolved in the submitter's VA space, taking a
 * reference on the memory behind it.  Execution, on the device's ordered
 * workqueue, therefore touches only memory the submitter mapped, even if
 * it unmaps or exits meanwhile.
 */
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sim.h"

struct sim_dma_op {
	struct sim_bo *src;		/* reference */
	struct sim_bo *dst;		/* reference */
	u64 src_off;			/* byte offset in src's pages */
	u64 dst_off;
	u64 src_va;			/* as submitted, until resolved */
	u64 dst_va;
	u32 len;
};

struct sim_job {
	struct sim_dma_op *ops;
	unsigned int nops;
};

struct sim_cs {
	struct kref ref;
	struct list_head node;		/* ctx->cs_pending */
	struct sim_ctx *ctx;
	struct work_struct work;
	struct completion done;
	u64 seq;
	int error;			/* -EIO when aborted */
	bool want_timestamp;
	s64 timestamp_ns;
	unsigned int njobs;
	struct sim_job jobs[];
};

#define LIN_DMA_CTL_ALLOWED (GAUDI2_PKT_CTL_OPCODE_MASK |		\
			     GAUDI2_PKT_CTL_EB_MASK |			\
			     GAUDI2_PKT_CTL_RB_MASK |			\
			     GAUDI2_PKT_CTL_MB_MASK |			\
			     GAUDI2_PKT_LIN_DMA_CTL_WRCOMP_MASK |	\
			     GAUDI2_PKT_LIN_DMA_CTL_CONTEXT_ID_MASK)

#define NOP_CTL_ALLOWED (GAUDI2_PKT_CTL_OPCODE_MASK |			\
			 GAUDI2_PKT_CTL_EB_MASK |			\
			 GAUDI2_PKT_CTL_RB_MASK |			\
			 GAUDI2_PKT_CTL_MB_MASK)

static void sim_cs_release(struct kref *ref)
{
	struct sim_cs *cs = container_of(ref, struct sim_cs, ref);
	unsigned int i, j;

	for (i = 0; i < cs->njobs; i++) {
		for (j = 0; j < cs->jobs[i].nops; j++) {
			struct sim_dma_op *op = &cs->jobs[i].ops[j];

			if (op->src)
				sim_bo_put(op->src);
			if (op->dst)
				sim_bo_put(op->dst);
		}
		kvfree(cs->jobs[i].ops);
	}
	kfree(cs);
	sim_stat_dec(SIM_STAT_CS);
}

static void sim_cs_put(struct sim_cs *cs)
{
	kref_put(&cs->ref, sim_cs_release);
}

/* ---- parsing ------------------------------------------------------- */

static void sim_parse_lin_dma(const u8 *pkt, u32 tsize,
			      struct sim_dma_op *op)
{
	op->len = tsize;
	op->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
	op->dst_va = le64_to_cpup((const __le64 *)(pkt + 16));
}

/* Validates a CB snapshot; counts LIN_DMA packets, or fills ops. */
static int sim_parse_cb(const u8 *buf, u32 size, struct sim_dma_op *ops,
			unsigned int *nops)
{
	unsigned int n = 0;
	u32 pos = 0, ctl, opcode, tsize;

	while (pos < size) {
		if (size - pos < sizeof(struct gaudi2_packet_nop))
			return -EINVAL;
		ctl = le32_to_cpup((const __le32 *)(buf + pos + 4));
		opcode = (ctl & GAUDI2_PKT_CTL_OPCODE_MASK) >>
			 GAUDI2_PKT_CTL_OPCODE_SHIFT;
		switch (opcode) {
		case GAUDI2_PACKET_NOP:
			if (ctl & ~NOP_CTL_ALLOWED)
				return -EINVAL;
			pos += sizeof(struct gaudi2_packet_nop);
			break;
		case GAUDI2_PACKET_LIN_DMA:
			if (size - pos < sizeof(struct gaudi2_packet_lin_dma))
				return -EINVAL;
			/* No byte swapping or memset in this engine. */
			if (ctl & ~LIN_DMA_CTL_ALLOWED)
				return -EINVAL;
			tsize = le32_to_cpup((const __le32 *)(buf + pos));
			if (tsize && ops)
				sim_parse_lin_dma(buf + pos, tsize, &ops[n]);
			if (tsize)
				n++;
			pos += sizeof(struct gaudi2_packet_lin_dma);
			break;
		default:
			return -EINVAL;
		}
	}
	*nops = n;
	return 0;
}

/* Copies a chunk's CB and turns it into a job. */
static int sim_job_build(struct sim_ctx *ctx, const struct hl_cs_chunk *ch,
			 struct sim_job *job)
{
	struct sim_cb *cb;
	unsigned int i, n;
	u8 *snap;
	int rc;

	if (ch->queue_index > GAUDI2_QUEUE_ID_PDMA_1_3)
		return -EINVAL;
	if (ch->cs_chunk_flags || ch->collective_engine_id)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(ch->pad); i++)
		if (ch->pad[i])
			return -EINVAL;
	if (!ch->cb_size)
		return -EINVAL;

	cb = sim_cb_get(ctx, ch->cb_handle);
	if (!cb)
		return -EINVAL;
	if (ch->cb_size > cb->size) {
		sim_cb_put(cb);
		return -EINVAL;
	}
	snap = kvmalloc(ch->cb_size, GFP_KERNEL);
	if (!snap) {
		sim_cb_put(cb);
		return -ENOMEM;
	}
	memcpy(snap, cb->kaddr, ch->cb_size);
	sim_cb_put(cb);

	rc = sim_parse_cb(snap, ch->cb_size, NULL, &n);
	if (rc || !n)
		goto out;
	job->ops = kvcalloc(n, sizeof(*job->ops), GFP_KERNEL);
	if (!job->ops) {
		rc = -ENOMEM;
		goto out;
	}
	rc = sim_parse_cb(snap, ch->cb_size, job->ops, &job->nops);
out:
	kvfree(snap);
	return rc;
}

/* Resolves every op of the CS in ctx's VA space; ctx->lock held. */
static int sim_cs_resolve(struct sim_ctx *ctx, struct sim_cs *cs)
{
	unsigned int i, j;
	struct sim_va *s, *d;

	for (i = 0; i < cs->njobs; i++) {
		for (j = 0; j < cs->jobs[i].nops; j++) {
			struct sim_dma_op *op = &cs->jobs[i].ops[j];

			s = sim_va_find(ctx, op->src_va, op->len);
			d = sim_va_find(ctx, op->dst_va, op->len);
			if (!s || !d)
				return -EFAULT;
			op->src_off = op->src_va - s->start;
			op->dst_off = op->dst_va - d->start;
			sim_bo_get(s->bo);
			op->src = s->bo;
			sim_bo_get(d->bo);
			op->dst = d->bo;
			if (!(j % 1024))
				cond_resched();
		}
	}
	return 0;
}

/* ---- execution ----------------------------------------------------- */

static bool sim_cs_aborting(struct sim_cs *cs)
{
	return atomic_read(&cs->ctx->aborting);
}

static int sim_dma_copy(struct sim_cs *cs, const struct sim_dma_op *op)
{
	u64 soff = op->src_off, doff = op->dst_off;
	u32 left = op->len, chunk, n = 0;
	void *s, *d;

	while (left) {
		chunk = min3((u64)left, PAGE_SIZE - (soff & ~PAGE_MASK),
			     PAGE_SIZE - (doff & ~PAGE_MASK));
		s = kmap_local_page(op->src->pages[soff >> PAGE_SHIFT]);
		d = kmap_local_page(op->dst->pages[doff >> PAGE_SHIFT]);
		memcpy(d + (doff & ~PAGE_MASK), s + (soff & ~PAGE_MASK),
		       chunk);
		kunmap_local(d);
		kunmap_local(s);
		soff += chunk;
		doff += chunk;
		left -= chunk;
		if (!(++n % 256)) {
			if (sim_cs_aborting(cs))
				return -EIO;
			cond_resched();
		}
	}
	return 0;
}

static void sim_cs_work(struct work_struct *work)
{
	struct sim_cs *cs = container_of(work, struct sim_cs, work);
	struct sim_ctx *ctx = cs->ctx;
	unsigned long delay;
	unsigned int i, j;
	int rc = 0;

	/* Interruptible: a long delay must not look like a hung task. */
	delay = msecs_to_jiffies(sim_cs_delay_ms);
	if (delay)
		wait_event_interruptible_timeout(ctx->abort_wq,
						 atomic_read(&ctx->aborting),
						 delay);

	for (i = 0; i < cs->njobs && !rc; i++) {
		for (j = 0; j < cs->jobs[i].nops && !rc; j++) {
			if (sim_cs_aborting(cs))
				rc = -EIO;
			else
				rc = sim_dma_copy(cs, &cs->jobs[i].ops[j]);
		}
	}
	cs->error = rc;
	cs->timestamp_ns = ktime_get_ns();

	spin_lock(&ctx->cs_lock);
	list_del(&cs->node);
	ctx->cs_pending_count--;
	spin_unlock(&ctx->cs_lock);
	complete_all(&cs->done);
	/* Drops the pending list's reference. */
	sim_cs_put(cs);
}

/* ---- ioctls -------------------------------------------------------- */

int sim_cs_ioctl(struct sim_ctx *ctx, union hl_cs_args *args)
{
	struct hl_cs_in in = args->in;
	struct hl_cs_chunk *chunks;
	struct sim_cs *cs;
	unsigned int i, n = in.num_chunks_execute;
	unsigned long total_ops = 0;
	u64 seq;
	int rc;

	/* Restore phases and signal/wait/staged/engine CSs are not emulated. */
	if (in.cs_flags & ~(HL_CS_FLAGS_FORCE_RESTORE | HL_CS_FLAGS_TIMESTAMP |
			    HL_CS_FLAGS_CUSTOM_TIMEOUT))
		return -EINVAL;
	if (in.num_chunks_restore)
		return -EINVAL;
	if (!n || n > HL_MAX_JOBS_PER_CS)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(in.pad); i++)
		if (in.pad[i])
			return -EINVAL;

	chunks = kvmalloc_array(n, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return -ENOMEM;
	if (copy_from_user(chunks, u64_to_user_ptr(in.chunks_execute),
			   array_size(n, sizeof(*chunks)))) {
		kvfree(chunks);
		return -EFAULT;
	}

	cs = kzalloc(struct_size(cs, jobs, n), GFP_KERNEL);
	if (!cs) {
		kvfree(chunks);
		return -ENOMEM;
	}
	kref_init(&cs->ref);
	INIT_LIST_HEAD(&cs->node);
	INIT_WORK(&cs->work, sim_cs_work);
	init_completion(&cs->done);
	cs->ctx = ctx;
	cs->want_timestamp = in.cs_flags & HL_CS_FLAGS_TIMESTAMP;
	sim_stat_inc(SIM_STAT_CS);

	for (i = 0; i < n; i++) {
		rc = sim_job_build(ctx, &chunks[i], &cs->jobs[i]);
		cs->njobs = i + 1;	/* release frees what was built */
		if (rc)
			goto err;
		/* Bounds the kernel memory one CS can pin down. */
		total_ops += cs->jobs[i].nops;
		if (total_ops > SIM_MAX_CS_DMA_OPS) {
			rc = -EINVAL;
			goto err;
		}
	}
	kvfree(chunks);
	chunks = NULL;

	mutex_lock(&ctx->lock);
	rc = sim_cs_resolve(ctx, cs);
	mutex_unlock(&ctx->lock);
	if (rc)
		goto err;

	spin_lock(&ctx->cs_lock);
	if (ctx->cs_pending_count >= SIM_MAX_PENDING_CS) {
		spin_unlock(&ctx->cs_lock);
		rc = -EAGAIN;
		goto err;
	}
	ctx->cs_pending_count++;
	seq = ++ctx->last_seq;
	cs->seq = seq;
	list_add_tail(&cs->node, &ctx->cs_pending);
	spin_unlock(&ctx->cs_lock);
	/* From here the work owns cs; it may be gone once queued. */
	queue_work(ctx->sdev->wq, &cs->work);

	memset(args, 0, sizeof(*args));
	args->out.seq = seq;
	args->out.status = HL_CS_STATUS_SUCCESS;
	return 0;

err:
	kvfree(chunks);
	sim_cs_put(cs);
	return rc;
}

int sim_wait_cs_ioctl(struct sim_ctx *ctx, union hl_wait_cs_args *args)
{
	struct hl_wait_cs_in in = args->in;
	struct sim_cs *cs = NULL, *it;
	long left;
	bool done;
	int rc = 0;

	/* Interrupt and multi-CS waits are not emulated. */
	if (in.flags || in.interrupt_timeout_us || in.cq_counters_offset ||
	    in.timestamp_handle || in.timestamp_offset)
		return -EINVAL;

	spin_lock(&ctx->cs_lock);
	if (!in.seq || in.seq > ctx->last_seq) {
		spin_unlock(&ctx->cs_lock);
		return -EINVAL;
	}
	list_for_each_entry(it, &ctx->cs_pending, node) {
		if (it->seq == in.seq) {
			cs = it;
			kref_get(&cs->ref);
			break;
		}
	}
	spin_unlock(&ctx->cs_lock);

	memset(args, 0, sizeof(*args));
	if (!cs) {
		/* Completed and retired: as the real driver, "gone". */
		args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_GONE;
		return 0;
	}

	if (!in.timeout_us) {
		done = completion_done(&cs->done);
	} else {
		left = wait_for_completion_interruptible_timeout(&cs->done,
			in.timeout_us > UINT_MAX ? MAX_SCHEDULE_TIMEOUT :
			usecs_to_jiffies(in.timeout_us));
		if (left < 0) {
			sim_cs_put(cs);
			return -EINTR;
		}
		done = left > 0;
	}

	if (!done) {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
	} else if (cs->error) {
		args->out.status = HL_WAIT_CS_STATUS_ABORTED;
		rc = -EIO;
	} else {
		args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
		if (cs->want_timestamp) {
			args->out.flags = HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
			args->out.timestamp_nsec = cs->timestamp_ns;
		}
	}
	sim_cs_put(cs);
	return rc;
}

/* Aborts and drains every CS of a closing context. */
void sim_cs_ctx_fini(struct sim_ctx *ctx)
{
	atomic_set(&ctx->aborting, 1);
	wake_up_all(&ctx->abort_wq);
	flush_workqueue(ctx->sdev->wq);
	WARN_ON(!list_empty(&ctx->cs_pending));
}
