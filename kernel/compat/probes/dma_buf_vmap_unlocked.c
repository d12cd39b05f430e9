// SPDX-License-Identifier: GPL-2.0
/* dma_buf_vmap_unlocked() takes the reservation lock itself (6.2+, some 6.1). */
#include <linux/dma-buf.h>

static int probe(struct dma_buf *d, struct iosys_map *m)
{
	return dma_buf_vmap_unlocked(d, m);
}
