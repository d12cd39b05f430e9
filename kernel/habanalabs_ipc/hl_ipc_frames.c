// SPDX-License-Identifier: GPL-2.0
/*
 * Which page frames dma-buf regions hold.
 *
 * Two dma-bufs can export one allocation (two exports of one device
 * buffer at different offsets, a udmabuf made twice of one memfd), and a
 * user region can pin the pages of a dma-buf's mmap: one memory under
 * different names.  An exporter does not tell, but where the CPU engine
 * copies, the kernel mapping shows the pages, and the pages are the
 * memory.  User regions see each other through their pins (every page
 * they hold is pinned, hl_ipc_share.c); dma-buf regions pin nothing, so
 * they count the frames they hold here, and note at registration which
 * ones another region holds too.
 *
 * A frame is counted once per time a dma-buf region maps it.  Adding
 * happens under a mutex, so of two regions that add one frame, the second
 * sees the first; lookups (from user regions) run under RCU.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "hl_ipc.h"

/* Frames between reschedules. */
#define HL_IPC_FRAMES_STEP	1024

struct hl_ipc_frame {
	struct rhash_head node;
	unsigned long pfn;
	unsigned int count;		/* under hl_ipc_frames_lock */
	struct rcu_head rcu;
};

static const struct rhashtable_params hl_ipc_frame_params = {
	.key_len = sizeof(unsigned long),
	.key_offset = offsetof(struct hl_ipc_frame, pfn),
	.head_offset = offsetof(struct hl_ipc_frame, node),
	.automatic_shrinking = true,
};

static struct rhashtable hl_ipc_frames;
static DEFINE_MUTEX(hl_ipc_frames_lock);

int hl_ipc_frames_init(void)
{
	return rhashtable_init(&hl_ipc_frames, &hl_ipc_frame_params);
}

void hl_ipc_frames_fini(void)
{
	/* Every region is gone, and with it every frame. */
	rhashtable_destroy(&hl_ipc_frames);
}

static void hl_ipc_frame_put(unsigned long pfn)
{
	struct hl_ipc_frame *f;

	f = rhashtable_lookup_fast(&hl_ipc_frames, &pfn, hl_ipc_frame_params);
	if (WARN_ON_ONCE(!f))
		return;
	if (--f->count)
		return;
	rhashtable_remove_fast(&hl_ipc_frames, &f->node, hl_ipc_frame_params);
	kfree_rcu(f, rcu);
}

/* Forget the first @n of @pages, which hl_ipc_frames_add() counted. */
void hl_ipc_frames_del(struct page **pages, unsigned long n)
{
	unsigned long i;

	mutex_lock(&hl_ipc_frames_lock);
	for (i = 0; i < n; i++) {
		hl_ipc_frame_put(page_to_pfn(pages[i]));
		if (!(i % HL_IPC_FRAMES_STEP))
			cond_resched();
	}
	mutex_unlock(&hl_ipc_frames_lock);
}

/*
 * Count the @n frames of @pages, marking in @shared (n bits, zeroed) the
 * ones a dma-buf region already held, this one included.  0, or -ENOMEM
 * with nothing counted.
 */
int hl_ipc_frames_add(struct page **pages, unsigned long n,
		      unsigned long *shared)
{
	struct hl_ipc_frame *f, *old;
	unsigned long i, pfn;
	int ret = 0;

	mutex_lock(&hl_ipc_frames_lock);
	for (i = 0; i < n; i++) {
		pfn = page_to_pfn(pages[i]);
		f = rhashtable_lookup_fast(&hl_ipc_frames, &pfn,
					   hl_ipc_frame_params);
		if (f) {
			f->count++;
			__set_bit(i, shared);
			continue;
		}
		f = kmalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
		if (!f) {
			ret = -ENOMEM;
			break;
		}
		f->pfn = pfn;
		f->count = 1;
		old = rhashtable_lookup_get_insert_fast(&hl_ipc_frames,
							&f->node,
							hl_ipc_frame_params);
		if (old) {
			/* Only an allocation failure: the lock excludes a clash. */
			kfree(f);
			ret = IS_ERR(old) ? PTR_ERR(old) : -EEXIST;
			break;
		}
		if (!(i % HL_IPC_FRAMES_STEP))
			cond_resched();
	}
	mutex_unlock(&hl_ipc_frames_lock);
	if (ret) {
		hl_ipc_frames_del(pages, i);
		return ret == -EEXIST ? -ENOMEM : ret;
	}
	return 0;
}

/* Whether a dma-buf region holds the frame of @page. */
bool hl_ipc_frames_held(struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	bool held;

	rcu_read_lock();
	held = rhashtable_lookup(&hl_ipc_frames, &pfn, hl_ipc_frame_params);
	rcu_read_unlock();
	return held;
}
