// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: device memory in a PCI BAR, as a Gaudi's DRAM is.
 *
 * With pci_memory=1 each emulated device is a PCI function of the
 * machine (sim_pci.c) and its memory is that function's memory BAR.  The
 * device itself reaches it (its DMA engine is this module, through a
 * write-back mapping of the BAR); users and importers reach it only as
 * the real driver lets them: by DMA through a dma-buf mapped peer to
 * peer (sim_dmabuf_p2p.c), never through a CPU mapping.
 *
 * Allocations are contiguous ranges of the BAR, first fit in a bitmap of
 * its pages, aligned to their device page size, and zeroed before a user
 * gets them, as the driver scrubs memory it hands out.
 */
#include <linux/bitmap.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "sim.h"

/* The BAR of ivshmem-plain that holds its memory. */
#define SIM_BAR_INDEX	2

int sim_bar_init(struct sim_bar *bar, struct pci_dev *pdev)
{
	int rc;

	bar->pdev = pdev;
	bar->phys = pci_resource_start(pdev, SIM_BAR_INDEX);
	bar->size = pci_resource_len(pdev, SIM_BAR_INDEX);
	if (!bar->size || !(pci_resource_flags(pdev, SIM_BAR_INDEX) &
			    IORESOURCE_MEM))
		return -ENODEV;
	rc = pci_request_region(pdev, SIM_BAR_INDEX, SIM_NAME);
	if (rc)
		return rc;
	/* The device's own view of its memory. */
	bar->kaddr = memremap(bar->phys, bar->size, MEMREMAP_WB);
	if (!bar->kaddr) {
		rc = -ENOMEM;
		goto err_region;
	}
	spin_lock_init(&bar->lock);
	bar->npages = bar->size >> PAGE_SHIFT;
	bar->used = bitmap_zalloc(bar->npages, GFP_KERNEL);
	if (!bar->used) {
		rc = -ENOMEM;
		goto err_unmap;
	}
	return 0;

err_unmap:
	memunmap(bar->kaddr);
err_region:
	pci_release_region(pdev, SIM_BAR_INDEX);
	return rc;
}

/* Every allocation is gone: the device is removed only when unused. */
void sim_bar_fini(struct sim_bar *bar)
{
	WARN_ON(!bitmap_empty(bar->used, bar->npages));
	bitmap_free(bar->used);
	memunmap(bar->kaddr);
	pci_release_region(bar->pdev, SIM_BAR_INDEX);
}

/*
 * @size bytes aligned to @align (a power of two, at least a page), zeroed:
 * their offset in the BAR, or -ENOMEM.
 */
int sim_bar_alloc(struct sim_bar *bar, u64 size, u64 align, u64 *off)
{
	unsigned long n = size >> PAGE_SHIFT, first;
	u64 done, len;

	spin_lock(&bar->lock);
	first = bitmap_find_next_zero_area(bar->used, bar->npages, 0, n,
					   (align >> PAGE_SHIFT) - 1);
	if (first < bar->npages)
		bitmap_set(bar->used, first, n);
	spin_unlock(&bar->lock);
	if (first >= bar->npages)
		return -ENOMEM;
	*off = (u64)first << PAGE_SHIFT;
	for (done = 0; done < size; done += len) {
		len = min_t(u64, size - done, SZ_1M);
		memset(bar->kaddr + *off + done, 0, len);
		cond_resched();
	}
	return 0;
}

void sim_bar_free(struct sim_bar *bar, u64 off, u64 size)
{
	spin_lock(&bar->lock);
	bitmap_clear(bar->used, off >> PAGE_SHIFT, size >> PAGE_SHIFT);
	spin_unlock(&bar->lock);
}
