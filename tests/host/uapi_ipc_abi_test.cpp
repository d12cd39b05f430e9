// ABI freeze test for uapi/habanalabs_ipc.h: the sizes, offsets and ioctl
// numbers are a contract with every binary built against an older header,
// so any change here must be deliberate (and additive, through reserved
// fields).
#include "habanalabs_ipc.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <set>

namespace {

template <typename T> constexpr bool is_aligned_abi() {
	return sizeof(T) % 8 == 0 && alignof(T) <= 8;
}

TEST(IpcAbi, StructSizesAreFrozen)
{
	EXPECT_EQ(sizeof(hl_ipc_info), 88u);
	EXPECT_EQ(sizeof(hl_ipc_region_register), 80u);
	EXPECT_EQ(sizeof(hl_ipc_region_deregister), 32u);
	EXPECT_EQ(sizeof(hl_ipc_region_query), 72u);
	EXPECT_EQ(sizeof(hl_ipc_channel_create), 48u);
	EXPECT_EQ(sizeof(hl_ipc_channel_destroy), 24u);
	EXPECT_EQ(sizeof(hl_ipc_copy), 88u);
	EXPECT_EQ(sizeof(hl_ipc_copy_desc), 48u);
	EXPECT_EQ(sizeof(hl_ipc_copy_batch), 64u);
	EXPECT_EQ(sizeof(hl_ipc_wait), 72u);
}

TEST(IpcAbi, StructsHaveNoImplicitTailPadding)
{
	static_assert(is_aligned_abi<hl_ipc_info>());
	static_assert(is_aligned_abi<hl_ipc_region_register>());
	static_assert(is_aligned_abi<hl_ipc_region_deregister>());
	static_assert(is_aligned_abi<hl_ipc_region_query>());
	static_assert(is_aligned_abi<hl_ipc_channel_create>());
	static_assert(is_aligned_abi<hl_ipc_channel_destroy>());
	static_assert(is_aligned_abi<hl_ipc_copy>());
	static_assert(is_aligned_abi<hl_ipc_copy_desc>());
	static_assert(is_aligned_abi<hl_ipc_copy_batch>());
	static_assert(is_aligned_abi<hl_ipc_wait>());
	// The last named field of each struct ends exactly at its size.
	EXPECT_EQ(offsetof(hl_ipc_copy, reserved) + sizeof(hl_ipc_copy::reserved),
		  sizeof(hl_ipc_copy));
	EXPECT_EQ(offsetof(hl_ipc_copy_desc, pad) + sizeof(__u32),
		  sizeof(hl_ipc_copy_desc));
	EXPECT_EQ(offsetof(hl_ipc_wait, completed_seq), 32u);
}

TEST(IpcAbi, IoctlNumbersAreUniqueAndUseTheMagic)
{
	const unsigned long cmds[] = {
		HL_IPC_IOCTL_INFO,           HL_IPC_IOCTL_REGION_REGISTER,
		HL_IPC_IOCTL_REGION_DEREGISTER, HL_IPC_IOCTL_REGION_QUERY,
		HL_IPC_IOCTL_CHANNEL_CREATE, HL_IPC_IOCTL_CHANNEL_DESTROY,
		HL_IPC_IOCTL_COPY,           HL_IPC_IOCTL_COPY_BATCH,
		HL_IPC_IOCTL_WAIT,           HL_IPC_IOCTL_NOP,
	};
	std::set<unsigned long> nrs;
	for (unsigned long c : cmds) {
		EXPECT_EQ(_IOC_TYPE(c), HL_IPC_IOCTL_MAGIC);
		EXPECT_TRUE(nrs.insert(_IOC_NR(c)).second) << "duplicate nr " << _IOC_NR(c);
	}
	EXPECT_EQ(_IOC_NR(HL_IPC_IOCTL_INFO), 0x00u);
	EXPECT_EQ(_IOC_NR(HL_IPC_IOCTL_NOP), 0x09u);
	EXPECT_EQ(_IOC_SIZE(HL_IPC_IOCTL_COPY), sizeof(hl_ipc_copy));
	EXPECT_EQ(_IOC_DIR(HL_IPC_IOCTL_COPY), unsigned(_IOC_READ | _IOC_WRITE));
}

} // namespace
