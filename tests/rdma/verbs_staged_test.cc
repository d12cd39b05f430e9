// SPDX-License-Identifier: MIT
// The staged path of libhlthunk-verbs on a Gaudi host as it is: device
// memory in a PCI BAR (run-vm --gaudi-host) whose exporter gives neither a
// CPU mapping nor, on Debian's kernels, peer-to-peer access.  Soft-RoCE has
// no dma-buf memory regions, so a registration reaches the device memory
// only through a stage in host memory, and only when the caller asks for
// it.  Every byte of device memory is checked with the device's own DMA
// engine.  Run in such a guest only (the CMake test vm-*.rdma-verbs-gaudi-host).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "dmabuf_interposer.h"
#include "ipc_util.h"
#include "sim_counters.h"
#include "verbs_fixture.h"

namespace rdmatest {
namespace {

class VerbsStaged : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		before_ = hltest::sim_memory_counters();
	}
	void TearDown() override
	{
		EXPECT_TRUE(hltest::sim_counters_return_to(before_, 5000))
			<< "the device's memory objects did not return: now "
			<< hltest::counters_str(hltest::sim_memory_counters())
			<< " before " << hltest::counters_str(before_);
	}

	// Registers [va, va + len) with the stage allowed, and checks that
	// the stage is what it got.
	void reg_staged(MrGuard *mr, uint64_t va, uint64_t len, int fd_to_use)
	{
		ASSERT_EQ(hlthunk_verbs_reg_device_memory(
				  pd(), fd_to_use, va, len, kRemoteAccess,
				  HLTHUNK_VERBS_REG_ALLOW_STAGED, &mr->mr),
			  0)
			<< hlthunk_verbs_last_error();
		ASSERT_EQ(hlthunk_verbs_mr_path(mr->mr), HLTHUNK_VERBS_PATH_STAGED)
			<< "this test needs device memory without CPU access "
			   "(run-vm --gaudi-host, habanalabs_sim pci_memory=1)";
	}

	std::map<std::string, long> before_;
};

constexpr uint32_t kSeedOld = 5, kSeedNic = 6, kSeedDev = 7;

// Without the flag the library refuses, naming it; with it the NIC gets a
// stage at the same iova, after the dma-buf (refused by soft-RoCE) and the
// CPU mapping (refused by the exporter).
TEST_F(VerbsStaged, OnlyWhenAskedAndOnlyWhereNothingElseWorks)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4 * 4096), 0);
	const uint64_t va = dev.va() + 4096 + 100, len = 10000;

	MrGuard mr;
	EXPECT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), va, len,
						  kRemoteAccess, 0, &mr.mr),
		  -EOPNOTSUPP);
	EXPECT_EQ(mr.mr, nullptr);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(),
			 "HLTHUNK_VERBS_REG_ALLOW_STAGED"),
		  nullptr)
		<< hlthunk_verbs_last_error();

	interposer_reset();
	ASSERT_NO_FATAL_FAILURE(reg_staged(&mr, va, len, fd()));
	EXPECT_STREQ(hlthunk_verbs_path_name(HLTHUNK_VERBS_PATH_STAGED), "staged");
	EXPECT_EQ(hlthunk_verbs_mr_dmabuf_error(mr.mr), -EOPNOTSUPP);
	EXPECT_EQ(hlthunk_verbs_mr_iova(mr.mr), va);
	EXPECT_EQ(hlthunk_verbs_mr_length(mr.mr), len);
	// The dma-buf first, then (after the library's probe of the
	// provider, with fd -1) one memory region: the stage's.
	auto log = interposer_log();
	ASSERT_GE(log.size(), 2u);
	EXPECT_EQ(log[0].kind, VerbsCall::RegDmabufMr);
	EXPECT_EQ(log[0].iova, va);
	EXPECT_EQ(log[0].result_errno, EOPNOTSUPP);
	for (size_t i = 1; i + 1 < log.size(); i++)
		EXPECT_EQ(log[i].kind, VerbsCall::RegDmabufMr) << "call " << i;
	const VerbsCall &m = log.back();
	EXPECT_EQ(m.kind, VerbsCall::RegMrIova2);
	EXPECT_EQ(m.offset_or_addr % 4096, 100u)
		<< "the stage keeps the device address's offset in its page";
	EXPECT_EQ(m.length, len);
	EXPECT_EQ(m.iova, va);
	EXPECT_EQ(m.result_errno, 0);
}

// A peer's RDMA WRITE lands in the stage and reaches the device memory at
// the sync, not before; the device's bytes reach a peer's RDMA READ after
// the sync, not before.  Partial syncs move exactly their range.
TEST_F(VerbsStaged, SyncMovesExactlyItsRangeEachWay)
{
	for (uint64_t len : {1ull, 4097ull, 65539ull, (1ull << 20) + 3}) {
		SCOPED_TRACE("length " + std::to_string(len));
		const uint64_t off = 4096 - 3;  // unaligned, across a page
		const uint64_t alloc = page_up(off + len + 4096);
		hlipc::DeviceBuffer dev;
		ASSERT_EQ(dev.create(fd(), alloc), 0);
		HostBuffer host, nic;
		ASSERT_EQ(host.create(pd(), fd(), alloc), 0);
		ASSERT_EQ(nic.create(pd(), fd(), alloc), 0);
		hlipc::fill_pattern(host.data(), alloc, kSeedOld);
		dma_to_device(dev.va(), host, alloc);

		MrGuard mr;
		ASSERT_NO_FATAL_FAILURE(reg_staged(&mr, dev.va() + off, len, fd()));
		// The stage starts as a copy of the device memory.
		ASSERT_EQ(lb().read(nic.data(), nic.lkey(), len, mr.iova(), mr.rkey()),
			  IBV_WC_SUCCESS);
		EXPECT_EQ(hlipc::check_pattern(nic.data(), len, kSeedOld, off), -1)
			<< "the stage did not start as the device memory";

		// Peer -> stage -> device.
		hlipc::fill_pattern(nic.data(), len, kSeedNic);
		ASSERT_EQ(lb().write(nic.data(), nic.lkey(), len, mr.iova(),
				     mr.rkey()),
			  IBV_WC_SUCCESS);
		dma_from_device(host, dev.va(), alloc);
		EXPECT_EQ(hlipc::check_pattern(host.data(), alloc, kSeedOld), -1)
			<< "the write reached device memory before the sync";
		const uint64_t half = len / 2;
		if (half) {
			ASSERT_EQ(hlthunk_verbs_mr_sync(mr.mr, mr.iova(), half,
							HLTHUNK_VERBS_SYNC_FOR_DEVICE),
				  0)
				<< hlthunk_verbs_last_error();
			dma_from_device(host, dev.va(), alloc);
			EXPECT_EQ(hlipc::check_pattern(host.data() + off, half,
						       kSeedNic), -1);
			EXPECT_EQ(hlipc::check_pattern(host.data() + off + half,
						       alloc - off - half, kSeedOld,
						       off + half), -1)
				<< "a partial sync moved more than its range";
		}
		ASSERT_EQ(hlthunk_verbs_mr_sync(mr.mr, mr.iova() + half, len - half,
						HLTHUNK_VERBS_SYNC_FOR_DEVICE),
			  0)
			<< hlthunk_verbs_last_error();
		dma_from_device(host, dev.va(), alloc);
		EXPECT_EQ(hlipc::check_pattern(host.data(), off, kSeedOld), -1);
		EXPECT_EQ(hlipc::check_pattern(host.data() + off, len, kSeedNic), -1);
		EXPECT_EQ(hlipc::check_pattern(host.data() + off + len,
					       alloc - off - len, kSeedOld, off + len),
			  -1)
			<< "bytes after the range changed";

		// Device -> stage -> peer.
		hlipc::fill_pattern(host.data(), alloc, kSeedDev);
		dma_to_device(dev.va(), host, alloc);
		memset(nic.data(), 0, alloc);
		ASSERT_EQ(lb().read(nic.data(), nic.lkey(), len, mr.iova(), mr.rkey()),
			  IBV_WC_SUCCESS);
		EXPECT_EQ(hlipc::check_pattern(nic.data(), len, kSeedNic), -1)
			<< "the read saw device bytes before the sync";
		ASSERT_EQ(hlthunk_verbs_mr_sync(mr.mr, mr.iova(), len,
						HLTHUNK_VERBS_SYNC_FOR_NIC),
			  0)
			<< hlthunk_verbs_last_error();
		ASSERT_EQ(lb().read(nic.data(), nic.lkey(), len, mr.iova(), mr.rkey()),
			  IBV_WC_SUCCESS);
		EXPECT_EQ(hlipc::check_pattern(nic.data(), len, kSeedDev, off), -1);
	}
}

TEST_F(VerbsStaged, BadArgumentsAreRefusedAndMoveNothing)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 2 * 4096), 0);
	const uint64_t va = dev.va() + 8, len = 4096;

	MrGuard mr;
	// Flags that contradict, and the stage for a dma-buf of no device.
	EXPECT_EQ(hlthunk_verbs_reg_device_memory(
			  pd(), fd(), va, len, kRemoteAccess,
			  HLTHUNK_VERBS_REG_ALLOW_STAGED | HLTHUNK_VERBS_REG_DMABUF_ONLY,
			  &mr.mr),
		  -EINVAL);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(), "exclude each other"), nullptr);
	EXPECT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), va, len, kRemoteAccess,
						  1u << 2, &mr.mr),
		  -EINVAL);
	hlipc::Buffer vgem;
	ASSERT_EQ(hlipc::alloc(hlipc::Kind::Vgem, 8192, &vgem), 0)
		<< "vgem (modprobe vgem)";
	EXPECT_EQ(hlthunk_verbs_reg_dmabuf(pd(), vgem.dmabuf, 0, 4096, 0,
					   kRemoteAccess,
					   HLTHUNK_VERBS_REG_ALLOW_STAGED, &mr.mr),
		  -EINVAL);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(), "device memory only"), nullptr);
	EXPECT_EQ(mr.mr, nullptr);

	ASSERT_NO_FATAL_FAILURE(reg_staged(&mr, va, len, fd()));
	const uint64_t iova = mr.iova();
	const int up = HLTHUNK_VERBS_SYNC_FOR_DEVICE;
	EXPECT_EQ(hlthunk_verbs_mr_sync(nullptr, iova, 1, up), -EINVAL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova, 1, 0), -EINVAL);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova, 1, 3), -EINVAL);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(), "unknown direction 3"), nullptr);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova, 0, up), -EINVAL);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova - 1, 1, up), -ERANGE);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova + len, 1, up), -ERANGE);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova + 1, len, up), -ERANGE);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(), "not inside the registration"),
		  nullptr);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova, UINT64_MAX, up), -ERANGE);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, UINT64_MAX, 2, up), -ERANGE);
	EXPECT_NE(strstr(hlthunk_verbs_last_error(), "wraps"), nullptr);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, iova, len, up), 0)
		<< hlthunk_verbs_last_error();

}

// The stage holds its own references: the device memory cannot be freed
// under it, and a closed fd whose number is reused cannot redirect a sync.
TEST_F(VerbsStaged, TheStageHoldsTheMemoryAndTheDevice)
{
	const uint64_t len = 3 * 4096;
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), len), 0);
	HostBuffer host, nic;
	ASSERT_EQ(host.create(pd(), fd(), len), 0);
	ASSERT_EQ(nic.create(pd(), fd(), len), 0);

	int dup_fd = fcntl(fd(), F_DUPFD_CLOEXEC, 0);
	ASSERT_GE(dup_fd, 0);
	MrGuard mr;
	ASSERT_NO_FATAL_FAILURE(reg_staged(&mr, dev.va(), len, dup_fd));
	ASSERT_EQ(close(dup_fd), 0);
	int other = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_EQ(other, dup_fd) << "the test wants the number reused";

	EXPECT_EQ(dev.try_reset(), -EINVAL)
		<< "device memory under a registration was unmapped";
	hlipc::fill_pattern(nic.data(), len, kSeedNic);
	ASSERT_EQ(lb().write(nic.data(), nic.lkey(), len, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
	ASSERT_EQ(hlthunk_verbs_mr_sync(mr.mr, mr.iova(), len,
					HLTHUNK_VERBS_SYNC_FOR_DEVICE),
		  0)
		<< hlthunk_verbs_last_error();
	close(other);
	dma_from_device(host, dev.va(), len);
	EXPECT_EQ(hlipc::check_pattern(host.data(), len, kSeedNic), -1);

	mr.reset();
	EXPECT_EQ(dev.try_reset(), 0) << "unmapped once the registration ended";
}

// A provider with dma-buf memory regions whose exporter refuses it (EPERM,
// as habanalabs answers without peer-to-peer DMA): the provider's error,
// or the stage when allowed.  The refusal is the interposer's.
TEST_F(VerbsStaged, AnExporterThatRefusesTheNicGetsAStageWhenAllowed)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4096), 0);
	interposer_reset(DmabufMode::RefusePeer);
	MrGuard mr;
	EXPECT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), dev.va(), 4096,
						  kRemoteAccess, 0, &mr.mr),
		  -EPERM);
	ASSERT_NO_FATAL_FAILURE(reg_staged(&mr, dev.va(), 4096, fd()));
	EXPECT_EQ(hlthunk_verbs_mr_dmabuf_error(mr.mr), -EPERM);
	auto log = interposer_log();
	ASSERT_EQ(log.size(), 3u) << "no CPU mapping is tried after EPERM";
	EXPECT_EQ(log[2].kind, VerbsCall::RegMrIova2);
}

}  // namespace
}  // namespace rdmatest
