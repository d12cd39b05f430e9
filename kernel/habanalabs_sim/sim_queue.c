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
 * gaudi2_is_queue_enabled() opens all four streams of an EDMA queue
 * manager whose engine is initialised, and gaudi2_set_edma_binning_masks()
 * enables all eight EDMA engines (GAUDI2_EDMA_FULL_MASK) of a device
 * without a binned one; HL_INFO_HW_IP_INFO reports that mask.
 *
 * The emulated device has the two PDMA engines and the eight EDMA
 * engines, and nothing else that runs user queues (no MME, TPC, NIC or
 * rotator), so every other queue is one whose engine is not enabled.
 * Each engine has one queue manager (sim_qmans[]), whose streams share
 * its fence counters (sim_sm.c) and whose busy state HL_INFO_HW_IDLE
 * reports.
 */
#include "sim.h"

#define SIM_EDMA_QM(d, i, first)					\
	{ first, GAUDI2_DCORE0_EDMA0_QM_CP_FENCE0_RDATA_0 +		\
		 (d) * GAUDI2_DCORE_OFFSET + (i) * GAUDI2_EDMA_INSTANCE_OFFSET,\
	  GAUDI2_DCORE##d##_ENGINE_ID_EDMA_##i, 4, "DCORE" #d "_EDMA" #i }

/* Queue managers by index; the EDMAs in edma_enabled_mask bit order. */
const struct sim_qman sim_qmans[SIM_QMANS] = {
	{ GAUDI2_QUEUE_ID_PDMA_0_0, GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0,
	  GAUDI2_ENGINE_ID_PDMA_0, 2, "PDMA0" },
	{ GAUDI2_QUEUE_ID_PDMA_1_0, GAUDI2_PDMA1_QM_CP_FENCE0_RDATA_0,
	  GAUDI2_ENGINE_ID_PDMA_1, 1, "PDMA1" },
	SIM_EDMA_QM(0, 0, GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0),
	SIM_EDMA_QM(0, 1, GAUDI2_QUEUE_ID_DCORE0_EDMA_1_0),
	SIM_EDMA_QM(1, 0, GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0),
	SIM_EDMA_QM(1, 1, GAUDI2_QUEUE_ID_DCORE1_EDMA_1_0),
	SIM_EDMA_QM(2, 0, GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0),
	SIM_EDMA_QM(2, 1, GAUDI2_QUEUE_ID_DCORE2_EDMA_1_0),
	SIM_EDMA_QM(3, 0, GAUDI2_QUEUE_ID_DCORE3_EDMA_0_0),
	SIM_EDMA_QM(3, 1, GAUDI2_QUEUE_ID_DCORE3_EDMA_1_0),
};

int sim_queue_qman(u32 queue)
{
	unsigned int i;

	for (i = 0; i < SIM_QMANS; i++)
		if (queue >= sim_qmans[i].first_queue &&
		    queue < sim_qmans[i].first_queue + 4)
			return i;
	return -1;
}

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

/* A number below SIM_QUEUE_SLOTS for a queue the device has, else -1. */
int sim_queue_slot(u32 queue)
{
	int qm = sim_queue_qman(queue);

	return qm < 0 ? -1 : qm * 4 + (queue - sim_qmans[qm].first_queue);
}

/* The first user_streams streams of each queue manager are open. */
bool sim_queue_enabled(u32 queue)
{
	int qm = sim_queue_qman(queue);

	return qm >= 0 &&
	       queue - sim_qmans[qm].first_queue < sim_qmans[qm].user_streams;
}

static bool sim_area_inside(u64 addr, u32 size, u64 start, u64 end)
{
	u64 last = addr + size;

	return addr >= start && last <= end && last >= addr;
}

bool sim_queue_cb_address_valid(u64 addr, u32 size)
{
	return sim_area_inside(addr, size, SIM_SRAM_BASE,
			       SIM_SRAM_BASE + SIM_SRAM_MAX) ||
	       sim_area_inside(addr, size, SIM_DRAM_VA_BASE,
			       SIM_DRAM_VA_BASE + SIM_DRAM_VA_SIZE) ||
	       sim_area_inside(addr, size, SIM_HOST_VA_BASE,
			       SIM_HOST_VA_BASE + SIM_HOST_VA_SIZE);
}
