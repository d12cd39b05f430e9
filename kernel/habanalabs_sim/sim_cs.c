// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: command submission on the PDMA and EDMA queues, its
 * completion, and WAIT_CS.
 *
 * A CS is parsed and its memory resolved at submission (sim_cs_parse.c),
 * admitted when its context has room, then run (sim_cs_exec.c): by its
 * submitter when it is short and the engine idle, otherwise on the
 * device's ordered workqueue.  WREG32 addresses the registers of the
 * queue's own engine block, which the emulation does not have: refused,
 * as are the other packets (WREG_BULK, REPEAT, MSG_PROT, ARB_POINT,
 * CP_DMA to the upper CP outside a CB_LIST table, a predicated CP_DMA or
 * STOP) with EINVAL.
 *
 * A CS has a deadline (its own timeout, or cs_timeout_s): one that has
 * not completed by then is abandoned with ETIMEDOUT, recorded for
 * HL_INFO_CS_TIMEOUT_EVENT and signalled to the open's eventfd, and
 * counted as the reset the real driver would do.  The other CS types
 * answer as on a Gaudi2 whose queues have no sync streams, no staged
 * submissions and no engine cores.
 */
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sim_cs.h"

/* The CS types: at most one of these flags is set. */
#define SIM_CS_TYPE_FLAGS (HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT |		\
			   HL_CS_FLAGS_COLLECTIVE_WAIT |			\
			   HL_CS_FLAGS_RESERVE_SIGNALS_ONLY |		\
			   HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY |		\
			   HL_CS_FLAGS_ENGINE_CORE_COMMAND |		\
			   HL_CS_FLAGS_ENGINES_COMMAND |			\
			   HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES)

/* What an ordinary (execute) CS may ask for. */
#define SIM_CS_FLAGS_DEFAULT (HL_CS_FLAGS_FORCE_RESTORE |			\
			      HL_CS_FLAGS_TIMESTAMP |				\
			      HL_CS_FLAGS_CUSTOM_TIMEOUT |			\
			      HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT)

/* How long a submitter to a full context waits for room. */
#define SIM_CS_ADMIT_WAIT_MS	20

static void sim_cs_release(struct kref *ref)
{
	struct sim_cs *cs = container_of(ref, struct sim_cs, ref);
	struct sim_job *job;
	unsigned int i;

	for (i = 0; i < cs->njobs; i++) {
		job = &cs->jobs[i];
		sim_frame_free(&job->own);
		while (job->depth)
			sim_frame_free(&job->calls[--job->depth]);
		kfree(job->calls);
	}
	kfree(cs);
	sim_stat_dec(SIM_STAT_CS);
}

static void sim_cs_put(struct sim_cs *cs)
{
	kref_put(&cs->ref, sim_cs_release);
}

/* ---- the device's busy time ---------------------------------------- */

static void sim_busy_begin(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;
	unsigned int qm;

	spin_lock(&sdev->event_lock);
	for_each_set_bit(qm, &cs->qmans, SIM_QMANS)
		atomic_inc(&sdev->qman_busy[qm]);
	if (atomic_inc_return(&sdev->cs_inflight) == 1)
		sdev->busy_since = ktime_get();
	spin_unlock(&sdev->event_lock);
}

static void sim_busy_end(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;
	unsigned int qm;

	spin_lock(&sdev->event_lock);
	for_each_set_bit(qm, &cs->qmans, SIM_QMANS)
		atomic_dec(&sdev->qman_busy[qm]);
	if (atomic_dec_and_test(&sdev->cs_inflight))
		atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), sdev->busy_since)),
			     &sdev->busy_ns);
	spin_unlock(&sdev->event_lock);
}

/* ---- completion ---------------------------------------------------- */

/* What the driver does when a CS times out: record it and tell the open. */
static void sim_cs_timed_out(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;

	spin_lock(&sdev->event_lock);
	sdev->cs_timeout_seq = cs->seq;
	sdev->cs_timeout_time = ktime_get();
	/* The reset the driver would do (this emulation keeps running). */
	if (!cs->skip_reset)
		sdev->soft_reset_cnt++;
	spin_unlock(&sdev->event_lock);
	sim_notify(cs->ctx, HL_NOTIFIER_EVENT_CS_TIMEOUT);
}

/* Keeps how @cs ended for later waits; under cs_lock. */
static void sim_cs_record(struct sim_ctx *ctx, const struct sim_cs *cs)
{
	struct sim_fence f = {
		.seq = cs->seq,
		.timestamp_ns = cs->timestamp_ns,
		.error = cs->error,
		.has_timestamp = cs->want_timestamp,
		.signal = cs->type == SIM_CS_SIGNAL,
	};
	struct sim_fence *slot = NULL;
	unsigned int i;

	ctx->fences[cs->seq % SIM_MAX_PENDING_CS] = f;
	if (!cs->want_timestamp)
		return;
	/* A free outcome, else the oldest one is lost. */
	for (i = 0; i < SIM_CS_OUTCOMES; i++) {
		struct sim_fence *o = &ctx->outcomes[i];

		if (!o->seq) {
			slot = o;
			break;
		}
		if (!slot || o->age < slot->age)
			slot = o;
	}
	f.age = ++ctx->outcome_age;
	*slot = f;
}

/*
 * The fence of a completed CS @seq: its own while among the last
 * SIM_MAX_PENDING_CS, else its outcome, which is taken; under cs_lock.
 */
static bool sim_cs_find_fence(struct sim_ctx *ctx, u64 seq,
			      struct sim_fence *fence)
{
	unsigned int i;

	if (seq + SIM_MAX_PENDING_CS > ctx->last_seq) {
		*fence = ctx->fences[seq % SIM_MAX_PENDING_CS];
		return fence->seq == seq;
	}
	for (i = 0; i < SIM_CS_OUTCOMES; i++) {
		if (ctx->outcomes[i].seq == seq) {
			*fence = ctx->outcomes[i];
			ctx->outcomes[i].seq = 0;
			return true;
		}
	}
	return false;
}

/* Runs a CS on the device's engine and completes it; the caller holds sdev->engine. */
static void sim_cs_execute(struct sim_cs *cs)
{
	struct sim_ctx *ctx = cs->ctx;
	unsigned int i;
	int rc;

	rc = sim_cs_run_jobs(cs);
	if (!rc)
		rc = sim_cs_check(cs) == -ETIMEDOUT ? -ETIMEDOUT : 0;
	if (rc == -ETIMEDOUT)
		sim_cs_timed_out(cs);
	cs->error = rc;
	cs->timestamp_ns = ktime_get_ns();

	spin_lock(&ctx->cs_lock);
	sim_cs_record(ctx, cs);
	list_del(&cs->node);
	ctx->cs_pending_count--;
	ctx->cs_pending_ops -= cs->nops;
	for (i = 0; i < SIM_QUEUE_SLOTS; i++)
		ctx->queue_used[i] -= cs->queue_jobs[i];
	spin_unlock(&ctx->cs_lock);
	/* Room for one waiting submitter (sim_cs_wait_room()). */
	wake_up(&ctx->room_wq);
	sim_busy_end(cs);
	complete_all(&cs->done);
	/* Drops the pending list's reference. */
	sim_cs_put(cs);
}

static void sim_cs_work(struct work_struct *work)
{
	struct sim_cs *cs = container_of(work, struct sim_cs, work);
	struct sim_ctx *ctx = cs->ctx;
	struct sim_device *sdev = ctx->sdev;
	unsigned long delay;
	ktime_t now;

	/*
	 * Interruptible: a long delay must not look like a hung task.  It
	 * ends early when the owner closes, or at the CS's deadline.
	 */
	delay = msecs_to_jiffies(sim_cs_delay_ms);
	now = ktime_get();
	if (delay && ktime_before(now, cs->deadline))
		delay = min_t(u64, delay,
			      nsecs_to_jiffies(ktime_to_ns(ktime_sub(cs->deadline, now))) + 1);
	if (delay)
		wait_event_interruptible_timeout(ctx->abort_wq,
						 atomic_read(&ctx->aborting),
						 delay);

	/* Waits for a CS that its submitter is running (sim_cs_start). */
	mutex_lock(&sdev->engine);
	sim_cs_execute(cs);
	mutex_unlock(&sdev->engine);
}

/*
 * Whether a CS is short enough for its submitter to run it: no FENCE, at
 * most SIM_CS_INLINE_OPS commands and no CB_LIST (which calls more), and
 * at most cs_inline_bytes to copy.  Every command but a copy is bounded
 * (a sync-manager write by its cascade's steps), so such a CS takes
 * milliseconds at most; anything longer runs on the device's worker,
 * where its owner's close or death stops it.
 */
#define SIM_CS_INLINE_OPS	64

static bool sim_cs_short(const struct sim_cs *cs)
{
	const struct sim_cmd *op;
	unsigned int i, j;
	u64 bytes = 0;

	if (cs->has_fence || cs->nops > SIM_CS_INLINE_OPS)
		return false;
	for (i = 0; i < cs->njobs; i++) {
		for (j = 0; j < cs->jobs[i].own.nops; j++) {
			op = &cs->jobs[i].own.ops[j];
			if (op->kind == SIM_CMD_CB_LIST)
				return false;
			if (op->kind == SIM_CMD_DMA)
				bytes += (u64)op->len * op->repeat;
		}
	}
	return bytes <= sim_cs_inline_bytes;
}

/*
 * Starts a submitted CS.  A real engine starts a CS the moment it is idle
 * and runs beside the CPU; the emulated engine is a CPU.  When the engine
 * is idle (no other CS of the device submitted and not completed, and
 * none running) and the CS is small, the submitter runs it itself: the
 * CS is complete when the ioctl returns, as a short DMA on hardware is by
 * the time the runtime waits, without the two cross-CPU wake-ups of a
 * workqueue hand-off.  Anything else goes to the ordered workqueue, whose
 * items wait on sdev->engine, so CSs still run one at a time in order.
 */
static void sim_cs_start(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;

	if (!sim_cs_delay_ms && sim_cs_short(cs) &&
	    mutex_trylock(&sdev->engine)) {
		/* This CS is the only one submitted and not completed. */
		if (atomic_read(&sdev->cs_inflight) == 1) {
			atomic_inc(&sim_cs_inline_count);
			sim_cs_execute(cs);
			mutex_unlock(&sdev->engine);
			return;
		}
		mutex_unlock(&sdev->engine);
	}
	queue_work(sdev->wq, &cs->work);
}

/* ---- ioctls -------------------------------------------------------- */

/* The CS types this device does not have, answered as Gaudi2 would. */
static int sim_cs_other_type(struct sim_ctx *ctx, u32 type)
{
	switch (type) {
	case HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES:
		/* Emulated device writes reach host memory at once. */
		return 0;
	case HL_CS_FLAGS_ENGINE_CORE_COMMAND:
	case HL_CS_FLAGS_ENGINES_COMMAND:
		/* No engine cores to run or halt. */
		return -EPERM;
	case HL_CS_FLAGS_COLLECTIVE_WAIT:
		/* No Gaudi2 queue is a collective master. */
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	default:
		/* Reserving and releasing signals: not emulated. */
		return -EINVAL;
	}
}

/*
 * Whether @ctx is too full for @cs, and why, in the driver's order: CSs
 * in flight (allocate_cs()), then each queue's ring; under cs_lock.
 */
static bool sim_cs_full(struct sim_ctx *ctx, const struct sim_cs *cs,
			enum sim_cs_drop *why)
{
	unsigned int i;

	*why = SIM_DROP_MAX_CS_IN_FLIGHT;
	if (ctx->cs_pending_count >= SIM_MAX_PENDING_CS)
		return true;
	*why = SIM_DROP_QUEUE_FULL;
	for (i = 0; i < SIM_QUEUE_SLOTS; i++)
		if (ctx->queue_used[i] + cs->queue_jobs[i] > SIM_QUEUE_LENGTH)
			return true;
	/* The commands pending work holds are bounded too. */
	return ctx->cs_pending_ops + cs->nops > SIM_MAX_PENDING_DMA_OPS;
}

static bool sim_cs_has_room(struct sim_ctx *ctx, const struct sim_cs *cs)
{
	enum sim_cs_drop why;
	bool full;

	spin_lock(&ctx->cs_lock);
	full = sim_cs_full(ctx, cs, &why);
	spin_unlock(&ctx->cs_lock);
	return !full;
}

/*
 * Waits a little for room for @cs.  The driver refuses
 * a full context at once (EAGAIN); its device runs the pending CSs
 * meanwhile.  Here the CPU is the device, and submitters that retry
 * EAGAIN in a loop (as hl-thunk does) would take the CPU from the engine
 * that frees their room.  So a submitter to a full context first sleeps,
 * for at most SIM_CS_ADMIT_WAIT_MS, and each completed CS wakes one such
 * submitter, not all of them.
 */
static void sim_cs_wait_room(struct sim_ctx *ctx, const struct sim_cs *cs)
{
	wait_event_idle_exclusive_timeout(ctx->room_wq,
					  sim_cs_has_room(ctx, cs),
					  msecs_to_jiffies(SIM_CS_ADMIT_WAIT_MS));
}

/* A CS of @n jobs, none built yet, with its deadline. */
static struct sim_cs *sim_cs_new(struct sim_ctx *ctx, unsigned int n,
				 u32 flags, u32 timeout)
{
	struct sim_cs *cs;
	u32 timeout_s;

	cs = kzalloc(struct_size(cs, jobs, n), GFP_KERNEL_ACCOUNT);
	if (!cs)
		return NULL;
	kref_init(&cs->ref);
	INIT_LIST_HEAD(&cs->node);
	INIT_WORK(&cs->work, sim_cs_work);
	init_completion(&cs->done);
	cs->ctx = ctx;
	cs->want_timestamp = flags & HL_CS_FLAGS_TIMESTAMP;
	cs->skip_reset = flags & HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT;
	/*
	 * As the driver (hl_hw_queue_schedule_cs()): no CS times out when the
	 * device's timeout is "never"; otherwise the CS's own timeout, if it
	 * asks for one, or the device's.  A custom timeout of 0 arms the
	 * timeout at once: the CS times out unless already complete.
	 */
	timeout_s = (flags & HL_CS_FLAGS_CUSTOM_TIMEOUT) ? timeout :
							     sim_cs_timeout_s;
	cs->deadline = sim_cs_timeout_s ?
		ktime_add_ms(ktime_get(), timeout_s * 1000ull) : KTIME_MAX;
	sim_stat_inc(SIM_STAT_CS);
	return cs;
}

/* Counts job @i of @cs on its queue's ring and engine. */
static void sim_cs_add_job(struct sim_cs *cs, unsigned int i)
{
	u32 queue = cs->jobs[i].queue;

	cs->qmans |= BIT(sim_queue_qman(queue));
	cs->queue_jobs[sim_queue_slot(queue)]++;
}

static int sim_cs_signal_state(struct sim_ctx *ctx, u64 seq,
			       struct sim_signal *sig);

/*
 * Admits a built CS when the context has room for it, and starts it: its
 * sequence number in *@seqp and, if @out, a reference on it.  A signal
 * CS takes its SOB now, in submission order, and tells it in *@sig.  A
 * wait CS whose signal CS completed meanwhile is not run: 0 with *@seqp
 * ULLONG_MAX, as the driver answers.  Drops @cs on failure.
 */
static int sim_cs_admit(struct sim_ctx *ctx, struct sim_cs *cs, u64 *seqp,
			struct sim_cs **out, struct sim_signal *sig)
{
	struct sim_signal waited;
	struct sim_cmd *op;
	enum sim_cs_drop why;
	unsigned int i;
	u64 seq;

	sim_cs_wait_room(ctx, cs);
	spin_lock(&ctx->cs_lock);
	if (sim_cs_full(ctx, cs, &why)) {
		spin_unlock(&ctx->cs_lock);
		sim_cs_put(cs);
		return sim_cs_drop(ctx, why, -EAGAIN);
	}
	/* A sync stream's CS is one command, the driver's. */
	op = cs->type == SIM_CS_EXECUTE ? NULL : &cs->jobs[0].own.ops[0];
	if (cs->type == SIM_CS_SIGNAL) {
		sim_stream_signal(ctx, sim_stream_index(cs->jobs[0].queue),
				  &cs->sig);
		op->reg = cs->sig.sob;
		op->value = cs->sig.write;
		*sig = cs->sig;
	} else if (cs->type == SIM_CS_WAIT) {
		if (sim_cs_signal_state(ctx, cs->signal_seq, &waited) <= 0) {
			spin_unlock(&ctx->cs_lock);
			sim_cs_put(cs);
			*seqp = ULLONG_MAX;
			return 0;
		}
		op->reg = waited.sob;
		op->value = waited.val;
	}
	ctx->cs_pending_count++;
	ctx->cs_pending_ops += cs->nops;
	for (i = 0; i < SIM_QUEUE_SLOTS; i++)
		ctx->queue_used[i] += cs->queue_jobs[i];
	seq = ++ctx->last_seq;
	cs->seq = seq;
	list_add_tail(&cs->node, &ctx->cs_pending);
	spin_unlock(&ctx->cs_lock);
	sim_busy_begin(cs);
	/* From here the engine owns cs; it may be gone once started. */
	if (out)
		kref_get(&cs->ref);
	sim_cs_start(cs);
	if (out)
		*out = cs;
	*seqp = seq;
	return 0;
}

/*
 * Submits the @n chunks at user address @uchunks as one CS: its sequence
 * number in *@seqp and, if @out, a reference on it.
 */
static int sim_cs_submit(struct sim_ctx *ctx, u64 uchunks, unsigned int n,
			 u32 flags, u32 timeout, u64 *seqp, struct sim_cs **out)
{
	struct hl_cs_chunk *chunks;
	unsigned long total_ops = 0;
	struct sim_cs *cs;
	unsigned int i;
	int rc;

	chunks = kvmalloc_array(n, sizeof(*chunks), GFP_KERNEL_ACCOUNT);
	if (!chunks)
		return sim_cs_drop(ctx, SIM_DROP_OUT_OF_MEM, -ENOMEM);
	if (copy_from_user(chunks, u64_to_user_ptr(uchunks),
			   array_size(n, sizeof(*chunks)))) {
		kvfree(chunks);
		return -EFAULT;
	}

	cs = sim_cs_new(ctx, n, flags, timeout);
	if (!cs) {
		kvfree(chunks);
		return sim_cs_drop(ctx, SIM_DROP_OUT_OF_MEM, -ENOMEM);
	}

	for (i = 0; i < n; i++) {
		rc = sim_job_build(ctx, &chunks[i], &cs->jobs[i],
				   &cs->has_fence);
		cs->njobs = i + 1;	/* release frees what was built */
		if (rc)
			goto err;
		sim_cs_add_job(cs, i);
		/* Bounds the kernel memory one CS can pin down. */
		total_ops += cs->jobs[i].own.nops;
		if (total_ops > SIM_MAX_CS_DMA_OPS) {
			rc = sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
			goto err;
		}
	}
	kvfree(chunks);
	chunks = NULL;
	cs->nops = total_ops;

	rc = sim_cs_resolve(ctx, cs);
	if (rc) {
		sim_cs_drop(ctx, SIM_DROP_VALIDATION, rc);
		goto err;
	}
	return sim_cs_admit(ctx, cs, seqp, out, NULL);

err:
	kvfree(chunks);
	sim_cs_put(cs);
	return rc;
}

/* ---- sync streams (sim_stream.c) ------------------------------------ */

/*
 * Where signal CS @seq stands, for a wait CS (hl_ctx_get_fence()): 1 and
 * its SOB and value while it is pending; 0 when it completed or is too
 * old to know, which the driver treats as completed; -EINVAL for a CS
 * not yet submitted or not a signal CS.  Under cs_lock.
 */
static int sim_cs_signal_state(struct sim_ctx *ctx, u64 seq,
			       struct sim_signal *sig)
{
	const struct sim_fence *f = &ctx->fences[seq % SIM_MAX_PENDING_CS];
	struct sim_cs *it;

	if (seq > ctx->last_seq)
		return -EINVAL;
	list_for_each_entry(it, &ctx->cs_pending, node) {
		if (it->seq != seq)
			continue;
		if (it->type != SIM_CS_SIGNAL)
			return -EINVAL;
		*sig = it->sig;
		return 1;
	}
	if (seq + SIM_MAX_PENDING_CS > ctx->last_seq && f->seq == seq &&
	    !f->signal)
		return -EINVAL;
	return 0;
}

/*
 * A signal or wait CS (cs_ioctl_signal_wait()): one chunk, naming a
 * queue that supports sync streams and, for a wait, the one signal CS it
 * waits for.  The CS is a single command the driver makes.  A queue of
 * an engine the emulated device lacks would never run it: refused.
 */
static int sim_cs_sync_stream(struct sim_ctx *ctx, const struct hl_cs_in *in,
			      enum sim_cs_type type, u64 *seqp,
			      struct sim_signal *sig)
{
	struct sim_signal waited;
	struct hl_cs_chunk ch;
	struct sim_job *job;
	struct sim_cs *cs;
	u64 signal_seq = 0;
	int rc;

	if (copy_from_user(&ch, u64_to_user_ptr(in->chunks_execute),
			   sizeof(ch)))
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EFAULT);
	if (sim_stream_index(ch.queue_index) < 0 ||
	    !sim_queue_enabled(ch.queue_index))
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	if (type == SIM_CS_WAIT) {
		if (ch.num_signal_seq_arr != 1)
			return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
		if (copy_from_user(&signal_seq,
				   u64_to_user_ptr(ch.signal_seq_arr),
				   sizeof(signal_seq)))
			return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EFAULT);
		spin_lock(&ctx->cs_lock);
		rc = sim_cs_signal_state(ctx, signal_seq, &waited);
		spin_unlock(&ctx->cs_lock);
		if (rc < 0)
			return sim_cs_drop(ctx, SIM_DROP_VALIDATION, rc);
		if (!rc) {
			*seqp = ULLONG_MAX;	/* nothing left to wait for */
			return 0;
		}
	}

	cs = sim_cs_new(ctx, 1, in->cs_flags, in->timeout);
	if (!cs)
		return sim_cs_drop(ctx, SIM_DROP_OUT_OF_MEM, -ENOMEM);
	cs->type = type;
	cs->signal_seq = signal_seq;
	cs->njobs = 1;
	cs->nops = 1;
	job = &cs->jobs[0];
	job->queue = ch.queue_index;
	job->own.ops = kvcalloc(1, sizeof(*job->own.ops), GFP_KERNEL_ACCOUNT);
	if (!job->own.ops) {
		sim_cs_put(cs);
		return sim_cs_drop(ctx, SIM_DROP_OUT_OF_MEM, -ENOMEM);
	}
	job->own.nops = 1;
	if (type == SIM_CS_SIGNAL) {
		job->own.ops[0].kind = SIM_CMD_SOB_SIGNAL;
	} else {
		/* SOB and value are the signal's, known at admission. */
		job->own.ops[0].kind = SIM_CMD_SOB_WAIT;
		cs->has_fence = true;
	}
	sim_cs_add_job(cs, 0);
	return sim_cs_admit(ctx, cs, seqp, NULL, sig);
}

/*
 * HL_CS_FLAGS_FORCE_RESTORE with restore chunks: as the driver's
 * hl_cs_ctx_switch() on a device without context switches, they run as
 * a CS of their own, with the device's timeout, which the execute chunks
 * wait for: ENOEXEC if it failed.
 */
static int sim_cs_restore(struct sim_ctx *ctx, const struct hl_cs_in *in)
{
	struct sim_cs *cs;
	long left;
	u64 seq;
	int rc;

	rc = sim_cs_submit(ctx, in->chunks_restore, in->num_chunks_restore, 0,
			   0, &seq, &cs);
	if (rc)
		return rc;
	/*
	 * Its own deadline (the device's timeout) ends it first; the second
	 * more is a margin, so that a restore CS that times out is seen.
	 */
	left = wait_for_completion_interruptible_timeout(&cs->done,
			sim_cs_timeout_s ?
			((unsigned long)sim_cs_timeout_s + 1) * HZ :
			MAX_SCHEDULE_TIMEOUT);
	/* One still running after that: on, as the driver does. */
	rc = left < 0 || (left && cs->error) ? -ENOEXEC : 0;
	sim_cs_put(cs);
	return rc;
}

int sim_cs_ioctl(struct sim_ctx *ctx, union hl_cs_args *args)
{
	struct hl_cs_in in = args->in;
	unsigned int i, n = in.num_chunks_execute;
	u32 type = in.cs_flags & SIM_CS_TYPE_FLAGS;
	struct sim_signal sig = {};
	enum sim_cs_type kind;
	u64 seq;
	int rc;

	for (i = 0; i < ARRAY_SIZE(in.pad); i++)
		if (in.pad[i])
			return -EINVAL;
	/* The driver's order: staged submission first, then the type. */
	if (in.cs_flags & HL_CS_FLAGS_STAGED_SUBMISSION)
		return -EPERM;
	if (type & (type - 1))
		return -EINVAL;
	switch (type) {
	case 0:
		kind = SIM_CS_EXECUTE;
		break;
	case HL_CS_FLAGS_SIGNAL:
		kind = SIM_CS_SIGNAL;
		break;
	case HL_CS_FLAGS_WAIT:
		kind = SIM_CS_WAIT;
		break;
	default:
		rc = sim_cs_other_type(ctx, type);
		if (!rc) {
			memset(args, 0, sizeof(*args));
			args->out.status = HL_CS_STATUS_SUCCESS;
		}
		return rc;
	}
	/* A sync stream's CS has exactly one chunk (hl_cs_sanity_checks()). */
	if (kind != SIM_CS_EXECUTE && n != 1)
		return -EINVAL;
	/* Waits on reserved signals (HL_CS_FLAGS_ENCAP_SIGNALS) included. */
	if (in.cs_flags & ~(SIM_CS_FLAGS_DEFAULT | type))
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	if (!n || n > HL_MAX_JOBS_PER_CS)
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	/* Restore chunks run only when forced; otherwise they are ignored. */
	if ((in.cs_flags & HL_CS_FLAGS_FORCE_RESTORE) && in.num_chunks_restore) {
		if (in.num_chunks_restore > HL_MAX_JOBS_PER_CS)
			return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
		rc = sim_cs_restore(ctx, &in);
		if (rc)
			return rc;
	}

	if (kind == SIM_CS_EXECUTE)
		rc = sim_cs_submit(ctx, in.chunks_execute, n, in.cs_flags,
				   in.timeout, &seq, NULL);
	else
		rc = sim_cs_sync_stream(ctx, &in, kind, &seq, &sig);
	if (rc)
		return rc;
	memset(args, 0, sizeof(*args));
	args->out.seq = seq;
	args->out.status = HL_CS_STATUS_SUCCESS;
	/*
	 * The SOB's address is an offset gaudi2_get_sob_addr() gives as 0;
	 * the count, as the driver's, is of the signals taken from the
	 * stream's current SOB, this one included.
	 */
	if (kind == SIM_CS_SIGNAL)
		args->out.sob_count_before_submission = sig.count;
	return 0;
}

/* A wait's answer for a completed CS, as the real driver gives it. */
static int sim_wait_cs_done(union hl_wait_cs_args *args,
			    const struct sim_fence *fence)
{
	if (fence->error == -ETIMEDOUT) {
		args->out.status = HL_WAIT_CS_STATUS_TIMEDOUT;
		return -ETIMEDOUT;
	}
	if (fence->error) {
		args->out.status = HL_WAIT_CS_STATUS_ABORTED;
		return -EIO;
	}
	args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
	if (fence->has_timestamp) {
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
		args->out.timestamp_nsec = fence->timestamp_ns;
	}
	return 0;
}

int sim_wait_cs_ioctl(struct sim_ctx *ctx, union hl_wait_cs_args *args)
{
	struct hl_wait_cs_in in = args->in;
	struct sim_fence fence = {};
	struct sim_cs *cs = NULL, *it;
	bool found;
	long left;
	int rc;

	/* Interrupts first, as the driver; it refuses multi-CS on Gaudi2. */
	if (in.flags & HL_WAIT_CS_FLAGS_INTERRUPT)
		return sim_irq_wait_ioctl(ctx, args);
	if (in.flags & HL_WAIT_CS_FLAGS_MULTI_CS)
		return -EPERM;
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
	found = cs || sim_cs_find_fence(ctx, in.seq, &fence);
	spin_unlock(&ctx->cs_lock);

	memset(args, 0, sizeof(*args));
	if (!found) {
		/* Completed long ago: as the real driver, "gone". */
		args->out.status = HL_WAIT_CS_STATUS_COMPLETED;
		args->out.flags = HL_WAIT_CS_STATUS_FLAG_GONE;
		return 0;
	}
	if (!cs)
		return sim_wait_cs_done(args, &fence);

	if (!in.timeout_us) {
		left = completion_done(&cs->done);
	} else {
		left = wait_for_completion_interruptible_timeout(&cs->done,
			in.timeout_us > UINT_MAX ? MAX_SCHEDULE_TIMEOUT :
			usecs_to_jiffies(in.timeout_us));
		if (left < 0) {
			sim_cs_put(cs);
			return -EINTR;
		}
	}

	if (left) {
		fence.error = cs->error;
		fence.has_timestamp = cs->want_timestamp;
		fence.timestamp_ns = cs->timestamp_ns;
		rc = sim_wait_cs_done(args, &fence);
	} else {
		args->out.status = HL_WAIT_CS_STATUS_BUSY;
		rc = 0;
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
