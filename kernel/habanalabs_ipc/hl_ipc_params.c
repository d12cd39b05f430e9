// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters.  Each has bounds; a value outside them, at load time
 * or written to /sys/module/habanalabs_ipc/parameters/ later, is clamped,
 * so that no setting can ask the kernel for absurd allocations or make a
 * work item run for seconds.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "hl_ipc.h"

unsigned int hl_ipc_max_regions = 4096;
unsigned int hl_ipc_max_channels = 64;
unsigned int hl_ipc_max_batch = 256;
unsigned int hl_ipc_chunk_size = 256 * 1024;
unsigned int hl_ipc_max_pending = 1024;
unsigned int hl_ipc_user_max_contexts = 1024;
unsigned int hl_ipc_user_max_channels = 4096;
unsigned int hl_ipc_user_max_regions = 65536;
unsigned int hl_ipc_user_max_jobs = 4096;
unsigned int hl_ipc_user_max_workers = 8;
unsigned int hl_ipc_fence_timeout_ms = 2000;
unsigned int hl_ipc_dma_timeout_ms = 5000;
enum hl_ipc_engine_mode hl_ipc_engine_mode = HL_IPC_ENGINE_MODE_AUTO;

struct hl_ipc_param {
	const char *name;
	unsigned int *value;
	unsigned int min;
	unsigned int max;
};

static int hl_ipc_param_set(const char *val, const struct kernel_param *kp)
{
	const struct hl_ipc_param *p = kp->arg;
	unsigned int v, c;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	c = clamp(v, p->min, p->max);
	if (c != v)
		pr_info("habanalabs_ipc: %s=%u is out of range [%u, %u], using %u\n",
			p->name, v, p->min, p->max, c);
	WRITE_ONCE(*p->value, c);
	return 0;
}

static int hl_ipc_param_get(char *buf, const struct kernel_param *kp)
{
	const struct hl_ipc_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->value));
}

static const struct kernel_param_ops hl_ipc_param_ops = {
	.set = hl_ipc_param_set,
	.get = hl_ipc_param_get,
};

#define HL_IPC_PARAM(_name, _var, _min, _max, _desc)			\
	static struct hl_ipc_param hl_ipc_param_##_name = {		\
		.name = #_name, .value = &(_var),			\
		.min = (_min), .max = (_max),				\
	};								\
	module_param_cb(_name, &hl_ipc_param_ops,			\
			&hl_ipc_param_##_name, 0644);			\
	MODULE_PARM_DESC(_name, _desc)

HL_IPC_PARAM(max_regions, hl_ipc_max_regions, 1, 1U << 20,
	     "Regions per context (default 4096, 1..1048576)");
HL_IPC_PARAM(max_channels, hl_ipc_max_channels, 1, 4096,
	     "Channels per context (default 64, 1..4096)");
HL_IPC_PARAM(max_batch, hl_ipc_max_batch, 1, 4096,
	     "Descriptors per batched copy (default 256, 1..4096)");
HL_IPC_PARAM(chunk_size, hl_ipc_chunk_size, 4096, 16U << 20,
	     "Bytes copied between cancellation checks (default 262144, 4096..16777216)");
HL_IPC_PARAM(max_pending, hl_ipc_max_pending, 1, 65536,
	     "Copies queued per channel before EAGAIN (default 1024, 1..65536)");
HL_IPC_PARAM(user_max_contexts, hl_ipc_user_max_contexts, 1, 65536,
	     "Open contexts per user (default 1024, 1..65536)");
HL_IPC_PARAM(user_max_channels, hl_ipc_user_max_channels, 1, 1U << 20,
	     "Channels per user (default 4096, 1..1048576)");
HL_IPC_PARAM(user_max_regions, hl_ipc_user_max_regions, 1, 1U << 22,
	     "Regions per user (default 65536, 1..4194304)");
HL_IPC_PARAM(user_max_jobs, hl_ipc_user_max_jobs, 1, 1U << 20,
	     "Queued asynchronous copies per user (default 4096, 1..1048576)");
HL_IPC_PARAM(user_max_workers, hl_ipc_user_max_workers, 1, 256,
	     "Copies of one user that run on workers at once; for users whose first context opens after a change (default 8, 1..256)");
HL_IPC_PARAM(fence_timeout_ms, hl_ipc_fence_timeout_ms, 1, 60000,
	     "Longest wait for a dma-buf's fences before a copy fails with ETIMEDOUT (default 2000, 1..60000)");
HL_IPC_PARAM(dma_timeout_ms, hl_ipc_dma_timeout_ms, 1, 60000,
	     "Longest the DMA engine may go without finishing a descriptor of a copy before the copy fails with ETIMEDOUT (default 5000, 1..60000)");

static const char * const hl_ipc_engine_names[] = {
	[HL_IPC_ENGINE_MODE_AUTO] = "auto",
	[HL_IPC_ENGINE_MODE_CPU] = "cpu",
	[HL_IPC_ENGINE_MODE_DMA] = "dma",
};

static int hl_ipc_engine_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(hl_ipc_engine_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(hl_ipc_engine_mode, i);
	return 0;
}

static int hl_ipc_engine_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  hl_ipc_engine_names[READ_ONCE(hl_ipc_engine_mode)]);
}

static const struct kernel_param_ops hl_ipc_engine_ops = {
	.set = hl_ipc_engine_set,
	.get = hl_ipc_engine_get,
};

module_param_cb(engine, &hl_ipc_engine_ops, NULL, 0644);
MODULE_PARM_DESC(engine,
		 "Which engine copies: auto (the CPU where both ends have a kernel mapping, else a DMA engine the exporters accept), cpu (the CPU only), dma (a DMA engine for every copy); default auto");
