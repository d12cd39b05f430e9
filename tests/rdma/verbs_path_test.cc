// SPDX-License-Identifier: MIT
// Which path a registration takes, seen from outside the library: the
// verbs calls it makes (intercepted in this program), the kernel's own
// answer to a dma-buf memory region, and what the library reports.
#include <fcntl.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "dmabuf_interposer.h"
#include "uverbs_probe.h"
#include "verbs_fixture.h"

namespace rdmatest {
namespace {

using VerbsPath = VerbsTest;

std::string kernel_release()
{
	utsname u;
	return uname(&u) == 0 ? u.release : "?";
}

// The library asks for a dma-buf memory region first, for exactly the
// range, with a dma-buf of the device's exporter; soft-RoCE refuses; then
// the library registers a CPU mapping of the same range at the same iova.
TEST_F(VerbsPath, DmabufFirstThenCpuMapping)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4 * 4096), 0);
	const uint64_t va = dev.va() + 4096 + 100, len = 10000;

	MrGuard mr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), va, len,
						  kRemoteAccess, 0, &mr.mr),
		  0)
		<< hlthunk_verbs_last_error();

	auto log = interposer_log();
	ASSERT_EQ(log.size(), 2u);
	const VerbsCall &d = log[0], &m = log[1];
	EXPECT_EQ(d.kind, VerbsCall::RegDmabufMr);
	EXPECT_EQ(d.exporter, "habanalabs_sim");
	EXPECT_EQ(d.offset_or_addr, 100u);  // the dma-buf starts at the page
	EXPECT_EQ(d.length, len);
	EXPECT_EQ(d.iova, va);
	EXPECT_EQ(d.access, kRemoteAccess);
	EXPECT_EQ(d.result_errno, EOPNOTSUPP)
		<< "soft-RoCE's provider took a dma-buf memory region: the "
		   "support matrix in Documentation/rdma.md is out of date";
	EXPECT_EQ(m.kind, VerbsCall::RegMrIova2);
	EXPECT_EQ(m.offset_or_addr % 4096, 100u);
	EXPECT_EQ(m.length, len);
	EXPECT_EQ(m.iova, va);
	EXPECT_EQ(m.result_errno, 0);

	EXPECT_EQ(hlthunk_verbs_mr_path(mr.mr), HLTHUNK_VERBS_PATH_CPU_MAPPING);
	EXPECT_STREQ(hlthunk_verbs_path_name(hlthunk_verbs_mr_path(mr.mr)),
		     "cpu-mapping");
	EXPECT_EQ(hlthunk_verbs_mr_dmabuf_error(mr.mr), -EOPNOTSUPP);
	EXPECT_EQ(hlthunk_verbs_mr_iova(mr.mr), va);
	// The NIC reaches this memory itself: a sync has nothing to move,
	// but still checks its range.
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, va, len, HLTHUNK_VERBS_SYNC_FOR_NIC), 0);
	EXPECT_EQ(hlthunk_verbs_mr_sync(mr.mr, va, len + 1,
					HLTHUNK_VERBS_SYNC_FOR_DEVICE),
		  -ERANGE);
	RecordProperty("verbs_device", lb().name());
	printf("[ info ] %s on %s: ibv_reg_dmabuf_mr -> %s; path %s\n",
	       lb().name(), kernel_release().c_str(), strerrorname_np(d.result_errno),
	       hlthunk_verbs_path_name(hlthunk_verbs_mr_path(mr.mr)));
}

// Not only the userspace provider: the kernel driver itself refuses a
// dma-buf memory region.  Two controls show that the request is well
// formed and reaches the driver's capability check: the same request
// naming another driver, or a PD the kernel does not know, fails
// differently, in the ioctl core before any driver is asked (EINVAL,
// ENOENT).
TEST_F(VerbsPath, KernelDriverHasNoDmabufMemoryRegions)
{
	if (strncmp(lb().name(), "rxe", 3))
		GTEST_SKIP() << "the probe speaks to the soft-RoCE driver only";
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4096), 0);
	int dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(
		fd(), dev.va(), 4096, 0, O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);

	auto probe = [&](uint32_t driver, uint32_t pd_handle) {
		return kernel_reg_dmabuf_mr(lb().ctx(), driver, pd_handle, dmabuf,
					    0, 4096, 0, IBV_ACCESS_LOCAL_WRITE);
	};
	int rc = probe(RDMA_DRIVER_RXE, pd()->handle);
	int other_driver = probe(RDMA_DRIVER_MLX5, pd()->handle);
	int bad_pd = probe(RDMA_DRIVER_RXE, pd()->handle + 4242);
	close(dmabuf);
	EXPECT_EQ(rc, -EOPNOTSUPP);
	EXPECT_EQ(other_driver, -EINVAL);
	EXPECT_EQ(bad_pd, -ENOENT);
	printf("[ info ] kernel %s, %s: UVERBS_METHOD_REG_DMABUF_MR -> %s "
	       "(controls: other driver %s, unknown PD %s)\n",
	       kernel_release().c_str(), lb().name(), strerrorname_np(-rc),
	       strerrorname_np(-other_driver), strerrorname_np(-bad_pd));
}

TEST_F(VerbsPath, DmabufOnlyRefusesTheFallback)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4096), 0);
	hlthunk_verbs_mr *mr = nullptr;
	EXPECT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), dev.va(), 4096,
						  kRemoteAccess,
						  HLTHUNK_VERBS_REG_DMABUF_ONLY,
						  &mr),
		  -EOPNOTSUPP);
	EXPECT_EQ(errno, EOPNOTSUPP);
	EXPECT_EQ(mr, nullptr);
	std::string msg = hlthunk_verbs_last_error();
	EXPECT_NE(msg.find("no dma-buf memory regions"), std::string::npos) << msg;
	EXPECT_NE(msg.find("DMABUF_ONLY"), std::string::npos) << msg;
	// The dma-buf was offered, and no CPU mapping was registered.  (A
	// second ibv_reg_dmabuf_mr with fd -1 asks whether the provider has
	// dma-buf memory regions at all, for the message.)
	auto log = interposer_log();
	ASSERT_GE(log.size(), 1u);
	EXPECT_EQ(log[0].kind, VerbsCall::RegDmabufMr);
	EXPECT_EQ(log[0].exporter, "habanalabs_sim");
	for (const VerbsCall &c : log)
		EXPECT_EQ(c.kind, VerbsCall::RegDmabufMr);
}

// A provider that takes the dma-buf: the library keeps that memory region
// and reports the dma-buf path.  The provider is the test's stand-in (see
// dmabuf_interposer.h); the data still moves through soft-RoCE.
TEST_F(VerbsPath, ProviderThatTakesTheDmabuf)
{
	interposer_reset(DmabufMode::AcceptShim);
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 3 * 4096), 0);
	HostBuffer stage, nic;
	ASSERT_EQ(stage.create(pd(), fd(), 3 * 4096), 0);
	ASSERT_EQ(nic.create(pd(), fd(), 3 * 4096), 0);
	const uint64_t off = 4000, len = 5000;
	interposer_reset(DmabufMode::AcceptShim);  // log only what follows
	{
		MrGuard mr;
		ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(),
							  dev.va() + off, len,
							  kRemoteAccess, 0,
							  &mr.mr),
			  0)
			<< hlthunk_verbs_last_error();
		EXPECT_EQ(hlthunk_verbs_mr_path(mr.mr), HLTHUNK_VERBS_PATH_DMABUF);
		EXPECT_EQ(hlthunk_verbs_mr_dmabuf_error(mr.mr), 0);
		auto log = interposer_log();
		ASSERT_EQ(log.size(), 1u);  // no fallback registration
		EXPECT_EQ(log[0].result_errno, 0);
		EXPECT_EQ(interposer_shim_mappings(), 1);

		hlipc::fill_pattern(nic.data(), len, 5);
		ASSERT_EQ(lb().write(nic.data(), nic.lkey(), len, mr.iova(),
				     mr.rkey()),
			  IBV_WC_SUCCESS);
		dma_from_device(stage, dev.va(), 3 * 4096);
		EXPECT_EQ(hlipc::check_pattern(stage.data() + off, len, 5), -1);
	}
	// Deregistration went through ibv_dereg_mr of that memory region.
	EXPECT_EQ(interposer_shim_mappings(), 0);
}

}  // namespace
}  // namespace rdmatest
