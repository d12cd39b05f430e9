// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark probe for habanalabs_ipc: times the copy engine's routine
 * (chunked memcpy between two vmalloc-area mappings, rescheduling between
 * chunks) on two resident buffers, so that channel copies can be reported
 * as a fraction of what that routine does on this CPU model and kernel.
 *
 * Write "SIZE ITERS CHUNK" to /sys/kernel/debug/hl_ipc_ceiling/run, then
 * read back the nanoseconds the ITERS copies took.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

static struct dentry *dir;
static DEFINE_MUTEX(lock);
static u64 result_ns;

static ssize_t run_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *pos)
{
	unsigned long long size, iters, chunk, i, done, t0;
	char buf[96];
	u8 *src, *dst;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%llu %llu %llu", &size, &iters, &chunk) != 3 ||
	    !size || size > (1ULL << 30) || !iters || chunk < PAGE_SIZE)
		return -EINVAL;

	src = vmalloc(size);
	dst = vmalloc(size);
	if (!src || !dst) {
		vfree(src);
		vfree(dst);
		return -ENOMEM;
	}
	/* Resident before timing, like pinned regions. */
	memset(src, 0x5a, size);
	memset(dst, 0, size);

	mutex_lock(&lock);
	t0 = ktime_get_ns();
	for (i = 0; i < iters; i++) {
		for (done = 0; done < size; ) {
			unsigned long long n = min(chunk, size - done);

			memcpy(dst + done, src + done, n);
			done += n;
			if (done < size)
				cond_resched();
		}
	}
	result_ns = ktime_get_ns() - t0;
	mutex_unlock(&lock);
	vfree(src);
	vfree(dst);
	return len;
}

static ssize_t run_read(struct file *f, char __user *ubuf, size_t len,
			loff_t *pos)
{
	char buf[32];
	int n;

	mutex_lock(&lock);
	n = scnprintf(buf, sizeof(buf), "%llu\n", result_ns);
	mutex_unlock(&lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.read = run_read,
	.write = run_write,
};

static int __init hl_ipc_ceiling_init(void)
{
	dir = debugfs_create_dir("hl_ipc_ceiling", NULL);
	debugfs_create_file("run", 0600, dir, NULL, &run_fops);
	return 0;
}

static void __exit hl_ipc_ceiling_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(hl_ipc_ceiling_init);
module_exit(hl_ipc_ceiling_exit);

MODULE_DESCRIPTION("habanalabs_ipc benchmark: in-kernel memcpy ceiling");
MODULE_LICENSE("GPL");
