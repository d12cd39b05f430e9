/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs_sim: command submission's own definitions, for its three
 * files: sim_cs_parse.c reads CBs into commands, sim_cs_exec.c runs them
 * as the queues would, sim_cs.c submits, completes and waits.  Calls go
 * that way only: submission into execution and parsing, execution into
 * parsing (for the CBs a CB_LIST calls).
 */
#ifndef SIM_CS_H
#define SIM_CS_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/workqueue.h>

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

/* A refused CS, counted for HL_INFO_CS_COUNTERS as the driver counts it. */
static inline int sim_cs_drop(struct sim_ctx *ctx, enum sim_cs_drop why,
			      int rc)
{
	atomic64_inc(&ctx->cs_drops[why]);
	atomic64_inc(&ctx->sdev->cs_drops[why]);
	return rc;
}

/* sim_cs_parse.c */
int sim_parse_packet(struct sim_device *sdev, const u8 *pkt, u32 left,
		     struct sim_cmd *cmd);
int sim_parse_call(const u8 *entry, u64 *cb_va, u32 *cb_size);
int sim_parse_frame(struct sim_ctx *ctx, u64 va, u32 size,
		    struct sim_frame *f, bool *fence);
int sim_job_build(struct sim_ctx *ctx, const struct hl_cs_chunk *ch,
		  struct sim_job *job, bool *fence);
int sim_frame_resolve(struct sim_ctx *ctx, struct sim_frame *f);
int sim_cs_resolve(struct sim_ctx *ctx, struct sim_cs *cs);
void sim_frame_free(struct sim_frame *f);

/* sim_cs_exec.c */
int sim_cs_check(const struct sim_cs *cs);
int sim_cs_run_jobs(struct sim_cs *cs);

#endif /* SIM_CS_H */
