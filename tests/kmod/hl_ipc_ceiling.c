// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark probe for habanalabs_ipc: times the copy engine's routine
 * (chunked memcpy between two kernel mappings, rescheduling between
 * chunks) on two resident buffers, so that channel copies can be reported
 * as a fraction of what that routine does on this CPU model and kernel.
 *
 * Write "SIZE ITERS CHUNK" to /sys/kernel/debug/hl_ipc_ceiling/run to
 * copy between two vmalloc buffers, or "SIZE ITERS CHUNK SRC DST LEN"
 * (hex addresses, LEN >= SIZE) to copy the first SIZE bytes between two
 * ranges of LEN bytes of the writer's memory, pinned and vmapped as
 * habanalabs_ipc maps user regions.  That mapping belongs to the open
 * file and is kept for the next write of the same ranges, as a region's
 * is for the next copy; closing the file drops it.  Then read back the
 * nanoseconds the ITERS copies took.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

static struct dentry *dir;

/* A page-aligned range of the caller's memory, pinned and vmapped. */
struct user_map {
	struct page **pages;
	long npages;
	void *vaddr;
};

/* Per open file. */
struct probe {
	struct mutex lock;
	u64 result_ns;
	/* The user ranges mapped by the last write that named them. */
	unsigned long src_addr, dst_addr;
	u64 size;
	struct user_map src, dst;
};

/* ITERS chunked copies of SIZE bytes; the nanoseconds they took. */
static u64 time_copies(u8 *dst, const u8 *src, u64 size, u64 iters, u64 chunk)
{
	u64 i, done, t0 = ktime_get_ns();

	for (i = 0; i < iters; i++) {
		for (done = 0; done < size; ) {
			u64 n = min(chunk, size - done);

			memcpy(dst + done, src + done, n);
			done += n;
			if (done < size)
				cond_resched();
		}
	}
	return ktime_get_ns() - t0;
}

static void user_unmap(struct user_map *m)
{
	if (m->vaddr)
		vunmap(m->vaddr);
	if (m->npages > 0)
		unpin_user_pages(m->pages, m->npages);
	kvfree(m->pages);
	memset(m, 0, sizeof(*m));
}

static int user_map(struct user_map *m, unsigned long addr, u64 size,
		    bool write)
{
	long want = size >> PAGE_SHIFT;

	if (!PAGE_ALIGNED(addr))
		return -EINVAL;
	m->pages = kvmalloc_array(want, sizeof(*m->pages), GFP_KERNEL);
	if (!m->pages)
		return -ENOMEM;
	m->npages = pin_user_pages_fast(addr, want, write ? FOLL_WRITE : 0,
					m->pages);
	if (m->npages != want)
		return m->npages < 0 ? m->npages : -EFAULT;
	m->vaddr = vmap(m->pages, want, VM_MAP, PAGE_KERNEL);
	return m->vaddr ? 0 : -ENOMEM;
}

static void probe_unmap(struct probe *p)
{
	user_unmap(&p->dst);
	user_unmap(&p->src);
	p->size = 0;
}

/* The writer's ranges, mapped (again, unless they are the last ones). */
static int probe_map(struct probe *p, unsigned long src, unsigned long dst,
		     u64 size)
{
	int ret;

	if (p->size == PAGE_ALIGN(size) && p->src_addr == src &&
	    p->dst_addr == dst)
		return 0;
	probe_unmap(p);
	ret = user_map(&p->src, src, PAGE_ALIGN(size), false);
	if (!ret)
		ret = user_map(&p->dst, dst, PAGE_ALIGN(size), true);
	if (ret) {
		probe_unmap(p);
		return ret;
	}
	p->src_addr = src;
	p->dst_addr = dst;
	p->size = PAGE_ALIGN(size);
	return 0;
}

static ssize_t run_vmalloc(struct probe *p, u64 size, u64 iters, u64 chunk)
{
	u8 *src = vmalloc(size), *dst = vmalloc(size);

	if (!src || !dst) {
		vfree(src);
		vfree(dst);
		return -ENOMEM;
	}
	/* Resident before timing, like pinned regions. */
	memset(src, 0x5a, size);
	memset(dst, 0, size);
	p->result_ns = time_copies(dst, src, size, iters, chunk);
	vfree(src);
	vfree(dst);
	return 0;
}

static ssize_t run_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *pos)
{
	unsigned long long size, iters, chunk, src, dst, maplen;
	struct probe *p = f->private_data;
	char buf[128];
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%llu %llu %llu %llx %llx %llu", &size, &iters, &chunk,
		   &src, &dst, &maplen);
	if ((n != 3 && n != 6) || !size || size > (1ULL << 30) || !iters ||
	    chunk < PAGE_SIZE || (n == 6 && (maplen < size || maplen > (1ULL << 30))))
		return -EINVAL;

	mutex_lock(&p->lock);
	if (n == 3) {
		ret = run_vmalloc(p, size, iters, chunk);
	} else {
		ret = probe_map(p, src, dst, maplen);
		if (!ret)
			p->result_ns = time_copies(p->dst.vaddr, p->src.vaddr,
						   size, iters, chunk);
	}
	mutex_unlock(&p->lock);
	return ret ? ret : len;
}

static ssize_t run_read(struct file *f, char __user *ubuf, size_t len,
			loff_t *pos)
{
	struct probe *p = f->private_data;
	char buf[32];
	int n;

	mutex_lock(&p->lock);
	n = scnprintf(buf, sizeof(buf), "%llu\n", p->result_ns);
	mutex_unlock(&p->lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static int run_open(struct inode *inode, struct file *f)
{
	struct probe *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	mutex_init(&p->lock);
	f->private_data = p;
	return 0;
}

static int run_release(struct inode *inode, struct file *f)
{
	struct probe *p = f->private_data;

	probe_unmap(p);
	mutex_destroy(&p->lock);
	kfree(p);
	return 0;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.release = run_release,
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
