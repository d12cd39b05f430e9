// SPDX-License-Identifier: GPL-2.0
/*
 * Memory identity: when do two regions share bytes?
 *
 * Only where they hold the same pages.  Addresses prove nothing: after
 * munmap + mmap or MADV_DONTNEED, a region registered earlier keeps the
 * old pages at an address whose mapping now has new ones, while one memfd
 * mapped twice, or shared with another process, is the same memory at two
 * addresses.  Names prove nothing either: two dma-bufs may export one
 * allocation, and a user region may pin the pages of a dma-buf's mmap.
 *
 * Comparing the pages of every copy would cost as much as the copy, so a
 * region notes at registration which of its pages another region may hold
 * too.  A user region holds a pin on each of its pages, a dma-buf region
 * counts each of its frames (hl_ipc_frames.c): whichever of two regions
 * sharing a page registered second sees the first's pin or count when it
 * looks, so a region with no noted page shares none with any region
 * registered before or after it.  A copy between two such regions needs no check at all: the
 * common case costs one pointer test.  Otherwise the copy is planned from
 * the pages before it starts (hl_ipc_seg_plan()), in time proportional to
 * its length: every page of one end is looked up among the noted pages of
 * the other.  Where the ends share pages at one distance, the copy is cut
 * into pieces that never overwrite bytes still to be read, as for one
 * region with itself; where they share pages at different distances (one
 * page mapped twice into a range), no order of copying gives memmove's
 * result and the copy is refused.
 *
 * Pins by anyone else (an RDMA registration, io_uring) make pages look
 * shared too, which costs only the planning.  A dma-buf region's pages
 * are those its kernel mapping shows, so this holds where the CPU engine
 * copies; regions without one share bytes only with regions of the same
 * dma-buf, at the same offsets.
 */
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "hl_ipc.h"

/* Pages looked at between checks for a reason to stop. */
#define HL_IPC_SHARE_STEP	1024

struct hl_ipc_share_slot {
	unsigned long pfn;
	unsigned long idx;		/* page index in the region, plus 1 */
};

/* The noted pages of a region: an open-addressing table keyed by pfn. */
struct hl_ipc_share {
	unsigned int bits;
	unsigned long count;
	struct hl_ipc_share_slot slot[];
};

/*
 * How many pins hold @folio.  Large folios count them exactly; small ones
 * in units of GUP_PIN_COUNTING_BIAS of the reference count, which other
 * references can only make look larger: a page may look shared when it
 * is not, never the other way round.
 */
static unsigned int hl_ipc_folio_pins(struct folio *folio)
{
	if (folio_test_large(folio))
		return atomic_read(&folio->_pincount);
	return folio_ref_count(folio) / GUP_PIN_COUNTING_BIAS;
}

/*
 * Mark in @shared the pages some pin other than this region's holds too.
 * Consecutive pages of one folio are counted together: a user region
 * (@own_pin) holds one pin on each of them, so the folio has more pins
 * than that only if someone else (or this region, elsewhere in its range)
 * holds one too; a dma-buf region holds none.
 */
static void hl_ipc_share_mark_pins(struct page **pages, unsigned long n,
				   bool own_pin, unsigned long *shared)
{
	unsigned long i, run;
	struct folio *folio;

	for (i = 0; i < n; i += run) {
		folio = page_folio(pages[i]);
		for (run = 1; i + run < n; run++)
			if (pages[i + run] != nth_page(pages[i], run) ||
			    page_folio(pages[i + run]) != folio)
				break;
		if (hl_ipc_folio_pins(folio) > (own_pin ? run : 0))
			bitmap_set(shared, i, run);
		if (!(i % HL_IPC_SHARE_STEP))
			cond_resched();
	}
}

/* Mark in @shared the pages a dma-buf region holds. */
static void hl_ipc_share_mark_frames(struct page **pages, unsigned long n,
				     unsigned long *shared)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (hl_ipc_frames_held(pages[i]))
			__set_bit(i, shared);
		if (!(i % HL_IPC_SHARE_STEP))
			cond_resched();
	}
}

static void hl_ipc_share_add(struct hl_ipc_share *t, unsigned long pfn,
			     unsigned long idx)
{
	unsigned long mask = (1UL << t->bits) - 1;
	unsigned long h = hash_long(pfn, t->bits);

	while (t->slot[h].idx)
		h = (h + 1) & mask;
	t->slot[h].pfn = pfn;
	t->slot[h].idx = idx + 1;
}

/*
 * Note which of the region's pages (r->pages, r->npages) another region
 * may hold too.  A dma-buf region also counts its frames, which
 * hl_ipc_share_free() forgets.
 */
int hl_ipc_share_scan(struct hl_ipc_region *r)
{
	bool user = r->type == HL_IPC_REGION_USER;
	unsigned long *shared, count, i;
	struct hl_ipc_share *t;
	unsigned int bits;
	int ret = 0;

	shared = bitmap_zalloc(r->npages, GFP_KERNEL_ACCOUNT);
	if (!shared)
		return -ENOMEM;
	if (!user) {
		ret = hl_ipc_frames_add(r->pages, r->npages, shared);
		if (ret)
			goto out;
		r->frames_counted = true;
	}
	/*
	 * Our pins or counts visible before we read the others', as another
	 * region's are before it reads ours: of two regions taking one page
	 * at the same time, at least one sees the other.
	 */
	smp_mb();
	hl_ipc_share_mark_pins(r->pages, r->npages, user, shared);
	if (user)
		hl_ipc_share_mark_frames(r->pages, r->npages, shared);
	count = bitmap_weight(shared, r->npages);
	if (!count)
		goto out;

	/* At most three quarters full, so that probes stay short. */
	bits = max(ilog2(roundup_pow_of_two(count + count / 3 + 1)), 4);
	t = kvzalloc(struct_size(t, slot, 1UL << bits), GFP_KERNEL_ACCOUNT);
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	t->bits = bits;
	t->count = count;
	for_each_set_bit(i, shared, r->npages) {
		hl_ipc_share_add(t, page_to_pfn(r->pages[i]), i);
		if (!(i % HL_IPC_SHARE_STEP))
			cond_resched();
	}
	r->share = t;
out:
	bitmap_free(shared);
	return ret;
}

void hl_ipc_share_free(struct hl_ipc_region *r)
{
	kvfree(r->share);
	r->share = NULL;
	if (r->frames_counted)
		hl_ipc_frames_del(r->pages, r->npages);
	r->frames_counted = false;
}

/* What the planning found: the distances between bytes both ends name. */
struct hl_ipc_plan {
	s64 delta;		/* dst index - src index of one shared byte */
	bool found;
	bool tangled;		/* shared at more than one distance */
};

static void hl_ipc_plan_match(struct hl_ipc_plan *p, s64 delta)
{
	if (!p->found) {
		p->found = true;
		p->delta = delta;
	} else if (delta != p->delta) {
		p->tangled = true;
	}
}

/* A range of page indices of one end of a segment. */
struct hl_ipc_window {
	const struct hl_ipc_region *r;
	unsigned long first;
	unsigned long last;
	u64 start;		/* byte of the first page where the copy starts */
};

static void hl_ipc_window_init(struct hl_ipc_window *w,
			       const struct hl_ipc_region *r, u64 off, u64 len)
{
	u64 pos = offset_in_page(r->vaddr) + off;

	w->r = r;
	w->first = pos >> PAGE_SHIFT;
	w->last = (pos + len - 1) >> PAGE_SHIFT;
	w->start = pos;
}

/*
 * Look every page of @w up among the noted pages of @o, and note the
 * distance of each match that lies in @o's window.  @w_is_src says which
 * end @w is.  0, or why the copy must stop.
 */
static int hl_ipc_plan_scan(const struct hl_ipc_job *job,
			    const struct hl_ipc_seg *seg, bool in_caller,
			    const struct hl_ipc_window *w,
			    const struct hl_ipc_window *o, bool w_is_src,
			    struct hl_ipc_plan *p)
{
	const struct hl_ipc_share *t = o->r->share;
	unsigned long i, h, j, pfn, mask;
	s64 delta;
	int ret;

	if (!t)
		return 0;
	mask = (1UL << t->bits) - 1;
	for (i = w->first; i <= w->last && !p->tangled; i++) {
		if (!((i - w->first) % HL_IPC_SHARE_STEP)) {
			ret = hl_ipc_job_check(job, seg, in_caller);
			if (ret)
				return ret;
			cond_resched();
		}
		pfn = page_to_pfn(w->r->pages[i]);
		for (h = hash_long(pfn, t->bits); t->slot[h].idx;
		     h = (h + 1) & mask) {
			if (t->slot[h].pfn != pfn)
				continue;
			j = t->slot[h].idx - 1;
			if (j < o->first || j > o->last)
				continue;
			/* Byte b of page i and of page j is the same byte. */
			delta = ((s64)j - (s64)i) * PAGE_SIZE +
				(s64)w->start - (s64)o->start;
			hl_ipc_plan_match(p, w_is_src ? delta : -delta);
		}
	}
	return 0;
}

/*
 * Plan a segment between two regions of which at least one has noted
 * pages (hl_ipc_seg_geometry() marks it): find the distances at
 * which its ends share bytes and set its geometry.  Runs before the
 * segment's first byte is copied, where the caller may sleep.
 * -EINVAL when the ends share pages at different distances.
 */
int hl_ipc_seg_plan(const struct hl_ipc_job *job, struct hl_ipc_seg *seg,
		    bool in_caller)
{
	struct hl_ipc_window s, d;
	struct hl_ipc_plan p = {};
	u64 dist;
	int ret;

	hl_ipc_window_init(&s, seg->src, seg->src_off, seg->len);
	hl_ipc_window_init(&d, seg->dst, seg->dst_off, seg->len);
	/* Within one region, a page is also itself. */
	if (seg->src == seg->dst && s.first <= d.last && d.first <= s.last)
		hl_ipc_plan_match(&p, (s64)s.start - (s64)d.start);
	ret = hl_ipc_plan_scan(job, seg, in_caller, &s, &d, true, &p);
	if (!ret)
		ret = hl_ipc_plan_scan(job, seg, in_caller, &d, &s, false, &p);
	if (ret)
		return ret;
	if (p.tangled)
		return -EINVAL;

	seg->plan = false;
	dist = p.delta < 0 ? -p.delta : p.delta;
	if (!p.found || dist >= seg->len)
		return 0;		/* no byte is both read and written */
	/*
	 * Shared bytes lie dist apart: pieces of at most dist bytes never
	 * overlap, copied back to front when a byte's destination index is
	 * below its source index.
	 */
	seg->backward = p.delta < 0;
	seg->memmove = seg->src == seg->dst;
	seg->piece = dist;
	return 0;
}
