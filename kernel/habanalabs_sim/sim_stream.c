// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: sync streams, as the driver runs them on Gaudi2.
 *
 * Every queue below the CPU queue but the NIC's supports them
 * (gaudi2_set_fixed_properties()), and owns two SOBs and one monitor
 * after the driver's reserved ones, numbered in queue order
 * (sync_stream_queue_init(), common/hw_queue.c).
 *
 * A signal CS is a CB the driver makes: it adds 1 to the queue's current
 * SOB (init_signal_cs()).  The SOB counts to 32767 (HL_MAX_SOB_VAL - 1);
 * then the next signal takes the other SOB, reset first
 * (hl_cs_signal_sob_wraparound_handler()).  A wait CS arms the waiting
 * queue's monitor on the signal's SOB and value and fences on it
 * (init_wait_cs()); here that is one command that waits until the SOB
 * has reached the value (sim_cs.c).
 *
 * The state below is the context's, under its cs_lock: a device has one
 * compute open, and a new one starts with its sync manager cleared.
 */
#include "sim.h"

/* HL_MAX_SOB_VAL: a SOB holds 15 bits. */
#define SIM_SOB_MAX	(1u << 15)

/* The index of @queue's sync stream, or -1 if the queue has none. */
int sim_stream_index(u32 queue)
{
	const u32 nics = GAUDI2_QUEUE_ID_NIC_23_3 - GAUDI2_QUEUE_ID_NIC_0_0 + 1;

	if (queue < GAUDI2_QUEUE_ID_NIC_0_0)
		return queue;
	if (queue <= GAUDI2_QUEUE_ID_NIC_23_3 || queue >= GAUDI2_QUEUE_ID_CPU_PQ)
		return -1;
	return queue - nics;
}

/*
 * Takes the next signal of sync stream @idx: the SOB it increments, the
 * value that SOB then holds, what to write (a SOB just switched to is
 * set, which is its reset and the increment in one), and the count the
 * driver reports back; under cs_lock.
 */
void sim_stream_signal(struct sim_ctx *ctx, int idx, struct sim_signal *sig)
{
	struct sim_stream *s = &ctx->streams[idx];

	sig->sob = SIM_SM_RESERVED_SOBS + 2 * idx + s->cur;
	sig->val = s->signalled + 1;
	sig->write = s->fresh ? sig->val : GAUDI2_SOB_ADD_MASK | 1;
	s->fresh = false;
	if (sig->val + 1 >= SIM_SOB_MAX) {
		s->cur ^= 1;
		s->signalled = 0;
		s->fresh = true;
	} else {
		s->signalled++;
	}
	sig->count = s->signalled;
}
