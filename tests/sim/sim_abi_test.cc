// SPDX-License-Identifier: GPL-2.0
// Host test: uapi/habanalabs_abi.h keeps the upstream habanalabs ABI.
// The numbers below are the upstream ioctl numbers and field offsets; a
// change to the header that breaks compatibility with the real driver
// fails here.
#include <gtest/gtest.h>

#include <cstddef>

#include "habanalabs_abi.h"
#include "habanalabs_extra.h"

TEST(SimAbi, IoctlNumbers)
{
	EXPECT_EQ(DRM_IOCTL_HL_INFO, 0xc0186440u);
	EXPECT_EQ(DRM_IOCTL_HL_CB, 0xc0186441u);
	EXPECT_EQ(DRM_IOCTL_HL_CS, 0xc0306442u);
	EXPECT_EQ(DRM_IOCTL_HL_WAIT_CS, 0xc0386443u);
	EXPECT_EQ(DRM_IOCTL_HL_MEMORY, 0xc0286444u);
	EXPECT_EQ(HL_LEGACY_IOCTL_INFO, 0xc0184801u);
	EXPECT_EQ(HL_LEGACY_IOCTL_CB, 0xc0184802u);
	EXPECT_EQ(HL_LEGACY_IOCTL_CS, 0xc0304803u);
	EXPECT_EQ(HL_LEGACY_IOCTL_WAIT_CS, 0xc0384804u);
	EXPECT_EQ(HL_LEGACY_IOCTL_MEMORY, 0xc0284805u);
}

TEST(SimAbi, Opcodes)
{
	EXPECT_EQ(HL_INFO_HW_IP_INFO, 0);
	EXPECT_EQ(HL_INFO_DRAM_USAGE, 2);
	EXPECT_EQ(HL_INFO_DEVICE_STATUS, 4);
	EXPECT_EQ(HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, 26);
	EXPECT_EQ(HL_MEM_OP_ALLOC, 0);
	EXPECT_EQ(HL_MEM_OP_FREE, 1);
	EXPECT_EQ(HL_MEM_OP_MAP, 2);
	EXPECT_EQ(HL_MEM_OP_UNMAP, 3);
	EXPECT_EQ(HL_MEM_OP_EXPORT_DMABUF_FD, 5);
	EXPECT_EQ(HL_MEM_CONTIGUOUS, 0x1);
	EXPECT_EQ(HL_MEM_USERPTR, 0x4);
	EXPECT_EQ(HL_MEM_FORCE_HINT, 0x8);
	EXPECT_EQ(HL_CB_OP_CREATE, 0);
	EXPECT_EQ(HL_CB_OP_DESTROY, 1);
	EXPECT_EQ(HL_MAX_CB_SIZE, 0x200000 - 32);
	EXPECT_EQ(HL_MAX_JOBS_PER_CS, 512);
	EXPECT_EQ(HL_WAIT_CS_STATUS_COMPLETED, 0);
	EXPECT_EQ(HL_WAIT_CS_STATUS_BUSY, 1);
	EXPECT_EQ(HL_WAIT_CS_STATUS_ABORTED, 3);
	EXPECT_EQ(HL_WAIT_CS_STATUS_FLAG_GONE, 0x1);
	EXPECT_EQ(GAUDI2_PACKET_LIN_DMA, 0x9);
	EXPECT_EQ(GAUDI2_PACKET_NOP, 0xA);
	EXPECT_EQ(GAUDI2_PKT_CTL_OPCODE_MASK, 0x1F000000u);
	EXPECT_EQ(HL_PCI_DEVICE_ID_GAUDI2, 0x1020);
}

TEST(SimAbi, Layouts)
{
	EXPECT_EQ(sizeof(hl_info_args), 24u);
	EXPECT_EQ(offsetof(hl_info_args, op), 12u);
	EXPECT_EQ(offsetof(hl_info_args, pad), 20u);
	EXPECT_EQ(sizeof(hl_info_hw_ip_info), 304u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info, device_id), 32u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info, cpucp_version), 72u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info, card_name), 200u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info, dram_page_size), 224u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info,
			   device_mem_alloc_default_page_size), 248u);
	EXPECT_EQ(offsetof(hl_info_hw_ip_info, reserved_dram_size), 296u);
	EXPECT_EQ(sizeof(hl_cs_chunk), 64u);
	EXPECT_EQ(offsetof(hl_cs_chunk, queue_index), 8u);
	EXPECT_EQ(offsetof(hl_cs_chunk, cb_size), 12u);
	EXPECT_EQ(offsetof(hl_cs_chunk, cs_chunk_flags), 16u);
	EXPECT_EQ(offsetof(hl_cs_in, num_chunks_restore), 24u);
	EXPECT_EQ(offsetof(hl_cs_in, num_chunks_execute), 28u);
	EXPECT_EQ(offsetof(hl_cs_in, cs_flags), 36u);
	EXPECT_EQ(offsetof(hl_cs_out, status), 8u);
	EXPECT_EQ(offsetof(hl_wait_cs_in, flags), 20u);
	EXPECT_EQ(offsetof(hl_wait_cs_out, timestamp_nsec), 8u);
	EXPECT_EQ(offsetof(hl_mem_in, op), 24u);
	EXPECT_EQ(offsetof(hl_mem_in, flags), 28u);
	EXPECT_EQ(offsetof(hl_mem_in, export_dmabuf_fd.offset), 16u);
	EXPECT_EQ(offsetof(hl_cb_in, op), 8u);
	EXPECT_EQ(offsetof(hl_cb_in, flags), 20u);
	EXPECT_EQ(sizeof(gaudi2_packet_lin_dma), 24u);
	EXPECT_EQ(offsetof(gaudi2_packet_lin_dma, src_addr), 8u);
	EXPECT_EQ(offsetof(gaudi2_packet_lin_dma, dst_addr), 16u);
	EXPECT_EQ(sizeof(gaudi2_packet_load_and_exe), 16u);
	EXPECT_EQ(offsetof(gaudi2_packet_load_and_exe, src_addr), 8u);
	EXPECT_EQ(sizeof(gaudi2_packet_cb_list), 24u);
	EXPECT_EQ(offsetof(gaudi2_packet_cb_list, table_addr), 16u);
}
