/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ioctl of the test exporter /dev/hl_ipc_testexp (tests/kmod/
 * hl_ipc_testexp.c), shared with the tests that use it.
 */
#ifndef HL_IPC_TESTEXP_H
#define HL_IPC_TESTEXP_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * SHADOW: device memory the CPU sees only through a separate copy, as on
 * a non-coherent device: vmap gives the copy, begin_cpu_access fills it
 * from device memory, end_cpu_access writes it back, mmap shows device
 * memory.  Copies that skip the bracket read and write the wrong data.
 *
 * OLDLOCK: vmap follows the locking rules of the kernel it runs on; on
 * kernels before the 6.2 rules (no dma_buf_vmap_unlocked) it takes the
 * reservation lock itself, as exporters of that era did, and fails with
 * EDEADLK where it would have deadlocked because the importer held it.
 */
#define HL_TESTEXP_SHADOW	1
#define HL_TESTEXP_OLDLOCK	2
/*
 * GATED: begin_cpu_access waits (interruptibly, at most 60 s) until the
 * gate is open, so a test can hold a copy inside the importer at a known
 * point; HL_TESTEXP_WAITERS returns how many are waiting now.
 */
#define HL_TESTEXP_GATED	3

struct hl_testexp_create {
	__u32 mode;		/* HL_TESTEXP_* */
	__u32 flags;		/* O_RDWR or O_RDONLY, for the dma-buf file */
	__u64 size;		/* bytes, a multiple of the page size */
};

#define HL_TESTEXP_CREATE	_IOW('T', 0x01, struct hl_testexp_create)
/* arg 1 opens the gate of GATED buffers, 0 closes it (closed at load). */
#define HL_TESTEXP_GATE		_IO('T', 0x02)
#define HL_TESTEXP_WAITERS	_IO('T', 0x03)
/*
 * arg is a dma-buf fd of this exporter: tells its importers that the
 * memory moved (dma_buf_move_notify()), as an exporter that migrates
 * buffers does; the pages stay, importers must map them again.
 */
#define HL_TESTEXP_MOVE		_IO('T', 0x04)

#endif /* HL_IPC_TESTEXP_H */
