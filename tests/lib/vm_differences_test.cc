// SPDX-License-Identifier: MIT
// The smaller points where a library could part from hl-thunk, each
// settled (in the VM, 'habanalabs_sim num_devices=2'): dma-buf export
// flags, allocation sizes, the last error, PCI bus id buffers.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "hlthunk.h"

namespace {

class Differences : public ::testing::Test {
protected:
	void SetUp() override
	{
		fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		ASSERT_GE(fd, 0);
	}
	void TearDown() override { hlthunk_close(fd); }
	int fd = -1;
};

}  // namespace

// As hl-thunk: hlthunk_device_memory_export_dmabuf_fd always gives a
// read-write, close-on-exec fd (its flags are unused); the mapped variant
// takes exactly O_RDWR | O_CLOEXEC.
TEST_F(Differences, DmabufExportFlagsAreHlThunks)
{
	uint64_t h = hlthunk_device_memory_alloc(fd, 8192, 0, false, false);
	uint64_t va = hlthunk_device_memory_map(fd, h, 0);
	ASSERT_NE(va, 0u);
	int buf = hlthunk_device_memory_export_dmabuf_fd(fd, va, 8192, 0);
	ASSERT_GE(buf, 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(fcntl(buf, F_GETFL) & O_ACCMODE, O_RDWR);
	EXPECT_TRUE(fcntl(buf, F_GETFD) & FD_CLOEXEC);
	close(buf);
	EXPECT_EQ(hlthunk_device_mapped_memory_export_dmabuf_fd(fd, va, 4096, 0, O_RDWR),
		  -EINVAL);
	EXPECT_EQ(hlthunk_device_mapped_memory_export_dmabuf_fd(fd, va, 4096, 0, 0), -EINVAL);
	buf = hlthunk_device_mapped_memory_export_dmabuf_fd(fd, va, 4096, 4096,
							    O_RDWR | O_CLOEXEC);
	ASSERT_GE(buf, 0);
	EXPECT_EQ(fcntl(buf, F_GETFL) & O_ACCMODE, O_RDWR);
	close(buf);
	EXPECT_EQ(hlthunk_memory_unmap(fd, va), 0);
	EXPECT_EQ(hlthunk_device_memory_free(fd, h), 0);
}

// The library knows how far a mapping reaches: the size rounded to the
// allocation's page size (the one asked, or the device default).
TEST_F(Differences, AllocationsAreRoundedToTheirPageSize)
{
	struct {
		uint64_t size, page, mapped;
	} cases[] = {{5000, 0, 8192}, {5000, 65536, 65536}, {65537, 65536, 131072},
		     {4096, 0, 4096}};
	for (auto &c : cases) {
		uint64_t h = hlthunk_device_memory_alloc(fd, c.size, c.page, false, false);
		ASSERT_NE(h, 0u) << hlthunk_ipc_last_error();
		uint64_t va = hlthunk_device_memory_map(fd, h, 0);
		ASSERT_NE(va, 0u);
		hlthunk_ipc_cookie cookie;
		uint64_t off, size = 0;
		ASSERT_EQ(hlthunk_ipc_register_device_memory(fd, va + c.size - 1, &cookie,
							     &off, &size), 0)
			<< hlthunk_ipc_last_error();
		EXPECT_EQ(size, c.mapped) << c.size << " bytes in pages of " << c.page;
		EXPECT_EQ(off, c.size - 1);
		// The whole mapping can be exported, and nothing past it.
		uint64_t eoff;
		int buf = hlthunk_device_memory_export_dmabuf_range(fd, va, c.mapped,
								    O_RDWR | O_CLOEXEC, &eoff);
		EXPECT_GE(buf, 0) << hlthunk_ipc_last_error();
		if (buf >= 0)
			close(buf);
		EXPECT_EQ(hlthunk_device_memory_export_dmabuf_range(fd, va, c.mapped + 1,
								    O_RDWR | O_CLOEXEC, &eoff),
			  -ERANGE);
		EXPECT_EQ(hlthunk_memory_unmap(fd, va), 0);
		EXPECT_EQ(hlthunk_device_memory_free(fd, h), 0);
	}
}

// A call that fails says why in the last error, even for the simplest
// argument check: never the message of an earlier failure.
TEST_F(Differences, TheLastErrorIsNeverLeftOver)
{
	EXPECT_LT(hlthunk_open_control(9999, nullptr), 0);
	std::string first = hlthunk_ipc_last_error();
	ASSERT_FALSE(first.empty());
	EXPECT_EQ(hlthunk_get_hw_ip_info(fd, nullptr), -EINVAL);
	std::string now = hlthunk_ipc_last_error();
	EXPECT_NE(now, first);
	EXPECT_NE(now.find("hlthunk_get_hw_ip_info"), std::string::npos) << now;
	EXPECT_NE(now.find("EINVAL"), std::string::npos) << now;
	EXPECT_EQ(hlthunk_get_clk_rate(fd, nullptr, nullptr), -EINVAL);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("hlthunk_get_clk_rate"),
		  std::string::npos);
	errno = 0;
	EXPECT_EQ(hlthunk_device_memory_map(fd, 123456, 0), 0u);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("mapping device memory"),
		  std::string::npos);
}

// hl-thunk copies what fits of the bus id, without its NUL if it does not
// fit; this library refuses a short buffer (-ERANGE) and leaves it alone.
TEST_F(Differences, AShortPciBusIdBufferIsRefused)
{
	char bus[13];
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(fd, bus, sizeof(bus)), 0);
	EXPECT_EQ(strlen(bus), 12u);
	char small[12];
	memset(small, 'x', sizeof(small));
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(fd, small, sizeof(small)), -ERANGE);
	for (char ch : small)
		EXPECT_EQ(ch, 'x');
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(fd, small, 0), -EINVAL);
}
