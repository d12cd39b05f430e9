/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * What this project needs of the habanalabs ABI that no kernel uapi
 * header carries: the PCI ids, the numbers of the former misc-device
 * ioctls (magic 'H', the driver's before it moved to accel), and the
 * Gaudi2 queue packets the emulated DMA queues run (facts of the hardware,
 * as the driver's internal gaudi2_packets.h describes them).  Written from
 * those facts; the names are this project's.
 *
 * Include after the uapi (the kernel's header or habanalabs_abi.h): the
 * ioctl numbers name its structs.  hlthunk.h does not include this file,
 * so nothing here meets the names of hl-thunk's own specs/ headers.
 *
 * Usable from the kernel and from C11/C++17 userspace.
 */
#ifndef HABANALABS_EXTRA_H
#define HABANALABS_EXTRA_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* PCI identity of the habanalabs ASICs */
#define HL_PCI_VENDOR_ID_HABANALABS	0x1da3
#define HL_PCI_DEVICE_ID_GOYA		0x0001
#define HL_PCI_DEVICE_ID_GAUDI		0x1000
#define HL_PCI_DEVICE_ID_GAUDI_SEC	0x1010
#define HL_PCI_DEVICE_ID_GAUDI2		0x1020

/*
 * The numbering of the former misc/habanalabs.h (magic 'H'), used by the
 * driver when its nodes were /dev/hl<N> and /dev/hl_controlD<N>.  Same
 * structs; habanalabs_sim accepts both numberings.
 */
#define HL_LEGACY_IOCTL_MAGIC	'H'
#define HL_LEGACY_IOCTL_INFO	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x01, \
				      struct hl_info_args)
#define HL_LEGACY_IOCTL_CB	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x02, \
				      union hl_cb_args)
#define HL_LEGACY_IOCTL_CS	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x03, \
				      union hl_cs_args)
#define HL_LEGACY_IOCTL_WAIT_CS	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x04, \
				      union hl_wait_cs_args)
#define HL_LEGACY_IOCTL_MEMORY	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x05, \
				      union hl_mem_args)
#define HL_LEGACY_IOCTL_DEBUG	_IOWR(HL_LEGACY_IOCTL_MAGIC, 0x06, \
				      struct hl_debug_args)

/* ------------------------------------------------------------------ */
/* Gaudi2 queue packets                                                 */
/* ------------------------------------------------------------------ */
/*
 * Every packet starts with a little-endian 64-bit header whose bits 60:56
 * hold the packet id; as 32-bit words, the second word is "ctl" and its
 * bits 28:24 are the opcode (= packet id), 29 engine barrier, 30 register
 * barrier, 31 message barrier.
 */
#define GAUDI2_PKT_HEADER_ID_SHIFT	56
#define GAUDI2_PKT_HEADER_ID_MASK	0x1F00000000000000ull

#define GAUDI2_PKT_CTL_OPCODE_SHIFT	24
#define GAUDI2_PKT_CTL_OPCODE_MASK	0x1F000000
#define GAUDI2_PKT_CTL_EB_SHIFT		29
#define GAUDI2_PKT_CTL_EB_MASK		0x20000000
#define GAUDI2_PKT_CTL_RB_SHIFT		30
#define GAUDI2_PKT_CTL_RB_MASK		0x40000000
#define GAUDI2_PKT_CTL_MB_SHIFT		31
#define GAUDI2_PKT_CTL_MB_MASK		0x80000000

/* Packet ids (opcodes) */
#define GAUDI2_PACKET_WREG_32		0x1
#define GAUDI2_PACKET_WREG_BULK		0x2
#define GAUDI2_PACKET_MSG_LONG		0x3
#define GAUDI2_PACKET_MSG_SHORT		0x4
#define GAUDI2_PACKET_CP_DMA		0x5
#define GAUDI2_PACKET_REPEAT		0x6
#define GAUDI2_PACKET_MSG_PROT		0x7
#define GAUDI2_PACKET_FENCE		0x8
#define GAUDI2_PACKET_LIN_DMA		0x9
#define GAUDI2_PACKET_NOP		0xA
#define GAUDI2_PACKET_STOP		0xB

/* LIN_DMA ctl bits below the opcode */
#define GAUDI2_PKT_LIN_DMA_CTL_WRCOMP_SHIFT	0
#define GAUDI2_PKT_LIN_DMA_CTL_WRCOMP_MASK	0x00000001
#define GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT	1
#define GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_MASK	0x00000006
#define GAUDI2_PKT_LIN_DMA_CTL_MEMSET_SHIFT	4
#define GAUDI2_PKT_LIN_DMA_CTL_MEMSET_MASK	0x00000010
#define GAUDI2_PKT_LIN_DMA_CTL_CONTEXT_ID_SHIFT	8
#define GAUDI2_PKT_LIN_DMA_CTL_CONTEXT_ID_MASK	0x00FFFF00

/* Linear DMA: copy tsize bytes from src_addr to dst_addr (device VAs). */
struct gaudi2_packet_lin_dma {
	__u32 tsize;			/* little endian */
	__u32 ctl;			/* little endian */
	__u64 src_addr;			/* little endian */
	__u64 dst_addr;			/* little endian */
};

/* NOP: 8 bytes, only ctl (opcode GAUDI2_PACKET_NOP) is meaningful. */
struct gaudi2_packet_nop {
	__u32 reserved;
	__u32 ctl;
};

#if defined(__cplusplus)
static_assert(sizeof(struct gaudi2_packet_lin_dma) == 24, "lin_dma");
#elif defined(__KERNEL__) || (defined(__STDC_VERSION__) && \
			       __STDC_VERSION__ >= 201112L)
_Static_assert(sizeof(struct gaudi2_packet_lin_dma) == 24, "lin_dma");
#endif

#endif /* HABANALABS_EXTRA_H */
