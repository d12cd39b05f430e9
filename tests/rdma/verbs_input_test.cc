// SPDX-License-Identifier: MIT
// Bad input gets a clear error and leaves nothing behind: no registration,
// no exported dma-buf, no mapping.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "dmabuf_interposer.h"
#include "sim_counters.h"
#include "verbs_fixture.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace rdmatest {
namespace {

class VerbsInput : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		ASSERT_EQ(dev_.create(fd(), 2 * 4096), 0);
		before_ = hltest::sim_counters();
	}
	void TearDown() override
	{
		EXPECT_TRUE(hltest::sim_counters_return_to(
			hltest::sim_memory_counters(before_), 2000))
			<< "a failed registration left an object behind";
	}

	// Expects err, a NULL result and a message containing text.  (mr by
	// address: the call that sets it is an argument too.)
	void expect_fail(int rc, int err, hlthunk_verbs_mr *const *mr,
			 const std::string &text)
	{
		EXPECT_EQ(rc, -err) << hlthunk_verbs_last_error();
		EXPECT_EQ(errno, err);
		EXPECT_EQ(*mr, nullptr);
		std::string msg = hlthunk_verbs_last_error();
		EXPECT_NE(msg.find(text), std::string::npos) << msg;
	}

	int reg(uint64_t va, uint64_t size, hlthunk_verbs_mr **mr,
		int access = kRemoteAccess, uint32_t flags = 0, int dfd = -2,
		ibv_pd *p = nullptr)
	{
		*mr = nullptr;
		return hlthunk_verbs_reg_device_memory(p ? p : pd(),
						       dfd == -2 ? fd() : dfd, va,
						       size, access, flags, mr);
	}

	hlipc::DeviceBuffer dev_;
	std::map<std::string, long> before_;
};

TEST_F(VerbsInput, NullPdOrResult)
{
	hlthunk_verbs_mr *mr = nullptr;
	int rc = hlthunk_verbs_reg_device_memory(nullptr, fd(), dev_.va(), 4096,
						 kRemoteAccess, 0, &mr);
	expect_fail(rc, EINVAL, &mr, "no protection domain");
	rc = hlthunk_verbs_reg_device_memory(pd(), fd(), dev_.va(), 4096,
					     kRemoteAccess, 0, nullptr);
	EXPECT_EQ(rc, -EINVAL);
	EXPECT_EQ(hlthunk_verbs_dereg_mr(nullptr), 0);
}

TEST_F(VerbsInput, UnknownFlags)
{
	hlthunk_verbs_mr *mr;
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 1u << 31), EINVAL,
		    &mr, "unknown flags");
}

TEST_F(VerbsInput, ZeroSizeAndOverflow)
{
	hlthunk_verbs_mr *mr;
	expect_fail(reg(dev_.va(), 0, &mr), EINVAL, &mr, "size is 0");
	expect_fail(reg(dev_.va(), UINT64_MAX, &mr), ERANGE, &mr, "wraps");
	expect_fail(reg(UINT64_MAX - 10, 20, &mr), ERANGE, &mr, "wraps");
	// Past the end of the allocation, by one byte and by far.
	expect_fail(reg(dev_.va() + 4096, 4097, &mr), ERANGE, &mr,
		    "exporting a device memory range");
	expect_fail(reg(dev_.va(), 1ull << 40, &mr), ERANGE, &mr,
		    "exporting a device memory range");
}

TEST_F(VerbsInput, BadDeviceFd)
{
	hlthunk_verbs_mr *mr;
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, -1), EBADF, &mr,
		    "not open");
	int closed = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(closed, 0);
	close(closed);
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, closed), EBADF,
		    &mr, "not open");
}

TEST_F(VerbsInput, WrongFdType)
{
	hlthunk_verbs_mr *mr;
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int p[2];
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, null_fd), ENOTTY,
		    &mr, "not a Gaudi device");
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, p[0]), ENOTTY, &mr,
		    "not a Gaudi device");
	// The verbs device's own fd is not a Gaudi device either.
	expect_fail(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0,
			lb().ctx()->cmd_fd),
		    ENOTTY, &mr, "not a Gaudi device");
	// A control node names the device: libhlthunk keeps addresses per
	// device, so the memory mapped in its compute context is found.
	int ctl = hlthunk_open_control(0, nullptr);
	ASSERT_GE(ctl, 0);
	ASSERT_EQ(reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, ctl), 0)
		<< hlthunk_verbs_last_error();
	EXPECT_EQ(hlthunk_verbs_dereg_mr(mr), 0);
	hlthunk_close(ctl);
	close(null_fd);
	close(p[0]);
	close(p[1]);
}

TEST_F(VerbsInput, UnmappedAddresses)
{
	hlthunk_verbs_mr *mr;
	expect_fail(reg(0x1000, 4096, &mr), EFAULT, &mr, "no device memory mapped");
	expect_fail(reg(dev_.va() + 2 * 4096, 1, &mr), EFAULT, &mr,
		    "no device memory mapped");
	expect_fail(reg(dev_.va() - 1, 2, &mr), EFAULT, &mr,
		    "no device memory mapped");
	// Memory that was mapped and is not any more.
	hlipc::DeviceBuffer gone;
	ASSERT_EQ(gone.create(fd(), 4096), 0);
	uint64_t va = gone.va();
	gone.reset();
	expect_fail(reg(va, 4096, &mr), EFAULT, &mr, "no device memory mapped");
}

TEST_F(VerbsInput, HostMemoryMappedForTheDevice)
{
	HostBuffer h;
	ASSERT_EQ(h.create(pd(), fd(), 4096), 0);
	auto before = hltest::sim_counters();  // the host buffer adds a userptr
	hlthunk_verbs_mr *mr;
	expect_fail(reg(h.dev_va(), 4096, &mr), EINVAL, &mr,
		    "exporting a device memory range");
	EXPECT_TRUE(hltest::sim_counters_return_to(
		hltest::sim_memory_counters(before), 2000));
}

TEST_F(VerbsInput, InvalidAccessFlags)
{
	hlthunk_verbs_mr *mr;
	// Remote write without local write is invalid in verbs.
	expect_fail(reg(dev_.va(), 4096, &mr, IBV_ACCESS_REMOTE_WRITE), EINVAL,
		    &mr, "ibv_reg_mr");
	expect_fail(reg(dev_.va(), 4096, &mr, 1 << 30), EINVAL, &mr, "ibv_reg_mr");
}

// A PD whose context's command fd is gone (the kernel can no longer reach
// it): the failure is reported, and the exported dma-buf and the CPU
// mapping made on the way are released.  (A PD that was deallocated is a
// dangling pointer, which no library can check; a PD with registrations
// cannot be deallocated, see VerbsLifetime.)
TEST_F(VerbsInput, PdOfAClosedContext)
{
	ibv_context *ctx = ibv_open_device(lb().ctx()->device);
	ASSERT_NE(ctx, nullptr);
	ibv_pd *pd2 = ibv_alloc_pd(ctx);
	ASSERT_NE(pd2, nullptr);
	// Replace the command fd by one that refuses writes and ioctls.
	int ro = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(ro, 0);
	ASSERT_EQ(dup3(ro, ctx->cmd_fd, O_CLOEXEC), ctx->cmd_fd);
	close(ro);

	hlthunk_verbs_mr *mr;
	int rc = reg(dev_.va(), 4096, &mr, kRemoteAccess, 0, -2, pd2);
	EXPECT_LT(rc, 0);
	EXPECT_EQ(mr, nullptr);
	std::string msg = hlthunk_verbs_last_error();
	EXPECT_NE(msg.find("ibv_reg_mr"), std::string::npos) << msg;
	printf("[ info ] %s\n", msg.c_str());

	// The PD cannot be freed through the dead fd: libibverbs keeps it.
	EXPECT_NE(ibv_dealloc_pd(pd2), 0);
#if defined(__SANITIZE_ADDRESS__)
	__lsan_ignore_object(pd2);
#endif
	ibv_close_device(ctx);
}

// The same checks for a caller's dma-buf.
TEST_F(VerbsInput, DmabufArguments)
{
	hlthunk_verbs_mr *mr = nullptr;
	int dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(
		fd(), dev_.va(), 2 * 4096, 0, O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);
	auto r = [&](int f, uint64_t off, uint64_t len, uint64_t iova,
		     uint32_t flags = 0) {
		mr = nullptr;
		return hlthunk_verbs_reg_dmabuf(pd(), f, off, len, iova,
						kRemoteAccess, flags, &mr);
	};
	expect_fail(r(-1, 0, 4096, 0), EBADF, &mr, "not open");
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	expect_fail(r(null_fd, 0, 4096, 0), EINVAL, &mr, "not a dma-buf");
	close(null_fd);
	expect_fail(r(dmabuf, 0, 0, 0), EINVAL, &mr, "length is 0");
	expect_fail(r(dmabuf, 1, UINT64_MAX, 1), ERANGE, &mr, "wraps");
	expect_fail(r(dmabuf, 4096, 4097, 4096), ERANGE, &mr, "past the end");
	expect_fail(r(dmabuf, 2 * 4096, 1, 0), ERANGE, &mr, "past the end");
	expect_fail(r(dmabuf, 100, 10, 0), EINVAL, &mr, "same offset within a page");
	expect_fail(r(dmabuf, 0, 4096, 0, 1u << 7), EINVAL, &mr, "unknown flags");
	// And a good one: the caller keeps its fd.
	ASSERT_EQ(r(dmabuf, 100, 5000, 0x7000 + 100), 0) << hlthunk_verbs_last_error();
	EXPECT_EQ(hlthunk_verbs_mr_iova(mr), 0x7000u + 100);
	EXPECT_EQ(hlthunk_verbs_dereg_mr(mr), 0);
	EXPECT_EQ(fcntl(dmabuf, F_GETFD), FD_CLOEXEC);
	close(dmabuf);
}

}  // namespace
}  // namespace rdmatest
