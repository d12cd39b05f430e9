// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: emulated devices that are PCI functions (pci_memory=1).
 *
 * Each QEMU ivshmem-plain function (a 64-bit prefetchable memory BAR
 * backed by host RAM) becomes one device: its memory is the BAR
 * (sim_bar.c), its bus id, sysfs parent and NUMA node are the function's,
 * as a Gaudi's are.  The driver is registered only in that mode, so the
 * module never claims an ivshmem function it was not asked to, and a
 * function cannot be unbound by hand while it may be in use.
 */
#include <linux/pci.h>
#include <linux/slab.h>

#include "sim.h"

#define SIM_PCI_VENDOR_REDHAT_QUMRANET	0x1af4
#define SIM_PCI_DEVICE_IVSHMEM		0x1110

static int sim_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct sim_bar *bar;
	int rc;

	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	bar = kzalloc(sizeof(*bar), GFP_KERNEL);
	if (!bar)
		return -ENOMEM;
	rc = sim_bar_init(bar, pdev);
	if (rc) {
		kfree(bar);
		return rc;
	}
	rc = sim_device_add(bar, 0);
	if (rc) {
		sim_bar_fini(bar);
		kfree(bar);
		return rc;
	}
	return 0;
}

static void sim_pci_remove(struct pci_dev *pdev)
{
	struct sim_bar *bar = sim_device_remove(&pdev->dev);

	if (!bar)
		return;
	sim_bar_fini(bar);
	kfree(bar);
}

static const struct pci_device_id sim_pci_ids[] = {
	{ PCI_DEVICE(SIM_PCI_VENDOR_REDHAT_QUMRANET, SIM_PCI_DEVICE_IVSHMEM) },
	{ }
};

static struct pci_driver sim_pci_driver = {
	.name = SIM_NAME,
	.id_table = sim_pci_ids,
	.probe = sim_pci_probe,
	.remove = sim_pci_remove,
	.driver.suppress_bind_attrs = true,
};

int sim_pci_register(void)
{
	return pci_register_driver(&sim_pci_driver);
}

void sim_pci_unregister(void)
{
	pci_unregister_driver(&sim_pci_driver);
}
