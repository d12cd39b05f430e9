// SPDX-License-Identifier: GPL-2.0
/*
 * hl_ipc_testdma: a stand-in memcpy DMA engine for habanalabs_ipc's
 * peer-to-peer tests.  Test only; no package installs it.
 *
 * QEMU emulates no memcpy DMA engine on x86 (ioatdma, idxd and ptdma are
 * real hardware), so this module binds to QEMU's "edu" PCI function and
 * registers a dmaengine device with DMA_MEMCPY channels whose descriptors
 * a worker executes, in order per channel.  It sees the addresses it is
 * given as the function's DMA would: through the function's IOMMU domain
 * when that domain translates, as bus addresses otherwise; what they
 * reach must be RAM or the memory BAR of a PCI function.  An address that
 * does not translate (mapped for another device, never mapped, unmapped
 * since) fails its descriptor (DMA_TRANS_READ_FAILED or WRITE_FAILED), so
 * a mapping made for the wrong device fails a test instead of working by
 * accident.
 *
 * Faults on demand (writable module parameters): fail_after=N fails the
 * Nth descriptor executed from now on, stall_ms delays every descriptor.
 * Unbinding the function (sysfs) unregisters the engine while consumers
 * hold its channels, as a hot unplug does: descriptors not yet done end
 * DMA_TRANS_ABORTED, and nothing new is accepted.
 *
 * Benchmark probe: "SRC_FD DST_FD SIZE ITERS" written to
 * /sys/kernel/debug/hl_ipc_testdma/raw copies the first SIZE bytes of
 * dma-buf SRC_FD into dma-buf DST_FD ITERS times through the engine's
 * dmaengine interface alone, as any client would (both attached peer to
 * peer and mapped once, descriptors of at most 1 MiB, each copy waited
 * for), on a channel of its own; reading the file gives the nanoseconds
 * the ITERS copies took.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#define TESTDMA_CHANNELS	4
#define TESTDMA_WINDOWS		32

static atomic_t fail_after = ATOMIC_INIT(0);
module_param_cb(fail_after, &param_ops_int, &fail_after.counter, 0644);
MODULE_PARM_DESC(fail_after, "Fail the Nth descriptor executed from now on (0: none)");

static unsigned int stall_ms;
module_param(stall_ms, uint, 0644);
MODULE_PARM_DESC(stall_ms, "Delay before each descriptor runs, in ms");

struct testdma_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	dma_addr_t src;
	dma_addr_t dst;
	size_t len;
};

struct testdma_chan {
	struct dma_chan chan;
	struct testdma_dev *td;
	spinlock_t lock;		/* the lists, cookies */
	struct list_head submitted;
	struct list_head issued;
	dma_cookie_t last_cookie;
	dma_cookie_t done_cookie;
	struct work_struct work;
};

/* A memory BAR reached through the engine, mapped once. */
struct testdma_window {
	phys_addr_t start;
	resource_size_t len;
	void *kaddr;
};

struct testdma_dev {
	struct dma_device dma;
	struct pci_dev *pdev;
	struct workqueue_struct *wq;
	bool dead;			/* unbound: nothing new */
	struct mutex windows_lock;
	struct testdma_window windows[TESTDMA_WINDOWS];
	unsigned int nbars;		/* BARs with windows */
	struct testdma_chan chans[TESTDMA_CHANNELS];
	struct testdma_chan probe_chan;	/* the benchmark probe's, unlisted */
	struct list_head released;	/* in testdma_released */
};

static struct testdma_chan *to_tchan(struct dma_chan *chan)
{
	return container_of(chan, struct testdma_chan, chan);
}

/* Whether the function's bus addresses go through an IOMMU's page tables. */
static bool testdma_paging(struct testdma_dev *td)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(&td->pdev->dev);

	return dom && (dom->type & __IOMMU_DOMAIN_PAGING);
}

/* What the function's DMA reaches at bus address @addr, or false. */
static bool testdma_translate(struct testdma_dev *td, dma_addr_t addr,
			      phys_addr_t *phys)
{
	if (testdma_paging(td)) {
		*phys = iommu_iova_to_phys(iommu_get_domain_for_dev(&td->pdev->dev),
					   addr);
		return *phys;
	}
	*phys = addr;
	return true;
}

/*
 * Pages by which the windows of successive BARs are skewed.  QEMU's TCG
 * finds a guest's virtual addresses in a direct-mapped TLB, and two
 * mappings of equal size share their alignment: a copy between the same
 * offsets of two BARs evicts its own entries at every access.  This
 * engine copied device to device at about 850 MB/s so, and at about 3000
 * with the windows skewed (the same boot's userspace memcpy: 2000); no
 * DMA engine's speed depends on that.  So the n-th BAR's window starts
 * n * TESTDMA_SKEW pages into it, and those first pages get a window of
 * their own.
 */
#define TESTDMA_SKEW	17

static struct testdma_window *testdma_add_window(struct testdma_dev *td,
						 phys_addr_t start,
						 resource_size_t len)
{
	unsigned int i;

	for (i = 0; i < TESTDMA_WINDOWS && td->windows[i].kaddr; i++)
		;
	if (i == TESTDMA_WINDOWS)
		return NULL;
	td->windows[i].kaddr = memremap(start, len, MEMREMAP_WB);
	if (!td->windows[i].kaddr)
		return NULL;
	td->windows[i].start = start;
	td->windows[i].len = len;
	return &td->windows[i];
}

/* Windows for BAR @r, skewed by its order among the BARs mapped. */
static void testdma_map_bar(struct testdma_dev *td, const struct resource *r)
{
	resource_size_t skew = (resource_size_t)td->nbars * TESTDMA_SKEW *
			       PAGE_SIZE;

	if (skew >= resource_size(r))
		skew = 0;
	if (skew && !testdma_add_window(td, r->start, skew))
		return;
	if (testdma_add_window(td, r->start + skew, resource_size(r) - skew))
		td->nbars++;
}

static struct testdma_window *testdma_find_window(struct testdma_dev *td,
						  phys_addr_t phys)
{
	unsigned int i;

	for (i = 0; i < TESTDMA_WINDOWS && td->windows[i].kaddr; i++)
		if (phys >= td->windows[i].start &&
		    phys - td->windows[i].start < td->windows[i].len)
			return &td->windows[i];
	return NULL;
}

/* A kernel mapping of the memory BAR holding @phys, or NULL. */
static void *testdma_bar(struct testdma_dev *td, phys_addr_t phys,
			 size_t *left)
{
	struct testdma_window *w;
	struct pci_dev *pdev = NULL;
	int bar;

	mutex_lock(&td->windows_lock);
	w = testdma_find_window(td, phys);
	if (!w) {
		for_each_pci_dev(pdev) {
			for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
				struct resource *r = &pdev->resource[bar];

				if (!(r->flags & IORESOURCE_MEM) ||
				    !resource_size(r) || phys < r->start ||
				    phys > r->end)
					continue;
				testdma_map_bar(td, r);
				w = testdma_find_window(td, phys);
				break;
			}
			if (bar < PCI_STD_NUM_BARS) {
				pci_dev_put(pdev);
				break;
			}
		}
	}
	mutex_unlock(&td->windows_lock);
	if (!w)
		return NULL;
	*left = w->len - (phys - w->start);
	return w->kaddr + (phys - w->start);
}

/* Longest run copied at once where bus addresses are physical. */
#define TESTDMA_RUN	SZ_1M

static bool testdma_is_ram(phys_addr_t phys)
{
	return pfn_valid(PHYS_PFN(phys)) && page_is_ram(PHYS_PFN(phys));
}

/*
 * Maps what bus address @addr reaches, for at most *@len bytes; NULL if it
 * reaches nothing.  @page says how to unmap it.  Through an IOMMU a page
 * at a time (each translated); without one, bus addresses are physical
 * and a run is contiguous: RAM through the direct map, a BAR through its
 * window, up to TESTDMA_RUN bytes.
 */
static void *testdma_map(struct testdma_dev *td, dma_addr_t addr, size_t *len,
			 struct page **page)
{
	bool paging = testdma_paging(td);
	phys_addr_t phys;
	size_t left;
	void *p;

	*page = NULL;
	if (!testdma_translate(td, addr, &phys))
		return NULL;
	if (testdma_is_ram(phys)) {
		size_t run = min_t(size_t, *len, TESTDMA_RUN);

		if (!paging && !PageHighMem(pfn_to_page(PHYS_PFN(phys))) &&
		    testdma_is_ram(phys + run - 1)) {
			*len = run;
			return phys_to_virt(phys);
		}
		*page = pfn_to_page(PHYS_PFN(phys));
		*len = min_t(size_t, *len, PAGE_SIZE - offset_in_page(phys));
		return kmap_local_page(*page) + offset_in_page(phys);
	}
	p = testdma_bar(td, phys, &left);
	if (!p)
		return NULL;
	if (paging)
		*len = min3(*len, left, PAGE_SIZE - offset_in_page(phys));
	else
		*len = min3(*len, left, (size_t)TESTDMA_RUN);
	return p;
}

static void testdma_unmap(void *p, struct page *page)
{
	if (page)
		kunmap_local(p);
}

static enum dmaengine_tx_result testdma_copy(struct testdma_dev *td,
					     struct testdma_desc *d)
{
	size_t done = 0, n, sn, dn;
	struct page *sp, *dp;
	void *s, *dst;

	while (done < d->len) {
		sn = d->len - done;
		s = testdma_map(td, d->src + done, &sn, &sp);
		if (!s)
			return DMA_TRANS_READ_FAILED;
		dn = sn;
		dst = testdma_map(td, d->dst + done, &dn, &dp);
		if (!dst) {
			testdma_unmap(s, sp);
			return DMA_TRANS_WRITE_FAILED;
		}
		n = min(sn, dn);
		memcpy(dst, s, n);
		testdma_unmap(dst, dp);
		testdma_unmap(s, sp);
		done += n;
		cond_resched();
	}
	return DMA_TRANS_NOERROR;
}

static void testdma_complete(struct testdma_desc *d,
			     enum dmaengine_tx_result result)
{
	struct dmaengine_result res = { .result = result };
	dma_async_tx_callback_result cb_result = d->tx.callback_result;
	dma_async_tx_callback cb = d->tx.callback;
	void *param = d->tx.callback_param;

	kfree(d);
	if (cb_result)
		cb_result(param, &res);
	else if (cb)
		cb(param);
}

static void testdma_work(struct work_struct *work)
{
	struct testdma_chan *tc = container_of(work, struct testdma_chan, work);
	enum dmaengine_tx_result result;
	struct testdma_desc *d;

	for (;;) {
		spin_lock_bh(&tc->lock);
		d = list_first_entry_or_null(&tc->issued, struct testdma_desc,
					     node);
		if (d)
			list_del(&d->node);
		spin_unlock_bh(&tc->lock);
		if (!d)
			return;
		if (READ_ONCE(stall_ms))
			msleep(READ_ONCE(stall_ms));
		if (READ_ONCE(tc->td->dead))
			result = DMA_TRANS_ABORTED;
		else if (atomic_read(&fail_after) > 0 &&
			 atomic_dec_and_test(&fail_after))
			result = DMA_TRANS_WRITE_FAILED;
		else
			result = testdma_copy(tc->td, d);
		spin_lock_bh(&tc->lock);
		tc->done_cookie = d->tx.cookie;
		spin_unlock_bh(&tc->lock);
		testdma_complete(d, result);
	}
}

static dma_cookie_t testdma_submit(struct dma_async_tx_descriptor *tx)
{
	struct testdma_chan *tc = to_tchan(tx->chan);
	struct testdma_desc *d = container_of(tx, struct testdma_desc, tx);
	dma_cookie_t cookie;

	spin_lock_bh(&tc->lock);
	cookie = tc->last_cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	tc->last_cookie = cookie;
	tx->cookie = cookie;
	list_add_tail(&d->node, &tc->submitted);
	spin_unlock_bh(&tc->lock);
	return cookie;
}

static struct dma_async_tx_descriptor *
testdma_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		    size_t len, unsigned long flags)
{
	struct testdma_chan *tc = to_tchan(chan);
	struct testdma_desc *d;

	if (READ_ONCE(tc->td->dead) || !len)
		return NULL;
	d = kzalloc(sizeof(*d), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, chan);
	d->tx.tx_submit = testdma_submit;
	d->tx.flags = flags;
	d->src = src;
	d->dst = dst;
	d->len = len;
	return &d->tx;
}

static void testdma_issue_pending(struct dma_chan *chan)
{
	struct testdma_chan *tc = to_tchan(chan);

	spin_lock_bh(&tc->lock);
	list_splice_tail_init(&tc->submitted, &tc->issued);
	spin_unlock_bh(&tc->lock);
	queue_work(tc->td->wq, &tc->work);
}

static enum dma_status testdma_tx_status(struct dma_chan *chan,
					 dma_cookie_t cookie,
					 struct dma_tx_state *state)
{
	struct testdma_chan *tc = to_tchan(chan);
	dma_cookie_t done, last;

	spin_lock_bh(&tc->lock);
	done = tc->done_cookie;
	last = tc->last_cookie;
	spin_unlock_bh(&tc->lock);
	if (state) {
		state->last = done;
		state->used = last;
		state->residue = 0;
	}
	return dma_async_is_complete(cookie, done, last);
}

/* Descriptors not yet run go without their callbacks, as the API says. */
static int testdma_terminate_all(struct dma_chan *chan)
{
	struct testdma_chan *tc = to_tchan(chan);
	struct testdma_desc *d, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&tc->lock);
	list_splice_init(&tc->submitted, &gone);
	list_splice_init(&tc->issued, &gone);
	spin_unlock_bh(&tc->lock);
	list_for_each_entry_safe(d, tmp, &gone, node)
		kfree(d);
	return 0;
}

static void testdma_synchronize(struct dma_chan *chan)
{
	flush_work(&to_tchan(chan)->work);
}

static void testdma_free_chan_resources(struct dma_chan *chan)
{
	testdma_terminate_all(chan);
	testdma_synchronize(chan);
}

/* ---- the benchmark probe ------------------------------------------- */

/* The engine the probe uses (the first bound); under testdma_probe_lock. */
static struct testdma_dev *testdma_probe_dev;
static DEFINE_MUTEX(testdma_probe_lock);
static u64 testdma_probe_ns;
static struct dentry *testdma_debugfs;

#define TESTDMA_PROBE_PIECE	SZ_1M

struct testdma_probe_buf {
	struct dma_buf *buf;
	struct dma_buf_attachment *att;
	struct sg_table *sgt;
};

static void testdma_probe_move(struct dma_buf_attachment *att)
{
}

static const struct dma_buf_attach_ops testdma_probe_ops = {
	.allow_peer2peer = true,
	.move_notify = testdma_probe_move,
};

static void testdma_probe_put(struct testdma_probe_buf *b)
{
	if (b->sgt) {
		dma_resv_lock(b->buf->resv, NULL);
		dma_buf_unmap_attachment(b->att, b->sgt, DMA_BIDIRECTIONAL);
		dma_resv_unlock(b->buf->resv);
	}
	if (b->att)
		dma_buf_detach(b->buf, b->att);
	if (b->buf)
		dma_buf_put(b->buf);
}

static int testdma_probe_get(struct testdma_dev *td, int fd,
			     struct testdma_probe_buf *b)
{
	struct sg_table *sgt;

	b->buf = dma_buf_get(fd);
	if (IS_ERR(b->buf)) {
		int ret = PTR_ERR(b->buf);

		b->buf = NULL;
		return ret;
	}
	b->att = dma_buf_dynamic_attach(b->buf, &td->pdev->dev,
					&testdma_probe_ops, NULL);
	if (IS_ERR(b->att)) {
		int ret = PTR_ERR(b->att);

		b->att = NULL;
		return ret;
	}
	dma_resv_lock(b->buf->resv, NULL);
	sgt = dma_buf_map_attachment(b->att, DMA_BIDIRECTIONAL);
	dma_resv_unlock(b->buf->resv);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	b->sgt = sgt;
	return 0;
}

/* The bus address of byte @off of @sgt, and how many bytes follow it. */
static dma_addr_t testdma_probe_addr(struct sg_table *sgt, u64 off, u64 *len)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (off < sg_dma_len(sg)) {
			*len = sg_dma_len(sg) - off;
			return sg_dma_address(sg) + off;
		}
		off -= sg_dma_len(sg);
	}
	*len = 0;
	return 0;
}

static void testdma_probe_done(void *arg)
{
	complete(arg);
}

/* One copy of @size bytes, submitted piece by piece and waited for. */
static int testdma_probe_copy(struct testdma_dev *td,
			      struct testdma_probe_buf *src,
			      struct testdma_probe_buf *dst, u64 size)
{
	struct dma_chan *chan = &td->probe_chan.chan;
	struct dma_async_tx_descriptor *tx;
	DECLARE_COMPLETION_ONSTACK(done);
	u64 off = 0, slen, dlen, len;
	dma_addr_t s, d;

	while (off < size) {
		s = testdma_probe_addr(src->sgt, off, &slen);
		d = testdma_probe_addr(dst->sgt, off, &dlen);
		if (!slen || !dlen)
			return -ERANGE;
		len = min3(size - off, min(slen, dlen), (u64)TESTDMA_PROBE_PIECE);
		tx = testdma_prep_memcpy(chan, d, s, len, DMA_PREP_INTERRUPT);
		if (!tx)
			return -ENODEV;
		off += len;
		if (off == size) {
			tx->callback = testdma_probe_done;
			tx->callback_param = &done;
		}
		testdma_submit(tx);
	}
	testdma_issue_pending(chan);
	if (!wait_for_completion_timeout(&done, 30 * HZ)) {
		testdma_terminate_all(chan);
		testdma_synchronize(chan);
		return -ETIMEDOUT;
	}
	return 0;
}

static ssize_t testdma_probe_write(struct file *f, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct testdma_probe_buf src = {}, dst = {};
	int sfd, dfd, ret;
	u64 size, iters, i, t0;
	char buf[96];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	if (sscanf(buf, "%d %d %llu %llu", &sfd, &dfd, &size, &iters) != 4 ||
	    !size || !iters || iters > 100000)
		return -EINVAL;
	mutex_lock(&testdma_probe_lock);
	if (!testdma_probe_dev) {
		ret = -ENODEV;
		goto out;
	}
	ret = testdma_probe_get(testdma_probe_dev, sfd, &src);
	if (!ret)
		ret = testdma_probe_get(testdma_probe_dev, dfd, &dst);
	if (ret)
		goto out;
	if (size > src.buf->size || size > dst.buf->size) {
		ret = -ERANGE;
		goto out;
	}
	t0 = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		ret = testdma_probe_copy(testdma_probe_dev, &src, &dst, size);
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	testdma_probe_ns = ktime_get_ns() - t0;
out:
	testdma_probe_put(&dst);
	testdma_probe_put(&src);
	mutex_unlock(&testdma_probe_lock);
	return ret ? ret : count;
}

static ssize_t testdma_probe_read(struct file *f, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[32];
	int n;

	mutex_lock(&testdma_probe_lock);
	n = scnprintf(buf, sizeof(buf), "%llu\n", testdma_probe_ns);
	mutex_unlock(&testdma_probe_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations testdma_probe_fops = {
	.owner = THIS_MODULE,
	.write = testdma_probe_write,
	.read = testdma_probe_read,
	.llseek = default_llseek,
};

/*
 * Engines released but not freed: dma_chan_put() reads the channel's
 * device (its owner module) after the put that released it, so the
 * memory stays until the module goes, when nothing can hold a channel.
 */
static LIST_HEAD(testdma_released);
static DEFINE_MUTEX(testdma_released_lock);

/* After the last consumer's reference, once unregistered. */
static void testdma_release(struct dma_device *dma)
{
	struct testdma_dev *td = container_of(dma, struct testdma_dev, dma);
	unsigned int i;

	destroy_workqueue(td->wq);
	for (i = 0; i < TESTDMA_WINDOWS && td->windows[i].kaddr; i++)
		memunmap(td->windows[i].kaddr);
	pci_dev_put(td->pdev);
	mutex_lock(&testdma_released_lock);
	list_add(&td->released, &testdma_released);
	mutex_unlock(&testdma_released_lock);
}

static int testdma_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct testdma_dev *td;
	unsigned int i;
	int rc;

	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	pci_set_master(pdev);
	rc = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (rc)
		return rc;
	td = kzalloc(sizeof(*td), GFP_KERNEL);
	if (!td)
		return -ENOMEM;
	td->pdev = pci_dev_get(pdev);
	mutex_init(&td->windows_lock);
	td->wq = alloc_workqueue("hl_ipc_testdma", WQ_UNBOUND, 0);
	if (!td->wq) {
		pci_dev_put(pdev);
		kfree(td);
		return -ENOMEM;
	}

	td->dma.dev = &pdev->dev;
	dma_cap_set(DMA_MEMCPY, td->dma.cap_mask);
	td->dma.device_prep_dma_memcpy = testdma_prep_memcpy;
	td->dma.device_issue_pending = testdma_issue_pending;
	td->dma.device_tx_status = testdma_tx_status;
	td->dma.device_terminate_all = testdma_terminate_all;
	td->dma.device_synchronize = testdma_synchronize;
	td->dma.device_free_chan_resources = testdma_free_chan_resources;
	td->dma.device_release = testdma_release;
	td->dma.copy_align = DMAENGINE_ALIGN_1_BYTE;
	INIT_LIST_HEAD(&td->dma.channels);
	for (i = 0; i < TESTDMA_CHANNELS; i++) {
		struct testdma_chan *tc = &td->chans[i];

		tc->td = td;
		spin_lock_init(&tc->lock);
		INIT_LIST_HEAD(&tc->submitted);
		INIT_LIST_HEAD(&tc->issued);
		INIT_WORK(&tc->work, testdma_work);
		tc->chan.device = &td->dma;
		list_add_tail(&tc->chan.device_node, &td->dma.channels);
	}
	td->probe_chan.td = td;
	spin_lock_init(&td->probe_chan.lock);
	INIT_LIST_HEAD(&td->probe_chan.submitted);
	INIT_LIST_HEAD(&td->probe_chan.issued);
	INIT_WORK(&td->probe_chan.work, testdma_work);
	td->probe_chan.chan.device = &td->dma;
	rc = dma_async_device_register(&td->dma);
	if (rc) {
		destroy_workqueue(td->wq);
		pci_dev_put(pdev);
		kfree(td);
		return rc;
	}
	pci_set_drvdata(pdev, td);
	mutex_lock(&testdma_probe_lock);
	if (!testdma_probe_dev)
		testdma_probe_dev = td;
	mutex_unlock(&testdma_probe_lock);
	dev_info(&pdev->dev, "test memcpy DMA engine, %d channels%s\n",
		 TESTDMA_CHANNELS,
		 iommu_get_domain_for_dev(&pdev->dev) ? ", behind an IOMMU" : "");
	return 0;
}

/* A hot unplug: consumers may still hold channels (device_release). */
static void testdma_remove(struct pci_dev *pdev)
{
	struct testdma_dev *td = pci_get_drvdata(pdev);
	unsigned int i;

	mutex_lock(&testdma_probe_lock);
	if (testdma_probe_dev == td)
		testdma_probe_dev = NULL;
	mutex_unlock(&testdma_probe_lock);
	WRITE_ONCE(td->dead, true);
	for (i = 0; i < TESTDMA_CHANNELS; i++)
		flush_work(&td->chans[i].work);
	dma_async_device_unregister(&td->dma);
}

/* QEMU's educational device. */
static const struct pci_device_id testdma_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};

static struct pci_driver testdma_driver = {
	.name = "hl_ipc_testdma",
	.id_table = testdma_ids,
	.probe = testdma_probe,
	.remove = testdma_remove,
};

static int __init testdma_init(void)
{
	int ret;

	testdma_debugfs = debugfs_create_dir("hl_ipc_testdma", NULL);
	debugfs_create_file("raw", 0600, testdma_debugfs, NULL,
			    &testdma_probe_fops);
	ret = pci_register_driver(&testdma_driver);
	if (ret)
		debugfs_remove_recursive(testdma_debugfs);
	return ret;
}
module_init(testdma_init);

static void __exit testdma_exit(void)
{
	struct testdma_dev *td, *tmp;

	debugfs_remove_recursive(testdma_debugfs);
	pci_unregister_driver(&testdma_driver);
	list_for_each_entry_safe(td, tmp, &testdma_released, released)
		kfree(td);
}
module_exit(testdma_exit);

MODULE_DESCRIPTION("Test-only memcpy DMA engine on QEMU's edu device");
MODULE_INFO(import_ns, "DMA_BUF");
MODULE_LICENSE("GPL");
