// SPDX-License-Identifier: GPL-2.0
/*
 * Per-context view in /proc/<pid>/fdinfo/<fd> of an open /dev/hl_ipc:
 * the regions the context registered and the channels it created, with
 * their counters.  procfs lets only the process's owner (and root) read
 * it, so it shows what a process holds without a world-readable list.
 * The format is in Documentation/uapi-hl-ipc.md ("fdinfo").
 */
#include <linux/fs.h>
#include <linux/seq_file.h>

#include "hl_ipc.h"

static const char *hl_ipc_region_type_name(u32 type)
{
	return type == HL_IPC_REGION_DMABUF ? "dmabuf" : "user";
}

static void hl_ipc_fdinfo_region(struct seq_file *m, struct hl_ipc_region *r)
{
	u64 pinned = r->type == HL_IPC_REGION_USER ?
		     (u64)r->npages << PAGE_SHIFT : 0;

	seq_printf(m, "hl_ipc-region:\tcookie=0x%016llx type=%s flags=0x%x size=%llu pinned=%llu dev=%u:%u:%u cpu=%d\n",
		   r->cookie, hl_ipc_region_type_name(r->type), r->flags,
		   r->size, pinned, r->dev.kind, r->dev.major, r->dev.index,
		   !!r->vaddr);
}

static void hl_ipc_fdinfo_channel(struct seq_file *m, struct hl_ipc_channel *ch)
{
	u64 submitted, completed, copies, bytes, dma_bytes;
	bool busy;

	spin_lock(&ch->lock);
	submitted = ch->next_seq;
	completed = ch->completed_seq;
	busy = !!ch->running;
	copies = ch->copies;
	bytes = ch->bytes;
	dma_bytes = ch->dma_bytes;
	spin_unlock(&ch->lock);
	seq_printf(m, "hl_ipc-channel:\tid=%u src=%u:%u:%u dst=%u:%u:%u submitted=%llu completed=%llu busy=%d copies=%llu bytes=%llu errors=%lld dma_bytes=%llu\n",
		   ch->id, ch->src.kind, ch->src.major, ch->src.index,
		   ch->dst.kind, ch->dst.major, ch->dst.index,
		   submitted, completed, busy, copies, bytes,
		   (s64)atomic64_read(&ch->failures), dma_bytes);
}

void hl_ipc_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct hl_ipc_ctx *ctx = file->private_data;
	struct hl_ipc_channel *ch;
	struct hl_ipc_region *r;
	unsigned long id;

	/*
	 * Regions leave ctx->regions and channels leave ctx->channels only
	 * under ctx->lock, and both hold a reference while listed there.
	 */
	mutex_lock(&ctx->lock);
	seq_printf(m, "hl_ipc-abi:\t%u\n", HL_IPC_ABI_VERSION);
	seq_printf(m, "hl_ipc-regions:\t%u\n", ctx->nregions);
	seq_printf(m, "hl_ipc-channels:\t%u\n", ctx->nchannels);
	seq_printf(m, "hl_ipc-lookup-failures:\t%lld\n",
		   (s64)atomic64_read(&ctx->lookup_failures));
	list_for_each_entry(r, &ctx->regions, node)
		hl_ipc_fdinfo_region(m, r);
	xa_for_each(&ctx->channels, id, ch)
		hl_ipc_fdinfo_channel(m, ch);
	mutex_unlock(&ctx->lock);
}
