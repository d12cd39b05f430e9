// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: ordered queues of copy jobs.
 *
 * Every job gets the next sequence number under the channel lock and jobs
 * run one at a time in that order, so completed_seq only grows.  A
 * synchronous copy on an idle channel runs in the caller's context (and
 * on the caller's CPU time); everything else runs from the channel's work
 * item on its user's unbound workqueue, so different channels copy in
 * parallel and one user's work items never hold another's workers.
 * A work item copies one slice and queues itself again, so a channel with
 * a long backlog takes its turn with the others instead of holding a
 * worker.
 *
 * Destroying a channel completes its queued jobs at once with -ECANCELED
 * and waits only for the chunk being copied, if any, to end: it never
 * waits for queued work to get a worker.
 *
 * A channel id is published in its context only once the channel is
 * complete; lookups run under RCU and take a reference, except for a
 * synchronous copy that claims the idle channel in the same RCU section
 * (hl_ipc_channel_claim()): a destroyer waits for the running job anyway.
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "hl_ipc.h"

/* Failed sequence numbers remembered per channel for WAIT. */
#define HL_IPC_MAX_ERRORS	4096
/* Chunks a work item copies before it lets other channels run. */
#define HL_IPC_SLICE_CHUNKS	4

static LIST_HEAD(hl_ipc_channels);
static DEFINE_MUTEX(hl_ipc_channels_lock);

static void hl_ipc_channel_free(struct kref *ref)
{
	struct hl_ipc_channel *ch = container_of(ref, struct hl_ipc_channel, ref);

	mutex_lock(&hl_ipc_channels_lock);
	list_del(&ch->gnode);
	mutex_unlock(&hl_ipc_channels_lock);
	xa_destroy(&ch->errors);
	mem_cgroup_put(ch->memcg);
	kfree_rcu(ch, rcu);
	atomic_dec(&hl_ipc_stats.channels);
}

void hl_ipc_channel_put(struct hl_ipc_channel *ch)
{
	kref_put(&ch->ref, hl_ipc_channel_free);
}

/*
 * Look a channel up without taking a reference: the caller is inside an
 * RCU read section, and the channel stays only as long as that, unless
 * the caller claims it or takes a reference with hl_ipc_channel_tryget().
 */
struct hl_ipc_channel *hl_ipc_channel_find(struct hl_ipc_ctx *ctx, u32 id)
{
	XA_STATE(xas, &ctx->channels, id);
	struct hl_ipc_channel *ch;

	/*
	 * xa_load() without its own RCU read section: we are in one.  An id
	 * reserved for a channel still being built reads as a zero entry,
	 * which is no channel (and which xas_retry() would retry forever).
	 */
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "channel lookup outside an RCU read section");
	do {
		ch = xas_load(&xas);
		if (xa_is_zero(ch))
			ch = NULL;
	} while (xas_retry(&xas, ch));
	return ch;
}

bool hl_ipc_channel_tryget(struct hl_ipc_channel *ch)
{
	return kref_get_unless_zero(&ch->ref);
}

struct hl_ipc_channel *hl_ipc_channel_get(struct hl_ipc_ctx *ctx, u32 id)
{
	struct hl_ipc_channel *ch;

	rcu_read_lock();
	ch = hl_ipc_channel_find(ctx, id);
	if (ch && !hl_ipc_channel_tryget(ch))
		ch = NULL;
	rcu_read_unlock();
	return ch;
}

/*
 * Remember that job seq failed.  Only the finisher of the running job
 * calls this, so records are added one at a time; the oldest is dropped
 * beyond HL_IPC_MAX_ERRORS, and forgotten_seq says from where on down
 * WAIT can no longer tell.  The records are charged to the memory cgroup
 * of the channel's creator, also when a worker adds them.
 */
static void hl_ipc_channel_record_error(struct hl_ipc_channel *ch, u64 seq,
					int status)
{
	struct mem_cgroup *old_memcg;
	unsigned long first = 0;
	bool evict;
	int ret;

	old_memcg = set_active_memcg(ch->memcg);
	ret = xa_err(xa_store(&ch->errors, seq, xa_mk_value(-status),
			      GFP_KERNEL_ACCOUNT));
	set_active_memcg(old_memcg);
	spin_lock(&ch->lock);
	if (ret) {
		ch->forgotten_seq = max(ch->forgotten_seq, seq);
		evict = false;
	} else {
		evict = ++ch->nerrors > HL_IPC_MAX_ERRORS;
	}
	spin_unlock(&ch->lock);
	if (!evict || !xa_find(&ch->errors, &first, ULONG_MAX, XA_PRESENT))
		return;
	/* Say it is forgotten before it is gone: see hl_ipc_channel_wait(). */
	spin_lock(&ch->lock);
	ch->forgotten_seq = max_t(u64, ch->forgotten_seq, first);
	ch->nerrors--;
	spin_unlock(&ch->lock);
	xa_erase(&ch->errors, first);
}

/*
 * Complete the running job.  Once running is NULL a destroyer may go on
 * and drop the last reference, so the rest runs inside an RCU read
 * section (the channel is freed after a grace period); the context stays,
 * because a synchronous finisher is inside an ioctl on it and a destroyer
 * waits for the work item.  One barrier orders the completion before both
 * wait queue checks.
 */
static void hl_ipc_channel_finish(struct hl_ipc_channel *ch,
				  struct hl_ipc_job *job, int status)
{
	struct hl_ipc_ctx *ctx = ch->ctx;
	u64 bytes = 0;

	if (status) {
		hl_ipc_channel_record_error(ch, job->seq, status);
		atomic64_inc(&ch->failures);
		atomic64_inc(&hl_ipc_stats.errors);
	} else {
		bytes = hl_ipc_job_bytes(job);
		this_cpu_inc(hl_ipc_pcpu_stats.copies);
		this_cpu_add(hl_ipc_pcpu_stats.bytes, bytes);
		this_cpu_add(hl_ipc_pcpu_stats.dma_bytes, job->dma_bytes);
	}
	if (job->async)
		hl_ipc_user_uncharge(&ctx->user->jobs);

	rcu_read_lock();
	spin_lock(&ch->lock);
	if (!status) {
		ch->copies++;
		ch->bytes += bytes;
		ch->dma_bytes += job->dma_bytes;
	}
	job->status = status;
	/* Pairs with the acquire in hl_ipc_channel_wait_job(). */
	smp_store_release(&job->done, true);
	WRITE_ONCE(ch->completed_seq, job->seq);
	/* A sync job reports itself, by returning; pollers look for these. */
	if (job->async)
		WRITE_ONCE(ch->async_done_seq, job->seq);
	WRITE_ONCE(ch->running, NULL);
	if (!ch->dead && !list_empty(&ch->pending))
		queue_work(ch->workq, &ch->work);
	spin_unlock(&ch->lock);
	/* Pairs with the sleepers' set_current_state() (poll: poll_wait()). */
	smp_mb();
	/* Pollers of the context, barrier above */
	if (waitqueue_active(&ctx->poll_wq))
		wake_up_interruptible(&ctx->poll_wq);
	/* Sync submitters, WAIT and a destroyer, barrier above */
	if (waitqueue_active(&ch->wq))
		wake_up_all(&ch->wq);
	rcu_read_unlock();
}

static void hl_ipc_channel_work(struct work_struct *work)
{
	struct hl_ipc_channel *ch = container_of(work, struct hl_ipc_channel,
						 work);
	u64 slice = (u64)READ_ONCE(hl_ipc_chunk_size) * HL_IPC_SLICE_CHUNKS;
	struct hl_ipc_job *job;
	int ret;

	spin_lock(&ch->lock);
	if (ch->running || list_empty(&ch->pending)) {
		spin_unlock(&ch->lock);
		return;
	}
	job = list_first_entry(&ch->pending, struct hl_ipc_job, node);
	list_del_init(&job->node);
	ch->npending--;
	ch->running = job;
	spin_unlock(&ch->lock);

	ret = hl_ipc_engine_step(job, slice, false);
	if (ret > 0) {
		/* More to copy: back to the head of the queue, then yield. */
		spin_lock(&ch->lock);
		if (!ch->dead) {
			list_add(&job->node, &ch->pending);
			ch->npending++;
			ch->running = NULL;
			queue_work(ch->workq, &ch->work);
			spin_unlock(&ch->lock);
			/* A destroyer may be waiting for !running. */
			if (wq_has_sleeper(&ch->wq))
				wake_up_all(&ch->wq);
			return;
		}
		spin_unlock(&ch->lock);
		ret = -ECANCELED;
	}
	hl_ipc_channel_finish(ch, job, ret);
	hl_ipc_job_put(job);
}

/* Queue a heap job; the caller's reference passes to the queue. */
static int hl_ipc_channel_queue(struct hl_ipc_ctx *ctx,
				struct hl_ipc_channel *ch,
				struct hl_ipc_job *job, bool async, u64 *seq)
{
	spin_lock(&ch->lock);
	if (ch->dead) {
		spin_unlock(&ch->lock);
		return -ENOENT;
	}
	if (async && ch->npending >= READ_ONCE(hl_ipc_max_pending)) {
		spin_unlock(&ch->lock);
		return -EAGAIN;
	}
	if (async) {
		if (!hl_ipc_user_charge(&ctx->user->jobs,
					READ_ONCE(hl_ipc_user_max_jobs))) {
			spin_unlock(&ch->lock);
			return -EAGAIN;
		}
		job->async = true;
	} else {
		kref_get(&job->ref);	/* ours, to read the status */
	}
	job->seq = ++ch->next_seq;
	*seq = job->seq;
	list_add_tail(&job->node, &ch->pending);
	ch->npending++;
	if (!ch->running)
		queue_work(ch->workq, &ch->work);
	spin_unlock(&ch->lock);
	return 0;
}

/* Wait for a queued sync job; consumes our reference. */
static int hl_ipc_channel_wait_job(struct hl_ipc_channel *ch,
				   struct hl_ipc_job *job)
{
	int ret;

	/* The acquire orders the read of job->status after done. */
	ret = wait_event_killable(ch->wq, smp_load_acquire(&job->done));
	if (ret) {
		/* We are dying: stop the copy at its next chunk. */
		WRITE_ONCE(job->cancel, true);
		ret = -EINTR;
	} else {
		ret = job->status;
	}
	hl_ipc_job_put(job);
	return ret;
}

/*
 * Claim an idle channel for a synchronous job and give the job the next
 * sequence number: 0 when claimed, -EBUSY when jobs are queued or
 * running, -ENOENT when the channel is being destroyed.  A claimed
 * channel stays until hl_ipc_channel_run() returns, reference or not: its
 * destroyer waits for the running job.
 */
int hl_ipc_channel_claim(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
			 u64 *seq)
{
	int ret = 0;

	spin_lock(&ch->lock);
	if (ch->dead) {
		ret = -ENOENT;
	} else if (ch->running || !list_empty(&ch->pending)) {
		ret = -EBUSY;
	} else {
		job->seq = ++ch->next_seq;
		*seq = job->seq;
		ch->running = job;
	}
	spin_unlock(&ch->lock);
	return ret;
}

/*
 * A small synchronous copy on an idle channel, whole inside one lock
 * section: it gets the next sequence number and completes before anyone
 * else can see the channel, so nobody can be waiting for it, and being
 * synchronous it changes nothing a poller looks at: it wakes nobody.
 * 1 when the channel is busy or being destroyed: the general path then
 * queues the copy or reports the error.
 * The caller is inside an RCU read section that covers both ends'
 * memory (hl_ipc_region_peek()).
 */
int hl_ipc_channel_copy_small(struct hl_ipc_channel *ch, u8 *dst,
			      const u8 *src, u64 len, u64 *seq)
{
	spin_lock(&ch->lock);
	if (ch->dead || ch->running || !list_empty(&ch->pending)) {
		spin_unlock(&ch->lock);
		return 1;
	}
	*seq = ++ch->next_seq;
	hl_ipc_engine_copy_small(dst, src, len);
	WRITE_ONCE(ch->completed_seq, *seq);
	ch->copies++;
	ch->bytes += len;
	spin_unlock(&ch->lock);
	this_cpu_inc(hl_ipc_pcpu_stats.copies);
	this_cpu_add(hl_ipc_pcpu_stats.bytes, len);
	this_cpu_inc(hl_ipc_pcpu_stats.small_copies);
	return 0;
}

/* Run a job on the channel it claimed, in the caller's context. */
int hl_ipc_channel_run(struct hl_ipc_channel *ch, struct hl_ipc_job *job)
{
	int ret = hl_ipc_engine_step(job, U64_MAX, true);

	hl_ipc_channel_finish(ch, job, ret);
	return ret;
}

/*
 * Submit a job.  A synchronous job on an idle channel runs right here.
 * A job on the caller's stack (synchronous only) stays the caller's: it
 * is moved to the heap if it has to wait.  The reference of a job from
 * hl_ipc_job_alloc() passes to the channel, also on failure.
 * Synchronous jobs return the copy's status, asynchronous ones 0 once
 * queued.  *seq is set whenever the job got a sequence number.
 */
int hl_ipc_channel_submit(struct hl_ipc_ctx *ctx, struct hl_ipc_channel *ch,
			  struct hl_ipc_job *job, bool async, u64 *seq)
{
	struct hl_ipc_job *heap;
	int ret;

	*seq = 0;
	if (!async) {
		ret = hl_ipc_channel_claim(ch, job, seq);
		if (ret == -ENOENT)
			goto out_put;
		if (!ret) {
			ret = hl_ipc_channel_run(ch, job);
			if (job->heap)
				hl_ipc_job_put(job);
			return ret;
		}
	}

	heap = job;
	if (!job->heap) {
		heap = hl_ipc_job_move(job);
		if (!heap)
			return -ENOMEM;
	}
	ret = hl_ipc_channel_queue(ctx, ch, heap, async, seq);
	if (ret) {
		hl_ipc_job_put(heap);
		return ret;
	}
	if (async)
		return 0;
	return hl_ipc_channel_wait_job(ch, heap);

out_put:
	if (job->heap)
		hl_ipc_job_put(job);
	return ret;
}

int hl_ipc_channel_wait(struct hl_ipc_channel *ch, struct hl_ipc_wait *args)
{
	u64 seq = args->seq;
	long left;
	void *err;

	spin_lock(&ch->lock);
	if (!seq || seq > ch->next_seq) {
		spin_unlock(&ch->lock);
		return -EINVAL;
	}
	spin_unlock(&ch->lock);

	if (args->timeout_ns < 0) {
		if (wait_event_interruptible(ch->wq,
					     READ_ONCE(ch->completed_seq) >= seq))
			return -EINTR;
	} else if (args->timeout_ns == 0) {
		if (READ_ONCE(ch->completed_seq) < seq)
			return -ETIMEDOUT;
	} else {
		/* At least one jiffy, so tiny timeouts still sleep a little. */
		left = max_t(long, nsecs_to_jiffies(args->timeout_ns), 1);
		left = wait_event_interruptible_timeout(ch->wq,
							READ_ONCE(ch->completed_seq) >= seq,
							left);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -ETIMEDOUT;
	}

	/*
	 * Under the lock: a record is marked forgotten before it is erased,
	 * so a missing record is either a success or forgotten, never both.
	 */
	spin_lock(&ch->lock);
	err = xa_load(&ch->errors, seq);
	if (err)
		args->status = -(int)xa_to_value(err);
	else if (ch->cancel_seq && seq >= ch->cancel_seq)
		args->status = -ECANCELED;
	else if (seq <= ch->forgotten_seq)
		args->status = -EOVERFLOW;
	else
		args->status = 0;
	args->completed_seq = ch->completed_seq;
	if (seq > ch->reported_seq)
		ch->reported_seq = seq;
	spin_unlock(&ch->lock);
	return 0;
}

bool hl_ipc_ctx_has_completions(struct hl_ipc_ctx *ctx)
{
	struct hl_ipc_channel *ch;
	unsigned long id;
	bool ret = false;

	rcu_read_lock();
	xa_for_each(&ctx->channels, id, ch) {
		if (READ_ONCE(ch->async_done_seq) > READ_ONCE(ch->reported_seq)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

int hl_ipc_channel_create(struct hl_ipc_ctx *ctx,
			  struct hl_ipc_channel_create *args)
{
	struct hl_ipc_channel *ch;
	u32 id;
	int ret;

	if (args->flags & ~HL_IPC_CHANNEL_FLAGS_ALL)
		return -EINVAL;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL_ACCOUNT);
	if (!ch)
		return -ENOMEM;
	ret = hl_ipc_devid_from_fd(args->src_fd,
				   args->flags & HL_IPC_CHANNEL_SRC_HOST,
				   &ch->src);
	if (!ret)
		ret = hl_ipc_devid_from_fd(args->dst_fd,
					   args->flags & HL_IPC_CHANNEL_DST_HOST,
					   &ch->dst);
	if (ret)
		goto err_free;
	if (!hl_ipc_user_charge(&ctx->user->channels,
				READ_ONCE(hl_ipc_user_max_channels))) {
		ret = -ENOSPC;
		goto err_free;
	}

	kref_init(&ch->ref);
	ch->ctx = ctx;
	ch->workq = ctx->user->wq;
	ch->memcg = get_mem_cgroup_from_mm(current->mm);
	ch->tgid = ctx->tgid;
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->pending);
	init_waitqueue_head(&ch->wq);
	INIT_WORK(&ch->work, hl_ipc_channel_work);
	/* Nodes allocated under the xarray lock are charged too. */
	xa_init_flags(&ch->errors, XA_FLAGS_ACCOUNT);
	atomic_inc(&hl_ipc_stats.channels);
	mutex_lock(&hl_ipc_channels_lock);
	list_add_tail(&ch->gnode, &hl_ipc_channels);
	mutex_unlock(&hl_ipc_channels_lock);

	/* Reserve an id, finish the channel, then publish it. */
	mutex_lock(&ctx->lock);
	if (ctx->nchannels >= READ_ONCE(hl_ipc_max_channels)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ret = xa_alloc_cyclic(&ctx->channels, &id, NULL, XA_LIMIT(1, INT_MAX),
			      &ctx->next_channel, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_unlock;
	}
	ch->id = id;
	xa_store(&ctx->channels, id, ch, GFP_KERNEL_ACCOUNT);
	ctx->nchannels++;
	mutex_unlock(&ctx->lock);

	args->channel_id = id;
	return 0;

err_unlock:
	mutex_unlock(&ctx->lock);
	hl_ipc_user_uncharge(&ctx->user->channels);
	hl_ipc_channel_put(ch);
	return ret;
err_free:
	kfree(ch);
	return ret;
}

/*
 * Stop a channel that is no longer reachable by id and drop the id's
 * reference.  Queued jobs complete here with -ECANCELED; the running one,
 * if any, stops at its next chunk, which is all this waits for.
 */
static void hl_ipc_channel_kill(struct hl_ipc_ctx *ctx,
				struct hl_ipc_channel *ch)
{
	struct hl_ipc_job *job, *tmp;
	LIST_HEAD(cancelled);

	spin_lock(&ch->lock);
	ch->dead = true;
	list_splice_init(&ch->pending, &cancelled);
	ch->npending = 0;
	if (ch->running)
		WRITE_ONCE(ch->running->cancel, true);
	spin_unlock(&ch->lock);

	list_for_each_entry_safe(job, tmp, &cancelled, node) {
		list_del_init(&job->node);
		if (job->async)
			hl_ipc_user_uncharge(&ctx->user->jobs);
		spin_lock(&ch->lock);
		if (!ch->cancel_seq || job->seq < ch->cancel_seq)
			ch->cancel_seq = job->seq;
		job->status = -ECANCELED;
		/* Pairs with the acquire in hl_ipc_channel_wait_job(). */
		smp_store_release(&job->done, true);
		spin_unlock(&ch->lock);
		atomic64_inc(&ch->failures);
		atomic64_inc(&hl_ipc_stats.errors);
		hl_ipc_job_put(job);
	}
	if (wq_has_sleeper(&ch->wq))
		wake_up_all(&ch->wq);

	wait_event(ch->wq, !READ_ONCE(ch->running));
	cancel_work_sync(&ch->work);

	/* Everything handed out is complete now, for WAITers still inside. */
	spin_lock(&ch->lock);
	ch->completed_seq = ch->next_seq;
	spin_unlock(&ch->lock);
	if (wq_has_sleeper(&ch->wq))
		wake_up_all(&ch->wq);
	hl_ipc_user_uncharge(&ctx->user->channels);
	hl_ipc_channel_put(ch);
}

int hl_ipc_channel_destroy(struct hl_ipc_ctx *ctx, u32 id)
{
	struct hl_ipc_channel *ch;

	mutex_lock(&ctx->lock);
	/* xa_erase() of a reserved, not yet published id returns NULL. */
	ch = id ? xa_erase(&ctx->channels, id) : NULL;
	if (ch)
		ctx->nchannels--;
	mutex_unlock(&ctx->lock);
	if (!ch)
		return -ENOENT;
	hl_ipc_channel_kill(ctx, ch);
	return 0;
}

void hl_ipc_channel_destroy_all(struct hl_ipc_ctx *ctx)
{
	struct hl_ipc_channel *ch;
	unsigned long id;

	xa_for_each(&ctx->channels, id, ch)
		hl_ipc_channel_destroy(ctx, id);
}

void hl_ipc_channels_show(struct seq_file *m)
{
	struct hl_ipc_channel *ch;

	seq_puts(m, "# id tgid src(kind:major:index) dst next_seq completed_seq pending busy copies bytes errors dma_bytes\n");
	mutex_lock(&hl_ipc_channels_lock);
	list_for_each_entry(ch, &hl_ipc_channels, gnode) {
		u64 next, done, copies, bytes, dma_bytes;
		bool busy;

		spin_lock(&ch->lock);
		next = ch->next_seq;
		done = ch->completed_seq;
		busy = !!ch->running;
		copies = ch->copies;
		bytes = ch->bytes;
		dma_bytes = ch->dma_bytes;
		spin_unlock(&ch->lock);
		seq_printf(m, "%u %d %u:%u:%u %u:%u:%u %llu %llu %llu %d %llu %llu %lld %llu\n",
			   ch->id, ch->tgid,
			   ch->src.kind, ch->src.major, ch->src.index,
			   ch->dst.kind, ch->dst.major, ch->dst.index,
			   next, done, next - done, busy, copies, bytes,
			   (s64)atomic64_read(&ch->failures), dma_bytes);
	}
	mutex_unlock(&hl_ipc_channels_lock);
}
