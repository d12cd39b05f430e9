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
#define GAUDI2_PACKET_CB_LIST		0xE
#define GAUDI2_PACKET_LOAD_AND_EXE	0xF

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

/*
 * CP_DMA: the upper CP hands the tsize bytes of commands at src_addr (a
 * device VA) to its queue manager's lower CP, which runs them.  With
 * UPPER_CP set the upper CP runs them itself (a nested CB).
 */
struct gaudi2_packet_cp_dma {
	__u32 tsize;			/* little endian */
	__u32 ctl;			/* little endian */
	__u64 src_addr;			/* little endian */
};

#define GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK	0x00000020

/*
 * CB_LIST: the CP reads the 32-bit index at index_addr and runs entry
 * <index> of the table at table_addr: a CP_DMA with UPPER_CP set, that
 * is a CB the CP runs before it goes on.  Entries are 16 bytes (SIZE_DESC
 * 0) or 32 (1).
 */
struct gaudi2_packet_cb_list {
	__u32 reserved;
	__u32 ctl;			/* little endian */
	__u64 index_addr;		/* little endian */
	__u64 table_addr;		/* little endian */
};

#define GAUDI2_PKT_CB_LIST_CTL_SIZE_DESC_MASK	0x00000020

/* NOP: 8 bytes, only ctl (opcode GAUDI2_PACKET_NOP) is meaningful. */
struct gaudi2_packet_nop {
	__u32 reserved;
	__u32 ctl;
};

/*
 * Predication, in the ctl of MSG_LONG, FENCE, CP_DMA and LOAD_AND_EXE
 * (NOP, LIN_DMA and MSG_SHORT have other bits there): the packet runs
 * only if predicate PRED of its CP is set (0: always).
 */
#define GAUDI2_PKT_CTL_PRED_MASK	0x0000001F

/*
 * LOAD_AND_EXE: loads the CP's predicates (DST 0) or scalar registers
 * (DST 1) from src_addr, and may run the packet held in the scalars.
 * Predicates come as 32 words whose bit 0 is predicate i (PMAP 0), or as
 * one 32-bit map (PMAP 1); predicate 0 is not loaded.
 */
struct gaudi2_packet_load_and_exe {
	__u32 cfg;			/* little endian */
	__u32 ctl;			/* little endian */
	__u64 src_addr;			/* little endian */
};

#define GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK	0x00000001
#define GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK	0x00000002
#define GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK	0x00000100
#define GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK	0x00000200
#define GAUDI2_PKT_LOAD_AND_EXE_CFG_ETYPE_MASK	0x00000400
#define GAUDI2_PKT_LOAD_AND_EXE_CTL_SWTC_MASK	0x40000000

/*
 * MSG_LONG: write value to a 64-bit address (memory mapped into the
 * device, or a register of the configuration space).
 */
struct gaudi2_packet_msg_long {
	__u32 value;
	__u32 ctl;
	__u64 addr;
};

/* MSG_LONG and MSG_SHORT ctl: what to write (0: the value) */
#define GAUDI2_PKT_MSG_CTL_OP_MASK		0x00300000
/* MSG_LONG and MSG_SHORT ctl: weakly ordered, no snoop */
#define GAUDI2_PKT_MSG_CTL_WO_NS_MASK		0x00030000

/*
 * MSG_SHORT: write value to base register + a 16-bit offset.  The
 * driver points base 0 at the monitors' MON_PAY_ADDRL_0 and base 1 at
 * SOB_OBJ_0 of DCORE0's sync manager; bases 2 and 3 are not set up.
 */
struct gaudi2_packet_msg_short {
	__u32 value;
	__u32 ctl;
};

#define GAUDI2_PKT_SHORT_CTL_ADDR_MASK		0x0000FFFF
#define GAUDI2_PKT_SHORT_CTL_BASE_SHIFT		22
#define GAUDI2_PKT_SHORT_CTL_BASE_MASK		0x00C00000
#define GAUDI2_PKT_SHORT_BASE_MON		0
#define GAUDI2_PKT_SHORT_BASE_SOB		1

/* FENCE: wait until fence counter id >= target, then subtract dec. */
struct gaudi2_packet_fence {
	__u32 cfg;
	__u32 ctl;
};

#define GAUDI2_PKT_FENCE_CFG_DEC_VAL_MASK	0x0000000F
#define GAUDI2_PKT_FENCE_CFG_TARGET_VAL_SHIFT	16
#define GAUDI2_PKT_FENCE_CFG_TARGET_VAL_MASK	0x00FF0000
#define GAUDI2_PKT_FENCE_CFG_ID_SHIFT		30
#define GAUDI2_PKT_FENCE_CFG_ID_MASK		0xC0000000

/*
 * WREG32: write value to a register of the queue's own engine block
 * (a 16-bit offset in ctl bits 23:8).  STOP: the queue stops.
 */
struct gaudi2_packet_wreg32 {
	__u32 value;
	__u32 ctl;
};

#define GAUDI2_PKT_WREG32_CTL_REG_OFFSET_SHIFT	8
#define GAUDI2_PKT_WREG32_CTL_REG_OFFSET_MASK	0x00FFFF00

/* ------------------------------------------------------------------ */
/* Gaudi2 sync manager and queue fences (configuration space)          */
/* ------------------------------------------------------------------ */
/* Device address of the configuration space */
#define GAUDI2_CFG_BASE			0x1000007FF8000000ull

/* DCORE0's sync manager objects, as offsets from GAUDI2_CFG_BASE */
#define GAUDI2_SM_SOB_OBJ_0		0x4100000u	/* 8192 SOBs */
#define GAUDI2_SM_MON_PAY_ADDRL_0	0x4108000u	/* 2048 monitors */
#define GAUDI2_SM_MON_PAY_ADDRH_0	0x410A000u
#define GAUDI2_SM_MON_PAY_DATA_0	0x410C000u
#define GAUDI2_SM_MON_ARM_0		0x410E000u
#define GAUDI2_SM_MON_CONFIG_0		0x4110000u
#define GAUDI2_SM_MON_STATUS_0		0x4112000u
#define GAUDI2_SM_NUM_SOBS		8192
#define GAUDI2_SM_NUM_MONS		2048

/* A SOB write: 15-bit value, long (60-bit) mode, add (1) or set (0) */
#define GAUDI2_SOB_VAL_MASK		0x00007FFF
#define GAUDI2_SOB_LONG_MODE_MASK	0x01000000
#define GAUDI2_SOB_ADD_MASK		0x80000000

/* Monitor ARM: SOB group (8 SOBs), SOBs masked out, == (1) or >= (0) */
#define GAUDI2_MON_ARM_GID_MASK		0x000000FF
#define GAUDI2_MON_ARM_MASK_SHIFT	8
#define GAUDI2_MON_ARM_MASK_MASK	0x0000FF00
#define GAUDI2_MON_ARM_MODE_EQUAL	0x00010000
#define GAUDI2_MON_ARM_VAL_SHIFT	17

/* Monitor CONFIG: long SOB, completion queue, writes - 1, high group bits */
#define GAUDI2_MON_CFG_LONG_SOB		0x00000001
#define GAUDI2_MON_CFG_CQ_EN		0x00000010
#define GAUDI2_MON_CFG_WR_NUM_SHIFT	5
#define GAUDI2_MON_CFG_WR_NUM_MASK	0x00000060
#define GAUDI2_MON_CFG_LBW_EN		0x00000100
#define GAUDI2_MON_CFG_MSB_SID_SHIFT	16
#define GAUDI2_MON_CFG_MSB_SID_MASK	0x000F0000
#define GAUDI2_MON_CFG_LONG_HIGH_GROUP	0x80000000

/*
 * DCORE0's completion queues: 64, each a set of registers at 4 * id from
 * these.  A monitor with GAUDI2_MON_CFG_CQ_EN writes its payload to the
 * queue its PAY_ADDRL names (a 32-bit entry at BASE + 4 * PI, modulo
 * 2^SIZE_LOG2 bytes; or, with INC_MODE 1, adds it to the 64-bit counter
 * at BASE); with GAUDI2_MON_CFG_LBW_EN it then writes LBW_DATA to
 * LBW_ADDR, which on the MSI-X doorbell raises interrupt LBW_DATA.
 */
#define GAUDI2_SM_CQ_BASE_ADDR_L_0	0x411E050u
#define GAUDI2_SM_CQ_BASE_ADDR_H_0	0x411E150u
#define GAUDI2_SM_CQ_SIZE_LOG2_0	0x411E250u
#define GAUDI2_SM_CQ_PI_0		0x411E350u
#define GAUDI2_SM_CQ_SEC_0		0x411E450u
#define GAUDI2_SM_CQ_LBW_ADDR_L_0	0x411E550u
#define GAUDI2_SM_CQ_LBW_ADDR_H_0	0x411E650u
#define GAUDI2_SM_CQ_LBW_DATA_0		0x411E750u
#define GAUDI2_SM_CQ_INC_MODE_0		0x411E850u
#define GAUDI2_SM_NUM_CQS		64
/* The PCIe block's MSI-X doorbell, as an offset from GAUDI2_CFG_BASE */
#define GAUDI2_PCIE_MSIX_DB		0x4C17000u

/*
 * The fence registers of the PDMA queue managers: a write adds to the
 * counter FENCE<id> of CP <cp> (0-3: the four streams, 4: the lower CP).
 */
#define GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0	0x4C8A290u
#define GAUDI2_PDMA1_QM_CP_FENCE0_RDATA_0	0x4C9A290u
/*
 * And of the EDMA queue managers: DCORE<d> EDMA<i> lies at
 * d * GAUDI2_DCORE_OFFSET + i * GAUDI2_EDMA_INSTANCE_OFFSET from DCORE0's
 * EDMA0 (mmDCORE0_EDMA0_QM_BASE + the same register).
 */
#define GAUDI2_DCORE0_EDMA0_QM_CP_FENCE0_RDATA_0 0x41CA290u
#define GAUDI2_DCORE_OFFSET			0x200000u
#define GAUDI2_EDMA_INSTANCE_OFFSET		0x10000u
#define GAUDI2_QM_FENCE_CPS			5
#define GAUDI2_QM_FENCE_IDS			4
/* Predicates of each CP (0 is always set) */
#define GAUDI2_QM_PREDICATES			32
/* Scalar registers of each CP that LOAD_AND_EXE loads (R0-R3) */
#define GAUDI2_QM_SCALARS			4

#if defined(__cplusplus)
static_assert(sizeof(struct gaudi2_packet_lin_dma) == 24, "lin_dma");
#elif defined(__KERNEL__) || (defined(__STDC_VERSION__) && \
			       __STDC_VERSION__ >= 201112L)
_Static_assert(sizeof(struct gaudi2_packet_lin_dma) == 24, "lin_dma");
#endif

#endif /* HABANALABS_EXTRA_H */
