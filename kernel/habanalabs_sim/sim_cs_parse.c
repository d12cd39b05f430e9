// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: parsing command buffers into commands.
 *
 * As on Gaudi2, a CS names its command buffers by their device address:
 * memory of the submitter mapped into the device (sim_queue.c says which
 * queues and addresses are accepted).  At submission every command
 * buffer is read from there a window at a time and parsed into commands
 * (so later writes to it cannot change a validated CS; a run of the same
 * LIN_DMA is one command, run as often as the CB repeats it), and each
 * address range a LIN_DMA or MSG_LONG names in memory is resolved in the
 * submitter's VA space, taking a reference on the memory behind it.
 * Execution (sim_cs_exec.c) therefore touches only memory the submitter
 * mapped, even if it unmaps or exits meanwhile.  A CB a CB_LIST calls is
 * read, checked and resolved here too, when the call runs.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "sim_cs.h"

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

/* The ctl bits each packet may carry besides opcode and barriers. */
#define MSG_CTL_ALLOWED (NOP_CTL_ALLOWED | GAUDI2_PKT_MSG_CTL_WO_NS_MASK)
#define MSG_SHORT_CTL_ALLOWED (MSG_CTL_ALLOWED |			\
			       GAUDI2_PKT_SHORT_CTL_ADDR_MASK |		\
			       GAUDI2_PKT_SHORT_CTL_BASE_MASK)

static u32 sim_pkt_word(const u8 *pkt, unsigned int i)
{
	return le32_to_cpup((const __le32 *)(pkt + 4 * i));
}

/* Frees a CB's commands and the memory references they hold. */
void sim_frame_free(struct sim_frame *f)
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
int sim_parse_packet(struct sim_device *sdev, const u8 *pkt, u32 left,
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
int sim_parse_frame(struct sim_ctx *ctx, u64 va, u32 size,
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
int sim_job_build(struct sim_ctx *ctx, const struct hl_cs_chunk *ch,
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

	rc = sim_parse_frame(ctx, ch->cb_handle, ch->cb_size, &job->own, fence);
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
int sim_frame_resolve(struct sim_ctx *ctx, struct sim_frame *f)
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

int sim_cs_resolve(struct sim_ctx *ctx, struct sim_cs *cs)
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

/*
 * A CB_LIST's table entry: a CP_DMA to the CP itself, naming the CB it
 * calls.  0 with the CB's address and size (0: an empty CB), or -EIO.
 */
int sim_parse_call(const u8 *entry, u64 *cb_va, u32 *cb_size)
{
	u32 ctl = sim_pkt_word(entry, 1);

	if ((ctl & ~(NOP_CTL_ALLOWED | GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK)) ||
	    (ctl & GAUDI2_PKT_CTL_OPCODE_MASK) !=
		    GAUDI2_PACKET_CP_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT ||
	    !(ctl & GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK))
		return -EIO;
	*cb_size = sim_pkt_word(entry, 0);
	*cb_va = le64_to_cpup((const __le64 *)(entry + 8));
	return 0;
}
