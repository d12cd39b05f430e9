// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: HL_IOCTL_DEBUG.  The device can be put into and out of
 * debug mode as the real driver's can (one open at a time holds it, and
 * closing that open ends it); the on-chip trace components it would then
 * configure do not exist here, so every component index is invalid.
 */
#include "sim.h"

static int sim_debug_set_mode(struct sim_ctx *ctx, bool enable)
{
	struct sim_device *sdev = ctx->sdev;
	int rc = 0;

	mutex_lock(&sdev->open_lock);
	/* The driver's answers: EFAULT for a mode the device is already in. */
	if (enable == sdev->in_debug)
		rc = -EFAULT;
	else
		sdev->in_debug = enable;
	mutex_unlock(&sdev->open_lock);
	return rc;
}

int sim_debug_ioctl(struct sim_ctx *ctx, struct hl_debug_args *args)
{
	struct sim_device *sdev = ctx->sdev;
	bool in_debug;

	switch (args->op) {
	case HL_DEBUG_OP_ETR:
	case HL_DEBUG_OP_ETF:
	case HL_DEBUG_OP_STM:
	case HL_DEBUG_OP_FUNNEL:
	case HL_DEBUG_OP_BMON:
	case HL_DEBUG_OP_SPMU:
	case HL_DEBUG_OP_TIMESTAMP:
		mutex_lock(&sdev->open_lock);
		in_debug = sdev->in_debug;
		mutex_unlock(&sdev->open_lock);
		/* As the driver: configuration only in debug mode. */
		if (!in_debug)
			return -EFAULT;
		return -EINVAL;	/* no trace component at any reg_idx */
	case HL_DEBUG_OP_SET_MODE:
		return sim_debug_set_mode(ctx, args->enable);
	default:
		return -EINVAL;
	}
}

/* The driver leaves debug mode when the open that may have set it ends. */
void sim_debug_ctx_fini(struct sim_ctx *ctx)
{
	struct sim_device *sdev = ctx->sdev;

	mutex_lock(&sdev->open_lock);
	sdev->in_debug = false;
	mutex_unlock(&sdev->open_lock);
}
