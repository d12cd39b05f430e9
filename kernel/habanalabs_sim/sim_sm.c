// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: the part of Gaudi2's configuration space that user
 * queues write: DCORE0's sync manager (sync objects and monitors) and the
 * fence counters of the PDMA and EDMA queue managers.
 *
 * A queue writes there with MSG_LONG (a full address) or MSG_SHORT (an
 * offset from base 0, the monitors, or base 1, the SOBs, which is where
 * gaudi2_init_qman_cp() points them).  A SOB write sets or adds to a
 * 15-bit counter; an armed monitor watches a group of eight SOBs and,
 * once its condition holds, writes its payload(s) to an address and
 * disarms.  The address is memory the context mapped (a completion word
 * in host memory), a SOB, or a queue's fence register, whose counter a
 * FENCE packet waits on.
 *
 * A monitor configured with CQ_EN writes its payload to a completion
 * queue instead (the queue's id is its PAY_ADDRL): a 32-bit entry at the
 * queue's producer index, or, in the 64-bit mode INC_MODE selects, an
 * addition to the counter at the queue's base; with LBW_EN it then
 * writes the queue's LBW_DATA to LBW_ADDR, which on the MSI-X doorbell
 * raises that interrupt (sim_irq.c).  Only the monitor's first write goes
 * to the queue; the others of WR_NUM go to their own addresses.
 *
 * The SOBs, monitors and completion queues below the first ones
 * HL_INFO_SYNC_MANAGER names are the driver's (gaudi2_set_fixed_properties():
 * CS completion, KDMA, decoders and the sync streams of sim_stream.c) and
 * refused to users.  Not emulated,
 * and refused when a CB asks for them: long (60-bit) monitors, and a
 * queue's security register.  A queue may not write to the doorbell
 * itself: only a completion queue does.
 *
 * The CPs' predicates and scalar registers, which LOAD_AND_EXE loads
 * (sim_cs.c), live here too: CP state, like the fence counters.
 *
 * All of it changes only while a CS runs, under sdev->engine, and is
 * cleared when a compute open starts, as a context switch does.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "sim.h"

#define SIM_SM_SOB_END	(GAUDI2_SM_SOB_OBJ_0 + 4 * GAUDI2_SM_NUM_SOBS)
#define SIM_SM_MON_END	(GAUDI2_SM_MON_PAY_ADDRL_0 + 6 * 4 * GAUDI2_SM_NUM_MONS)
#define SIM_SM_CQ_END	(GAUDI2_SM_CQ_INC_MODE_0 + 4 * GAUDI2_SM_NUM_CQS)
/* Bytes between one completion queue register array and the next. */
#define SIM_SM_CQ_STRIDE (GAUDI2_SM_CQ_BASE_ADDR_H_0 - GAUDI2_SM_CQ_BASE_ADDR_L_0)

/*
 * What one write from a queue sets off: a SOB write makes armed monitors
 * look at their group, a fired monitor writes up to four payloads, and
 * those may fire others.  The hardware does it in bounded time; the
 * emulation bounds a cascade in depth and in steps (monitors looked at
 * or fired), so that no CS command costs more than a few milliseconds
 * of CPU.  A monitor the cascade did not reach stays armed, and fires
 * when the next write to its group finds its condition true.  Cascades
 * cut short are counted for debugfs.
 */
#define SIM_SM_MAX_DEPTH	4
#define SIM_SM_MAX_STEPS	16384

struct sim_sm_walk {
	unsigned int depth;
	unsigned int steps;		/* left */
	bool cut;			/* ran out of steps */
};

static bool sim_sm_step(struct sim_sm_walk *w)
{
	if (!w->steps) {
		w->cut = true;
		return false;
	}
	w->steps--;
	return true;
}

int sim_sm_init(struct sim_device *sdev)
{
	sdev->sm = kvzalloc(sizeof(*sdev->sm), GFP_KERNEL);
	return sdev->sm ? 0 : -ENOMEM;
}

void sim_sm_fini(struct sim_device *sdev)
{
	kvfree(sdev->sm);
	sdev->sm = NULL;
}

void sim_sm_reset(struct sim_device *sdev)
{
	memset(sdev->sm, 0, sizeof(*sdev->sm));
}

/* The fence counter a register offset names, or NULL. */
static u32 *sim_sm_fence_reg(struct sim_sm *sm, u32 reg)
{
	const u32 span = 4 * GAUDI2_QM_FENCE_IDS * GAUDI2_QM_FENCE_CPS;
	unsigned int q, i;
	u32 base;

	if (reg & 3)
		return NULL;
	for (q = 0; q < SIM_QMANS; q++) {
		base = sim_qmans[q].fence_reg;
		if (reg < base || reg >= base + span)
			continue;
		i = (reg - base) / 4;	/* id * CPS + cp */
		return &sm->fence[q][i % GAUDI2_QM_FENCE_CPS][i / GAUDI2_QM_FENCE_CPS];
	}
	return NULL;
}

/*
 * Whether a queue may write @value to configuration register @reg: the
 * check made when a CB is parsed.  Monitor payload addresses are only
 * known when a monitor fires; sim_sm_write() drops what it cannot do.
 */
int sim_sm_check_write(struct sim_device *sdev, u32 reg, u32 value)
{
	u32 idx;

	if (reg & 3)
		return -EINVAL;
	if (reg >= GAUDI2_SM_SOB_OBJ_0 && reg < SIM_SM_SOB_END) {
		if ((reg - GAUDI2_SM_SOB_OBJ_0) / 4 < SIM_SM_FIRST_USER_SOB)
			return -EINVAL;
		return 0;
	}
	if (reg >= GAUDI2_SM_MON_PAY_ADDRL_0 && reg < GAUDI2_SM_MON_STATUS_0) {
		idx = ((reg - GAUDI2_SM_MON_PAY_ADDRL_0) / 4) % GAUDI2_SM_NUM_MONS;
		if (idx < SIM_SM_FIRST_USER_MON)
			return -EINVAL;
		if (reg >= GAUDI2_SM_MON_CONFIG_0 &&
		    (value & (GAUDI2_MON_CFG_LONG_SOB |
			      GAUDI2_MON_CFG_LONG_HIGH_GROUP)))
			return -EINVAL;
		return 0;
	}
	if (reg >= GAUDI2_SM_CQ_BASE_ADDR_L_0 && reg < SIM_SM_CQ_END) {
		idx = ((reg - GAUDI2_SM_CQ_BASE_ADDR_L_0) % SIM_SM_CQ_STRIDE) / 4;
		if (idx >= GAUDI2_SM_NUM_CQS || idx < SIM_SM_FIRST_USER_CQ)
			return -EINVAL;
		/* The security register is the driver's. */
		if (reg >= GAUDI2_SM_CQ_SEC_0 &&
		    reg < GAUDI2_SM_CQ_SEC_0 + 4 * GAUDI2_SM_NUM_CQS)
			return -EINVAL;
		return 0;
	}
	/* MON_STATUS is read-only. */
	if (reg >= GAUDI2_SM_MON_STATUS_0 && reg < SIM_SM_MON_END)
		return -EINVAL;
	/* A fence register of a queue manager the device has. */
	return sim_sm_fence_reg(sdev->sm, reg) ? 0 : -EINVAL;
}

static void sim_sm_write(struct sim_ctx *ctx, u64 addr, u32 value,
			 struct sim_sm_walk *w);

/* The SOB group a monitor watches meets its ARM condition. */
static bool sim_mon_condition(struct sim_sm *sm, const struct sim_mon *mon)
{
	u32 gid = (mon->arm & GAUDI2_MON_ARM_GID_MASK) |
		  ((mon->config & GAUDI2_MON_CFG_MSB_SID_MASK) >>
		   GAUDI2_MON_CFG_MSB_SID_SHIFT) << 8;
	u32 mask = (mon->arm & GAUDI2_MON_ARM_MASK_MASK) >>
		   GAUDI2_MON_ARM_MASK_SHIFT;
	u32 val = mon->arm >> GAUDI2_MON_ARM_VAL_SHIFT;
	bool equal = mon->arm & GAUDI2_MON_ARM_MODE_EQUAL;
	unsigned int i, n = 0;
	u32 sob;

	if (gid * 8 >= GAUDI2_SM_NUM_SOBS)
		return false;
	for (i = 0; i < 8; i++) {
		if (mask & BIT(i))
			continue;
		sob = sm->sob[gid * 8 + i];
		if (equal ? sob != val : sob < val)
			return false;
		n++;
	}
	return n;
}

static bool sim_sm_write_mem(struct sim_ctx *ctx, u64 addr, u32 value);
static bool sim_sm_add_mem64(struct sim_ctx *ctx, u64 addr, u64 value);

/*
 * A CQ_EN monitor's write to completion queue @id, then, with @lbw, the
 * queue's message to its LBW address.
 */
static void sim_cq_write(struct sim_ctx *ctx, u32 id, u32 data, bool lbw,
			 struct sim_sm_walk *w)
{
	struct sim_cq *cq;
	u64 base, lbw_addr, mask;
	bool ok;

	if (id < SIM_SM_FIRST_USER_CQ || id >= GAUDI2_SM_NUM_CQS) {
		atomic_inc(&sim_sm_lost_writes);
		return;
	}
	cq = &ctx->sdev->sm->cq[id];
	base = (u64)cq->base_h << 32 | cq->base_l;
	if (cq->inc_mode) {
		ok = sim_sm_add_mem64(ctx, base, data);
	} else {
		/* A ring of 2^SIZE_LOG2 bytes of 4-byte entries. */
		mask = cq->size_log2 < 64 ? BIT_ULL(cq->size_log2) - 1 : U64_MAX;
		ok = sim_sm_write_mem(ctx, base + (((u64)cq->pi * 4) & mask),
				      data);
		cq->pi++;
	}
	if (!ok)
		atomic_inc(&sim_sm_lost_writes);
	if (!lbw)
		return;
	lbw_addr = (u64)cq->lbw_h << 32 | cq->lbw_l;
	if (lbw_addr == GAUDI2_CFG_BASE + GAUDI2_PCIE_MSIX_DB)
		sim_irq_raise(ctx->sdev, cq->lbw_data);
	else
		sim_sm_write(ctx, lbw_addr, cq->lbw_data, w);
}

/* Fires monitor @id: its payload writes, one level deeper; it disarms. */
static void sim_mon_fire(struct sim_ctx *ctx, unsigned int id,
			 struct sim_sm_walk *w)
{
	struct sim_sm *sm = ctx->sdev->sm;
	struct sim_mon *mon = &sm->mon[id];
	unsigned int k, writes;

	mon->armed = false;
	writes = ((mon->config & GAUDI2_MON_CFG_WR_NUM_MASK) >>
		  GAUDI2_MON_CFG_WR_NUM_SHIFT) + 1;
	w->depth++;
	for (k = 0; k < writes && id + k < GAUDI2_SM_NUM_MONS; k++) {
		const struct sim_mon *p = &sm->mon[id + k];

		if (!k && (mon->config & GAUDI2_MON_CFG_CQ_EN))
			sim_cq_write(ctx, p->pay_addrl, p->pay_data,
				     mon->config & GAUDI2_MON_CFG_LBW_EN, w);
		else
			sim_sm_write(ctx, (u64)p->pay_addrh << 32 | p->pay_addrl,
				     p->pay_data, w);
	}
	w->depth--;
}

/* Every armed monitor of SOB @sob's group whose condition now holds. */
static void sim_sm_sob_changed(struct sim_ctx *ctx, unsigned int sob,
			       struct sim_sm_walk *w)
{
	struct sim_sm *sm = ctx->sdev->sm;
	unsigned int id;

	if (w->depth >= SIM_SM_MAX_DEPTH)
		return;
	for (id = SIM_SM_FIRST_USER_MON; id < GAUDI2_SM_NUM_MONS; id++) {
		struct sim_mon *mon = &sm->mon[id];
		u32 gid;

		if (!mon->armed)
			continue;
		if (!sim_sm_step(w))
			return;
		gid = (mon->arm & GAUDI2_MON_ARM_GID_MASK) |
		      ((mon->config & GAUDI2_MON_CFG_MSB_SID_MASK) >>
		       GAUDI2_MON_CFG_MSB_SID_SHIFT) << 8;
		if (gid == sob / 8 && sim_mon_condition(sm, mon))
			sim_mon_fire(ctx, id, w);
	}
}

static void sim_sob_write(struct sim_ctx *ctx, unsigned int sob, u32 value,
			  struct sim_sm_walk *w)
{
	struct sim_sm *sm = ctx->sdev->sm;
	u32 v = value & GAUDI2_SOB_VAL_MASK;

	if (value & GAUDI2_SOB_ADD_MASK)
		sm->sob[sob] = (sm->sob[sob] + v) & GAUDI2_SOB_VAL_MASK;
	else
		sm->sob[sob] = v;
	sim_sm_sob_changed(ctx, sob, w);
}

static void sim_mon_write(struct sim_ctx *ctx, u32 reg, u32 value,
			  struct sim_sm_walk *w)
{
	struct sim_sm *sm = ctx->sdev->sm;
	unsigned int id = ((reg - GAUDI2_SM_MON_PAY_ADDRL_0) / 4) %
			  GAUDI2_SM_NUM_MONS;
	struct sim_mon *mon = &sm->mon[id];

	switch ((reg - GAUDI2_SM_MON_PAY_ADDRL_0) / (4 * GAUDI2_SM_NUM_MONS)) {
	case 0:
		mon->pay_addrl = value;
		break;
	case 1:
		mon->pay_addrh = value;
		break;
	case 2:
		mon->pay_data = value;
		break;
	case 3:
		mon->arm = value;
		mon->armed = true;
		if (w->depth < SIM_SM_MAX_DEPTH && sim_sm_step(w) &&
		    sim_mon_condition(sm, mon))
			sim_mon_fire(ctx, id, w);
		break;
	case 4:
		mon->config = value;
		break;
	}
}

/* A 4-byte write to memory the context mapped; false if there is none. */
static bool sim_sm_write_mem(struct sim_ctx *ctx, u64 addr, u32 value)
{
	struct sim_bo *bo;
	u64 off;

	bo = sim_mem_get(ctx, addr, sizeof(value), &off);
	if (!bo)
		return false;
	sim_bo_write(bo, off, &value, sizeof(value));
	sim_bo_put(bo);
	return true;
}

/* Adds @value to the 64-bit counter at @addr, as a 64-bit CQ does. */
static bool sim_sm_add_mem64(struct sim_ctx *ctx, u64 addr, u64 value)
{
	struct sim_bo *bo;
	u64 off, cnt;

	bo = sim_mem_get(ctx, addr, sizeof(cnt), &off);
	if (!bo)
		return false;
	sim_bo_read(bo, off, &cnt, sizeof(cnt));
	cnt += value;
	sim_bo_write(bo, off, &cnt, sizeof(cnt));
	sim_bo_put(bo);
	return true;
}

static void sim_cq_reg_write(struct sim_sm *sm, u32 reg, u32 value)
{
	u32 off = reg - GAUDI2_SM_CQ_BASE_ADDR_L_0;
	struct sim_cq *cq = &sm->cq[(off % SIM_SM_CQ_STRIDE) / 4];

	switch (off / SIM_SM_CQ_STRIDE) {
	case 0:
		cq->base_l = value;
		break;
	case 1:
		cq->base_h = value;
		break;
	case 2:
		cq->size_log2 = value;
		break;
	case 3:
		cq->pi = value;
		break;
	case 5:
		cq->lbw_l = value;
		break;
	case 6:
		cq->lbw_h = value;
		break;
	case 7:
		cq->lbw_data = value;
		break;
	case 8:
		cq->inc_mode = value & 1;
		break;
	}
}

/*
 * A write a monitor makes, or a MSG_LONG/MSG_SHORT to the configuration
 * space that sim_sm_check_write() accepted.  A monitor write that lands
 * nowhere is lost, as the hardware's would be (an MMU fault or a blocked
 * register): counted for debugfs.
 */
static void sim_sm_write(struct sim_ctx *ctx, u64 addr, u32 value,
			 struct sim_sm_walk *w)
{
	struct sim_sm *sm = ctx->sdev->sm;
	u32 reg, *fence;

	if (addr < GAUDI2_CFG_BASE || addr - GAUDI2_CFG_BASE > U32_MAX) {
		if (!sim_sm_write_mem(ctx, addr, value))
			atomic_inc(&sim_sm_lost_writes);
		return;
	}
	reg = addr - GAUDI2_CFG_BASE;
	if (sim_sm_check_write(ctx->sdev, reg, value)) {
		atomic_inc(&sim_sm_lost_writes);
		return;
	}
	if (reg >= GAUDI2_SM_SOB_OBJ_0 && reg < SIM_SM_SOB_END) {
		sim_sob_write(ctx, (reg - GAUDI2_SM_SOB_OBJ_0) / 4, value, w);
		return;
	}
	if (reg >= GAUDI2_SM_MON_PAY_ADDRL_0 && reg < GAUDI2_SM_MON_STATUS_0) {
		sim_mon_write(ctx, reg, value, w);
		return;
	}
	if (reg >= GAUDI2_SM_CQ_BASE_ADDR_L_0 && reg < SIM_SM_CQ_END) {
		sim_cq_reg_write(sm, reg, value);
		return;
	}
	fence = sim_sm_fence_reg(sm, reg);
	if (fence)
		*fence += value;
}

/* Starts a cascade of at most SIM_SM_MAX_STEPS steps. */
static void sim_sm_walk_init(struct sim_sm_walk *w)
{
	*w = (struct sim_sm_walk){ .steps = SIM_SM_MAX_STEPS };
}

static void sim_sm_walk_end(const struct sim_sm_walk *w)
{
	if (w->cut)
		atomic_inc(&sim_sm_cut_cascades);
}

void sim_sm_reg_write(struct sim_ctx *ctx, u32 reg, u32 value)
{
	struct sim_sm_walk w;

	sim_sm_walk_init(&w);
	sim_sm_write(ctx, GAUDI2_CFG_BASE + reg, value, &w);
	sim_sm_walk_end(&w);
}

/*
 * The CP that runs a command on @queue: the stream's own, or its queue
 * manager's lower CP (the last); false for a queue not emulated.
 */
static bool sim_sm_cp(u32 queue, bool lower, int *qm, u32 *cp)
{
	*qm = sim_queue_qman(queue);
	/* Only queues sim_queue_enabled() accepted get here. */
	if (WARN_ON_ONCE(*qm < 0))
		return false;
	*cp = lower ? GAUDI2_QM_FENCE_CPS - 1 : queue - sim_qmans[*qm].first_queue;
	return true;
}

/*
 * A FENCE on @queue: true (and the counter decremented) once the
 * counter has reached @target.
 */
bool sim_sm_fence_pass(struct sim_device *sdev, u32 queue, bool lower, u8 id,
		       u8 target, u8 dec)
{
	u32 cp, *cnt;
	int qm;

	if (!sim_sm_cp(queue, lower, &qm, &cp))
		return false;
	cnt = &sdev->sm->fence[qm][cp][id];
	if (*cnt < target)
		return false;
	*cnt -= min_t(u32, dec, *cnt);
	return true;
}

/* Whether predicate @pred of the CP that runs a command on @queue is set. */
bool sim_sm_pred(struct sim_device *sdev, u32 queue, bool lower, u8 pred)
{
	u32 cp;
	int qm;

	if (!pred)
		return true;
	if (!sim_sm_cp(queue, lower, &qm, &cp))
		return false;
	return sdev->sm->pred[qm][cp] & BIT(pred);
}

/*
 * LOAD_AND_EXE into the predicates: they keep their values until the
 * next load, across CBs and CSs, as the CP's registers do.  Predicate 0
 * is not loaded: it is always set.
 */
void sim_sm_pred_load(struct sim_device *sdev, u32 queue, bool lower, u32 map)
{
	u32 cp;
	int qm;

	if (sim_sm_cp(queue, lower, &qm, &cp))
		sdev->sm->pred[qm][cp] = map | BIT(0);
}

/*
 * The scalar registers of the CP that runs a command on @queue, which
 * LOAD_AND_EXE loads and runs a packet from; they too keep their values.
 */
__le32 *sim_sm_scalars(struct sim_device *sdev, u32 queue, bool lower)
{
	u32 cp;
	int qm;

	if (!sim_sm_cp(queue, lower, &qm, &cp))
		return NULL;
	return sdev->sm->scalar[qm][cp];
}

/*
 * A signal CS's write to its queue's SOB, one the driver keeps: made by
 * the driver's own CB, so not checked as a user's write is.
 */
void sim_sm_sob_signal(struct sim_ctx *ctx, u32 sob, u32 value)
{
	struct sim_sm_walk w;

	if (WARN_ON_ONCE(sob >= SIM_SM_FIRST_USER_SOB))
		return;
	sim_sm_walk_init(&w);
	sim_sob_write(ctx, sob, value, &w);
	sim_sm_walk_end(&w);
}

/* Whether SOB @sob has reached @val: what a wait CS's monitor waits for. */
bool sim_sm_sob_reached(struct sim_device *sdev, u32 sob, u32 val)
{
	return sdev->sm->sob[sob] >= val;
}
