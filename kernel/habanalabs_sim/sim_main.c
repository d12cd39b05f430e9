// SPDX-License-Identifier: GPL-2.0
/*
 * habanalabs_sim: module parameters, live object statistics in debugfs,
 * module entry and exit.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>

#include "hl_compat.h"
#include "sim.h"

static unsigned int num_devices = 2;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices, "Number of emulated devices (1-8, default 2)");

static unsigned int memory_mb = 256;
module_param(memory_mb, uint, 0444);
MODULE_PARM_DESC(memory_mb,
		 "Device memory per device in MiB (default 256); backing pages are allocated per ALLOC");

/*
 * A Gaudi host as it is: device memory in a PCI BAR, exported peer to
 * peer only (sim_pci.c, sim_bar.c, sim_dmabuf_p2p.c).
 */
static bool pci_memory;
module_param(pci_memory, bool, 0444);
MODULE_PARM_DESC(pci_memory,
		 "One device per QEMU ivshmem-plain PCI function, its memory the function's BAR, exported peer to peer only as the habanalabs driver does (default: num_devices devices of RAM, exported with CPU access)");

/* Gaudi2 has 48 MiB of SRAM (SRAM_SIZE), and the driver reports it. */
static unsigned int sram_mb = 48;
module_param(sram_mb, uint, 0444);
MODULE_PARM_DESC(sram_mb,
		 "SRAM per device in MiB (0-48, default 48 as Gaudi2's; 0: the devices report none)");

/* Lets tests keep a CS in flight long enough to kill its owner. */
unsigned int sim_cs_delay_ms;
module_param_named(cs_delay_ms, sim_cs_delay_ms, uint, 0644);
MODULE_PARM_DESC(cs_delay_ms,
		 "Delay before each CS executes, in ms (default 0); aborted when the owner closes the device");

/* Up to this many bytes, an idle engine's CS runs in the submit ioctl. */
unsigned int sim_cs_inline_bytes = SZ_4M;
module_param_named(cs_inline_bytes, sim_cs_inline_bytes, uint, 0644);
MODULE_PARM_DESC(cs_inline_bytes,
		 "Largest CS (bytes moved) the submitter runs itself when the engine is idle (default 4 MiB, 0: always queue)");

/* As the real driver's timeout_locked: how long a CS may take. */
unsigned int sim_cs_timeout_s = 30;
module_param_named(cs_timeout_s, sim_cs_timeout_s, uint, 0644);
MODULE_PARM_DESC(cs_timeout_s,
		 "Seconds a CS may take before it times out, unless it asks for its own (default 30, 0: never)");

atomic_t sim_stats[SIM_STAT_NR];

static const char * const sim_stat_names[SIM_STAT_NR] = {
	[SIM_STAT_CTX] = "contexts",
	[SIM_STAT_BO] = "buffer_objects",
	[SIM_STAT_ALLOC] = "allocations",
	[SIM_STAT_MAPPING] = "mappings",
	[SIM_STAT_USERPTR] = "userptrs",
	[SIM_STAT_DMABUF] = "dmabufs",
	[SIM_STAT_DMABUF_ATTACH] = "dmabuf_attachments_mapped",
	[SIM_STAT_DMABUF_VMAP] = "dmabuf_vmaps",
	[SIM_STAT_CB] = "command_buffers",
	[SIM_STAT_CS] = "command_submissions",
	[SIM_STAT_TS_BUF] = "timestamp_buffers",
	[SIM_STAT_TS_REG] = "timestamp_registrations",
};

static struct dentry *sim_debugfs;

/* Events that are no live objects: counts since the module was loaded. */
atomic_t sim_alloc_interrupted;
atomic_t sim_cs_inline_count;
atomic_t sim_sm_lost_writes;
atomic_t sim_sm_cut_cascades;
atomic_t sim_irq_lost;

static int sim_events_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "alloc_interrupted %d\n",
		   atomic_read(&sim_alloc_interrupted));
	seq_printf(m, "cs_inline %d\n", atomic_read(&sim_cs_inline_count));
	seq_printf(m, "sm_lost_writes %d\n", atomic_read(&sim_sm_lost_writes));
	seq_printf(m, "sm_cut_cascades %d\n",
		   atomic_read(&sim_sm_cut_cascades));
	seq_printf(m, "irq_lost %d\n", atomic_read(&sim_irq_lost));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_events);

static int sim_stats_show(struct seq_file *m, void *unused)
{
	int i;

	for (i = 0; i < SIM_STAT_NR; i++)
		seq_printf(m, "%s %d\n", sim_stat_names[i],
			   atomic_read(&sim_stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_stats);

static int __init sim_init(void)
{
	unsigned int i;
	int rc;

	if (!num_devices || num_devices > SIM_MAX_DEVICES) {
		pr_err(SIM_NAME ": num_devices must be 1..%d\n",
		       SIM_MAX_DEVICES);
		return -EINVAL;
	}
	if (!memory_mb || memory_mb > SZ_64K) {
		pr_err(SIM_NAME ": memory_mb must be 1..65536\n");
		return -EINVAL;
	}
	if ((u64)sram_mb * SZ_1M > SIM_SRAM_MAX) {
		pr_err(SIM_NAME ": sram_mb must be 0..%llu\n", SIM_SRAM_MAX >> 20);
		return -EINVAL;
	}

	sim_debugfs = debugfs_create_dir(SIM_NAME, NULL);
	debugfs_create_file("stats", 0444, sim_debugfs, NULL,
			    &sim_stats_fops);
	debugfs_create_file("events", 0444, sim_debugfs, NULL,
			    &sim_events_fops);

	rc = sim_devices_init((u64)sram_mb * SZ_1M);
	if (rc)
		goto err_debugfs;
	if (pci_memory) {
		rc = sim_pci_register();
	} else {
		for (i = 0; i < num_devices && !rc; i++)
			rc = sim_device_add(NULL, (u64)memory_mb * SZ_1M);
	}
	if (rc)
		goto err_devices;
	return 0;

err_devices:
	sim_devices_fini();
err_debugfs:
	debugfs_remove_recursive(sim_debugfs);
	return rc;
}

static void __exit sim_exit(void)
{
	if (pci_memory)
		sim_pci_unregister();
	sim_devices_fini();
	debugfs_remove_recursive(sim_debugfs);
}

module_init(sim_init);
module_exit(sim_exit);

HL_IMPORT_DMA_BUF_NS();
MODULE_DESCRIPTION("Emulated Habana Gaudi2 devices for testing without hardware");
MODULE_LICENSE("GPL");
MODULE_VERSION(HL_MODULE_VERSION);
