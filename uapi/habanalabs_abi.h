/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The subset of the habanalabs accelerator ioctl ABI that this project
 * uses, written from the facts (ioctl numbers, magic, struct layouts) of
 * the upstream uapi header include/uapi/drm/habanalabs_accel.h.  Layouts
 * and numbers must stay identical to upstream so that code built against
 * this header talks to a real habanalabs device as well as to
 * habanalabs_sim.  Only add to this file; never change what is here.
 *
 * Usable from the kernel and from C11/C++17 userspace.
 */
#ifndef HABANALABS_ABI_H
#define HABANALABS_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* ------------------------------------------------------------------ */
/* PCI identity of the emulated part                                   */
/* ------------------------------------------------------------------ */
#define HL_PCI_VENDOR_ID_HABANALABS	0x1da3
#define HL_PCI_DEVICE_ID_GAUDI2		0x1020

/* ------------------------------------------------------------------ */
/* Gaudi2 queues that carry DMA work (legacy queue mode)               */
/* ------------------------------------------------------------------ */
#define GAUDI2_QUEUE_ID_PDMA_0_0	0
#define GAUDI2_QUEUE_ID_PDMA_0_1	1
#define GAUDI2_QUEUE_ID_PDMA_0_2	2
#define GAUDI2_QUEUE_ID_PDMA_0_3	3
#define GAUDI2_QUEUE_ID_PDMA_1_0	4
#define GAUDI2_QUEUE_ID_PDMA_1_1	5
#define GAUDI2_QUEUE_ID_PDMA_1_2	6
#define GAUDI2_QUEUE_ID_PDMA_1_3	7

/* ------------------------------------------------------------------ */
/* HL_IOCTL_INFO                                                        */
/* ------------------------------------------------------------------ */
#define HL_INFO_HW_IP_INFO			0
#define HL_INFO_DRAM_USAGE			2
#define HL_INFO_DEVICE_STATUS			4
#define HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES	26

#define HL_INFO_VERSION_MAX_LEN			128
#define HL_INFO_CARD_NAME_MAX_LEN		16

/* Values of hl_info_device_status.status */
enum hl_device_status {
	HL_DEVICE_STATUS_OPERATIONAL,
	HL_DEVICE_STATUS_IN_RESET,
	HL_DEVICE_STATUS_MALFUNCTION,
	HL_DEVICE_STATUS_NEEDS_RESET,
	HL_DEVICE_STATUS_IN_DEVICE_CREATION,
	HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE,
	HL_DEVICE_STATUS_LAST = HL_DEVICE_STATUS_IN_RESET_AFTER_DEVICE_RELEASE
};

/* HL_INFO_HW_IP_INFO: static properties of the ASIC (upstream layout). */
struct hl_info_hw_ip_info {
	__u64 sram_base_address;
	__u64 dram_base_address;	/* first device VA of user DRAM */
	__u64 dram_size;		/* DRAM available to the user */
	__u32 sram_size;
	__u32 num_of_events;
	__u32 device_id;		/* PCI device id */
	__u32 module_id;
	__u32 decoder_enabled_mask;
	__u16 first_available_interrupt_id;
	__u16 server_type;
	__u32 cpld_version;
	__u32 psoc_pci_pll_nr;
	__u32 psoc_pci_pll_nf;
	__u32 psoc_pci_pll_od;
	__u32 psoc_pci_pll_div_factor;
	__u8 tpc_enabled_mask;
	__u8 dram_enabled;
	__u8 security_enabled;
	__u8 mme_master_slave_mode;
	__u8 cpucp_version[HL_INFO_VERSION_MAX_LEN];
	__u8 card_name[HL_INFO_CARD_NAME_MAX_LEN];
	__u64 tpc_enabled_mask_ext;
	__u64 dram_page_size;
	__u32 edma_enabled_mask;
	__u16 number_of_user_interrupts;
	__u8 reserved1;
	__u8 reserved2;
	__u64 reserved3;
	__u64 device_mem_alloc_default_page_size;
	__u64 reserved4;
	__u64 reserved5;
	__u32 reserved6;
	__u8 reserved7;
	__u8 revision_id;
	__u16 tpc_interrupt_id;
	__u32 rotator_enabled_mask;
	__u32 reserved9;
	__u64 engine_core_interrupt_reg_addr;
	__u64 reserved_dram_size;
};

/* HL_INFO_DRAM_USAGE */
struct hl_info_dram_usage {
	__u64 dram_free_mem;
	__u64 ctx_dram_mem;
};

/* HL_INFO_DEVICE_STATUS */
struct hl_info_device_status {
	__u32 status;			/* enum hl_device_status */
	__u32 pad;
};

/*
 * HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES: bit n set means a page size of 2^n
 * bytes may be passed to HL_MEM_OP_ALLOC.
 */
struct hl_info_dev_memalloc_page_sizes {
	__u64 page_order_bitmask;
};

/*
 * Argument of HL_IOCTL_INFO.  The driver writes at most return_size bytes
 * of the result selected by op to return_pointer.
 */
struct hl_info_args {
	__u64 return_pointer;
	__u32 return_size;
	__u32 op;			/* HL_INFO_* */
	union {
		__u32 dcore_id;
		__u32 ctx_id;
		__u32 period_ms;
		__u32 pll_index;
		__u32 eventfd;
		__u32 user_buffer_actual_size;
		__u32 sec_attest_nonce;
		__u32 array_size;
		__u32 fw_sub_opcode;
	};
	__u32 pad;
};

/* ------------------------------------------------------------------ */
/* HL_IOCTL_CB: command buffers                                         */
/* ------------------------------------------------------------------ */
#define HL_CB_OP_CREATE		0
#define HL_CB_OP_DESTROY	1
#define HL_CB_OP_INFO		2

/* Largest command buffer: 2 MiB less room for two MSG_PROT packets. */
#define HL_MAX_CB_SIZE		(0x200000 - 32)

#define HL_CB_FLAGS_MAP			0x1
#define HL_CB_FLAGS_GET_DEVICE_VA	0x2

struct hl_cb_in {
	__u64 cb_handle;		/* DESTROY, INFO */
	__u32 op;			/* HL_CB_OP_* */
	__u32 cb_size;			/* CREATE; rounded up to a page */
	__u32 ctx_id;
	__u32 flags;			/* HL_CB_FLAGS_* */
};

struct hl_cb_out {
	union {
		/* CREATE: the handle, also the mmap() offset of the CB */
		__u64 cb_handle;
		union {
			struct {
				__u32 usage_cnt;
				__u32 pad;
			};
			__u64 device_va;
		};
	};
};

union hl_cb_args {
	struct hl_cb_in in;
	struct hl_cb_out out;
};

/* ------------------------------------------------------------------ */
/* HL_IOCTL_CS: command submission                                      */
/* ------------------------------------------------------------------ */
#define HL_CS_CHUNK_FLAGS_USER_ALLOC_CB	0x1

/* One job: a command buffer executed on one queue.  Always 64 bytes. */
struct hl_cs_chunk {
	union {
		__u64 cb_handle;
		__u64 signal_seq_arr;
		__u64 encaps_signal_seq;
	};
	__u32 queue_index;
	union {
		__u32 cb_size;		/* bytes of valid packets in the CB */
		__u32 num_signal_seq_arr;
		__u32 encaps_signal_offset;
	};
	__u32 cs_chunk_flags;		/* HL_CS_CHUNK_FLAGS_* */
	__u32 collective_engine_id;
	__u32 pad[10];
};

#define HL_CS_FLAGS_FORCE_RESTORE		0x1
#define HL_CS_FLAGS_SIGNAL			0x2
#define HL_CS_FLAGS_WAIT			0x4
#define HL_CS_FLAGS_COLLECTIVE_WAIT		0x8
#define HL_CS_FLAGS_TIMESTAMP			0x20
#define HL_CS_FLAGS_STAGED_SUBMISSION		0x40
#define HL_CS_FLAGS_STAGED_SUBMISSION_FIRST	0x80
#define HL_CS_FLAGS_STAGED_SUBMISSION_LAST	0x100
#define HL_CS_FLAGS_CUSTOM_TIMEOUT		0x200
#define HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT	0x400
#define HL_CS_FLAGS_ENCAP_SIGNALS		0x800
#define HL_CS_FLAGS_RESERVE_SIGNALS_ONLY	0x1000
#define HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY	0x2000
#define HL_CS_FLAGS_ENGINE_CORE_COMMAND		0x4000
#define HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES	0x8000
#define HL_CS_FLAGS_ENGINES_COMMAND		0x10000

#define HL_CS_STATUS_SUCCESS		0

#define HL_MAX_JOBS_PER_CS		512

struct hl_cs_in {
	union {
		struct {
			__u64 chunks_restore;	/* user array of hl_cs_chunk */
			__u64 chunks_execute;	/* user array of hl_cs_chunk */
		};
		struct {
			__u64 engine_cores;
			__u32 num_engine_cores;
			__u32 core_command;
		};
		struct {
			__u64 engines;
			__u32 num_engines;
			__u32 engine_command;
		};
	};
	union {
		__u64 seq;
		__u32 encaps_sig_handle_id;
		struct {
			__u32 encaps_signals_count;
			__u32 encaps_signals_q_idx;
		};
	};
	__u32 num_chunks_restore;
	__u32 num_chunks_execute;
	__u32 timeout;			/* seconds, with CUSTOM_TIMEOUT */
	__u32 cs_flags;			/* HL_CS_FLAGS_* */
	__u32 ctx_id;
	__u8 pad[4];
};

struct hl_cs_out {
	union {
		__u64 seq;		/* pass to HL_IOCTL_WAIT_CS */
		struct {
			__u32 handle_id;
			__u32 count;
		};
	};
	__u32 status;			/* HL_CS_STATUS_* */
	__u32 sob_base_addr_offset;
	__u16 sob_count_before_submission;
	__u16 pad[3];
};

union hl_cs_args {
	struct hl_cs_in in;
	struct hl_cs_out out;
};

/* ------------------------------------------------------------------ */
/* HL_IOCTL_WAIT_CS                                                     */
/* ------------------------------------------------------------------ */
#define HL_WAIT_CS_FLAGS_INTERRUPT		0x2
#define HL_WAIT_CS_FLAGS_INTERRUPT_MASK		0xFFF00000
#define HL_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT	0xFFF00000
#define HL_WAIT_CS_FLAGS_ANY_DEC_INTERRUPT	0xFFE00000
#define HL_WAIT_CS_FLAGS_MULTI_CS		0x4
#define HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ	0x10
#define HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT	0x20

#define HL_WAIT_MULTI_CS_LIST_MAX_LEN		32

struct hl_wait_cs_in {
	union {
		struct {
			__u64 seq;		/* from HL_IOCTL_CS */
			__u64 timeout_us;	/* 0: poll, do not sleep */
		};
		struct {
			union {
				__u64 addr;
				__u64 cq_counters_handle;
			};
			__u64 target;
		};
	};
	__u32 ctx_id;
	__u32 flags;			/* HL_WAIT_CS_FLAGS_* */
	union {
		struct {
			__u8 seq_arr_len;
			__u8 pad[7];
		};
		__u64 interrupt_timeout_us;
	};
	__u64 cq_counters_offset;
	__u64 timestamp_handle;
	__u64 timestamp_offset;
};

#define HL_WAIT_CS_STATUS_COMPLETED	0
#define HL_WAIT_CS_STATUS_BUSY		1
#define HL_WAIT_CS_STATUS_TIMEDOUT	2
#define HL_WAIT_CS_STATUS_ABORTED	3

#define HL_WAIT_CS_STATUS_FLAG_GONE		0x1
#define HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD	0x2

struct hl_wait_cs_out {
	__u32 status;			/* HL_WAIT_CS_STATUS_* */
	__u32 flags;			/* HL_WAIT_CS_STATUS_FLAG_* */
	__s64 timestamp_nsec;
	__u32 cs_completion_map;
	__u32 pad;
};

union hl_wait_cs_args {
	struct hl_wait_cs_in in;
	struct hl_wait_cs_out out;
};

/* ------------------------------------------------------------------ */
/* HL_IOCTL_MEMORY                                                      */
/* ------------------------------------------------------------------ */
#define HL_MEM_OP_ALLOC			0
#define HL_MEM_OP_FREE			1
#define HL_MEM_OP_MAP			2
#define HL_MEM_OP_UNMAP			3
#define HL_MEM_OP_MAP_BLOCK		4
#define HL_MEM_OP_EXPORT_DMABUF_FD	5
#define HL_MEM_OP_TS_ALLOC		6

/* hl_mem_in.flags (for EXPORT_DMABUF_FD they are the fd's O_* flags) */
#define HL_MEM_CONTIGUOUS	0x1
#define HL_MEM_SHARED		0x2
#define HL_MEM_USERPTR		0x4
#define HL_MEM_FORCE_HINT	0x8
#define HL_MEM_PREFETCH		0x40

struct hl_mem_in {
	union {
		struct {			/* ALLOC */
			__u64 mem_size;
			__u64 page_size;	/* 0: the default */
		} alloc;
		struct {			/* FREE */
			__u64 handle;
		} free;
		struct {			/* MAP of device memory */
			__u64 hint_addr;
			__u64 handle;
		} map_device;
		struct {			/* MAP with HL_MEM_USERPTR */
			__u64 host_virt_addr;
			__u64 hint_addr;
			__u64 mem_size;
		} map_host;
		struct {			/* MAP_BLOCK */
			__u64 block_addr;
		} map_block;
		struct {			/* UNMAP */
			__u64 device_virt_addr;
		} unmap;
		struct {			/* EXPORT_DMABUF_FD */
			__u64 addr;	/* device VA returned by MAP */
			__u64 mem_size;
			__u64 offset;	/* from addr */
		} export_dmabuf_fd;
	};
	__u32 op;			/* HL_MEM_OP_* */
	__u32 flags;
	__u32 ctx_id;
	__u32 num_of_elements;
};

struct hl_mem_out {
	union {
		__u64 device_virt_addr;	/* MAP */
		__u64 handle;		/* ALLOC */
		struct {		/* MAP_BLOCK */
			__u64 block_handle;
			__u32 block_size;
			__u32 pad;
		};
		__s32 fd;		/* EXPORT_DMABUF_FD */
	};
};

union hl_mem_args {
	struct hl_mem_in in;
	struct hl_mem_out out;
};

/* ------------------------------------------------------------------ */
/* ioctl numbers                                                        */
/* ------------------------------------------------------------------ */
/*
 * Current upstream numbering: the accel (DRM) ioctl space, magic 'd',
 * commands from DRM_COMMAND_BASE (0x40).  Spelled out here so that users
 * need no DRM headers.
 */
#define HL_DRM_IOCTL_BASE	'd'
#define HL_DRM_COMMAND_BASE	0x40

#define HL_IOCTL_INFO		0x00
#define HL_IOCTL_CB		0x01
#define HL_IOCTL_CS		0x02
#define HL_IOCTL_WAIT_CS	0x03
#define HL_IOCTL_MEMORY		0x04
#define HL_IOCTL_DEBUG		0x05

#define DRM_IOCTL_HL_INFO	_IOWR(HL_DRM_IOCTL_BASE, \
			HL_DRM_COMMAND_BASE + HL_IOCTL_INFO, struct hl_info_args)
#define DRM_IOCTL_HL_CB		_IOWR(HL_DRM_IOCTL_BASE, \
			HL_DRM_COMMAND_BASE + HL_IOCTL_CB, union hl_cb_args)
#define DRM_IOCTL_HL_CS		_IOWR(HL_DRM_IOCTL_BASE, \
			HL_DRM_COMMAND_BASE + HL_IOCTL_CS, union hl_cs_args)
#define DRM_IOCTL_HL_WAIT_CS	_IOWR(HL_DRM_IOCTL_BASE, \
			HL_DRM_COMMAND_BASE + HL_IOCTL_WAIT_CS, \
			union hl_wait_cs_args)
#define DRM_IOCTL_HL_MEMORY	_IOWR(HL_DRM_IOCTL_BASE, \
			HL_DRM_COMMAND_BASE + HL_IOCTL_MEMORY, union hl_mem_args)

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

/* ------------------------------------------------------------------ */
/* Gaudi2 queue packets (the part a DMA queue executes)                */
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

/* ------------------------------------------------------------------ */
/* Layout checks                                                        */
/* ------------------------------------------------------------------ */
#if defined(__cplusplus)
#define HL_ABI_ASSERT(c, m) static_assert(c, m)
#elif defined(__KERNEL__) || (defined(__STDC_VERSION__) && \
			       __STDC_VERSION__ >= 201112L)
#define HL_ABI_ASSERT(c, m) _Static_assert(c, m)
#else
#define HL_ABI_ASSERT(c, m)
#endif

HL_ABI_ASSERT(sizeof(struct hl_info_args) == 24, "hl_info_args");
HL_ABI_ASSERT(sizeof(struct hl_info_hw_ip_info) == 304, "hw_ip_info");
HL_ABI_ASSERT(sizeof(union hl_cb_args) == 24, "hl_cb_args");
HL_ABI_ASSERT(sizeof(struct hl_cs_chunk) == 64, "hl_cs_chunk");
HL_ABI_ASSERT(sizeof(union hl_cs_args) == 48, "hl_cs_args");
HL_ABI_ASSERT(sizeof(union hl_wait_cs_args) == 56, "hl_wait_cs_args");
HL_ABI_ASSERT(sizeof(union hl_mem_args) == 40, "hl_mem_args");
HL_ABI_ASSERT(sizeof(struct gaudi2_packet_lin_dma) == 24, "lin_dma");

#endif /* HABANALABS_ABI_H */
