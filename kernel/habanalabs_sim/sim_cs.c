// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: command submission on the PDMA and EDMA queues and the
 * queue managers that execute it, plus WAIT_CS.
 *
 * As on Gaudi2, a CS names its command buffers by their device address:
 * memory of the submitter mapped into the device (sim_queue.c says which
 * queues and addresses are accepted).  At submission every command
 * buffer is read from there a window at a time and parsed into commands
 * (so later writes to it cannot change a validated CS; a run of the same
 * LIN_DMA is one command, run as often as the CB repeats it), and each
 * address range a LIN_DMA or MSG_LONG names in memory is resolved in the
 * submitter's VA space, taking a reference on the memory behind it.
 * Execution, on the device's ordered workqueue, therefore touches only
 * memory the submitter mapped, even if it unmaps or exits meanwhile.
 *
 * The packets a queue runs: NOP; LIN_DMA (a copy, swapping the bytes of
 * 16-, 32- or 64-bit elements if asked; no memset); MSG_LONG to memory or
 * to the sync manager and queue fences, MSG_SHORT to the sync manager
 * (sim_sm.c); FENCE, which waits for the queue's fence counter; STOP,
 * which ends the CB; CP_DMA, which hands a CB to the queue manager's
 * lower CP (its commands run in its place); LOAD_AND_EXE into the CP's
 * predicates, which decide whether the packets that name one run, or
 * into its scalars, and the packet they hold; CB_LIST, which calls the
 * CB a table entry names by an index read as it runs (that CB is read,
 * checked and resolved then, and an error in it fails the CS).  The
 * jobs of a CS run as the queues of the device do, side by side: a queue
 * that waits on a fence lets the others run, and a CS whose queues all
 * wait on fences that none of them will signal waits, as on the device,
 * until it times out or its owner closes.  WREG32 addresses the
 * registers of the queue's own engine block, which the emulation does
 * not have: refused, as are the other packets (WREG_BULK, REPEAT,
 * MSG_PROT, ARB_POINT, CP_DMA to the upper CP outside a CB_LIST table, a
 * predicated CP_DMA or STOP) with EINVAL.
 *
 * A CS has a deadline (its own timeout, or cs_timeout_s): one that has
 * not completed by then is abandoned with ETIMEDOUT, recorded for
 * HL_INFO_CS_TIMEOUT_EVENT and signalled to the open's eventfd, and
 * counted as the reset the real driver would do.  The other CS types
 * answer as on a Gaudi2 whose queues have no sync streams, no staged
 * submissions and no engine cores.
 */
#include <linux/bsearch.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/swab.h>
#include <linux/uaccess.h>

#include "sim.h"

enum sim_cmd_kind {
	SIM_CMD_DMA,			/* LIN_DMA: copy len bytes */
	SIM_CMD_MEM_WRITE,		/* MSG_LONG to memory: value to dst */
	SIM_CMD_REG_WRITE,		/* MSG_LONG/SHORT: value to reg */
	SIM_CMD_FENCE,			/* FENCE */
	SIM_CMD_LOAD_PRED,		/* LOAD_AND_EXE: predicates from src */
	SIM_CMD_SCALARS,		/* LOAD_AND_EXE: scalars, packet in them */
	SIM_CMD_CB_LIST,		/* CB_LIST: index at src, table at dst_va */
	SIM_CMD_CP_DMA,			/* parsing only: a lower CB to read */
	SIM_CMD_SOB_SIGNAL,		/* signal CS: write to reserved SOB reg */
	SIM_CMD_SOB_WAIT,		/* wait CS: until SOB reg reaches value */
};

/*
 * One command of a job, as parsed from its CB.  Consecutive LIN_DMA
 * packets that are the same copy (a bandwidth test's thousands) are one
 * command run @repeat times: the kernel memory a CS holds grows with the
 * distinct commands of its CBs, not with their length.
 */
struct sim_cmd {
	u8 kind;
	u8 swap;			/* DMA: bytes swapped per element, or 0 */
	u8 fence_id, fence_target, fence_dec;
	u8 lower;			/* on the lower CP (its fences, predicates) */
	u8 pred;			/* runs if this predicate is set (0: always) */
	u32 repeat;			/* DMA: times it runs (1 or more) */
	u32 len;			/* DMA: bytes; MEM_WRITE: 4 */
	u32 value;			/* writes; LOAD_PRED: map; SCALARS: cfg */
	u32 reg;			/* REG_WRITE: offset from CFG_BASE */
	struct sim_bo *src;		/* reference (DMA) */
	struct sim_bo *dst;		/* reference (DMA, MEM_WRITE) */
	u64 src_off;			/* byte offset in src's pages */
	u64 dst_off;
	u64 src_va;			/* as submitted, until resolved */
	u64 dst_va;
};

/* Commands of a CB, and the next to run. */
struct sim_frame {
	struct sim_cmd *ops;
	unsigned int nops;
	unsigned int next;
};

/*
 * How deep CB_LISTs may call CBs that call CBs, and how many commands
 * the CBs they call may hold in all, in one CS: bounds on the kernel
 * memory and time a CS may take once it runs.
 */
#define SIM_MAX_CALLS		16
#define SIM_MAX_CALLED_OPS	SIM_MAX_CS_DMA_OPS

struct sim_job {
	struct sim_frame own;		/* the chunk's CB */
	struct sim_frame *calls;	/* CBs called, SIM_MAX_CALLS of them */
	unsigned int depth;		/* calls under way */
	u32 queue;
};

/* What a CS is: a user's CBs, or a sync stream's signal or wait. */
enum sim_cs_type {
	SIM_CS_EXECUTE,
	SIM_CS_SIGNAL,
	SIM_CS_WAIT,
};

struct sim_cs {
	struct kref ref;
	struct list_head node;		/* ctx->cs_pending */
	struct sim_ctx *ctx;
	struct work_struct work;
	struct completion done;
	u64 seq;
	int error;			/* -EIO aborted, -ETIMEDOUT timed out */
	bool want_timestamp;
	bool skip_reset;		/* HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT */
	ktime_t deadline;		/* KTIME_MAX: none */
	s64 timestamp_ns;
	unsigned long nops;		/* commands of all jobs */
	unsigned long qmans;		/* bit per sim_qmans[] its jobs use */
	bool has_fence;			/* may wait: never run inline */
	unsigned int called_ops;	/* commands of the CBs CB_LIST called */
	enum sim_cs_type type;
	struct sim_signal sig;		/* signal: its SOB and value */
	u64 signal_seq;			/* wait: the signal CS */
	u16 queue_jobs[SIM_QUEUE_SLOTS];	/* ring entries it takes */
	unsigned int njobs;
	struct sim_job jobs[];
};

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

#define LIN_DMA_CTL_ALLOWED (GAUDI2_PKT_CTL_OPCODE_MASK |		\
			     GAUDI2_PKT_CTL_EB_MASK |			\
			     GAUDI2_PKT_CTL_RB_MASK |			\
			     GAUDI2_PKT_CTL_MB_MASK |			\
			     GAUDI2_PKT_LIN_DMA_CTL_WRCOMP_MASK |	\
			     GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_MASK |	\
			     GAUDI2_PKT_LIN_DMA_CTL_CONTEXT_ID_MASK)

#define NOP_CTL_ALLOWED (GAUDI2_PKT_CTL_OPCODE_MASK |			\
			 GAUDI2_PKT_CTL_EB_MASK |			\
			 GAUDI2_PKT_CTL_RB_MASK |			\
			 GAUDI2_PKT_CTL_MB_MASK)

/*
 * The packets that have a predicate field, which decides whether they
 * run (MSG_LONG, FENCE, LOAD_AND_EXE here; not NOP, LIN_DMA, MSG_SHORT).
 */
#define PRED_CTL_ALLOWED (NOP_CTL_ALLOWED | GAUDI2_PKT_CTL_PRED_MASK)

#define LOAD_AND_EXE_CFG_SCALARS_ONLY (GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK | \
				       GAUDI2_PKT_LOAD_AND_EXE_CFG_ETYPE_MASK)
#define LOAD_AND_EXE_CFG_ALLOWED (LOAD_AND_EXE_CFG_SCALARS_ONLY |	   \
				  GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK |  \
				  GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK | \
				  GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK)

/* A refused CS, counted for HL_INFO_CS_COUNTERS as the driver counts it. */
static int sim_cs_drop(struct sim_ctx *ctx, enum sim_cs_drop why, int rc)
{
	atomic64_inc(&ctx->cs_drops[why]);
	atomic64_inc(&ctx->sdev->cs_drops[why]);
	return rc;
}

/* Frees a CB's commands and the memory references they hold. */
static void sim_frame_free(struct sim_frame *f)
{
	unsigned int j;

	for (j = 0; j < f->nops; j++) {
		if (f->ops[j].src)
			sim_bo_put(f->ops[j].src);
		if (f->ops[j].dst)
			sim_bo_put(f->ops[j].dst);
	}
	kvfree(f->ops);
	*f = (struct sim_frame){};
}

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

/* ---- parsing ------------------------------------------------------- */

/* The ctl bits each packet may carry besides opcode and barriers. */
#define MSG_CTL_ALLOWED (NOP_CTL_ALLOWED | GAUDI2_PKT_MSG_CTL_WO_NS_MASK)
#define MSG_SHORT_CTL_ALLOWED (MSG_CTL_ALLOWED |			\
			       GAUDI2_PKT_SHORT_CTL_ADDR_MASK |		\
			       GAUDI2_PKT_SHORT_CTL_BASE_MASK)

static u32 sim_pkt_word(const u8 *pkt, unsigned int i)
{
	return le32_to_cpup((const __le32 *)(pkt + 4 * i));
}

/*
 * A write to @addr: a register of the configuration space the queue may
 * write (sim_sm.c), or 4 bytes of memory the context mapped (resolved
 * with the CS).
 */
static int sim_parse_write(struct sim_device *sdev, u64 addr, u32 value,
			   struct sim_cmd *cmd)
{
	if (addr >= GAUDI2_CFG_BASE && addr - GAUDI2_CFG_BASE <= U32_MAX) {
		if (sim_sm_check_write(sdev, addr - GAUDI2_CFG_BASE, value))
			return -EINVAL;
		cmd->kind = SIM_CMD_REG_WRITE;
		cmd->reg = addr - GAUDI2_CFG_BASE;
	} else {
		cmd->kind = SIM_CMD_MEM_WRITE;
		cmd->dst_va = addr;
		cmd->len = sizeof(u32);
	}
	cmd->value = value;
	return 0;
}

/*
 * One packet at @pkt (@left bytes to the CB's end): its length, or
 * -EINVAL; *cmd is filled when the packet does something, else its kind
 * is left at U8_MAX.  STOP is reported as 0 bytes.
 */
static int sim_parse_packet(struct sim_device *sdev, const u8 *pkt, u32 left,
			    struct sim_cmd *cmd)
{
	u32 ctl = sim_pkt_word(pkt, 1), value = sim_pkt_word(pkt, 0);
	u32 opcode = (ctl & GAUDI2_PKT_CTL_OPCODE_MASK) >>
		     GAUDI2_PKT_CTL_OPCODE_SHIFT;
	u32 base, cfg, swap;
	bool load;
	u64 addr;

	*cmd = (struct sim_cmd){ .kind = U8_MAX, .repeat = 1 };
	switch (opcode) {
	case GAUDI2_PACKET_NOP:
		if (ctl & ~NOP_CTL_ALLOWED)
			return -EINVAL;
		return sizeof(struct gaudi2_packet_nop);
	case GAUDI2_PACKET_STOP:
		if (ctl & ~NOP_CTL_ALLOWED)
			return -EINVAL;
		return 0;
	case GAUDI2_PACKET_LIN_DMA:
		if (left < sizeof(struct gaudi2_packet_lin_dma))
			return -EINVAL;
		/* No memset in this engine. */
		if (ctl & ~LIN_DMA_CTL_ALLOWED)
			return -EINVAL;
		/* Byte swapping of 16-, 32- or 64-bit elements (1, 2, 3). */
		swap = (ctl & GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_MASK) >>
		       GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT;
		swap = swap ? 1 << swap : 0;
		if (swap && value % swap)
			return -EINVAL;
		if (value) {
			cmd->kind = SIM_CMD_DMA;
			cmd->swap = swap;
			cmd->len = value;
			cmd->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
			cmd->dst_va = le64_to_cpup((const __le64 *)(pkt + 16));
		}
		return sizeof(struct gaudi2_packet_lin_dma);
	case GAUDI2_PACKET_MSG_LONG:
		if (left < sizeof(struct gaudi2_packet_msg_long))
			return -EINVAL;
		/* Only plain writes: no timestamps. */
		if (ctl & ~(MSG_CTL_ALLOWED | GAUDI2_PKT_CTL_PRED_MASK))
			return -EINVAL;
		addr = le64_to_cpup((const __le64 *)(pkt + 8));
		if (sim_parse_write(sdev, addr, value, cmd))
			return -EINVAL;
		cmd->pred = ctl & GAUDI2_PKT_CTL_PRED_MASK;
		return sizeof(struct gaudi2_packet_msg_long);
	case GAUDI2_PACKET_MSG_SHORT:
		if (ctl & ~MSG_SHORT_CTL_ALLOWED)
			return -EINVAL;
		base = (ctl & GAUDI2_PKT_SHORT_CTL_BASE_MASK) >>
		       GAUDI2_PKT_SHORT_CTL_BASE_SHIFT;
		/* The bases gaudi2_init_qman_cp() sets; 2 and 3 stay 0. */
		if (base == GAUDI2_PKT_SHORT_BASE_MON)
			addr = GAUDI2_SM_MON_PAY_ADDRL_0;
		else if (base == GAUDI2_PKT_SHORT_BASE_SOB)
			addr = GAUDI2_SM_SOB_OBJ_0;
		else
			return -EINVAL;
		addr += GAUDI2_CFG_BASE + (ctl & GAUDI2_PKT_SHORT_CTL_ADDR_MASK);
		if (sim_parse_write(sdev, addr, value, cmd))
			return -EINVAL;
		return sizeof(struct gaudi2_packet_msg_short);
	case GAUDI2_PACKET_CP_DMA:
		if (left < sizeof(struct gaudi2_packet_cp_dma))
			return -EINVAL;
		/* To the lower CP only: no nested CB, no predicate. */
		if (ctl & ~NOP_CTL_ALLOWED)
			return -EINVAL;
		if (value) {
			cmd->kind = SIM_CMD_CP_DMA;
			cmd->len = value;
			cmd->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
		}
		return sizeof(struct gaudi2_packet_cp_dma);
	case GAUDI2_PACKET_FENCE:
		if (ctl & ~PRED_CTL_ALLOWED)
			return -EINVAL;
		cfg = value;
		if (cfg & ~(GAUDI2_PKT_FENCE_CFG_DEC_VAL_MASK |
			    GAUDI2_PKT_FENCE_CFG_TARGET_VAL_MASK |
			    GAUDI2_PKT_FENCE_CFG_ID_MASK))
			return -EINVAL;
		cmd->kind = SIM_CMD_FENCE;
		cmd->pred = ctl & GAUDI2_PKT_CTL_PRED_MASK;
		cmd->fence_dec = cfg & GAUDI2_PKT_FENCE_CFG_DEC_VAL_MASK;
		cmd->fence_target = (cfg & GAUDI2_PKT_FENCE_CFG_TARGET_VAL_MASK) >>
				    GAUDI2_PKT_FENCE_CFG_TARGET_VAL_SHIFT;
		cmd->fence_id = (cfg & GAUDI2_PKT_FENCE_CFG_ID_MASK) >>
				GAUDI2_PKT_FENCE_CFG_ID_SHIFT;
		return sizeof(struct gaudi2_packet_fence);
	case GAUDI2_PACKET_LOAD_AND_EXE:
		if (left < sizeof(struct gaudi2_packet_load_and_exe))
			return -EINVAL;
		if (ctl & ~PRED_CTL_ALLOWED)
			return -EINVAL;
		cmd->pred = ctl & GAUDI2_PKT_CTL_PRED_MASK;
		if (value & ~LOAD_AND_EXE_CFG_ALLOWED)
			return -EINVAL;
		load = value & GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK;
		if (load && !(value & GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK)) {
			/* Into the predicates, and nothing to run. */
			if (value & LOAD_AND_EXE_CFG_SCALARS_ONLY)
				return -EINVAL;
			cmd->kind = SIM_CMD_LOAD_PRED;
			cmd->value = !!(value & GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK);
			/* A map of 32 bits, or a word per predicate. */
			cmd->len = cmd->value ? sizeof(u32) :
				   GAUDI2_QM_PREDICATES * sizeof(u32);
			cmd->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
		} else if (load || (value & GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK)) {
			/* Into the scalars, and maybe run what they hold. */
			if (value & GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK)
				return -EINVAL;
			cmd->kind = SIM_CMD_SCALARS;
			cmd->value = value;
			if (load) {
				cmd->len = GAUDI2_QM_SCALARS * sizeof(u32);
				cmd->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
			}
		}
		return sizeof(struct gaudi2_packet_load_and_exe);
	case GAUDI2_PACKET_CB_LIST:
		if (left < sizeof(struct gaudi2_packet_cb_list))
			return -EINVAL;
		/* 16-byte entries only, as hl-thunk writes them. */
		if (value || (ctl & ~PRED_CTL_ALLOWED))
			return -EINVAL;
		cmd->kind = SIM_CMD_CB_LIST;
		cmd->pred = ctl & GAUDI2_PKT_CTL_PRED_MASK;
		cmd->len = sizeof(u32);
		cmd->src_va = le64_to_cpup((const __le64 *)(pkt + 8));
		cmd->dst_va = le64_to_cpup((const __le64 *)(pkt + 16));
		return sizeof(struct gaudi2_packet_cb_list);
	default:
		return -EINVAL;
	}
}

/* Whether @cmd is @prev's copy again, to be run as one more repeat. */
static bool sim_cmd_repeats(const struct sim_cmd *prev,
			    const struct sim_cmd *cmd)
{
	return prev->kind == SIM_CMD_DMA && cmd->kind == SIM_CMD_DMA &&
	       prev->swap == cmd->swap && prev->len == cmd->len &&
	       prev->src_va == cmd->src_va && prev->dst_va == cmd->dst_va &&
	       prev->repeat < U32_MAX;
}

/*
 * The queue manager reads a CB through the MMU as it runs it; the
 * emulation reads it at submission, a window at a time, so that no copy
 * of a long CB is held.  No packet is longer than SIM_PKT_MAX, so one
 * that starts in a window is whole in the window's bytes plus that much.
 */
#define SIM_CB_WINDOW	SZ_64K
#define SIM_PKT_MAX	32

/*
 * The walk of one job's CBs: the chunk's (the upper CP's) and the lower
 * CBs its CP_DMAs hand to the queue manager's lower CP, whose commands
 * are spliced in where the CP_DMA is.  The walk counts the commands
 * (@ops NULL), or fills at most @max of them into @ops.
 */
struct sim_parser {
	struct sim_ctx *ctx;
	u8 *win[2];			/* a window of the upper CB, of a lower */
	u32 win_size[2];
	struct sim_cmd *ops;
	unsigned int max;
	unsigned int n;
	struct sim_cmd last;		/* for runs of the same copy */
	bool fence;
};

static int sim_parse_add(struct sim_parser *p, const struct sim_cmd *cmd)
{
	if (sim_cmd_repeats(&p->last, cmd)) {
		p->last.repeat++;
		if (p->ops)
			p->ops[p->n - 1].repeat++;
		return 0;
	}
	if (p->ops && p->n == p->max)
		return -EINVAL;
	if (p->ops)
		p->ops[p->n] = *cmd;
	/* A CB a CB_LIST calls may hold a FENCE. */
	if (cmd->kind == SIM_CMD_FENCE || cmd->kind == SIM_CMD_CB_LIST)
		p->fence = true;
	p->last = *cmd;
	p->n++;
	return 0;
}

static int sim_parse_cb(struct sim_parser *p, struct sim_bo *bo, u64 off,
			u32 size, bool lower);

/*
 * The buffer a CB of @size bytes is read through: no larger than the CB,
 * as pages are zeroed when allocated (init_on_alloc) and most CBs are
 * small.  Kept for the second walk and for later lower CBs.
 */
static int sim_parse_window(struct sim_parser *p, bool lower, u32 size)
{
	u32 want = min_t(u32, size, SIM_CB_WINDOW + SIM_PKT_MAX);

	if (p->win_size[lower] >= want)
		return 0;
	kvfree(p->win[lower]);
	p->win[lower] = kvmalloc(want, GFP_KERNEL_ACCOUNT);
	p->win_size[lower] = p->win[lower] ? want : 0;
	return p->win[lower] ? 0 : -ENOMEM;
}

/*
 * A CP_DMA: the lower CP reads its CB through the MMU, from any memory
 * the context mapped; the lower CP takes no further CB.
 */
static int sim_parse_lower(struct sim_parser *p, const struct sim_cmd *cp)
{
	struct sim_bo *bo;
	u64 off = 0;
	int rc;

	bo = sim_mem_get(p->ctx, cp->src_va, cp->len, &off);
	if (!bo)
		return -EFAULT;
	rc = sim_parse_cb(p, bo, off, cp->len, true);
	sim_bo_put(bo);
	return rc;
}

/*
 * Validates the CB of @size bytes at @off in @bo.  The CB is the user's
 * memory and may change between the two walks: what the second one
 * validates is what runs, and a CB that grew meanwhile is refused.
 */
static int sim_parse_cb(struct sim_parser *p, struct sim_bo *bo, u64 off,
			u32 size, bool lower)
{
	struct sim_cmd cmd;
	u32 pos = 0, at, got;
	bool end;
	int len, rc;
	u8 *win;

	rc = sim_parse_window(p, lower, size);
	if (rc)
		return rc;
	win = p->win[lower];
	while (pos < size) {
		got = min_t(u32, size - pos, SIM_CB_WINDOW + SIM_PKT_MAX);
		end = got == size - pos;
		sim_bo_read(bo, off + pos, win, got);
		for (at = 0; at < got && (end || at < SIM_CB_WINDOW); at += len) {
			/* Every packet is at least 8 bytes: header and ctl. */
			if (got - at < sizeof(struct gaudi2_packet_nop))
				return -EINVAL;
			len = sim_parse_packet(p->ctx->sdev, win + at, got - at,
					       &cmd);
			if (len < 0)
				return len;
			if (cmd.kind == SIM_CMD_CP_DMA) {
				rc = lower ? -EINVAL : sim_parse_lower(p, &cmd);
				if (rc)
					return rc;
			} else if (cmd.kind == SIM_CMD_CB_LIST && lower) {
				/* Calls are the upper CP's only. */
				return -EINVAL;
			} else if (cmd.kind != U8_MAX) {
				cmd.lower = lower;
				rc = sim_parse_add(p, &cmd);
				if (rc)
					return rc;
			}
			/* The CP stops: the rest of the CB is not fetched. */
			if (!len)
				return 0;
		}
		pos += at;
		/* A CB is as long as its mapping: yield between windows. */
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Reads the CB of @size bytes at @va into its commands, in @f; *@fence
 * if any of them may wait.  -EFAULT: the CB is not mapped, or a lower CB
 * is not; -EINVAL: a bad packet; -E2BIG: more commands than a CS may
 * hold; -ENOMEM; -EINTR.  On an error @f may hold commands to free.
 */
static int sim_cb_read(struct sim_ctx *ctx, u64 va, u32 size,
		       struct sim_frame *f, bool *fence)
{
	struct sim_parser p = { .ctx = ctx, .last.kind = U8_MAX };
	struct sim_bo *bo;
	unsigned int n;
	u64 off = 0;
	int rc;

	bo = sim_mem_get(ctx, va, size, &off);
	if (!bo)
		return -EFAULT;
	rc = sim_parse_cb(&p, bo, off, size, false);
	if (rc)
		goto out;
	n = p.n;
	if (!n)
		goto out;
	/* Bounds the kernel memory before allocating it. */
	if (n > SIM_MAX_CS_DMA_OPS) {
		rc = -E2BIG;
		goto out;
	}
	f->ops = kvcalloc(n, sizeof(*f->ops), GFP_KERNEL_ACCOUNT);
	if (!f->ops) {
		rc = -ENOMEM;
		goto out;
	}
	p = (struct sim_parser){ .ctx = ctx, .win = { p.win[0], p.win[1] },
				 .win_size = { p.win_size[0], p.win_size[1] },
				 .ops = f->ops, .max = n, .last.kind = U8_MAX };
	rc = sim_parse_cb(&p, bo, off, size, false);
	f->nops = p.n;
	*fence |= p.fence;
out:
	kvfree(p.win[0]);
	kvfree(p.win[1]);
	sim_bo_put(bo);
	return rc;
}

/*
 * Turns a chunk into a job: the driver's checks of the queue and of the
 * CB's address (sim_queue.c), then the CB's packets.  A refused queue is
 * a validation drop; a CB the queue cannot fetch, or a bad packet, a
 * parsing drop; more distinct commands than a CS may hold, a validation
 * drop.
 */
static int sim_job_build(struct sim_ctx *ctx, const struct hl_cs_chunk *ch,
			 struct sim_job *job, bool *fence)
{
	unsigned int i;
	int rc;

	rc = sim_queue_validate(ch);
	if (rc)
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, rc);
	if (ch->collective_engine_id)
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	for (i = 0; i < ARRAY_SIZE(ch->pad); i++)
		if (ch->pad[i])
			return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	if (!sim_queue_enabled(ch->queue_index))
		return sim_cs_drop(ctx, SIM_DROP_PARSING, -EINVAL);
	if (!sim_queue_cb_address_valid(ch->cb_handle, ch->cb_size))
		return sim_cs_drop(ctx, SIM_DROP_PARSING, -EFAULT);
	job->queue = ch->queue_index;
	/* Nothing to fetch: the queue runs an empty CB. */
	if (!ch->cb_size)
		return 0;

	rc = sim_cb_read(ctx, ch->cb_handle, ch->cb_size, &job->own, fence);
	switch (rc) {
	case 0:
	case -EINTR:
		return rc;
	case -ENOMEM:
		return sim_cs_drop(ctx, SIM_DROP_OUT_OF_MEM, rc);
	case -E2BIG:
		return sim_cs_drop(ctx, SIM_DROP_VALIDATION, -EINVAL);
	default:
		return sim_cs_drop(ctx, SIM_DROP_PARSING, rc);
	}
}

/* Whether @op reads memory it names: its source, resolved early. */
static bool sim_cmd_reads(const struct sim_cmd *op)
{
	return op->kind == SIM_CMD_DMA || op->kind == SIM_CMD_LOAD_PRED ||
	       op->kind == SIM_CMD_CB_LIST ||
	       (op->kind == SIM_CMD_SCALARS && op->len);
}

/*
 * Resolves the memory a CB's commands name, each with a reference of its
 * own: at submission, and for a CB a CB_LIST calls, when it is called.
 */
static int sim_frame_resolve(struct sim_ctx *ctx, struct sim_frame *f)
{
	unsigned int j;

	for (j = 0; j < f->nops; j++) {
		struct sim_cmd *op = &f->ops[j];

		if (sim_cmd_reads(op)) {
			op->src = sim_mem_get(ctx, op->src_va, op->len,
					      &op->src_off);
			if (!op->src)
				return -EFAULT;
		}
		if (op->kind == SIM_CMD_DMA || op->kind == SIM_CMD_MEM_WRITE) {
			op->dst = sim_mem_get(ctx, op->dst_va, op->len,
					      &op->dst_off);
			if (!op->dst)
				return -EFAULT;
		}
		if (!(j % 1024))
			cond_resched();
	}
	return 0;
}

static int sim_cs_resolve(struct sim_ctx *ctx, struct sim_cs *cs)
{
	unsigned int i;
	int rc;

	for (i = 0; i < cs->njobs; i++) {
		rc = sim_frame_resolve(ctx, &cs->jobs[i].own);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- execution ----------------------------------------------------- */

/* 0 to go on; -EIO when the owner closes, -ETIMEDOUT past the deadline. */
static int sim_cs_check(struct sim_cs *cs)
{
	if (atomic_read(&cs->ctx->aborting))
		return -EIO;
	if (ktime_after(ktime_get(), cs->deadline))
		return -ETIMEDOUT;
	return 0;
}

/* A copy that swaps the bytes of each 2-, 4- or 8-byte element. */
static int sim_dma_swap_copy(struct sim_cs *cs, const struct sim_cmd *op)
{
	u64 buf[32];	/* a multiple of every element: none is split */
	u32 done = 0, n, i;
	int rc;

	while (done < op->len) {
		n = min_t(u32, op->len - done, sizeof(buf));
		sim_bo_read(op->src, op->src_off + done, buf, n);
		for (i = 0; i < n / op->swap; i++) {
			if (op->swap == 2)
				swab16s((u16 *)buf + i);
			else if (op->swap == 4)
				swab32s((u32 *)buf + i);
			else
				swab64s(buf + i);
		}
		sim_bo_write(op->dst, op->dst_off + done, buf, n);
		done += n;
		if (!(done % SZ_64K)) {
			rc = sim_cs_check(cs);
			if (rc)
				return rc;
			cond_resched();
		}
	}
	return 0;
}

static int sim_dma_copy(struct sim_cs *cs, const struct sim_cmd *op)
{
	u64 soff = op->src_off, doff = op->dst_off;
	u32 left = op->len, chunk, n = 0;
	void *s, *d;
	int rc;

	if (op->swap)
		return sim_dma_swap_copy(cs, op);

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
			rc = sim_cs_check(cs);
			if (rc)
				return rc;
			cond_resched();
		}
	}
	return 0;
}

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

static int sim_page_cmp(const void *a, const void *b)
{
	const struct page *x = *(struct page * const *)a;
	const struct page *y = *(struct page * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether a copy's source and destination share a page, so that each
 * repetition reads what the last one wrote.  Pages, not addresses: two
 * mappings may hold the same memory.  True when it cannot tell.
 */
static bool sim_dma_overlaps(const struct sim_cmd *op)
{
	pgoff_t s0 = op->src_off >> PAGE_SHIFT, d0 = op->dst_off >> PAGE_SHIFT;
	pgoff_t ns = ((op->src_off + op->len - 1) >> PAGE_SHIFT) - s0 + 1;
	pgoff_t nd = ((op->dst_off + op->len - 1) >> PAGE_SHIFT) - d0 + 1;
	struct page **src;
	bool hit = false;
	pgoff_t i;

	src = kvmalloc_array(ns, sizeof(*src), GFP_KERNEL);
	if (!src)
		return true;
	memcpy(src, op->src->pages + s0, ns * sizeof(*src));
	sort(src, ns, sizeof(*src), sim_page_cmp, NULL);
	for (i = 0; i < nd && !hit; i++)
		hit = bsearch(&op->dst->pages[d0 + i], src, ns, sizeof(*src),
			      sim_page_cmp);
	kvfree(src);
	return hit;
}

/*
 * A LIN_DMA, as many times as its CB repeats it; stops when told to.
 * Copying the same bytes again between pages that do not overlap changes
 * nothing, so such a run (a bandwidth test's thousands of copies) is
 * done once; an overlapping one (an in-place swap) runs every time.
 */
static int sim_dma_run(struct sim_cs *cs, const struct sim_cmd *op)
{
	u32 i, n = op->repeat;
	int rc;

	if (n > 1 && !sim_dma_overlaps(op))
		n = 1;
	for (i = 0; i < n; i++) {
		rc = sim_dma_copy(cs, op);
		if (!rc)
			rc = sim_cs_check(cs);
		if (rc)
			return rc;
		cond_resched();
	}
	return 0;
}

/* The predicates a LOAD_AND_EXE names, as a map: bit i is predicate i. */
static u32 sim_pred_map(const struct sim_cmd *op)
{
	__le32 words[GAUDI2_QM_PREDICATES];
	u32 map = 0;
	unsigned int i;

	sim_bo_read(op->src, op->src_off, words, op->len);
	if (op->value)
		return le32_to_cpu(words[0]);
	for (i = 0; i < GAUDI2_QM_PREDICATES; i++)
		if (le32_to_cpu(words[i]) & 1)
			map |= BIT(i);
	return map;
}

/*
 * Runs the packet LOAD_AND_EXE finds in the scalars: one that writes a
 * word (MSG_LONG, MSG_SHORT) or NOP, checked as any packet of a CB but
 * only now, as its bytes were only now known.  The device reports
 * anything else, or a write to memory not mapped, as an error of the
 * queue: the CS fails (EIO, as an aborted one).
 */
static int sim_scalars_exe(struct sim_cs *cs, const struct sim_job *job,
			   const struct sim_cmd *op, const __le32 *r)
{
	struct sim_device *sdev = cs->ctx->sdev;
	bool upper = op->value & GAUDI2_PKT_LOAD_AND_EXE_CFG_ETYPE_MASK;
	struct sim_cmd cmd;
	struct sim_bo *bo;
	u64 off;
	int len;

	/* All four registers, or the upper two (R2, R3). */
	len = sim_parse_packet(sdev, (const u8 *)(r + (upper ? 2 : 0)),
			       (upper ? 2 : 4) * sizeof(u32), &cmd);
	if (len <= 0)
		return -EIO;
	if (cmd.pred && !sim_sm_pred(sdev, job->queue, op->lower, cmd.pred))
		return 0;
	switch (cmd.kind) {
	case U8_MAX:
		return 0;
	case SIM_CMD_REG_WRITE:
		sim_sm_reg_write(cs->ctx, cmd.reg, cmd.value);
		return 0;
	case SIM_CMD_MEM_WRITE:
		bo = sim_mem_get(cs->ctx, cmd.dst_va, cmd.len, &off);
		if (!bo)
			return -EIO;
		sim_bo_write(bo, off, &cmd.value, sizeof(cmd.value));
		sim_bo_put(bo);
		return 0;
	}
	return -EIO;
}

static int sim_scalars_run(struct sim_cs *cs, const struct sim_job *job,
			   const struct sim_cmd *op)
{
	__le32 *r = sim_sm_scalars(cs->ctx->sdev, job->queue, op->lower);

	if (!r)
		return -EIO;
	if (op->len)
		sim_bo_read(op->src, op->src_off, r, op->len);
	if (!(op->value & GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK))
		return 0;
	return sim_scalars_exe(cs, job, op, r);
}

/* One command that does not wait. */
static int sim_cmd_run(struct sim_cs *cs, const struct sim_job *job,
		       const struct sim_cmd *op)
{
	switch (op->kind) {
	case SIM_CMD_SCALARS:
		return sim_scalars_run(cs, job, op);
	case SIM_CMD_LOAD_PRED:
		sim_sm_pred_load(cs->ctx->sdev, job->queue, op->lower,
				 sim_pred_map(op));
		return 0;
	case SIM_CMD_DMA:
		return sim_dma_run(cs, op);
	case SIM_CMD_MEM_WRITE:
		sim_bo_write(op->dst, op->dst_off, &op->value, sizeof(op->value));
		return 0;
	case SIM_CMD_REG_WRITE:
		sim_sm_reg_write(cs->ctx, op->reg, op->value);
		return 0;
	case SIM_CMD_SOB_SIGNAL:
		sim_sm_sob_signal(cs->ctx, op->reg, op->value);
		return 0;
	}
	return 0;
}

/*
 * CB_LIST: reads the index, then the table's entry, which must be a
 * CP_DMA to the CP itself, and has the job run that CB before it goes
 * on.  What the index and the table hold is known only now, so the CB is
 * read and checked now: a bad entry or CB, memory not mapped, or calls
 * past the bounds are an error of the queue, which fails the CS (EIO).
 */
static int sim_cb_list_call(struct sim_cs *cs, struct sim_job *job,
			    const struct sim_cmd *op)
{
	struct sim_frame *f;
	__le32 index;
	u8 entry[16];
	u64 off, at;
	struct sim_bo *bo;
	bool fence = false;
	u32 ctl;
	int rc;

	if (job->depth == SIM_MAX_CALLS)
		return -EIO;
	sim_bo_read(op->src, op->src_off, &index, sizeof(index));
	if (check_add_overflow(op->dst_va,
			       (u64)le32_to_cpu(index) * sizeof(entry), &at))
		return -EIO;
	bo = sim_mem_get(cs->ctx, at, sizeof(entry), &off);
	if (!bo)
		return -EIO;
	sim_bo_read(bo, off, entry, sizeof(entry));
	sim_bo_put(bo);
	ctl = sim_pkt_word(entry, 1);
	if ((ctl & ~(NOP_CTL_ALLOWED | GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK)) ||
	    (ctl & GAUDI2_PKT_CTL_OPCODE_MASK) !=
		    GAUDI2_PACKET_CP_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT ||
	    !(ctl & GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK))
		return -EIO;

	if (!job->calls) {
		job->calls = kcalloc(SIM_MAX_CALLS, sizeof(*job->calls),
				     GFP_KERNEL);
		if (!job->calls)
			return -EIO;
	}
	f = &job->calls[job->depth++];
	if (!sim_pkt_word(entry, 0))
		return 0;	/* an empty CB: the frame ends at once */
	rc = sim_cb_read(cs->ctx, le64_to_cpup((const __le64 *)(entry + 8)),
			 sim_pkt_word(entry, 0), f, &fence);
	if (!rc && cs->called_ops + f->nops > SIM_MAX_CALLED_OPS)
		rc = -E2BIG;
	if (!rc)
		rc = sim_frame_resolve(cs->ctx, f);
	cs->called_ops += f->nops;
	/* The frame is freed with the CS, whatever the error. */
	return rc ? -EIO : 0;
}

/* The CB @job runs now: the last one it called, or its own. */
static struct sim_frame *sim_job_frame(struct sim_job *job)
{
	return job->depth ? &job->calls[job->depth - 1] : &job->own;
}

/*
 * Runs the jobs as the queues would, side by side: each until it ends or
 * waits on a fence, then the next, while any of them moves.
 */
static int sim_cs_run_jobs(struct sim_cs *cs)
{
	struct sim_device *sdev = cs->ctx->sdev;
	bool moved, waiting;
	unsigned int i;
	int rc;

	do {
		moved = false;
		waiting = false;
		for (i = 0; i < cs->njobs; i++) {
			struct sim_job *job = &cs->jobs[i];
			struct sim_frame *f;

			for (;;) {
				const struct sim_cmd *op;

				f = sim_job_frame(job);
				if (f->next == f->nops) {
					if (!job->depth)
						break;
					/* A called CB ended: back to its caller. */
					sim_frame_free(f);
					job->depth--;
					moved = true;
					continue;
				}
				op = &f->ops[f->next];
				/* Every command is bounded: the CPU is handed on between them. */
				cond_resched();
				rc = sim_cs_check(cs);
				if (rc)
					return rc;
				if (op->pred &&
				    !sim_sm_pred(sdev, job->queue, op->lower,
						 op->pred)) {
					/* Its predicate is clear: skipped. */
				} else if (op->kind == SIM_CMD_FENCE) {
					if (!sim_sm_fence_pass(sdev, job->queue,
							       op->lower,
							       op->fence_id,
							       op->fence_target,
							       op->fence_dec)) {
						waiting = true;
						break;
					}
				} else if (op->kind == SIM_CMD_SOB_WAIT) {
					if (!sim_sm_sob_reached(sdev, op->reg,
								op->value)) {
						waiting = true;
						break;
					}
				} else if (op->kind == SIM_CMD_CB_LIST) {
					/* Goes on after it when the call ends. */
					f->next++;
					moved = true;
					rc = sim_cb_list_call(cs, job, op);
					if (rc)
						return rc;
					continue;
				} else {
					rc = sim_cmd_run(cs, job, op);
					if (rc)
						return rc;
				}
				f->next++;
				moved = true;
			}
		}
	} while (waiting && moved);
	if (!waiting)
		return 0;
	/*
	 * Every queue left waits on a fence no queue of this CS will raise:
	 * as on the device, the CS hangs until its deadline or its owner
	 * closes.
	 */
	while (!(rc = sim_cs_check(cs)))
		wait_event_interruptible_timeout(cs->ctx->abort_wq,
						 atomic_read(&cs->ctx->aborting),
						 HZ / 10);
	return rc;
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
