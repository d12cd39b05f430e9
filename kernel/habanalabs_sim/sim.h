/* SPDX-License-Identifier: GPL-2.0 */
/*
 * habanalabs_sim: emulated Gaudi2 devices speaking a subset of the
 * habanalabs uapi.  Shared definitions of the module's parts.
 */
#ifndef HL_SIM_H
#define HL_SIM_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "habanalabs_abi.h"
#include "habanalabs_extra.h"

struct pci_dev;

#define SIM_NAME		"habanalabs_sim"
#define SIM_MAX_DEVICES		8

/*
 * Device virtual address ranges of every context.  Device memory and host
 * (userptr) mappings live in separate ranges, as on Gaudi2; neighbouring
 * mappings may touch, as the driver's VA blocks do.
 */
#define SIM_DRAM_VA_BASE	0x100000000000ull	/* 16 TiB */
#define SIM_DRAM_VA_SIZE	0x010000000000ull	/* 1 TiB */
#define SIM_HOST_VA_BASE	0x200000000000ull	/* 32 TiB */
#define SIM_HOST_VA_SIZE	0x010000000000ull

/*
 * SRAM, which queues reach at Gaudi2's SRAM_BASE_ADDR without a mapping;
 * at most Gaudi2's 48 MiB (module parameter sram_mb, default none).
 */
#define SIM_SRAM_BASE		0x1000FFFFFD000000ull
#define SIM_SRAM_MAX		(48ull << 20)

/* Page sizes ALLOC accepts: 4 KiB (default), 64 KiB, 2 MiB. */
#define SIM_PAGE_ORDER_MASK	(BIT_ULL(12) | BIT_ULL(16) | BIT_ULL(21))

/*
 * CB and timestamp buffer handles are mmap offsets: type in the high
 * page-offset bits (the driver's HL_MMAP_TYPE_*).
 */
#define SIM_MMAP_TYPE_CB	(0x2ull << 47)
#define SIM_MMAP_TYPE_TS	(0x10ull << 47)
#define SIM_MMAP_TYPE_MASK	(0x1full << 47)
#define SIM_MMAP_ID_MASK	0xffffffffull

static inline u64 sim_mmap_handle(u32 id, u64 type)
{
	return ((u64)id | type) << PAGE_SHIFT;
}

/* The id a handle's (or mmap's) page offset names for @type, or -1. */
static inline long sim_mmap_id(u64 pgoff, u64 type)
{
	if ((pgoff & ~SIM_MMAP_ID_MASK) != type)
		return -1;
	pgoff &= SIM_MMAP_ID_MASK;
	if (!pgoff || pgoff > INT_MAX)
		return -1;
	return pgoff;
}

/*
 * CSs in flight per context: Gaudi2's max_pending_cs.  The fences of the
 * last this many CSs are kept too (a power of two: indexed by seq).
 */
#define SIM_MAX_PENDING_CS	64

/* Outcomes of timestamped CSs kept past their fence, as the driver's. */
#define SIM_CS_OUTCOMES		256

/*
 * Commands (LIN_DMA of non-zero size, MSG_*, FENCE) one CS may hold in
 * kernel memory: a run of the same LIN_DMA is one command, however long.
 * The real driver keeps nothing per packet (the queue reads the CB
 * itself); the emulation parses CBs at submission, so it bounds that.
 */
#define SIM_MAX_CS_DMA_OPS	65536

/*
 * Commands of all the CSs a context has in flight: what pending
 * work may hold in kernel memory (about 5 MiB of operations).  A CS that
 * would exceed it is refused with EAGAIN, as a full queue is.
 */
#define SIM_MAX_PENDING_DMA_OPS	(1u << 16)

/* Command buffers a context may hold, and their bytes (ENOSPC beyond). */
#define SIM_MAX_CBS		1024
#define SIM_MAX_CB_BYTES	(64ull << 20)

/* HL_INFO_SYNC_MANAGER accepts dcore ids below this (the driver's bound). */
#define SIM_INFO_DCORES		8

/* Emulated power: idle, and added while CSs are in flight (mW). */
#define SIM_POWER_IDLE_MW	100000
#define SIM_POWER_BUSY_MW	200000
/* Emulated clocks (MHz): the ASIC clock, and each PLL output. */
#define SIM_CLK_MHZ		1000

/*
 * The sync objects, monitors and completion queues below the first user
 * ones are the driver's (gaudi2_set_fixed_properties()): first
 * GAUDI2_RESERVED_SOB_NUMBER, _MON_NUMBER and _CQ_NUMBER (CS completion,
 * KDMA and the 10 decoders), then two SOBs and one monitor for each
 * queue that supports sync streams (every queue below the CPU queue but
 * the NIC's), as HL_INFO_SYNC_MANAGER reports for dcore 0.
 */
#define SIM_SM_RESERVED_SOBS	85
#define SIM_SM_RESERVED_MONS	125
#define SIM_SYNC_STREAM_QUEUES	(GAUDI2_QUEUE_ID_CPU_PQ -		\
				 (GAUDI2_QUEUE_ID_NIC_23_3 -		\
				  GAUDI2_QUEUE_ID_NIC_0_0 + 1))
#define SIM_SM_FIRST_USER_SOB	(SIM_SM_RESERVED_SOBS + 2 * SIM_SYNC_STREAM_QUEUES)
#define SIM_SM_FIRST_USER_MON	(SIM_SM_RESERVED_MONS + SIM_SYNC_STREAM_QUEUES)
#define SIM_SM_FIRST_USER_CQ	2

/*
 * Entries of each queue's ring (HL_QUEUE_LENGTH): a job takes one from
 * submission to completion, and a CS that does not fit is refused with
 * EAGAIN, a queue-full drop (hw_queue_sanity_checks()).
 */
#define SIM_QUEUE_LENGTH	4096

/*
 * The queue managers of the engines the device has: PDMA0, PDMA1 and the
 * eight EDMAs (sim_queue.c).
 */
#define SIM_QMANS		10
/* Their streams, each a queue: sim_queue_slot() numbers them. */
#define SIM_QUEUE_SLOTS		(SIM_QMANS * 4)
/* HL_INFO_HW_IP_INFO: every EDMA enabled (GAUDI2_EDMA_FULL_MASK). */
#define SIM_EDMA_ENABLED_MASK	0xff

/*
 * Interrupt ids WAIT_CS takes (gaudi2_set_fixed_properties()): the ten
 * decoders' first (none enabled here), then the 64 user interrupts from
 * GAUDI2_IRQ_NUM_USER_FIRST, and the two "any" ids of the uapi.
 */
#define SIM_IRQ_DEC_COUNT	10
#define SIM_IRQ_USER_FIRST	48
#define SIM_IRQ_USER_COUNT	64
#define SIM_IRQ_COMMON_CQ	0xfff
#define SIM_IRQ_COMMON_DEC	0xffe

/*
 * Timestamp elements one open may hold in all its buffers (ENOSPC
 * beyond): each costs 8 bytes the user maps and a registration record.
 */
#define SIM_MAX_TS_ELEMENTS	TS_MAX_ELEMENTS_NUM

struct sim_qman {
	u32 first_queue;		/* stream 0's queue id */
	u32 fence_reg;			/* CP_FENCE0_RDATA_0, from CFG_BASE */
	u32 engine_id;			/* GAUDI2_*ENGINE_ID_* */
	u32 user_streams;		/* streams open to users, from 0 */
	const char *name;
};

extern const struct sim_qman sim_qmans[SIM_QMANS];

/* A completion queue's registers (GAUDI2_SM_CQ_*). */
struct sim_cq {
	u32 base_l, base_h;
	u32 size_log2;
	u32 pi;
	u32 lbw_l, lbw_h, lbw_data;
	u32 inc_mode;
};

struct sim_mon {
	u32 pay_addrl, pay_addrh, pay_data;
	u32 arm;
	u32 config;
	bool armed;
};

/*
 * The sync manager, and the queue managers' CPs' fences and predicates
 * (sim_sm.c), under sdev->engine.
 */
struct sim_sm {
	u32 sob[GAUDI2_SM_NUM_SOBS];
	struct sim_mon mon[GAUDI2_SM_NUM_MONS];
	struct sim_cq cq[GAUDI2_SM_NUM_CQS];
	u32 fence[SIM_QMANS][GAUDI2_QM_FENCE_CPS][GAUDI2_QM_FENCE_IDS];
	u32 pred[SIM_QMANS][GAUDI2_QM_FENCE_CPS];	/* bit i: predicate i */
	/* R0-R3 as loaded: a packet LOAD_AND_EXE may run */
	__le32 scalar[SIM_QMANS][GAUDI2_QM_FENCE_CPS][GAUDI2_QM_SCALARS];
};

/* Why a CS was refused, for HL_INFO_CS_COUNTERS. */
enum sim_cs_drop {
	SIM_DROP_OUT_OF_MEM,
	SIM_DROP_PARSING,		/* a malformed packet */
	SIM_DROP_QUEUE_FULL,		/* pending work bound (EAGAIN) */
	SIM_DROP_DEVICE_IN_RESET,	/* never: the emulation does not reset */
	SIM_DROP_MAX_CS_IN_FLIGHT,	/* SIM_MAX_PENDING_CS (EAGAIN) */
	SIM_DROP_VALIDATION,		/* a bad chunk, queue or CB */
	SIM_DROP_NR
};

/* Live object counters, reported in debugfs for leak checks. */
enum sim_stat {
	SIM_STAT_CTX,		/* open compute contexts */
	SIM_STAT_BO,		/* device memory and userptr objects */
	SIM_STAT_ALLOC,		/* live ALLOC handles */
	SIM_STAT_MAPPING,	/* live device VA mappings */
	SIM_STAT_USERPTR,	/* pinned host ranges */
	SIM_STAT_DMABUF,	/* exported dma-bufs not yet released */
	SIM_STAT_DMABUF_ATTACH,	/* attachments mapped to an sg table */
	SIM_STAT_DMABUF_VMAP,	/* kernel vmaps of dma-bufs */
	SIM_STAT_CB,		/* CBs, also destroyed but mmapped */
	SIM_STAT_CS,		/* command submissions not yet freed */
	SIM_STAT_TS_BUF,	/* timestamp buffers, also closed but mmapped */
	SIM_STAT_TS_REG,	/* timestamp registrations not yet fired */
	SIM_STAT_NR
};

extern atomic_t sim_stats[SIM_STAT_NR];
/* ALLOCs given up because the caller was killed (debugfs "events"). */
extern atomic_t sim_alloc_interrupted;
extern atomic_t sim_cs_inline_count;	/* CSs their submitter ran */

static inline void sim_stat_inc(enum sim_stat s)
{
	atomic_inc(&sim_stats[s]);
}

static inline void sim_stat_dec(enum sim_stat s)
{
	atomic_dec(&sim_stats[s]);
}

/* A device's memory when it is a PCI BAR (pci_memory=1, sim_bar.c). */
struct sim_bar {
	struct pci_dev *pdev;
	phys_addr_t phys;		/* the BAR's CPU physical address */
	u64 size;
	void *kaddr;			/* the device's own mapping of it */
	spinlock_t lock;		/* used */
	unsigned long npages;
	unsigned long *used;		/* a bit per page given out */
};

struct sim_device {
	bool live;			/* its slot is in use */
	unsigned int index;
	struct sim_bar *bar;		/* NULL: its memory is RAM */
	dev_t devt;			/* compute; control is devt + 1 */
	struct cdev cdev;		/* both minors */
	struct device *dev_compute;
	struct device *dev_control;
	struct workqueue_struct *wq;	/* ordered: CSs run in order */
	struct mutex engine;		/* held while a CS runs */

	struct mutex open_lock;
	bool compute_busy;		/* the one compute open */
	bool compute_in_release;	/* its release is running */
	bool in_debug;			/* HL_DEBUG_OP_SET_MODE */
	u64 open_count;
	ktime_t last_open;		/* start of the last compute open */
	u64 last_open_period_ms;	/* length of the last one that ended */
	ktime_t created;

	/* What a CS did to the device (HL_INFO_*). */
	atomic_t cs_inflight;		/* CSs submitted, not completed */
	atomic_t qman_busy[SIM_QMANS];	/* of those, the ones using each */
	atomic64_t busy_ns;		/* time with CSs in flight before... */
	ktime_t busy_since;		/* ...the current busy period */
	atomic64_t cs_drops[SIM_DROP_NR];
	spinlock_t event_lock;		/* busy_*, and the fields below */
	u64 cs_timeout_seq;		/* last CS that timed out */
	ktime_t cs_timeout_time;
	u32 soft_reset_cnt;		/* resets a timed-out CS causes */

	spinlock_t mem_lock;
	u64 mem_size;			/* bytes of emulated DRAM */
	u64 mem_used;			/* charged by live device BOs */

	struct sim_sm *sm;		/* sync manager, queue fences */
	struct sim_bo *sram;		/* NULL: the device reports none */
	struct sim_irq *irq;		/* user interrupts (sim_irq.c) */

	char pci_addr[16];
};

/*
 * Backing object: pages of emulated device memory, or pinned host pages
 * of a userptr mapping.  Refcounted: its handle, mappings, dma-bufs and
 * in-flight CSs each hold a reference.
 */
struct sim_bo {
	struct kref ref;
	struct sim_device *sdev;
	bool userptr;
	bool kernel;			/* pages of a CB: references */
	bool sram;			/* the device's SRAM: not DRAM */
	unsigned long npages;
	struct page **pages;		/* NULL for BAR memory */
	u64 bar_off;			/* BAR memory: where in the BAR */
	void *kaddr;			/* BAR memory: the device's mapping */
	u64 size;			/* npages * PAGE_SIZE */
	u64 page_size;			/* device page size of ALLOC */
	struct mm_struct *mm;		/* userptr: charged to its pinned_vm */
};

/* One range of a context's device VA space (sim_va.c). */
struct sim_va_space {
	struct rb_root holes;		/* free ranges below top, by start */
	u64 base;
	u64 top;			/* [top, end) was never used */
	u64 end;
};

struct sim_va_hole;

/* One mapping in a context's device VA space. */
struct sim_va {
	struct rb_node node;		/* ctx->vas, by start */
	struct sim_va_space *space;	/* the range it lies in */
	u64 start;			/* page aligned */
	u64 size;			/* page multiple, = bo->size */
	u64 data_off;			/* userptr: offset in first page */
	struct sim_bo *bo;		/* reference */
	int handle;			/* ALLOC handle, 0 for userptr */
	bool kernel;			/* a mapped CB's: no UNMAP */
	unsigned int export_count;	/* live dma-bufs: UNMAP refused */
};

/* An ALLOC handle. */
struct sim_alloc {
	struct sim_bo *bo;		/* reference */
	unsigned int map_count;
};

struct sim_cb {
	struct kref ref;
	struct sim_ctx *ctx;		/* outlives the CB (see sim_cb_put) */
	u32 id;
	u32 size;			/* page multiple */
	void *kaddr;			/* vmalloc_user() */
	struct sim_va *va;		/* HL_CB_FLAGS_MAP; under ctx->lock */
	atomic_t mmap_count;
};

/*
 * How a completed CS ended.  The real driver answers a wait on one of the
 * last max_pending_cs CSs from its fence, on an older timestamped one from
 * an outcome store (once), and calls the rest "gone".
 */
struct sim_fence {
	u64 seq;			/* 0: empty */
	u64 age;			/* outcomes: push order, oldest lost */
	s64 timestamp_ns;
	int error;
	bool has_timestamp;
	bool signal;			/* of a signal CS */
};

/*
 * A queue's sync stream (sim_stream.c): its two reserved SOBs, the one
 * signal CSs increment now, and how many they did since it was taken.
 */
struct sim_stream {
	u16 signalled;
	u8 cur;				/* 0 or 1 */
	bool fresh;			/* cur was switched to: reset it first */
};

/*
 * One interrupt line: the WAIT_CSs sleeping on it and the timestamp
 * registrations it fires (sim_irq.c).
 */
struct sim_irq_line {
	struct mutex lock;
	struct list_head waits;		/* struct sim_irq_wait */
	struct list_head regs;		/* struct sim_ts_node */
	u32 id;
};

struct sim_irq {
	struct sim_irq_line user[SIM_IRQ_USER_COUNT];
	struct sim_irq_line common_cq;
	struct sim_irq_line common_dec;	/* nothing raises it */
};

/*
 * A timestamp registration: when its line fires with the counter at the
 * target, the time goes to the buffer's element.  One per element, made
 * with the buffer, so that registering never allocates (as the driver).
 */
struct sim_ts_node {
	struct list_head node;		/* on line->regs while in_use */
	struct sim_irq_line *line;	/* under ctx->ts_reg_lock */
	struct sim_ts_buf *buf;		/* the buffer it is part of */
	struct sim_cb *cq_cb;		/* reference while in_use */
	const u64 *counter;		/* in cq_cb's memory */
	u64 target;
	bool in_use;			/* under line->lock */
};

/* HL_MEM_OP_TS_ALLOC: elements of u64 the user maps (sim_ts.c). */
struct sim_ts_buf {
	struct kref ref;		/* handle, mmap */
	struct sim_ctx *ctx;		/* outlives it: mmap holds the file */
	u32 id;
	u32 count;
	u64 *stamps;			/* vmalloc_user() */
	struct sim_ts_node *nodes;	/* count of them */
	atomic_t mapped;		/* mapped once, as the driver */
};

/* Per-open state.  A control open has only sdev and control set. */
struct sim_ctx {
	struct sim_device *sdev;
	struct file *file;		/* the open this context belongs to */
	bool control;

	struct mutex lock;		/* everything below except CS state */
	struct idr allocs;		/* handle -> struct sim_alloc */
	struct idr cbs;			/* id -> struct sim_cb (a ref) */
	atomic_t ncbs;			/* CBs not yet released */
	atomic64_t cb_bytes;		/* and their size */
	/*
	 * struct sim_va, by start.  Changed under lock and vas_lock, so a
	 * lookup may hold either: the engine's hold only vas_lock, and are
	 * not queued behind the open's other users of lock.
	 */
	struct rb_root vas;
	spinlock_t vas_lock;
	struct sim_va_space dram_va;	/* device memory mappings */
	struct sim_va_space host_va;	/* userptr mappings */
	u64 dram_used;

	spinlock_t cs_lock;
	struct list_head cs_pending;	/* submitted, not completed */
	unsigned int cs_pending_count;
	unsigned long cs_pending_ops;	/* their commands */
	u64 last_seq;
	struct sim_fence fences[SIM_MAX_PENDING_CS];	/* by seq % size */
	struct sim_fence outcomes[SIM_CS_OUTCOMES];
	u64 outcome_age;
	/* Ring entries each queue's pending jobs take (SIM_QUEUE_LENGTH). */
	u16 queue_used[SIM_QUEUE_SLOTS];
	struct sim_stream streams[SIM_SYNC_STREAM_QUEUES];
	atomic_t aborting;		/* set at release */
	wait_queue_head_t abort_wq;
	wait_queue_head_t room_wq;	/* submitters to a full context */
	atomic64_t cs_drops[SIM_DROP_NR];

	/* Timestamp buffers: id -> struct sim_ts_buf (a reference). */
	struct idr ts_bufs;
	u32 ts_elements;		/* in all of them */
	struct mutex ts_reg_lock;	/* one registration at a time */

	/* HL_INFO_REGISTER_EVENTFD: device events for this open. */
	struct mutex notify_lock;
	struct eventfd_ctx *eventfd;
	u64 events_mask;		/* HL_NOTIFIER_EVENT_*, until read */
};

/* sim_main.c */
extern unsigned int sim_cs_delay_ms;
extern unsigned int sim_cs_timeout_s;
extern unsigned int sim_cs_inline_bytes;

/* sim_dev.c */
int sim_devices_init(u64 sram_size);
int sim_device_add(struct sim_bar *bar, u64 mem_size);
struct sim_bar *sim_device_remove(struct device *parent);
void sim_devices_fini(void);

/* sim_pci.c, sim_bar.c: devices whose memory is a PCI BAR */
int sim_pci_register(void);
void sim_pci_unregister(void);
int sim_bar_init(struct sim_bar *bar, struct pci_dev *pdev);
void sim_bar_fini(struct sim_bar *bar);
int sim_bar_alloc(struct sim_bar *bar, u64 size, u64 align, u64 *off);
void sim_bar_free(struct sim_bar *bar, u64 off, u64 size);

/* sim_mem.c */
void sim_bo_put(struct sim_bo *bo);
void sim_bo_get(struct sim_bo *bo);
void *sim_bo_map(struct sim_bo *bo, u64 off, u64 *len);
void sim_bo_unmap(struct sim_bo *bo, void *p);
void sim_bo_read(struct sim_bo *bo, u64 off, void *data, u32 len);
void sim_bo_write(struct sim_bo *bo, u64 off, const void *data, u32 len);
int sim_mem_alloc(struct sim_ctx *ctx, struct hl_mem_in *in, u64 *handle);
int sim_mem_free(struct sim_ctx *ctx, struct hl_mem_in *in);
int sim_mem_map_device(struct sim_ctx *ctx, struct hl_mem_in *in,
		       u64 *vaddr);
int sim_mem_map_host(struct sim_ctx *ctx, struct hl_mem_in *in,
		     u64 *vaddr);
int sim_mem_unmap(struct sim_ctx *ctx, struct hl_mem_in *in);
int sim_mem_export_hold(struct sim_ctx *ctx, const struct hl_mem_in *in,
			struct sim_va **out);
void sim_mem_ctx_fini(struct sim_ctx *ctx);
int sim_sram_init(struct sim_device *sdev, u64 size);
void sim_sram_fini(struct sim_device *sdev);
struct sim_bo *sim_mem_lookup(struct sim_ctx *ctx, u64 addr, u64 len,
			      u64 *off);
struct sim_bo *sim_mem_get(struct sim_ctx *ctx, u64 addr, u64 len, u64 *off);
int sim_mem_map_kernel(struct sim_ctx *ctx, void *kaddr, u32 size,
		       struct sim_va **out);
void sim_mem_unmap_kernel(struct sim_ctx *ctx, struct sim_va *va,
			  struct sim_va_hole **spare);

/* sim_va.c */
void sim_va_space_init(struct sim_va_space *sp, u64 base, u64 size);
void sim_va_space_fini(struct sim_va_space *sp);
struct sim_va_hole *sim_va_spare_alloc(void);
void sim_va_spare_free(struct sim_va_hole *spare);
int sim_va_place(struct sim_ctx *ctx, struct sim_va_space *sp,
		 struct sim_va *va, u64 hint, u64 align, bool force,
		 struct sim_va_hole **spare);
void sim_va_unplace(struct sim_ctx *ctx, struct sim_va_space *sp,
		    struct sim_va *va, struct sim_va_hole **spare);
struct sim_va *sim_va_find(struct sim_ctx *ctx, u64 addr, u64 len);
struct sim_va *sim_va_lookup(struct sim_ctx *ctx, u64 addr);

/* sim_dmabuf.c */
int sim_dmabuf_export(struct sim_ctx *ctx, struct sim_va *va, u64 offset,
		      u64 size, u32 flags);

/* sim_cb.c */
int sim_cb_ioctl(struct sim_ctx *ctx, union hl_cb_args *args);
struct sim_cb *sim_cb_get(struct sim_ctx *ctx, u64 handle);
void sim_cb_put(struct sim_cb *cb);
int sim_cb_mmap(struct sim_ctx *ctx, struct vm_area_struct *vma);
void sim_cb_ctx_fini(struct sim_ctx *ctx);

/* sim_queue.c */
int sim_queue_validate(const struct hl_cs_chunk *ch);
int sim_queue_qman(u32 queue);
bool sim_queue_enabled(u32 queue);
bool sim_queue_cb_address_valid(u64 addr, u32 size);
int sim_queue_slot(u32 queue);

/* sim_stream.c */
struct sim_signal {
	u32 sob;			/* the SOB a signal CS increments */
	u32 val;			/* the value it reaches */
	u32 write;			/* what the signal writes to it */
	u16 count;			/* the driver's sob_count_before_submission */
};

int sim_stream_index(u32 queue);
void sim_stream_signal(struct sim_ctx *ctx, int idx, struct sim_signal *sig);

/* sim_sm.c */
extern atomic_t sim_sm_lost_writes;	/* monitor writes that hit nothing */
extern atomic_t sim_sm_cut_cascades;	/* cascades that ran out of steps */
int sim_sm_init(struct sim_device *sdev);
void sim_sm_fini(struct sim_device *sdev);
void sim_sm_reset(struct sim_device *sdev);
int sim_sm_check_write(struct sim_device *sdev, u32 reg, u32 value);
void sim_sm_reg_write(struct sim_ctx *ctx, u32 reg, u32 value);
bool sim_sm_fence_pass(struct sim_device *sdev, u32 queue, bool lower, u8 id,
		       u8 target, u8 dec);
bool sim_sm_pred(struct sim_device *sdev, u32 queue, bool lower, u8 pred);
void sim_sm_pred_load(struct sim_device *sdev, u32 queue, bool lower, u32 map);
__le32 *sim_sm_scalars(struct sim_device *sdev, u32 queue, bool lower);
void sim_sm_sob_signal(struct sim_ctx *ctx, u32 sob, u32 value);
bool sim_sm_sob_reached(struct sim_device *sdev, u32 sob, u32 val);

/* sim_irq.c */
extern atomic_t sim_irq_lost;		/* doorbell writes of no user irq */
int sim_irq_init(struct sim_device *sdev);
void sim_irq_fini(struct sim_device *sdev);
void sim_irq_raise(struct sim_device *sdev, u32 vector);
int sim_irq_wait_ioctl(struct sim_ctx *ctx, union hl_wait_cs_args *args);
void sim_irq_ctx_fini(struct sim_ctx *ctx);

/* sim_ts.c */
int sim_ts_alloc(struct sim_ctx *ctx, u32 count, u64 *handle);
struct sim_ts_buf *sim_ts_get(struct sim_ctx *ctx, u64 handle);
void sim_ts_put(struct sim_ts_buf *buf);
int sim_ts_mmap(struct sim_ctx *ctx, struct vm_area_struct *vma);
void sim_ts_ctx_fini(struct sim_ctx *ctx);

/* sim_cs.c */
int sim_cs_ioctl(struct sim_ctx *ctx, union hl_cs_args *args);
int sim_wait_cs_ioctl(struct sim_ctx *ctx, union hl_wait_cs_args *args);
void sim_cs_ctx_fini(struct sim_ctx *ctx);

/* sim_info.c */
int sim_info_ioctl(struct sim_ctx *ctx, struct hl_info_args *args);
void sim_notify(struct sim_ctx *ctx, u64 event);
void sim_notify_ctx_fini(struct sim_ctx *ctx);
u64 sim_device_busy_ns(struct sim_device *sdev);

/* sim_debug.c */
int sim_debug_ioctl(struct sim_ctx *ctx, struct hl_debug_args *args);
void sim_debug_ctx_fini(struct sim_ctx *ctx);

#endif /* HL_SIM_H */
