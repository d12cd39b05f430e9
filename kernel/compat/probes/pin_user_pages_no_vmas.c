// SPDX-License-Identifier: GPL-2.0
/* pin_user_pages() lost its vmas argument in 6.5. */
#include <linux/mm.h>

static long probe(unsigned long start, struct page **pages)
{
	return pin_user_pages(start, 1, FOLL_WRITE, pages);
}
