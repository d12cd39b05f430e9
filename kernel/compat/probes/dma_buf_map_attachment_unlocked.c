// SPDX-License-Identifier: GPL-2.0
/* dma_buf_map_attachment_unlocked() (6.2+, some 6.1). */
#include <linux/dma-buf.h>

static struct sg_table *probe(struct dma_buf_attachment *a)
{
	return dma_buf_map_attachment_unlocked(a, DMA_BIDIRECTIONAL);
}
