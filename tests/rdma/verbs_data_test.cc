// SPDX-License-Identifier: MIT
// RDMA WRITE host -> device memory and RDMA READ device memory -> host
// through registrations of libhlthunk-verbs, 1 B to 16 MiB, at aligned and
// unaligned device addresses.  Every byte of the device memory (and the
// bytes around the registered range) is checked with the device's own DMA
// engine, not through the NIC or a CPU mapping.

#include "verbs_fixture.h"

namespace rdmatest {
namespace {

struct Case {
	uint64_t size;
	uint64_t offset;  // of the registered range in its allocation
};

std::ostream &operator<<(std::ostream &os, const Case &c)
{
	return os << c.size << "B@+" << c.offset;
}

class VerbsData : public VerbsTest, public ::testing::WithParamInterface<Case> {
};

constexpr uint32_t kSeedBefore = 11, kSeedWritten = 22, kSeedDevice = 33;
constexpr uint64_t kGuard = 64;  // checked bytes after the range

TEST_P(VerbsData, WriteToDeviceThenReadBack)
{
	const Case c = GetParam();
	const uint64_t alloc = page_up(c.offset + c.size + kGuard);

	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), alloc), 0);
	HostBuffer stage, nic;
	ASSERT_EQ(stage.create(pd(), fd(), alloc), 0);
	ASSERT_EQ(nic.create(pd(), fd(), alloc), 0);

	// Known bytes in all of the allocation.
	hlipc::fill_pattern(stage.data(), alloc, kSeedBefore);
	dma_to_device(dev.va(), stage, alloc);

	MrGuard mr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), dev.va() + c.offset,
						  c.size, kRemoteAccess, 0,
						  &mr.mr),
		  0)
		<< hlthunk_verbs_last_error();
	ASSERT_EQ(mr.iova(), dev.va() + c.offset);
	ASSERT_EQ(hlthunk_verbs_mr_length(mr.mr), c.size);

	// RDMA WRITE host -> device.
	hlipc::fill_pattern(nic.data(), c.size, kSeedWritten);
	ASSERT_EQ(lb().write(nic.data(), nic.lkey(), c.size, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
	memset(stage.data(), 0, alloc);
	dma_from_device(stage, dev.va(), alloc);
	EXPECT_EQ(hlipc::check_pattern(stage.data(), c.offset, kSeedBefore), -1)
		<< "bytes before the range changed";
	EXPECT_EQ(hlipc::check_pattern(stage.data() + c.offset, c.size,
				       kSeedWritten),
		  -1)
		<< "written bytes differ";
	EXPECT_EQ(hlipc::check_pattern(stage.data() + c.offset + c.size,
				       alloc - c.offset - c.size, kSeedBefore,
				       c.offset + c.size),
		  -1)
		<< "bytes after the range changed";

	// RDMA READ device -> host of what the device wrote.
	hlipc::fill_pattern(stage.data(), alloc, kSeedDevice);
	dma_to_device(dev.va(), stage, alloc);
	memset(nic.data(), 0, alloc);
	ASSERT_EQ(lb().read(nic.data(), nic.lkey(), c.size, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
	EXPECT_EQ(hlipc::check_pattern(nic.data(), c.size, kSeedDevice, c.offset),
		  -1)
		<< "read bytes differ";
	for (uint64_t i = c.size; i < alloc; i++)
		ASSERT_EQ(nic.data()[i], 0) << "read past the length at " << i;
}

// Outside the registered range the NIC gets a protection error.
class VerbsBounds : public VerbsData {
};

TEST_P(VerbsBounds, AccessOutsideTheRangeIsRefused)
{
	const Case c = GetParam();
	const uint64_t alloc = page_up(c.offset + c.size + kGuard);
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), alloc), 0);
	HostBuffer nic;
	ASSERT_EQ(nic.create(pd(), fd(), alloc), 0);
	MrGuard mr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), dev.va() + c.offset,
						  c.size, kRemoteAccess, 0,
						  &mr.mr),
		  0)
		<< hlthunk_verbs_last_error();
	// One byte past the end: a protection error at the responder.
	int st = lb().write(nic.data(), nic.lkey(), c.size + 1, mr.iova(),
			    mr.rkey());
	EXPECT_EQ(st, IBV_WC_REM_ACCESS_ERR);
	// The error moved the QPs to the error state.
	std::string why;
	ASSERT_EQ(lb().reconnect(&why), 0) << why;
	// One byte before the start, by READ.
	st = lb().read(nic.data(), nic.lkey(), 2, mr.iova() - 1, mr.rkey());
	EXPECT_EQ(st, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(lb().reconnect(&why), 0) << why;
	// And the connection works again.
	EXPECT_EQ(lb().write(nic.data(), nic.lkey(), c.size, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(
	Sizes, VerbsData,
	::testing::Values(Case{1, 0}, Case{1, 4095}, Case{2, 4095}, Case{7, 3},
			  Case{64, 0}, Case{4095, 1}, Case{4096, 0},
			  Case{4096, 2048}, Case{4097, 4095},
			  Case{65536 + 3, 100}, Case{1 << 20, 0},
			  Case{(4 << 20) - 1, 4093}, Case{16 << 20, 0},
			  Case{16 << 20, 5}),
	[](const ::testing::TestParamInfo<Case> &i) {
		return std::to_string(i.param.size) + "B_at_" +
		       std::to_string(i.param.offset);
	});

// Ranges inside a page, ending on a page boundary and crossing one.
INSTANTIATE_TEST_SUITE_P(
	Edges, VerbsBounds,
	::testing::Values(Case{1, 0}, Case{7, 3}, Case{4096, 0}, Case{2, 4095},
			  Case{4097, 4095}),
	[](const ::testing::TestParamInfo<Case> &i) {
		return std::to_string(i.param.size) + "B_at_" +
		       std::to_string(i.param.offset);
	});

}  // namespace
}  // namespace rdmatest
