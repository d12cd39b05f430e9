// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: the queues of the emulated Gaudi2 and which command
 * buffers each takes, by the rules of the real driver:
 *
 * - gaudi2_set_fixed_properties() (gaudi2/gaudi2.c) makes every queue
 *   below GAUDI2_QUEUE_ID_CPU_PQ a hardware queue whose command buffers
 *   the user allocates (CB_ALLOC_USER), and the CPU queue the driver's
 *   own (driver_only, CB_ALLOC_KERNEL);
 * - validate_queue_index() (common/command_submission.c) refuses an index
 *   past the last queue, a queue restricted to the driver, and, on a
 *   hardware queue, a chunk without HL_CS_CHUNK_FLAGS_USER_ALLOC_CB ("doesn't
 *   support kernel CB"): all EINVAL, counted as validation drops;
 * - gaudi2_cs_parser() -> gaudi2_validate_cb_address() (gaudi2/gaudi2.c)
 *   refuses a queue whose engine is not enabled (EINVAL) and a CB that
 *   does not lie in a range the queue manager can fetch from (EFAULT):
 *   parsing drops.  gaudi2_is_queue_enabled() names the PDMA queues
 *   PDMA_0_0, PDMA_0_1 and PDMA_1_0 only; the other PDMA streams are not
 *   enabled for users.
 *
 * The emulated device has the two PDMA engines and nothing else that
 * runs user queues, so every other queue is one whose engine is not
 * enabled.
 */
#include "sim.h"

int sim_queue_validate(const struct hl_cs_chunk *ch)
{
	if (ch->queue_index >= GAUDI2_QUEUE_ID_SIZE)
		return -EINVAL;
	if (ch->queue_index == GAUDI2_QUEUE_ID_CPU_PQ)
		return -EINVAL;		/* restricted for the kernel driver */
	if (!(ch->cs_chunk_flags & HL_CS_CHUNK_FLAGS_USER_ALLOC_CB))
		return -EINVAL;		/* doesn't support kernel CB */
	return 0;
}

bool sim_queue_enabled(u32 queue)
{
	switch (queue) {
	case GAUDI2_QUEUE_ID_PDMA_0_0:
	case GAUDI2_QUEUE_ID_PDMA_0_1:
	case GAUDI2_QUEUE_ID_PDMA_1_0:
		return true;
	default:
		return false;
	}
}

static bool sim_area_inside(u64 addr, u32 size, u64 start, u64 end)
{
	u64 last = addr + size;

	return addr >= start && last <= end && last >= addr;
}

bool sim_queue_cb_address_valid(u64 addr, u32 size)
{
	return sim_area_inside(addr, size, SIM_DRAM_VA_BASE,
			       SIM_DRAM_VA_BASE + SIM_DRAM_VA_SIZE) ||
	       sim_area_inside(addr, size, SIM_HOST_VA_BASE,
			       SIM_HOST_VA_BASE + SIM_HOST_VA_SIZE);
}
