// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: HL_IOCTL_INFO, and the eventfd a compute open may
 * register for device events.
 *
 * Each opcode checks its arguments and answers as the real driver does.
 * What depends on hardware this emulation does not have answers as a
 * device without it would: no hardware events table (EOPNOTSUPP), no
 * attestation or generic requests in its firmware (EIO), and no error
 * captured (a RAZWI, page fault, hardware or firmware error: success with
 * nothing written).  Power, clocks and energy follow a fixed model
 * (SIM_POWER_*, SIM_CLK_MHZ) driven by what the device really does.
 */
#include <linux/eventfd.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>

#include "hl_compat.h"
#include "sim.h"

#ifdef HAVE_EVENTFD_SIGNAL_ONE_ARG
#define sim_eventfd_signal(ctx) eventfd_signal(ctx)
#else
#define sim_eventfd_signal(ctx) eventfd_signal(ctx, 1)
#endif

/* The driver's check for most opcodes: a buffer to write to. */
static int sim_info_out(struct hl_info_args *args, const void *src, size_t len)
{
	void __user *out = u64_to_user_ptr(args->return_pointer);

	if (!args->return_size || !out)
		return -EINVAL;
	if (copy_to_user(out, src, min_t(size_t, len, args->return_size)))
		return -EFAULT;
	return 0;
}

/* Opcodes that report an error the device captured: none ever is. */
static int sim_info_nothing_captured(struct hl_info_args *args, bool size_too)
{
	if (!args->return_pointer || (size_too && !args->return_size))
		return -EINVAL;
	return 0;
}

static int sim_info_hw_ip(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_info_hw_ip_info hw = {};

	hw.dram_base_address = SIM_DRAM_VA_BASE;
	hw.dram_size = sdev->mem_size;
	hw.device_id = HL_PCI_DEVICE_ID_GAUDI2;
	hw.module_id = sdev->index;
	hw.dram_enabled = 1;
	hw.dram_page_size = PAGE_SIZE;
	hw.device_mem_alloc_default_page_size = PAGE_SIZE;
	/* The EDMA engines a Gaudi2 without a binned one has (sim_queue.c). */
	hw.edma_enabled_mask = SIM_EDMA_ENABLED_MASK;
	if (sdev->sram) {
		hw.sram_base_address = SIM_SRAM_BASE;
		hw.sram_size = sdev->sram->size;
	}
	hw.first_available_interrupt_id = SIM_IRQ_USER_FIRST;
	hw.number_of_user_interrupts = SIM_IRQ_USER_COUNT;
	strscpy(hw.cpucp_version, "habanalabs_sim", sizeof(hw.cpucp_version));
	strscpy(hw.card_name, "HLSIM", sizeof(hw.card_name));
	return sim_info_out(args, &hw, sizeof(hw));
}

static int sim_info_dram_usage(struct sim_ctx *ctx, struct hl_info_args *args)
{
	struct sim_device *sdev = ctx->sdev;
	struct hl_info_dram_usage du = {};

	spin_lock(&sdev->mem_lock);
	du.dram_free_mem = sdev->mem_size - sdev->mem_used;
	spin_unlock(&sdev->mem_lock);
	if (!ctx->control) {
		mutex_lock(&ctx->lock);
		du.ctx_dram_mem = ctx->dram_used;
		mutex_unlock(&ctx->lock);
	}
	return sim_info_out(args, &du, sizeof(du));
}

u64 sim_device_busy_ns(struct sim_device *sdev)
{
	u64 busy;

	spin_lock(&sdev->event_lock);
	busy = atomic64_read(&sdev->busy_ns);
	if (atomic_read(&sdev->cs_inflight))
		busy += ktime_to_ns(ktime_sub(ktime_get(), sdev->busy_since));
	spin_unlock(&sdev->event_lock);
	return busy;
}

/* An engine is busy while a CS with a job on one of its queues is in flight. */
static bool sim_qman_busy(struct sim_device *sdev, unsigned int qm)
{
	return atomic_read(&sdev->qman_busy[qm]) > 0;
}

static int sim_info_hw_idle(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_info_hw_idle idle = {};
	unsigned int qm;

	for (qm = 0; qm < SIM_QMANS; qm++)
		if (sim_qman_busy(sdev, qm))
			idle.busy_engines_mask_ext[0] |= BIT_ULL(sim_qmans[qm].engine_id);
	idle.busy_engines_mask = lower_32_bits(idle.busy_engines_mask_ext[0]);
	idle.is_idle = !atomic_read(&sdev->cs_inflight);
	return sim_info_out(args, &idle, sizeof(idle));
}

static int sim_info_engine_status(struct sim_device *sdev,
				  struct hl_info_args *args)
{
	void __user *out = u64_to_user_ptr(args->return_pointer);
	char text[512];		/* 10 lines of at most 32 bytes */
	unsigned int qm;
	int len;

	if (args->return_size < SZ_1K || args->return_size > HL_ENGINES_DATA_MAX_SIZE ||
	    !out)
		return -EINVAL;
	len = scnprintf(text, sizeof(text),
			"\nDMA  is_idle  engine_id\n---  -------  ---------\n");
	for (qm = 0; qm < SIM_QMANS; qm++)
		len += scnprintf(text + len, sizeof(text) - len, "%s  %c  %u\n",
				 sim_qmans[qm].name,
				 sim_qman_busy(sdev, qm) ? 'N' : 'Y',
				 sim_qmans[qm].engine_id);
	args->user_buffer_actual_size = len;
	return copy_to_user(out, text, len) ? -EFAULT : 0;
}

static int sim_info_cs_counters(struct sim_ctx *ctx, struct hl_info_args *args)
{
	struct sim_device *sdev = ctx->sdev;
	struct hl_info_cs_counters c = {};
	u64 dev[SIM_DROP_NR], mine[SIM_DROP_NR] = {};
	int i;

	for (i = 0; i < SIM_DROP_NR; i++) {
		dev[i] = atomic64_read(&sdev->cs_drops[i]);
		if (!ctx->control)
			mine[i] = atomic64_read(&ctx->cs_drops[i]);
	}
	c.total_out_of_mem_drop_cnt = dev[SIM_DROP_OUT_OF_MEM];
	c.ctx_out_of_mem_drop_cnt = mine[SIM_DROP_OUT_OF_MEM];
	c.total_parsing_drop_cnt = dev[SIM_DROP_PARSING];
	c.ctx_parsing_drop_cnt = mine[SIM_DROP_PARSING];
	c.total_queue_full_drop_cnt = dev[SIM_DROP_QUEUE_FULL];
	c.ctx_queue_full_drop_cnt = mine[SIM_DROP_QUEUE_FULL];
	c.total_device_in_reset_drop_cnt = dev[SIM_DROP_DEVICE_IN_RESET];
	c.ctx_device_in_reset_drop_cnt = mine[SIM_DROP_DEVICE_IN_RESET];
	c.total_max_cs_in_flight_drop_cnt = dev[SIM_DROP_MAX_CS_IN_FLIGHT];
	c.ctx_max_cs_in_flight_drop_cnt = mine[SIM_DROP_MAX_CS_IN_FLIGHT];
	c.total_validation_drop_cnt = dev[SIM_DROP_VALIDATION];
	c.ctx_validation_drop_cnt = mine[SIM_DROP_VALIDATION];
	return sim_info_out(args, &c, sizeof(c));
}

static int sim_info_open_stats(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_open_stats_info s = {};

	mutex_lock(&sdev->open_lock);
	s.open_counter = sdev->open_count;
	s.last_open_period_ms = sdev->last_open_period_ms;
	s.is_compute_ctx_active = sdev->compute_busy;
	s.compute_ctx_in_release = sdev->compute_in_release;
	mutex_unlock(&sdev->open_lock);
	return sim_info_out(args, &s, sizeof(s));
}

static int sim_info_time_sync(struct hl_info_args *args)
{
	/* The emulated device keeps time with the host's raw clock. */
	struct hl_info_time_sync t = {
		.device_time = ktime_get_raw_ns(),
		.host_time = ktime_get_raw_ns(),
		.tsc_time = get_cycles(),
	};

	return sim_info_out(args, &t, sizeof(t));
}

static int sim_info_power(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_power_info p = {
		.power = SIM_POWER_IDLE_MW +
			 (atomic_read(&sdev->cs_inflight) ? SIM_POWER_BUSY_MW : 0),
	};

	return sim_info_out(args, &p, sizeof(p));
}

/*
 * mJ: the idle power since the device was created, the busy share while
 * CSs were in flight.
 */
static int sim_info_energy(struct sim_device *sdev, struct hl_info_args *args)
{
	u64 up = ktime_to_ns(ktime_sub(ktime_get(), sdev->created));
	struct hl_info_energy e = {
		.total_energy_consumption =
			mul_u64_u64_div_u64(SIM_POWER_IDLE_MW, up, NSEC_PER_SEC) +
			mul_u64_u64_div_u64(SIM_POWER_BUSY_MW,
					    sim_device_busy_ns(sdev), NSEC_PER_SEC),
	};

	return sim_info_out(args, &e, sizeof(e));
}

static int sim_info_pll(struct hl_info_args *args)
{
	struct hl_pll_frequency_info f = {};
	int i;

	if (!args->return_size || !args->return_pointer)
		return -EINVAL;
	/* As the driver, for a PLL the ASIC does not have. */
	if (args->pll_index >= HL_GAUDI2_PLL_MAX)
		return -EINVAL;
	for (i = 0; i < HL_PLL_NUM_OUTPUTS; i++)
		f.output[i] = SIM_CLK_MHZ;
	return sim_info_out(args, &f, sizeof(f));
}

static int sim_info_cs_timeout(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_info_cs_timeout_event ev = {};

	spin_lock(&sdev->event_lock);
	ev.seq = sdev->cs_timeout_seq;
	ev.timestamp = ktime_to_ns(sdev->cs_timeout_time);
	spin_unlock(&sdev->event_lock);
	return sim_info_out(args, &ev, sizeof(ev));
}

static int sim_info_reset_count(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_info_reset_count r = {};

	spin_lock(&sdev->event_lock);
	r.soft_reset_cnt = sdev->soft_reset_cnt;
	spin_unlock(&sdev->event_lock);
	return sim_info_out(args, &r, sizeof(r));
}

static int sim_info_last_open(struct sim_device *sdev, struct hl_info_args *args)
{
	struct hl_info_last_err_open_dev_time t = {};

	mutex_lock(&sdev->open_lock);
	t.timestamp = ktime_to_ns(sdev->last_open);
	mutex_unlock(&sdev->open_lock);
	return sim_info_out(args, &t, sizeof(t));
}

/* The emulated firmware has no such request: as a firmware without it. */
static int sim_info_fw_generic(struct hl_info_args *args)
{
	/* The one sub-opcode the driver knows (HL_PASSTHROUGH_VERSIONS). */
	if (args->fw_sub_opcode != 0)
		return -EINVAL;
	if (args->return_size > SZ_1M)
		return -EINVAL;
	return -EIO;
}

/* ---- device events ------------------------------------------------- */

static int sim_eventfd_register(struct sim_ctx *ctx, struct hl_info_args *args)
{
	struct eventfd_ctx *ev;
	int rc = 0;

	mutex_lock(&ctx->notify_lock);
	if (ctx->eventfd) {
		rc = -EINVAL;	/* one per open, as the driver */
		goto out;
	}
	ev = eventfd_ctx_fdget(args->eventfd);
	if (IS_ERR(ev)) {
		rc = PTR_ERR(ev);
		goto out;
	}
	ctx->eventfd = ev;
out:
	mutex_unlock(&ctx->notify_lock);
	return rc;
}

static int sim_eventfd_unregister(struct sim_ctx *ctx)
{
	int rc = 0;

	mutex_lock(&ctx->notify_lock);
	if (ctx->eventfd) {
		eventfd_ctx_put(ctx->eventfd);
		ctx->eventfd = NULL;
	} else {
		rc = -EINVAL;
	}
	mutex_unlock(&ctx->notify_lock);
	return rc;
}

static int sim_get_events(struct sim_ctx *ctx, struct hl_info_args *args)
{
	void __user *out = u64_to_user_ptr(args->return_pointer);
	u64 mask;

	if (args->return_size < sizeof(u64) || !out)
		return -EINVAL;
	mutex_lock(&ctx->notify_lock);
	mask = ctx->events_mask;
	ctx->events_mask = 0;
	mutex_unlock(&ctx->notify_lock);
	return copy_to_user(out, &mask, sizeof(mask)) ? -EFAULT : 0;
}

/* Records a device event for the open and signals its eventfd, if any. */
void sim_notify(struct sim_ctx *ctx, u64 event)
{
	mutex_lock(&ctx->notify_lock);
	ctx->events_mask |= event;
	if (ctx->eventfd)
		sim_eventfd_signal(ctx->eventfd);
	mutex_unlock(&ctx->notify_lock);
}

void sim_notify_ctx_fini(struct sim_ctx *ctx)
{
	mutex_lock(&ctx->notify_lock);
	if (ctx->eventfd)
		eventfd_ctx_put(ctx->eventfd);
	ctx->eventfd = NULL;
	mutex_unlock(&ctx->notify_lock);
}

/* ---- dispatch ------------------------------------------------------ */

int sim_info_ioctl(struct sim_ctx *ctx, struct hl_info_args *args)
{
	struct sim_device *sdev = ctx->sdev;

	if (args->pad)
		return -EINVAL;

	switch (args->op) {
	case HL_INFO_HW_IP_INFO:
		return sim_info_hw_ip(sdev, args);
	case HL_INFO_DEVICE_STATUS: {
		struct hl_info_device_status st = {
			.status = HL_DEVICE_STATUS_OPERATIONAL,
		};

		return sim_info_out(args, &st, sizeof(st));
	}
	case HL_INFO_DRAM_USAGE:
		return sim_info_dram_usage(ctx, args);
	case HL_INFO_HW_IDLE:
		return sim_info_hw_idle(sdev, args);
	case HL_INFO_DEVICE_UTILIZATION: {
		struct hl_info_device_utilization u = {
			.utilization = atomic_read(&sdev->cs_inflight) ? 100 : 0,
		};

		return sim_info_out(args, &u, sizeof(u));
	}
	case HL_INFO_HW_EVENTS:
	case HL_INFO_HW_EVENTS_AGGREGATE:
		if (!args->return_size || !args->return_pointer)
			return -EINVAL;
		return -EOPNOTSUPP;	/* no hardware events table */
	case HL_INFO_CLK_RATE: {
		struct hl_info_clk_rate r = {
			.cur_clk_rate_mhz = SIM_CLK_MHZ,
			.max_clk_rate_mhz = SIM_CLK_MHZ,
		};

		return sim_info_out(args, &r, sizeof(r));
	}
	case HL_INFO_RESET_COUNT:
		return sim_info_reset_count(sdev, args);
	case HL_INFO_TIME_SYNC:
		return sim_info_time_sync(args);
	case HL_INFO_CS_COUNTERS:
		return sim_info_cs_counters(ctx, args);
	case HL_INFO_PCI_COUNTERS: {
		/* No PCIe link to count on. */
		struct hl_info_pci_counters p = {};

		return sim_info_out(args, &p, sizeof(p));
	}
	case HL_INFO_CLK_THROTTLE_REASON: {
		struct hl_info_clk_throttle t = {};	/* never throttled */

		return sim_info_out(args, &t, sizeof(t));
	}
	case HL_INFO_SYNC_MANAGER: {
		struct hl_info_sync_manager sm = {};

		if (!args->return_size || !args->return_pointer)
			return -EINVAL;
		if (args->dcore_id >= SIM_INFO_DCORES)
			return -EINVAL;
		/* As the driver: only dcore 0's sync manager has users. */
		if (!args->dcore_id) {
			sm.first_available_sync_object = SIM_SM_FIRST_USER_SOB;
			sm.first_available_monitor = SIM_SM_FIRST_USER_MON;
			sm.first_available_cq = SIM_SM_FIRST_USER_CQ;
		}
		return sim_info_out(args, &sm, sizeof(sm));
	}
	case HL_INFO_TOTAL_ENERGY:
		return sim_info_energy(sdev, args);
	case HL_INFO_PLL_FREQUENCY:
		return sim_info_pll(args);
	case HL_INFO_POWER:
		return sim_info_power(sdev, args);
	case HL_INFO_OPEN_STATS:
		return sim_info_open_stats(sdev, args);
	case HL_INFO_DRAM_REPLACED_ROWS: {
		/* Healthy emulated DRAM: no row was ever replaced. */
		u8 rows[264] = {};

		return sim_info_out(args, rows, sizeof(rows));
	}
	case HL_INFO_DRAM_PENDING_ROWS: {
		u32 pending = 0;

		return sim_info_out(args, &pending, sizeof(pending));
	}
	case HL_INFO_LAST_ERR_OPEN_DEV_TIME:
		return sim_info_last_open(sdev, args);
	case HL_INFO_CS_TIMEOUT_EVENT:
		return sim_info_cs_timeout(sdev, args);
	case HL_INFO_RAZWI_EVENT:
	case HL_INFO_PAGE_FAULT_EVENT:
		return sim_info_nothing_captured(args, true);
	case HL_INFO_USER_MAPPINGS:
	case HL_INFO_HW_ERR_EVENT:
	case HL_INFO_FW_ERR_EVENT:
	case HL_INFO_USER_ENGINE_ERR_EVENT:
		return sim_info_nothing_captured(args, false);
	case HL_INFO_UNDEFINED_OPCODE_EVENT: {
		struct hl_info_undefined_opcode_event ev = {};

		return sim_info_out(args, &ev, sizeof(ev));
	}
	case HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES: {
		struct hl_info_dev_memalloc_page_sizes ps = {
			.page_order_bitmask = SIM_PAGE_ORDER_MASK,
		};

		return sim_info_out(args, &ps, sizeof(ps));
	}
	case HL_INFO_SECURED_ATTESTATION:
	case HL_INFO_DEV_SIGNED:
		if (!args->return_size || !args->return_pointer)
			return -EINVAL;
		return -EIO;	/* the emulated firmware does not attest */
	case HL_INFO_FW_GENERIC_REQ:
		return sim_info_fw_generic(args);
	case HL_INFO_ENGINE_STATUS:
		return sim_info_engine_status(sdev, args);
	case HL_INFO_REGISTER_EVENTFD:
	case HL_INFO_UNREGISTER_EVENTFD:
	case HL_INFO_GET_EVENTS:
		/* Events belong to a compute open. */
		if (ctx->control)
			return -EOPNOTSUPP;
		if (args->op == HL_INFO_REGISTER_EVENTFD)
			return sim_eventfd_register(ctx, args);
		if (args->op == HL_INFO_UNREGISTER_EVENTFD)
			return sim_eventfd_unregister(ctx);
		return sim_get_events(ctx, args);
	default:
		return -EINVAL;
	}
}
