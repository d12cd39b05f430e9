// SPDX-License-Identifier: GPL-2.0
/* eventfd_signal() lost its count argument in 6.8. */
#include <linux/eventfd.h>

static void probe(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx);
}
