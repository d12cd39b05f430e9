// SPDX-License-Identifier: MIT
// hlthunk_device_memory_export_dmabuf_range against habanalabs_sim: the
// dma-buf holds exactly the pages of the range, the offset points at its
// first byte, and bad input gets the documented errno.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "device_buffer.h"
#include "hlthunk.h"

namespace {

constexpr uint64_t kPage = 4096;

// The size of a dma-buf as the kernel reports it.
uint64_t dmabuf_size(int fd)
{
	std::ifstream f("/proc/self/fdinfo/" + std::to_string(fd));
	std::string key;
	uint64_t v;
	while (f >> key)
		if (key == "size:" && f >> v)
			return v;
	return 0;
}

class ExportRange : public ::testing::Test {
protected:
	static void SetUpTestSuite()
	{
		fd_ = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
		ASSERT_GE(fd_, 0) << "load habanalabs_sim";
	}
	static void TearDownTestSuite() { hlthunk_close(fd_); }

	// Exports [addr, addr + size) and checks that the dma-buf starts at
	// page first_page of buf and has npages pages, by content.
	void expect_export(hlipc::DeviceBuffer &buf, uint64_t addr, uint64_t size,
			   uint64_t first_page, uint64_t npages)
	{
		uint64_t off = ~0ull;
		int fd = hlthunk_device_memory_export_dmabuf_range(
			fd_, addr, size, O_RDWR | O_CLOEXEC, &off);
		ASSERT_GE(fd, 0) << hlthunk_ipc_last_error();
		EXPECT_EQ(off, addr - buf.va() - first_page * kPage);
		EXPECT_EQ(dmabuf_size(fd), npages * kPage);
		void *p = mmap(nullptr, npages * kPage, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(p, MAP_FAILED);
		EXPECT_EQ(memcmp(p, buf.cpu() + first_page * kPage, npages * kPage), 0);
		munmap(p, npages * kPage);
		close(fd);
	}

	static int fd_;
};
int ExportRange::fd_ = -1;

TEST_F(ExportRange, WholePagesOfTheRange)
{
	hlipc::DeviceBuffer buf;
	ASSERT_EQ(buf.create(fd_, 4 * kPage), 0);
	ASSERT_EQ(buf.map_cpu(), 0);
	hlipc::fill_pattern(buf.cpu(), 4 * kPage, 3);
	const uint64_t va = buf.va();
	expect_export(buf, va, 1, 0, 1);
	expect_export(buf, va + 100, 5000, 0, 2);
	expect_export(buf, va + kPage, kPage, 1, 1);
	expect_export(buf, va + kPage + 5, kPage, 1, 2);
	expect_export(buf, va + 4 * kPage - 1, 1, 3, 1);
	expect_export(buf, va, 4 * kPage, 0, 4);
}

TEST_F(ExportRange, BadInput)
{
	hlipc::DeviceBuffer buf;
	ASSERT_EQ(buf.create(fd_, 2 * kPage), 0);
	const uint64_t va = buf.va();
	uint64_t off = 0;
	auto exp = [&](int fd, uint64_t addr, uint64_t size, uint64_t *o) {
		errno = 0;
		return hlthunk_device_memory_export_dmabuf_range(
			fd, addr, size, O_RDWR | O_CLOEXEC, o);
	};
	EXPECT_EQ(exp(fd_, va, 0, &off), -EINVAL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(exp(fd_, va, kPage, nullptr), -EINVAL);
	EXPECT_EQ(exp(fd_, va, UINT64_MAX, &off), -ERANGE);
	EXPECT_EQ(errno, ERANGE);
	EXPECT_EQ(exp(fd_, va + kPage, kPage + 1, &off), -ERANGE);
	EXPECT_EQ(exp(fd_, va + 2 * kPage, 1, &off), -EFAULT);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(exp(fd_, va - 1, 1, &off), -EFAULT);
	EXPECT_EQ(exp(-1, va, 1, &off), -EBADF);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("exporting a device "
							      "memory range"),
		  std::string::npos)
		<< hlthunk_ipc_last_error();
	// Unknown fd flags: the driver's answer.
	EXPECT_EQ(hlthunk_device_memory_export_dmabuf_range(fd_, va, 1, O_APPEND,
							    &off),
		  -EINVAL);
	// Host memory mapped for the device cannot be exported.
	void *host = mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(host, MAP_FAILED);
	uint64_t hva = hlthunk_host_memory_map(fd_, host, 0, kPage);
	ASSERT_NE(hva, 0u);
	EXPECT_EQ(exp(fd_, hva, 1, &off), -EINVAL);
	EXPECT_EQ(hlthunk_memory_unmap(fd_, hva), 0);
	munmap(host, kPage);
	// Freed memory is gone.
	buf.reset();
	EXPECT_EQ(exp(fd_, va, 1, &off), -EFAULT);
}

}  // namespace
