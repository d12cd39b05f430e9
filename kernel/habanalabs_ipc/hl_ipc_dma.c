// SPDX-License-Identifier: GPL-2.0
/*
 * The peer-to-peer copy engine: DMA_MEMCPY channels of a dmaengine device
 * (ioatdma or idxd on Xeon hosts, ptdma on EPYC).
 *
 * It copies where the CPU cannot: between dma-bufs that give no CPU
 * mapping (a Gaudi's device memory, exported peer to peer only) and any
 * other memory.  Each region is mapped for the engine's device once, at
 * its first DMA copy (a dma-buf without a kernel mapping at
 * registration, so that an exporter that refuses the engine is known
 * then): a dma-buf attached dynamically with allow_peer2peer, so that the
 * exporter decides by the PCI topology whether the engine may reach it;
 * user memory DMA-mapped from its pinned pages.
 *
 * A copy takes a channel of the pool for one step of its job, submits a
 * memcpy descriptor per contiguous piece, and waits for them: until the
 * engine finishes none for dma_timeout_ms, stopping early when the copy
 * must stop (revoked, cancelled, a fatal signal in the submitting
 * thread), and then
 * terminating what is left on its channel before it returns, so no
 * descriptor outlives the step.  Ends that share bytes are copied a piece
 * at a time, each waited for, in the order the CPU engine uses.
 *
 * The channels are requested when the module loads, and again when a
 * copy needs them and there are none (an engine loaded later, or one that
 * went away: a descriptor aborted or refused marks the pool dead).  An
 * engine's driver that is about to unbind (a hot unplug, or sysfs) is
 * seen on the PCI bus first: copies stop, every region mapping made for
 * the engine is undone and its channels are given back, so the engine
 * leaves with nothing of ours mapped or held.
 */
#include <linux/completion.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/dmaengine.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "hl_ipc.h"

/* Channels the module takes from an engine. */
#define HL_IPC_DMA_MAX_CHANS	8
/* How often a wait for descriptors looks whether the copy must stop. */
#define HL_IPC_DMA_SLICE_MS	10
/* Longest descriptor: engines split no further than this themselves. */
#define HL_IPC_DMA_MAX_DESC	SZ_1M

struct hl_ipc_dma_pool {
	struct mutex lock;		/* everything below */
	struct dma_chan *chans[HL_IPC_DMA_MAX_CHANS];
	unsigned int nchans;
	unsigned long busy;		/* a bit per channel in a copy */
	bool dead;			/* an engine that went away */
	bool unbinding;			/* its driver is leaving: take none */
	struct device *leaving;		/* that engine, until it has left */
	struct device *dev;		/* what regions are mapped for */
	wait_queue_head_t free_wq;
};

static struct hl_ipc_dma_pool hl_ipc_dma = {
	.lock = __MUTEX_INITIALIZER(hl_ipc_dma.lock),
	.free_wq = __WAIT_QUEUE_HEAD_INITIALIZER(hl_ipc_dma.free_wq),
};

/*
 * Every region mapping, so that an engine leaving can undo them; mappings
 * are made and undone under this lock (after r->dma_sem, if held).
 */
static LIST_HEAD(hl_ipc_dma_maps);
static DEFINE_MUTEX(hl_ipc_dma_maps_lock);

/* A region's memory as the engine's device sees it. */
struct hl_ipc_dma_map {
	struct list_head node;		/* in hl_ipc_dma_maps */
	struct hl_ipc_region *r;
	struct device *dev;		/* reference */
	struct sg_table *sgt;		/* DMA addresses */
	struct dma_buf_attachment *attach;	/* dma-buf regions */
	struct sg_table own;		/* user regions: from the pages */
	u64 first;			/* byte of sgt where the region starts */
	bool moved;			/* the exporter moved it: map again */
};

/* Under the pool's lock; with no channel busy. */
static void hl_ipc_dma_release_chans(void)
{
	while (hl_ipc_dma.nchans)
		dma_release_channel(hl_ipc_dma.chans[--hl_ipc_dma.nchans]);
	if (hl_ipc_dma.dev)
		put_device(hl_ipc_dma.dev);
	hl_ipc_dma.dev = NULL;
	hl_ipc_dma.dead = false;
}

/* Under the pool's lock: channels of one engine, as many as it gives. */
static void hl_ipc_dma_request_chans(void)
{
	struct dma_chan *chan;
	dma_cap_mask_t mask;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	while (hl_ipc_dma.nchans < HL_IPC_DMA_MAX_CHANS) {
		chan = dma_request_chan_by_mask(&mask);
		if (IS_ERR(chan))
			break;
		if (hl_ipc_dma.nchans &&
		    chan->device->dev != hl_ipc_dma.dev) {
			/* Regions are mapped for one device only. */
			dma_release_channel(chan);
			break;
		}
		if (!hl_ipc_dma.nchans)
			hl_ipc_dma.dev = get_device(chan->device->dev);
		hl_ipc_dma.chans[hl_ipc_dma.nchans++] = chan;
	}
}

/*
 * Under the pool's lock: gives back the channels of an engine that went
 * away once no copy uses them (not while its driver is leaving: that
 * path gives them back itself), and with @request takes channels if
 * there are none.  Whether there are usable ones.
 */
static bool hl_ipc_dma_refresh(bool request)
{
	if (hl_ipc_dma.dead && !hl_ipc_dma.busy && !hl_ipc_dma.unbinding)
		hl_ipc_dma_release_chans();
	if (request && !hl_ipc_dma.nchans && !hl_ipc_dma.dead)
		hl_ipc_dma_request_chans();
	return hl_ipc_dma.nchans && !hl_ipc_dma.dead;
}

/* Whether a waiter for a free channel should look again. */
static bool hl_ipc_dma_changed(void)
{
	unsigned int n = READ_ONCE(hl_ipc_dma.nchans);

	return !n || READ_ONCE(hl_ipc_dma.busy) != GENMASK(n - 1, 0);
}

/*
 * A channel of the pool for one step, and the device regions are mapped
 * for: requests channels if there are none or the engine went away, and
 * waits (killably in the caller's thread) while all are busy.
 */
static int hl_ipc_dma_get_chan(bool in_caller, unsigned int *idx,
			       struct device **dev)
{
	long ret;

	for (;;) {
		mutex_lock(&hl_ipc_dma.lock);
		if (!hl_ipc_dma_refresh(true)) {
			mutex_unlock(&hl_ipc_dma.lock);
			return -EOPNOTSUPP;
		}
		*idx = find_first_zero_bit(&hl_ipc_dma.busy,
					   hl_ipc_dma.nchans);
		if (*idx < hl_ipc_dma.nchans) {
			__set_bit(*idx, &hl_ipc_dma.busy);
			*dev = hl_ipc_dma.dev;
			mutex_unlock(&hl_ipc_dma.lock);
			return 0;
		}
		mutex_unlock(&hl_ipc_dma.lock);
		ret = in_caller ?
			wait_event_killable_timeout(hl_ipc_dma.free_wq,
						    hl_ipc_dma_changed(), HZ) :
			wait_event_timeout(hl_ipc_dma.free_wq,
					   hl_ipc_dma_changed(), HZ);
		if (ret < 0)
			return -EINTR;
	}
}

static void hl_ipc_dma_put_chan(unsigned int idx, bool broken)
{
	mutex_lock(&hl_ipc_dma.lock);
	__clear_bit(idx, &hl_ipc_dma.busy);
	if (broken)
		hl_ipc_dma.dead = true;
	mutex_unlock(&hl_ipc_dma.lock);
	if (wq_has_sleeper(&hl_ipc_dma.free_wq))
		wake_up(&hl_ipc_dma.free_wq);
}

bool hl_ipc_dma_available(void)
{
	bool ok;

	mutex_lock(&hl_ipc_dma.lock);
	ok = hl_ipc_dma_refresh(READ_ONCE(hl_ipc_engine_mode) !=
				HL_IPC_ENGINE_MODE_CPU);
	mutex_unlock(&hl_ipc_dma.lock);
	return ok;
}

/* ---- regions as the engine sees them ------------------------------- */

/* The exporter moves the memory: copies stop, the next one maps again. */
static void hl_ipc_dma_move_notify(struct dma_buf_attachment *attach)
{
	struct hl_ipc_region *r = attach->importer_priv;

	WRITE_ONCE(r->dma->moved, true);
}

static const struct dma_buf_attach_ops hl_ipc_dma_importer_ops = {
	.allow_peer2peer = true,
	.move_notify = hl_ipc_dma_move_notify,
};

/* Under hl_ipc_dma_maps_lock. */
static void hl_ipc_dma_unmap(struct hl_ipc_region *r)
{
	struct hl_ipc_dma_map *m = r->dma;

	lockdep_assert_held(&hl_ipc_dma_maps_lock);
	if (!m)
		return;
	list_del(&m->node);
	if (m->attach) {
		if (m->sgt) {
			dma_resv_lock(r->dbuf->resv, NULL);
			dma_buf_unmap_attachment(m->attach, m->sgt,
						 DMA_BIDIRECTIONAL);
			dma_resv_unlock(r->dbuf->resv);
		}
		dma_buf_detach(r->dbuf, m->attach);
	} else if (m->sgt) {
		dma_unmap_sgtable(m->dev, &m->own, DMA_BIDIRECTIONAL, 0);
		sg_free_table(&m->own);
	}
	put_device(m->dev);
	kfree(m);
	r->dma = NULL;
}

static int hl_ipc_dma_map_dmabuf(struct hl_ipc_region *r,
				 struct hl_ipc_dma_map *m)
{
	struct sg_table *sgt;

	m->attach = dma_buf_dynamic_attach(r->dbuf, m->dev,
					   &hl_ipc_dma_importer_ops, r);
	if (IS_ERR(m->attach)) {
		int ret = PTR_ERR(m->attach);

		m->attach = NULL;
		return ret;
	}
	dma_resv_lock(r->dbuf->resv, NULL);
	sgt = dma_buf_map_attachment(m->attach, DMA_BIDIRECTIONAL);
	dma_resv_unlock(r->dbuf->resv);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	m->sgt = sgt;
	return 0;
}

static int hl_ipc_dma_map_user(struct hl_ipc_region *r,
			       struct hl_ipc_dma_map *m)
{
	int ret;

	ret = sg_alloc_table_from_pages(&m->own, r->pages, r->npages, 0,
					(u64)r->npages << PAGE_SHIFT,
					GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	ret = dma_map_sgtable(m->dev, &m->own, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(&m->own);
		return ret;
	}
	m->sgt = &m->own;
	m->first = offset_in_page(r->vaddr);
	return 0;
}

/* Whether @r is mapped for @dev and still there; r->dma_sem held. */
static bool hl_ipc_dma_mapped(const struct hl_ipc_region *r,
			      const struct device *dev)
{
	return r->dma && r->dma->dev == dev && !READ_ONCE(r->dma->moved);
}

/*
 * Maps @r for @dev unless it is already (and not moved since); r->dma_sem
 * held for writing.  An exporter that refuses the engine's device (not
 * peer to peer: EPERM, the PCI topology; or no DMA mapping at all) gives
 * -EOPNOTSUPP, as no engine at all does.
 */
static int hl_ipc_dma_map_locked(struct hl_ipc_region *r, struct device *dev)
{
	struct hl_ipc_dma_map *m;
	int ret;

	if (hl_ipc_dma_mapped(r, dev))
		return 0;
	mutex_lock(&hl_ipc_dma_maps_lock);
	hl_ipc_dma_unmap(r);
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		mutex_unlock(&hl_ipc_dma_maps_lock);
		return -ENOMEM;
	}
	m->r = r;
	m->dev = get_device(dev);
	list_add(&m->node, &hl_ipc_dma_maps);
	r->dma = m;
	if (r->type == HL_IPC_REGION_DMABUF)
		ret = hl_ipc_dma_map_dmabuf(r, m);
	else
		ret = hl_ipc_dma_map_user(r, m);
	if (ret)
		hl_ipc_dma_unmap(r);
	mutex_unlock(&hl_ipc_dma_maps_lock);
	if (ret)
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	return 0;
}

/* Maps @r for @dev if it is not; nothing is held when it returns. */
static int hl_ipc_dma_prepare_one(struct hl_ipc_region *r, struct device *dev)
{
	bool mapped;
	int ret;

	down_read(&r->dma_sem);
	mapped = hl_ipc_dma_mapped(r, dev);
	up_read(&r->dma_sem);
	if (mapped)
		return 0;
	down_write(&r->dma_sem);
	ret = hl_ipc_dma_map_locked(r, dev);
	up_write(&r->dma_sem);
	return ret;
}

/*
 * At registration of memory only the engine can reach: maps it now, so
 * that an exporter that refuses the engine is known at once.
 */
int hl_ipc_dma_region_prepare(struct hl_ipc_region *r)
{
	unsigned int idx;
	struct device *dev;
	int ret;

	/* Only to learn the device: the channel goes back at once. */
	ret = hl_ipc_dma_get_chan(true, &idx, &dev);
	if (ret)
		return ret;
	ret = hl_ipc_dma_prepare_one(r, dev);
	hl_ipc_dma_put_chan(idx, false);
	return ret;
}

void hl_ipc_dma_region_release(struct hl_ipc_region *r)
{
	mutex_lock(&hl_ipc_dma_maps_lock);
	hl_ipc_dma_unmap(r);
	mutex_unlock(&hl_ipc_dma_maps_lock);
}

/* ---- copies -------------------------------------------------------- */

/* Where byte @off of a mapping is, and how many bytes follow it there. */
struct hl_ipc_dma_cursor {
	struct scatterlist *sg;
	u64 sg_start;			/* byte of the mapping sg starts at */
};

static dma_addr_t hl_ipc_dma_addr(const struct hl_ipc_dma_map *m,
				  struct hl_ipc_dma_cursor *c, u64 off,
				  u64 *contig)
{
	off += m->first;
	if (!c->sg || off < c->sg_start) {
		c->sg = m->sgt->sgl;
		c->sg_start = 0;
	}
	while (c->sg && off >= c->sg_start + sg_dma_len(c->sg)) {
		c->sg_start += sg_dma_len(c->sg);
		c->sg = sg_next(c->sg);
	}
	if (!c->sg || !sg_dma_len(c->sg)) {
		*contig = 0;
		return 0;
	}
	*contig = c->sg_start + sg_dma_len(c->sg) - off;
	return sg_dma_address(c->sg) + (off - c->sg_start);
}

/* What the descriptors of one batch report, as they complete. */
struct hl_ipc_dma_batch {
	struct completion done;
	atomic_t pending;
	int error;
};

static void hl_ipc_dma_done(void *arg, const struct dmaengine_result *res)
{
	struct hl_ipc_dma_batch *b = arg;

	if (res && res->result != DMA_TRANS_NOERROR)
		WRITE_ONCE(b->error, res->result == DMA_TRANS_ABORTED ?
			   -ENODEV : -EIO);
	if (atomic_dec_and_test(&b->pending))
		complete(&b->done);
}

/*
 * Waits for a batch, in slices, stopping early when the copy must stop:
 * ETIMEDOUT when dma_timeout_ms pass without a descriptor completing (a
 * batch of many descriptors may take longer as a whole).  0, or why it
 * did not complete.
 */
static int hl_ipc_dma_wait(const struct hl_ipc_job *job,
			   const struct hl_ipc_seg *seg,
			   struct hl_ipc_dma_batch *b, bool in_caller)
{
	const unsigned long limit =
		msecs_to_jiffies(READ_ONCE(hl_ipc_dma_timeout_ms));
	unsigned long left = limit, slice;
	int pending = atomic_read(&b->pending), now;
	long ret;
	int why;

	for (;;) {
		slice = min(left, msecs_to_jiffies(HL_IPC_DMA_SLICE_MS));
		ret = in_caller ?
			wait_for_completion_killable_timeout(&b->done,
							     max(slice, 1UL)) :
			wait_for_completion_timeout(&b->done, max(slice, 1UL));
		if (ret > 0)
			return READ_ONCE(b->error);
		if (ret < 0)
			return -EINTR;
		why = hl_ipc_job_check(job, seg, in_caller);
		if (!why && READ_ONCE(hl_ipc_dma.unbinding))
			why = -ENODEV;
		if (!why && (READ_ONCE(seg->src->dma->moved) ||
			     READ_ONCE(seg->dst->dma->moved)))
			why = -EIO;
		if (why)
			return why;
		now = atomic_read(&b->pending);
		if (now != pending) {
			pending = now;	/* progress: the limit starts again */
			left = limit;
			continue;
		}
		if (left <= slice)
			return -ETIMEDOUT;
		left -= slice;
	}
}

/*
 * Submits bytes [at, at + n) of @seg as descriptors of at most
 * HL_IPC_DMA_MAX_DESC contiguous bytes.  How many bytes it submitted
 * (fewer when the engine refused one), or -errno.
 */
static s64 hl_ipc_dma_submit(struct dma_chan *chan,
			     const struct hl_ipc_seg *seg, u64 at, u64 n,
			     struct hl_ipc_dma_batch *b)
{
	struct hl_ipc_dma_cursor sc = {}, dc = {};
	struct dma_async_tx_descriptor *tx;
	u64 done = 0, slen, dlen, len;
	dma_addr_t s, d;

	while (done < n) {
		s = hl_ipc_dma_addr(seg->src->dma, &sc,
				    seg->src_off + at + done, &slen);
		d = hl_ipc_dma_addr(seg->dst->dma, &dc,
				    seg->dst_off + at + done, &dlen);
		if (!slen || !dlen)
			return -EIO;	/* a mapping shorter than its region */
		len = min3(n - done, min(slen, dlen), (u64)HL_IPC_DMA_MAX_DESC);
		tx = dmaengine_prep_dma_memcpy(chan, d, s, len,
					       DMA_PREP_INTERRUPT);
		if (!tx)
			return done ? done : -ENODEV;
		tx->callback_result = hl_ipc_dma_done;
		tx->callback_param = b;
		atomic_inc(&b->pending);
		if (dma_submit_error(dmaengine_submit(tx))) {
			atomic_dec(&b->pending);
			return done ? done : -ENODEV;
		}
		done += len;
	}
	return done;
}

/*
 * Holds both ends' mappings for @dev (mapping them first if needed)
 * until hl_ipc_dma_unhold(): read locks, taken in address order, so that
 * copies between the same two regions in both directions never wait for
 * each other's remapping in a circle.
 */
static int hl_ipc_dma_hold(struct hl_ipc_seg *seg, struct device *dev)
{
	struct hl_ipc_region *a = seg->src < seg->dst ? seg->src : seg->dst;
	struct hl_ipc_region *b = seg->src < seg->dst ? seg->dst : seg->src;
	unsigned int tries;
	int ret;

	for (tries = 0; tries < 3; tries++) {
		down_read(&a->dma_sem);
		if (b != a)
			down_read_nested(&b->dma_sem, SINGLE_DEPTH_NESTING);
		if (hl_ipc_dma_mapped(a, dev) && hl_ipc_dma_mapped(b, dev))
			return 0;
		/* Not mapped yet, or moved: map, and look again. */
		if (b != a)
			up_read(&b->dma_sem);
		up_read(&a->dma_sem);
		ret = hl_ipc_dma_prepare_one(a, dev);
		if (!ret && b != a)
			ret = hl_ipc_dma_prepare_one(b, dev);
		if (ret)
			return ret;
	}
	return -EIO;
}

static void hl_ipc_dma_unhold(struct hl_ipc_seg *seg)
{
	up_read(&seg->src->dma_sem);
	if (seg->dst != seg->src)
		up_read(&seg->dst->dma_sem);
}

/*
 * Copies bytes [at, at + n) of @seg with the engine: both ends mapped
 * for it (mapping them now if needed), on a channel of the pool.
 */
int hl_ipc_dma_copy(const struct hl_ipc_job *job, struct hl_ipc_seg *seg,
		    u64 at, u64 n, bool in_caller)
{
	struct hl_ipc_dma_batch b;
	struct dma_chan *chan;
	struct device *dev;
	unsigned int idx;
	u64 done = 0, piece, off;
	s64 got;
	int ret;

	ret = hl_ipc_dma_get_chan(in_caller, &idx, &dev);
	if (ret)
		return ret;
	chan = hl_ipc_dma.chans[idx];
	ret = hl_ipc_dma_hold(seg, dev);
	if (ret) {
		hl_ipc_dma_put_chan(idx, false);
		return ret;
	}

	/* Shared bytes: a piece at a time, in the safe order. */
	piece = seg->piece ? seg->piece : n;
	while (!ret && done < n) {
		init_completion(&b.done);
		atomic_set(&b.pending, 1);	/* ours, until all are in */
		b.error = 0;
		off = seg->backward ? n - done - min(piece, n - done) : done;
		got = hl_ipc_dma_submit(chan, seg, at + off,
					min(piece, n - done), &b);
		if (got > 0)
			dma_async_issue_pending(chan);
		if (atomic_dec_and_test(&b.pending))
			complete(&b.done);
		ret = got < 0 ? got : hl_ipc_dma_wait(job, seg, &b, in_caller);
		if (!ret && got < min(piece, n - done))
			ret = -ENODEV;	/* the engine refused a descriptor */
		done += got > 0 ? got : 0;
		if (ret) {
			/* Nothing of this step may run after it returns. */
			dmaengine_terminate_sync(chan);
		}
	}
	hl_ipc_dma_unhold(seg);
	hl_ipc_dma_put_chan(idx, ret == -ENODEV);
	return ret;
}

/* ---- an engine leaving --------------------------------------------- */

/*
 * Its driver unbinds next (BUS_NOTIFY_UNBIND_DRIVER comes before the
 * driver's remove): copies on it stop within a wait slice (ENODEV) and
 * give their channels back, every mapping made for it is undone, and the
 * channels are released, all before the driver goes.
 */
static void hl_ipc_dma_engine_leaving(struct device *dev)
{
	struct hl_ipc_dma_map *m, *tmp;

	mutex_lock(&hl_ipc_dma.lock);
	if (!hl_ipc_dma.nchans || hl_ipc_dma.dev != dev) {
		mutex_unlock(&hl_ipc_dma.lock);
		return;
	}
	hl_ipc_dma.unbinding = true;
	hl_ipc_dma.dead = true;
	hl_ipc_dma.leaving = get_device(dev);
	mutex_unlock(&hl_ipc_dma.lock);

	wait_event(hl_ipc_dma.free_wq, !READ_ONCE(hl_ipc_dma.busy));

	mutex_lock(&hl_ipc_dma_maps_lock);
	list_for_each_entry_safe(m, tmp, &hl_ipc_dma_maps, node)
		if (m->dev == dev)
			hl_ipc_dma_unmap(m->r);
	mutex_unlock(&hl_ipc_dma_maps_lock);

	mutex_lock(&hl_ipc_dma.lock);
	hl_ipc_dma_release_chans();
	hl_ipc_dma.dead = true;		/* until the driver has left */
	mutex_unlock(&hl_ipc_dma.lock);
}

/* The driver has left: an engine may be requested again. */
static void hl_ipc_dma_engine_left(struct device *dev)
{
	struct device *put = NULL;

	mutex_lock(&hl_ipc_dma.lock);
	if (hl_ipc_dma.leaving == dev) {
		put = hl_ipc_dma.leaving;
		hl_ipc_dma.leaving = NULL;
		hl_ipc_dma.unbinding = false;
		hl_ipc_dma.dead = false;
	}
	mutex_unlock(&hl_ipc_dma.lock);
	put_device(put);
}

static int hl_ipc_dma_bus_event(struct notifier_block *nb,
				unsigned long action, void *data)
{
	if (action == BUS_NOTIFY_UNBIND_DRIVER)
		hl_ipc_dma_engine_leaving(data);
	else if (action == BUS_NOTIFY_UNBOUND_DRIVER)
		hl_ipc_dma_engine_left(data);
	return NOTIFY_DONE;
}

static struct notifier_block hl_ipc_dma_bus_nb = {
	.notifier_call = hl_ipc_dma_bus_event,
};

int hl_ipc_dma_init(void)
{
	/* The engines this module uses are PCI functions. */
	int ret = bus_register_notifier(&pci_bus_type, &hl_ipc_dma_bus_nb);

	if (ret)
		return ret;
	if (READ_ONCE(hl_ipc_engine_mode) == HL_IPC_ENGINE_MODE_CPU)
		return 0;
	mutex_lock(&hl_ipc_dma.lock);
	hl_ipc_dma_request_chans();
	mutex_unlock(&hl_ipc_dma.lock);
	return 0;
}

void hl_ipc_dma_fini(void)
{
	bus_unregister_notifier(&pci_bus_type, &hl_ipc_dma_bus_nb);
	mutex_lock(&hl_ipc_dma.lock);
	hl_ipc_dma_release_chans();
	put_device(hl_ipc_dma.leaving);
	hl_ipc_dma.leaving = NULL;
	mutex_unlock(&hl_ipc_dma.lock);
}

/* ---- what the engines are, for sysfs ------------------------------- */

ssize_t hl_ipc_dma_describe(char *buf)
{
	ssize_t n;

	mutex_lock(&hl_ipc_dma.lock);
	if (hl_ipc_dma.nchans && !hl_ipc_dma.dead)
		n = sysfs_emit(buf, "dma %s %s %u\n",
			       dev_driver_string(hl_ipc_dma.dev),
			       dev_name(hl_ipc_dma.dev), hl_ipc_dma.nchans);
	else
		n = sysfs_emit(buf, "none\n");
	mutex_unlock(&hl_ipc_dma.lock);
	return n;
}
