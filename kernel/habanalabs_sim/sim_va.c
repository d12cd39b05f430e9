// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: the device VA space of a context.  Mappings are kept in
 * an rbtree by address, so finding the mapping of an address costs
 * O(log n).  Free space is the never-used tail of each range plus the holes
 * unmapping left (an rbtree by address, merged with their neighbours), and
 * a mapping is placed first-fit in a hole, else at the tail: as the real
 * driver's free-block lists, the cost grows with fragmentation, not with
 * the number of mappings.  As the driver's VA blocks, neighbouring
 * mappings may touch: no guard page separates them (a LIN_DMA range must
 * lie in one mapping all the same).  All of it runs under ctx->lock.
 */
#include <linux/align.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "sim.h"

struct sim_va_hole {
	struct rb_node node;		/* space->holes, by start */
	u64 start;
	u64 end;			/* exclusive */
};

void sim_va_space_init(struct sim_va_space *sp, u64 base, u64 size)
{
	sp->holes = RB_ROOT;
	sp->base = base;
	sp->top = base;
	sp->end = base + size;
}

void sim_va_space_fini(struct sim_va_space *sp)
{
	struct sim_va_hole *h, *n;

	rbtree_postorder_for_each_entry_safe(h, n, &sp->holes, node)
		kfree(h);
	sp->holes = RB_ROOT;
}

static struct sim_va_hole *sim_hole(struct rb_node *n)
{
	return n ? rb_entry(n, struct sim_va_hole, node) : NULL;
}

static void sim_hole_insert(struct sim_va_space *sp, struct sim_va_hole *h)
{
	struct rb_node **p = &sp->holes.rb_node, *parent = NULL;

	while (*p) {
		parent = *p;
		if (h->start < sim_hole(parent)->start)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&h->node, parent, p);
	rb_insert_color(&h->node, &sp->holes);
}

/* The last hole starting at or below addr, or NULL. */
static struct sim_va_hole *sim_hole_at_or_below(struct sim_va_space *sp,
						u64 addr)
{
	struct rb_node *n = sp->holes.rb_node;
	struct sim_va_hole *best = NULL;

	while (n) {
		struct sim_va_hole *h = sim_hole(n);

		if (h->start <= addr) {
			best = h;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

/*
 * Takes [start, end) out of free space, where it lies inside hole h (or
 * the tail, h NULL).  A split needs *spare, which is then consumed.
 */
static void sim_va_take(struct sim_va_space *sp, struct sim_va_hole *h,
			u64 start, u64 end, struct sim_va_hole **spare)
{
	if (!h) {
		/* The tail: what lies below start becomes a hole. */
		if (start > sp->top) {
			(*spare)->start = sp->top;
			(*spare)->end = start;
			sim_hole_insert(sp, *spare);
			*spare = NULL;
		}
		sp->top = end;
		return;
	}
	if (start == h->start && end == h->end) {
		rb_erase(&h->node, &sp->holes);
		kfree(h);
	} else if (start == h->start) {
		/* The key only grows and stays below the next hole's. */
		h->start = end;
	} else if (end == h->end) {
		h->end = start;
	} else {
		(*spare)->start = end;
		(*spare)->end = h->end;
		h->end = start;
		sim_hole_insert(sp, *spare);
		*spare = NULL;
	}
}

/* Gives [start, end) back, merging with neighbouring free space. */
static void sim_va_give(struct sim_va_space *sp, u64 start, u64 end,
			struct sim_va_hole **spare)
{
	struct sim_va_hole *prev = sim_hole_at_or_below(sp, start);
	struct sim_va_hole *next;

	next = sim_hole(prev ? rb_next(&prev->node) : rb_first(&sp->holes));
	if (prev && prev->end != start)
		prev = NULL;
	if (next && next->start != end)
		next = NULL;

	if (end == sp->top) {
		/* Back into the tail, with the hole just below it. */
		sp->top = start;
		if (prev) {
			sp->top = prev->start;
			rb_erase(&prev->node, &sp->holes);
			kfree(prev);
		}
		return;
	}
	if (prev && next) {
		prev->end = next->end;
		rb_erase(&next->node, &sp->holes);
		kfree(next);
	} else if (prev) {
		prev->end = end;
	} else if (next) {
		next->start = start;
	} else {
		(*spare)->start = start;
		(*spare)->end = end;
		sim_hole_insert(sp, *spare);
		*spare = NULL;
	}
}

/* Is [start, end) free?  Returns its hole, or NULL for the tail. */
static bool sim_va_is_free(struct sim_va_space *sp, u64 start, u64 end,
			   struct sim_va_hole **hole)
{
	struct sim_va_hole *h = sim_hole_at_or_below(sp, start);

	if (start >= sp->top) {
		*hole = NULL;
		return end <= sp->end;
	}
	*hole = h;
	return h && end <= h->end;
}

static void sim_va_link(struct sim_ctx *ctx, struct sim_va *va)
{
	struct rb_node **p = &ctx->vas.rb_node, *parent = NULL;

	while (*p) {
		parent = *p;
		if (va->start < rb_entry(parent, struct sim_va, node)->start)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	spin_lock(&ctx->vas_lock);
	rb_link_node(&va->node, parent, p);
	rb_insert_color(&va->node, &ctx->vas);
	spin_unlock(&ctx->vas_lock);
}

/*
 * Places va (size set) in sp, at hint if it is usable (aligned, inside the
 * range and free), else first-fit; an unusable hint is an error only when
 * forced.  *spare is a hole the split may consume (then set to NULL).
 */
int sim_va_place(struct sim_ctx *ctx, struct sim_va_space *sp,
		 struct sim_va *va, u64 hint, u64 align, bool force,
		 struct sim_va_hole **spare)
{
	struct sim_va_hole *h;
	struct rb_node *n;
	u64 cand;

	if (va->size > sp->end - sp->base)
		return -ENOMEM;
	if (hint) {
		if (IS_ALIGNED(hint, align) && hint >= sp->base &&
		    hint - sp->base <= sp->end - sp->base - va->size &&
		    hint <= U64_MAX - va->size &&
		    sim_va_is_free(sp, hint, hint + va->size, &h)) {
			cand = hint;
			goto found;
		}
		/* Without FORCE_HINT an unusable hint is only advice. */
		if (force)
			return -EINVAL;
	}
	for (n = rb_first(&sp->holes); n; n = rb_next(n)) {
		h = sim_hole(n);
		cand = ALIGN(h->start, align);
		if (cand >= h->start && cand < h->end && h->end - cand >= va->size)
			goto found;
	}
	h = NULL;
	cand = ALIGN(sp->top, align);
	if (cand < sp->top || cand > sp->end || sp->end - cand < va->size)
		return -ENOMEM;
found:
	sim_va_take(sp, h, cand, cand + va->size, spare);
	va->start = cand;
	sim_va_link(ctx, va);
	sim_stat_inc(SIM_STAT_MAPPING);
	return 0;
}

void sim_va_unplace(struct sim_ctx *ctx, struct sim_va_space *sp,
		    struct sim_va *va, struct sim_va_hole **spare)
{
	spin_lock(&ctx->vas_lock);
	rb_erase(&va->node, &ctx->vas);
	spin_unlock(&ctx->vas_lock);
	if (sp)
		sim_va_give(sp, va->start, va->start + va->size, spare);
	sim_stat_dec(SIM_STAT_MAPPING);
}

struct sim_va_hole *sim_va_spare_alloc(void)
{
	return kmalloc(sizeof(struct sim_va_hole), GFP_KERNEL_ACCOUNT);
}

void sim_va_spare_free(struct sim_va_hole *spare)
{
	kfree(spare);
}

/* The mapping with the largest start at or below addr, or NULL. */
static struct sim_va *sim_va_at_or_below(struct sim_ctx *ctx, u64 addr)
{
	struct rb_node *n = ctx->vas.rb_node;
	struct sim_va *best = NULL;

	while (n) {
		struct sim_va *v = rb_entry(n, struct sim_va, node);

		if (v->start <= addr) {
			best = v;
			n = n->rb_right;
		} else {
			n = n->rb_left;
		}
	}
	return best;
}

/*
 * The mapping that holds [addr, addr + len) entirely; ctx->lock or
 * ctx->vas_lock held.
 * The device sees a mapping's whole pages, as the MMU maps them: a
 * userptr mapping's first and last page hold bytes before and after the
 * range the user named, which the device reaches too.
 */
struct sim_va *sim_va_find(struct sim_ctx *ctx, u64 addr, u64 len)
{
	struct sim_va *v = sim_va_at_or_below(ctx, addr);

	if (!v || addr - v->start >= v->size ||
	    len > v->size - (addr - v->start))
		return NULL;
	return v;
}

/* The mapping whose user-visible address is exactly addr. */
struct sim_va *sim_va_lookup(struct sim_ctx *ctx, u64 addr)
{
	struct sim_va *v = sim_va_at_or_below(ctx, addr);

	return v && v->start + v->data_off == addr ? v : NULL;
}
