// SPDX-License-Identifier: GPL-2.0
/*
 * Observability: global counters as sysfs attributes of the misc device
 * (/sys/class/misc/hl_ipc/stats/), per-channel counters in debugfs
 * (/sys/kernel/debug/hl_ipc/channels); per-context lists in fdinfo
 * (hl_ipc_fdinfo.c).
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>

#include "hl_ipc.h"

struct hl_ipc_stats hl_ipc_stats;
DEFINE_PER_CPU(struct hl_ipc_pcpu_stats, hl_ipc_pcpu_stats);
static struct dentry *hl_ipc_debugfs;

#define HL_IPC_STAT64(name)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lld\n",				\
			  (s64)atomic64_read(&hl_ipc_stats.name));	\
}									\
static DEVICE_ATTR_RO(name)

#define HL_IPC_STAT32(name)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%d\n", atomic_read(&hl_ipc_stats.name));\
}									\
static DEVICE_ATTR_RO(name)

#define HL_IPC_STAT_PCPU(name)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	unsigned long sum = 0;						\
	int cpu;							\
									\
	for_each_possible_cpu(cpu)					\
		sum += READ_ONCE(per_cpu(hl_ipc_pcpu_stats, cpu).name);	\
	return sysfs_emit(buf, "%lu\n", sum);				\
}									\
static DEVICE_ATTR_RO(name)

HL_IPC_STAT_PCPU(copies);
HL_IPC_STAT_PCPU(bytes);
HL_IPC_STAT_PCPU(small_copies);
HL_IPC_STAT_PCPU(dma_bytes);
HL_IPC_STAT64(errors);
HL_IPC_STAT64(lookup_failures);
HL_IPC_STAT32(contexts);
HL_IPC_STAT32(regions);
HL_IPC_STAT32(channels);
HL_IPC_STAT32(jobs);
HL_IPC_STAT32(users);

static ssize_t pinned_bytes_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  (s64)atomic64_read(&hl_ipc_stats.pinned_pages) << PAGE_SHIFT);
}
static DEVICE_ATTR_RO(pinned_bytes);

static struct attribute *hl_ipc_stats_attrs[] = {
	&dev_attr_copies.attr,
	&dev_attr_bytes.attr,
	&dev_attr_small_copies.attr,
	&dev_attr_dma_bytes.attr,
	&dev_attr_errors.attr,
	&dev_attr_lookup_failures.attr,
	&dev_attr_contexts.attr,
	&dev_attr_regions.attr,
	&dev_attr_channels.attr,
	&dev_attr_jobs.attr,
	&dev_attr_users.attr,
	&dev_attr_pinned_bytes.attr,
	NULL,
};

static const struct attribute_group hl_ipc_stats_group = {
	.name = "stats",
	.attrs = hl_ipc_stats_attrs,
};

/*
 * The copy engines: the DMA engine copies use ("none" when there is no
 * usable one), and whether the kernel lets PCI devices reach each other
 * (CONFIG_PCI_P2PDMA), which memory that only a device can reach needs.
 */
static ssize_t dma_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	hl_ipc_dma_available();
	return hl_ipc_dma_describe(buf);
}
static DEVICE_ATTR_RO(dma);

static ssize_t p2pdma_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", IS_ENABLED(CONFIG_PCI_P2PDMA));
}
static DEVICE_ATTR_RO(p2pdma);

static struct attribute *hl_ipc_engine_attrs[] = {
	&dev_attr_dma.attr,
	&dev_attr_p2pdma.attr,
	NULL,
};

static const struct attribute_group hl_ipc_engine_group = {
	.name = "engine",
	.attrs = hl_ipc_engine_attrs,
};

const struct attribute_group *hl_ipc_attr_groups[] = {
	&hl_ipc_stats_group,
	&hl_ipc_engine_group,
	NULL,
};

static int hl_ipc_channels_seq_show(struct seq_file *m, void *unused)
{
	hl_ipc_channels_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hl_ipc_channels_seq);

void hl_ipc_stats_init(void)
{
	/*
	 * debugfs is optional: failures only cost the per-channel view,
	 * which shows every user's activity and is therefore root's only.
	 */
	hl_ipc_debugfs = debugfs_create_dir("hl_ipc", NULL);
	debugfs_create_file("channels", 0400, hl_ipc_debugfs, NULL,
			    &hl_ipc_channels_seq_fops);
}

void hl_ipc_stats_fini(void)
{
	debugfs_remove_recursive(hl_ipc_debugfs);
}
