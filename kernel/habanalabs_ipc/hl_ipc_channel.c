// SPDX-License-Identifier: GPL-2.0
/*
 * Channels: ordered queues of copy jobs.
 *
 * Every job gets the next sequence number under the channel lock and jobs
 * run one at a time in that order, so completed_seq only grows.  A
 * synchronous copy on an idle channel runs in the caller's context, which
 * saves a wake-up per copy; everything else runs from the channel's work
 * item on an unbound workqueue, so different channels copy in parallel on
 * different CPUs.
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "hl_ipc.h"

/* Failed sequence numbers remembered per channel for WAIT. */
#define HL_IPC_MAX_ERRORS	4096

static LIST_HEAD(hl_ipc_channels);
static DEFINE_MUTEX(hl_ipc_channels_lock);

static void hl_ipc_channel_free(struct kref *ref)
{
	struct hl_ipc_channel *ch = container_of(ref, struct hl_ipc_channel, ref);

	mutex_lock(&hl_ipc_channels_lock);
	list_del(&ch->gnode);
	mutex_unlock(&hl_ipc_channels_lock);
	xa_destroy(&ch->errors);
	kfree(ch);
	atomic_dec(&hl_ipc_stats.channels);
}

void hl_ipc_channel_put(struct hl_ipc_channel *ch)
{
	kref_put(&ch->ref, hl_ipc_channel_free);
}

struct hl_ipc_channel *hl_ipc_channel_get(struct hl_ipc_ctx *ctx, u32 id)
{
	struct hl_ipc_channel *ch;

	xa_lock(&ctx->channels);
	ch = xa_load(&ctx->channels, id);
	if (ch)
		kref_get(&ch->ref);
	xa_unlock(&ctx->channels);
	return ch;
}

static void hl_ipc_channel_record_error(struct hl_ipc_channel *ch, u64 seq,
					int status)
{
	unsigned long first = 0;

	if (ch->nerrors >= HL_IPC_MAX_ERRORS && xa_find(&ch->errors, &first,
							ULONG_MAX, XA_PRESENT)) {
		xa_erase(&ch->errors, first);
		ch->nerrors--;
	}
	if (!xa_is_err(xa_store(&ch->errors, seq, xa_mk_value(-status),
				GFP_KERNEL)))
		ch->nerrors++;
}

/* Complete the running job; the channel must be busy with it. */
static void hl_ipc_channel_finish(struct hl_ipc_channel *ch,
				  struct hl_ipc_job *job, int status, bool kick)
{
	u64 bytes = 0;
	u32 i;

	if (status) {
		/* Only the running job touches nerrors: no lock needed. */
		hl_ipc_channel_record_error(ch, job->seq, status);
		atomic64_inc(&ch->failures);
		atomic64_inc(&hl_ipc_stats.errors);
	} else {
		for (i = 0; i < job->nsegs; i++)
			bytes += job->segs[i].len;
		atomic64_inc(&ch->copies);
		atomic64_add(bytes, &ch->bytes);
		atomic64_inc(&hl_ipc_stats.copies);
		atomic64_add(bytes, &hl_ipc_stats.bytes);
	}

	spin_lock(&ch->lock);
	job->status = status;
	WRITE_ONCE(job->done, true);
	ch->completed_seq = job->seq;
	ch->busy = false;
	if (kick && !list_empty(&ch->pending))
		queue_work(hl_ipc_wq, &ch->work);
	spin_unlock(&ch->lock);
	/* poll first: once ch->wq wakes, a destroyer may free the context. */
	wake_up_interruptible(&ch->ctx->poll_wq);
	wake_up_all(&ch->wq);
}

static void hl_ipc_channel_work(struct work_struct *work)
{
	struct hl_ipc_channel *ch = container_of(work, struct hl_ipc_channel,
						 work);
	struct hl_ipc_job *job;
	int status;

	for (;;) {
		spin_lock(&ch->lock);
		if (ch->busy || list_empty(&ch->pending)) {
			spin_unlock(&ch->lock);
			return;
		}
		job = list_first_entry(&ch->pending, struct hl_ipc_job, node);
		list_del_init(&job->node);
		ch->busy = true;
		spin_unlock(&ch->lock);

		status = hl_ipc_engine_run(ch, job, false);
		hl_ipc_channel_finish(ch, job, status, false);
		hl_ipc_job_put(job);
		cond_resched();
	}
}

/*
 * Queue a job (consuming the caller's reference).  Synchronous jobs
 * return the copy's status; asynchronous ones 0 once queued.  *seq is set
 * whenever the job got a sequence number (the job may be gone already).
 */
int hl_ipc_channel_submit(struct hl_ipc_channel *ch, struct hl_ipc_job *job,
			  bool async, u64 *seq)
{
	int ret;

	spin_lock(&ch->lock);
	*seq = 0;
	if (ch->dead) {
		spin_unlock(&ch->lock);
		hl_ipc_job_put(job);
		return -ENOENT;
	}
	job->seq = ++ch->next_seq;
	*seq = job->seq;
	if (!async && !ch->busy && list_empty(&ch->pending)) {
		ch->busy = true;
		spin_unlock(&ch->lock);
		ret = hl_ipc_engine_run(ch, job, true);
		hl_ipc_channel_finish(ch, job, ret, true);
		hl_ipc_job_put(job);
		return ret;
	}
	if (!async)
		kref_get(&job->ref);	/* ours, to read the status */
	list_add_tail(&job->node, &ch->pending);
	if (!ch->busy)
		queue_work(hl_ipc_wq, &ch->work);
	spin_unlock(&ch->lock);
	if (async)
		return 0;

	ret = wait_event_killable(ch->wq, READ_ONCE(job->done));
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
				READ_ONCE(ch->completed_seq) >= seq, left);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -ETIMEDOUT;
	}

	err = xa_load(&ch->errors, seq);
	args->status = err ? -(int)xa_to_value(err) : 0;
	spin_lock(&ch->lock);
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

	xa_lock(&ctx->channels);
	xa_for_each(&ctx->channels, id, ch) {
		spin_lock(&ch->lock);
		if (ch->completed_seq > ch->reported_seq)
			ret = true;
		spin_unlock(&ch->lock);
		if (ret)
			break;
	}
	xa_unlock(&ctx->channels);
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

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return -ENOMEM;
	ret = hl_ipc_devid_from_fd(args->src_fd,
				   args->flags & HL_IPC_CHANNEL_SRC_HOST,
				   &ch->src);
	if (!ret)
		ret = hl_ipc_devid_from_fd(args->dst_fd,
					   args->flags & HL_IPC_CHANNEL_DST_HOST,
					   &ch->dst);
	if (ret) {
		kfree(ch);
		return ret;
	}
	kref_init(&ch->ref);
	ch->ctx = ctx;
	ch->tgid = ctx->tgid;
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->pending);
	init_waitqueue_head(&ch->wq);
	INIT_WORK(&ch->work, hl_ipc_channel_work);
	xa_init(&ch->errors);

	mutex_lock(&ctx->lock);
	if (ctx->nchannels >= READ_ONCE(hl_ipc_max_channels)) {
		mutex_unlock(&ctx->lock);
		kfree(ch);
		return -ENOSPC;
	}
	ret = xa_alloc(&ctx->channels, &id, ch, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&ctx->lock);
		kfree(ch);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	ch->id = id;
	ctx->nchannels++;
	mutex_unlock(&ctx->lock);

	atomic_inc(&hl_ipc_stats.channels);
	mutex_lock(&hl_ipc_channels_lock);
	list_add_tail(&ch->gnode, &hl_ipc_channels);
	mutex_unlock(&hl_ipc_channels_lock);
	args->channel_id = id;
	return 0;
}

static bool hl_ipc_channel_idle(struct hl_ipc_channel *ch)
{
	bool idle;

	spin_lock(&ch->lock);
	idle = !ch->busy && list_empty(&ch->pending);
	spin_unlock(&ch->lock);
	return idle;
}

/*
 * Stop a channel that is no longer reachable by id: queued jobs drain
 * with -ECANCELED (the running one stops at its next chunk) and their
 * waiters wake.  Drops the id's reference.
 */
static void hl_ipc_channel_kill(struct hl_ipc_channel *ch)
{
	spin_lock(&ch->lock);
	WRITE_ONCE(ch->dead, true);
	if (!ch->busy && !list_empty(&ch->pending))
		queue_work(hl_ipc_wq, &ch->work);
	spin_unlock(&ch->lock);
	wait_event(ch->wq, hl_ipc_channel_idle(ch));
	flush_work(&ch->work);
	hl_ipc_channel_put(ch);
}

int hl_ipc_channel_destroy(struct hl_ipc_ctx *ctx, u32 id)
{
	struct hl_ipc_channel *ch;

	/*
	 * Never erase index 0: in an ALLOC1 xarray that would mark it free
	 * and the next channel would get id 0.
	 */
	if (!id)
		return -ENOENT;
	mutex_lock(&ctx->lock);
	ch = xa_erase(&ctx->channels, id);
	if (ch)
		ctx->nchannels--;
	mutex_unlock(&ctx->lock);
	if (!ch)
		return -ENOENT;
	hl_ipc_channel_kill(ch);
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

	seq_puts(m, "# id tgid src(kind:major:index) dst next_seq completed_seq pending busy copies bytes errors\n");
	mutex_lock(&hl_ipc_channels_lock);
	list_for_each_entry(ch, &hl_ipc_channels, gnode) {
		u64 next, done;
		bool busy;

		spin_lock(&ch->lock);
		next = ch->next_seq;
		done = ch->completed_seq;
		busy = ch->busy;
		spin_unlock(&ch->lock);
		seq_printf(m, "%u %d %u:%u:%u %u:%u:%u %llu %llu %llu %d %lld %lld %lld\n",
			   ch->id, ch->tgid,
			   ch->src.kind, ch->src.major, ch->src.index,
			   ch->dst.kind, ch->dst.major, ch->dst.index,
			   next, done, next - done, busy,
			   (s64)atomic64_read(&ch->copies),
			   (s64)atomic64_read(&ch->bytes),
			   (s64)atomic64_read(&ch->failures));
	}
	mutex_unlock(&hl_ipc_channels_lock);
}
