// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: Gaudi2's user interrupts and the WAIT_CS calls on them.
 *
 * On the device a monitor that writes to a completion queue may then
 * write the queue's LBW_DATA to the MSI-X doorbell (sim_sm.c), which
 * raises that interrupt; the driver's handler then wakes the WAIT_CSs
 * sleeping on the line whose counter has reached its target and writes
 * the time into the timestamp elements registered on it.  This file is
 * that handler and hl_interrupt_wait_ioctl() of the driver
 * (common/command_submission.c, irq.c): the same ids, checks, statuses
 * and errnos.  An interrupt is raised while a CS runs (under
 * sdev->engine, in process context), so each line's lock is a mutex,
 * under which a fired registration also drops its CB.
 */
#include <linux/bitfield.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "sim.h"

/* A WAIT_CS asleep on a line. */
struct sim_irq_wait {
	struct list_head node;
	const u64 *counter;	/* in a CB; NULL: a user address */
	u64 target;
	struct completion done;
	ktime_t when;		/* of the interrupt that completed it */
};

static void sim_irq_line_init(struct sim_irq_line *line, u32 id)
{
	mutex_init(&line->lock);
	INIT_LIST_HEAD(&line->waits);
	INIT_LIST_HEAD(&line->regs);
	line->id = id;
}

int sim_irq_init(struct sim_device *sdev)
{
	struct sim_irq *irq;
	unsigned int i;

	irq = kzalloc(sizeof(*irq), GFP_KERNEL);
	if (!irq)
		return -ENOMEM;
	for (i = 0; i < SIM_IRQ_USER_COUNT; i++)
		sim_irq_line_init(&irq->user[i], SIM_IRQ_USER_FIRST + i);
	sim_irq_line_init(&irq->common_cq, SIM_IRQ_COMMON_CQ);
	sim_irq_line_init(&irq->common_dec, SIM_IRQ_COMMON_DEC);
	sdev->irq = irq;
	return 0;
}

void sim_irq_fini(struct sim_device *sdev)
{
	struct sim_irq *irq = sdev->irq;
	unsigned int i;

	if (!irq)
		return;
	for (i = 0; i < SIM_IRQ_USER_COUNT; i++)
		mutex_destroy(&irq->user[i].lock);
	mutex_destroy(&irq->common_cq.lock);
	mutex_destroy(&irq->common_dec.lock);
	kfree(irq);
	sdev->irq = NULL;
}

/* Wakes the waits whose counter is at the target (user address: all). */
static void sim_irq_wake(struct sim_irq_line *line, ktime_t now)
{
	struct sim_irq_wait *w;

	mutex_lock(&line->lock);
	list_for_each_entry(w, &line->waits, node) {
		if (w->counter && READ_ONCE(*w->counter) < w->target)
			continue;
		w->when = now;
		complete_all(&w->done);
	}
	mutex_unlock(&line->lock);
}

/* Takes a registration off its line; line->lock held. */
static void sim_irq_reg_del(struct sim_ts_node *n)
{
	n->in_use = false;
	list_del_init(&n->node);
	sim_cb_put(n->cq_cb);
	n->cq_cb = NULL;
	sim_stat_dec(SIM_STAT_TS_REG);
}

/*
 * Fires the registrations whose counter is at the target.  Their buffers
 * live: the open's handles hold them until sim_ts_ctx_fini(), which
 * comes after the last CS and sim_irq_ctx_fini().
 */
static void sim_irq_fire_regs(struct sim_irq_line *line, ktime_t now)
{
	struct sim_ts_node *n, *tmp;

	mutex_lock(&line->lock);
	list_for_each_entry_safe(n, tmp, &line->regs, node) {
		if (READ_ONCE(*n->counter) < n->target)
			continue;
		WRITE_ONCE(n->buf->stamps[n - n->buf->nodes], ktime_to_ns(now));
		sim_irq_reg_del(n);
	}
	mutex_unlock(&line->lock);
}

/*
 * A write of @vector to the MSI-X doorbell.  Only the user interrupts
 * have a handler here; the other vectors are the driver's own.
 */
void sim_irq_raise(struct sim_device *sdev, u32 vector)
{
	struct sim_irq *irq = sdev->irq;
	struct sim_irq_line *line;
	ktime_t now = ktime_get();

	if (vector < SIM_IRQ_USER_FIRST ||
	    vector >= SIM_IRQ_USER_FIRST + SIM_IRQ_USER_COUNT) {
		atomic_inc(&sim_irq_lost);
		return;
	}
	line = &irq->user[vector - SIM_IRQ_USER_FIRST];
	/* As hl_irq_user_interrupt_handler(): waiters, then registrations. */
	sim_irq_wake(&irq->common_cq, now);
	sim_irq_wake(line, now);
	sim_irq_fire_regs(&irq->common_cq, now);
	sim_irq_fire_regs(line, now);
}

/* The line an interrupt id of WAIT_CS names, or an errno. */
static struct sim_irq_line *sim_irq_line(struct sim_device *sdev, u32 id)
{
	struct sim_irq *irq = sdev->irq;

	/* Decoder interrupts: no decoder is enabled on this device. */
	if (id < SIM_IRQ_DEC_COUNT)
		return ERR_PTR(-EINVAL);
	if (id >= SIM_IRQ_USER_FIRST &&
	    id < SIM_IRQ_USER_FIRST + SIM_IRQ_USER_COUNT)
		return &irq->user[id - SIM_IRQ_USER_FIRST];
	if (id == SIM_IRQ_COMMON_CQ)
		return &irq->common_cq;
	if (id == SIM_IRQ_COMMON_DEC)
		return &irq->common_dec;
	return ERR_PTR(-EINVAL);
}

/* As the driver's hl_usecs64_to_jiffies(). */
static unsigned long sim_irq_jiffies(u64 usecs)
{
	if (usecs <= U32_MAX)
		return usecs_to_jiffies(usecs);
	if (usecs >= (u64)jiffies_to_usecs(MAX_SCHEDULE_TIMEOUT - 1))
		return MAX_SCHEDULE_TIMEOUT;
	return usecs_to_jiffies(usecs);
}

/* The counter a (CB handle, u64 offset) names, with a CB reference. */
static struct sim_cb *sim_irq_counter(struct sim_ctx *ctx, u64 handle,
				      u64 offset, const u64 **counter)
{
	struct sim_cb *cb = sim_cb_get(ctx, handle);

	if (!cb)
		return NULL;
	if (offset >= cb->size / sizeof(u64)) {
		sim_cb_put(cb);
		return NULL;
	}
	*counter = (const u64 *)cb->kaddr + offset;
	return cb;
}

static void sim_irq_wait_del(struct sim_irq_line *line, struct sim_irq_wait *w)
{
	mutex_lock(&line->lock);
	list_del(&w->node);
	mutex_unlock(&line->lock);
}

/* WAIT_CS on a counter in a CB (HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ). */
static int sim_irq_wait_cq(struct sim_ctx *ctx, struct sim_irq_line *line,
			   const struct hl_wait_cs_in *in, u32 *status,
			   ktime_t *when)
{
	struct sim_irq_wait w = { .target = in->target };
	struct sim_cb *cb;
	long left;
	int rc = 0;

	cb = sim_irq_counter(ctx, in->cq_counters_handle,
			     in->cq_counters_offset, &w.counter);
	if (!cb)
		return -EINVAL;
	init_completion(&w.done);

	mutex_lock(&line->lock);
	/* The interrupt may have come before the wait. */
	if (READ_ONCE(*w.counter) >= w.target || !in->interrupt_timeout_us) {
		mutex_unlock(&line->lock);
		*status = READ_ONCE(*w.counter) >= w.target ?
			  HL_WAIT_CS_STATUS_COMPLETED : HL_WAIT_CS_STATUS_BUSY;
		*when = ktime_get();
		goto out;
	}
	list_add_tail(&w.node, &line->waits);
	mutex_unlock(&line->lock);

	left = wait_for_completion_interruptible_timeout(&w.done,
			sim_irq_jiffies(in->interrupt_timeout_us));
	if (left > 0) {
		*status = HL_WAIT_CS_STATUS_COMPLETED;
		*when = w.when;
	} else if (left < 0) {
		*status = HL_WAIT_CS_STATUS_ABORTED;
		rc = -EINTR;
	} else {
		/* Timed out: the work may still be running on the device. */
		*status = HL_WAIT_CS_STATUS_BUSY;
	}
	sim_irq_wait_del(line, &w);
out:
	sim_cb_put(cb);
	return rc;
}

/* WAIT_CS on a u64 at a user address, read at each interrupt. */
static int sim_irq_wait_user(struct sim_irq_line *line,
			     const struct hl_wait_cs_in *in, u32 *status,
			     ktime_t *when)
{
	struct sim_irq_wait w = { .target = in->target };
	unsigned long timeout = sim_irq_jiffies(in->interrupt_timeout_us);
	u64 __user *uaddr = u64_to_user_ptr(in->addr);
	u64 value;
	long left;
	int rc = 0;

	init_completion(&w.done);
	/* On the list before the first read: no interrupt is missed. */
	mutex_lock(&line->lock);
	list_add_tail(&w.node, &line->waits);
	mutex_unlock(&line->lock);

	if (get_user(value, uaddr)) {
		rc = -EFAULT;
		goto out;
	}
	if (value >= w.target) {
		*status = HL_WAIT_CS_STATUS_COMPLETED;
		*when = ktime_get();
		goto out;
	}
	*status = HL_WAIT_CS_STATUS_BUSY;
	if (!in->interrupt_timeout_us)
		goto out;

	for (;;) {
		left = wait_for_completion_interruptible_timeout(&w.done,
								  timeout);
		if (left < 0) {
			rc = -EINTR;
			break;
		}
		if (!left)
			break;		/* BUSY */
		/* Re-armed before the read: a later interrupt is not lost. */
		mutex_lock(&line->lock);
		reinit_completion(&w.done);
		mutex_unlock(&line->lock);
		if (get_user(value, uaddr)) {
			rc = -EFAULT;
			break;
		}
		if (value >= w.target) {
			*status = HL_WAIT_CS_STATUS_COMPLETED;
			*when = w.when;
			break;
		}
		timeout = left;
	}
out:
	sim_irq_wait_del(line, &w);
	return rc;
}

/*
 * Takes a registration off its line if it is on one.  Under
 * ctx->ts_reg_lock (node->line changes only under it), or at close.
 */
static void sim_irq_unregister(struct sim_ts_node *node)
{
	if (!node->line)
		return;
	mutex_lock(&node->line->lock);
	if (node->in_use)
		sim_irq_reg_del(node);
	mutex_unlock(&node->line->lock);
}

static void sim_irq_drop_regs(struct sim_irq_line *line)
{
	struct sim_ts_node *n, *tmp;

	mutex_lock(&line->lock);
	list_for_each_entry_safe(n, tmp, &line->regs, node)
		sim_irq_reg_del(n);
	mutex_unlock(&line->lock);
}

/*
 * At close, before the timestamp buffers go (sim_ts_ctx_fini()): every
 * registration still waiting is dropped.  No CS runs any more to fire
 * one, and only the device's one compute open registers, so every
 * registration on the device's lines is this open's.
 */
void sim_irq_ctx_fini(struct sim_ctx *ctx)
{
	struct sim_irq *irq = ctx->sdev->irq;
	unsigned int i;

	mutex_lock(&ctx->ts_reg_lock);
	for (i = 0; i < SIM_IRQ_USER_COUNT; i++)
		sim_irq_drop_regs(&irq->user[i]);
	sim_irq_drop_regs(&irq->common_cq);
	sim_irq_drop_regs(&irq->common_dec);
	mutex_unlock(&ctx->ts_reg_lock);
}

/*
 * HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT: the time goes to element
 * timestamp_offset of the buffer when the line fires with the counter at
 * the target, or now if it is there already.  Registering an element
 * again replaces its registration.  Does not wait.
 */
static int sim_irq_register(struct sim_ctx *ctx, struct sim_irq_line *line,
			    const struct hl_wait_cs_in *in, u32 *status)
{
	struct sim_ts_node *node;
	struct sim_ts_buf *buf;
	const u64 *counter;
	struct sim_cb *cb;

	cb = sim_irq_counter(ctx, in->cq_counters_handle,
			     in->cq_counters_offset, &counter);
	if (!cb)
		return -EINVAL;
	buf = sim_ts_get(ctx, in->timestamp_handle);
	if (!buf) {
		sim_cb_put(cb);
		return -EINVAL;
	}
	if (in->timestamp_offset >= buf->count) {
		sim_ts_put(buf);
		sim_cb_put(cb);
		return -EINVAL;
	}
	node = &buf->nodes[in->timestamp_offset];

	mutex_lock(&ctx->ts_reg_lock);
	sim_irq_unregister(node);
	*status = HL_WAIT_CS_STATUS_COMPLETED;
	mutex_lock(&line->lock);
	if (READ_ONCE(*counter) >= in->target) {
		mutex_unlock(&line->lock);
		WRITE_ONCE(buf->stamps[in->timestamp_offset], ktime_get_ns());
		sim_cb_put(cb);
	} else {
		/* The node keeps the CB until it fires or goes. */
		node->line = line;
		node->cq_cb = cb;
		node->counter = counter;
		node->target = in->target;
		node->in_use = true;
		list_add_tail(&node->node, &line->regs);
		sim_stat_inc(SIM_STAT_TS_REG);
		mutex_unlock(&line->lock);
	}
	mutex_unlock(&ctx->ts_reg_lock);
	/* The open's handle keeps the buffer (sim_irq_fire_regs()). */
	sim_ts_put(buf);
	return 0;
}

#define SIM_IRQ_WAIT_FLAGS (HL_WAIT_CS_FLAGS_INTERRUPT | \
			    HL_WAIT_CS_FLAGS_INTERRUPT_MASK | \
			    HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ | \
			    HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT)

int sim_irq_wait_ioctl(struct sim_ctx *ctx, union hl_wait_cs_args *args)
{
	struct hl_wait_cs_in in = args->in;
	u32 status = HL_WAIT_CS_STATUS_BUSY;
	struct sim_irq_line *line;
	ktime_t when = 0;
	int rc;

	/* Stricter than the driver, which ignores bits it does not know. */
	if (in.flags & ~SIM_IRQ_WAIT_FLAGS)
		return -EINVAL;
	line = sim_irq_line(ctx->sdev,
			    FIELD_GET(HL_WAIT_CS_FLAGS_INTERRUPT_MASK, in.flags));
	if (IS_ERR(line))
		return PTR_ERR(line);

	if (!(in.flags & HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ))
		rc = sim_irq_wait_user(line, &in, &status, &when);
	else if (in.flags & HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT)
		rc = sim_irq_register(ctx, line, &in, &status);
	else
		rc = sim_irq_wait_cq(ctx, line, &in, &status, &when);
	if (rc)
		return rc;

	memset(args, 0, sizeof(*args));
	args->out.status = status;
	if (when) {
		args->out.timestamp_nsec = ktime_to_ns(when);
		args->out.flags |= HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
	}
	return 0;
}
