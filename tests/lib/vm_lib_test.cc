// SPDX-License-Identifier: MIT
// libhlthunk against the real kernel modules, run inside the VM with
// 'habanalabs_sim num_devices=2' and habanalabs_ipc loaded: every public
// call, its success path with the data checked, hl-thunk's return
// conventions, bad input, threads sharing channels, and fork.
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <set>
#include <thread>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"
#include "mapping.h"
#include "staged_dma.h"
#include "uapi/habanalabs_abi.h"
#include "uapi/habanalabs_extra.h"

using hlipc::DeviceBuffer;

namespace {

constexpr uint64_t kSize = 1 << 20;

void *ptr(uint64_t va) { return reinterpret_cast<void *>(va); }

// Kernel channels of every /dev/hl_ipc context.
long kernel_channels()
{
	FILE *f = fopen("/sys/class/misc/hl_ipc/stats/channels", "r");
	long n = -1;
	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

std::string sysfs_pci_addr(int index)
{
	std::string path = "/sys/class/habanalabs_sim/hlsim" +
			   std::to_string(index) + "/pci_addr";
	FILE *f = fopen(path.c_str(), "r");
	if (!f)
		return {};
	char buf[32] = "";
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	std::string s(buf);
	while (!s.empty() && s.back() == '\n')
		s.pop_back();
	return s;
}

// Both devices open in this process: compute nodes d0/d1, control c0/c1.
class Lib : public ::testing::Test {
protected:
	void SetUp() override
	{
		d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		c0 = hlthunk_open_control(0, nullptr);
		c1 = hlthunk_open_control(1, nullptr);
		ASSERT_GE(d0, 0) << hlthunk_ipc_last_error();
		ASSERT_GE(d1, 0) << hlthunk_ipc_last_error();
		ASSERT_GE(c0, 0);
		ASSERT_GE(c1, 0);
	}
	void TearDown() override
	{
		for (int fd : {d0, d1, c0, c1})
			if (fd >= 0)
				hlthunk_close(fd);
	}
	// Buffers of dev 0 (filled with pattern 1) and dev 1 (zeroed).
	void make_buffers(DeviceBuffer &a, DeviceBuffer &b, uint64_t size = kSize)
	{
		ASSERT_EQ(a.create(d0, size), 0);
		ASSERT_EQ(b.create(d1, size), 0);
		ASSERT_EQ(a.map_cpu(), 0);
		ASSERT_EQ(b.map_cpu(), 0);
		hlipc::fill_pattern(a.cpu(), size, 1);
		memset(b.cpu(), 0, size);
	}
	int d0 = -1, d1 = -1, c0 = -1, c1 = -1;
};

}  // namespace

TEST(Discovery, CountsAndKindFilter)
{
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), 2);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2), 2);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI), 0);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_INVALID), -EINVAL);
	setenv("HLTHUNK_DEVICE_KIND", "real", 1);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), 0);
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr), -ENODEV);
	setenv("HLTHUNK_DEVICE_KIND", "sim", 1);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), 2);
	setenv("HLTHUNK_DEVICE_KIND", "bogus", 1);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), -EINVAL);
	unsetenv("HLTHUNK_DEVICE_KIND");
}

TEST(Open, ExclusiveComputeOpenPassesEbusyThrough)
{
	int a = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	int b = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	errno = 0;
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr), -EBUSY);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("busy"), std::string::npos);
	// By bus id: busy too, and a control node still opens.
	std::string bus = sysfs_pci_addr(1);
	ASSERT_FALSE(bus.empty());
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, bus.c_str()), -EBUSY);
	int c = hlthunk_open_control(1, nullptr);
	EXPECT_GE(c, 0);
	EXPECT_EQ(hlthunk_close(c), 0);
	EXPECT_EQ(hlthunk_close(b), 0);
	// Freed: the same device by bus id, with and without the domain.
	b = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, bus.substr(5).c_str());
	ASSERT_GE(b, 0);
	char got[16];
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(b, got, sizeof(got)), 0);
	EXPECT_EQ(bus, got);
	EXPECT_EQ(hlthunk_close(b), 0);
	EXPECT_EQ(hlthunk_close(a), 0);
	EXPECT_EQ(hlthunk_close(a), -EBADF);  // double close
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "0000:ee:00.0"), -ENODEV);
	EXPECT_EQ(hlthunk_open_control(7, nullptr), -ENODEV);
}

TEST_F(Lib, DeviceInformation)
{
	struct hlthunk_hw_ip_info hw;
	ASSERT_EQ(hlthunk_get_hw_ip_info(d0, &hw), 0);
	EXPECT_EQ(hw.device_id, (uint32_t)HL_PCI_DEVICE_ID_GAUDI2);
	EXPECT_GT(hw.dram_size, 0u);
	ASSERT_EQ(hlthunk_get_hw_ip_info(c1, &hw), 0);  // control node too
	EXPECT_EQ(hlthunk_get_hw_ip_info(d0, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_get_device_name_from_fd(d0), HLTHUNK_DEVICE_GAUDI2);
	EXPECT_EQ(hlthunk_get_device_name_from_fd(c0), HLTHUNK_DEVICE_GAUDI2);
	int null = open("/dev/null", O_RDWR);
	EXPECT_EQ(hlthunk_get_device_name_from_fd(null), HLTHUNK_DEVICE_INVALID);
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(null, nullptr, 0), -EINVAL);
	char bus[16];
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(null, bus, sizeof(bus)), -ENOTTY);
	close(null);
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(c1, bus, sizeof(bus)), 0);
	EXPECT_EQ(sysfs_pci_addr(1), bus);
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(c1, bus, 5), -ERANGE);
}

TEST_F(Lib, MemoryReturnConventions)
{
	errno = 0;
	// Larger than the device: hl-thunk reports a failed alloc as handle 0.
	EXPECT_EQ(hlthunk_device_memory_alloc(d0, 1ull << 40, 0, false, false), 0u);
	EXPECT_NE(errno, 0);
	EXPECT_EQ(hlthunk_device_memory_map(d0, 0xdead, 0), 0u);
	EXPECT_EQ(hlthunk_memory_unmap(d0, 0x1234000), -EINVAL);
	EXPECT_LT(hlthunk_device_memory_free(d0, 0xdead), 0);
	// Control nodes cannot allocate.
	EXPECT_EQ(hlthunk_device_memory_alloc(c0, 4096, 0, false, false), 0u);

	uint64_t h = hlthunk_device_memory_alloc(d0, 8192, 0, false, false);
	ASSERT_NE(h, 0u);
	uint64_t va = hlthunk_device_memory_map(d0, h, 0);
	ASSERT_NE(va, 0u);
	int dmabuf = hlthunk_device_memory_export_dmabuf_fd(d0, va, 8192, O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);
	close(dmabuf);
	EXPECT_LT(hlthunk_device_mapped_memory_export_dmabuf_fd(d0, va, 8192, 8192, O_RDWR), 0);
	EXPECT_EQ(hlthunk_memory_unmap(d0, va), 0);
	EXPECT_EQ(hlthunk_memory_unmap(d0, va), -EINVAL);
	EXPECT_EQ(hlthunk_device_memory_free(d0, h), 0);
	EXPECT_LT(hlthunk_device_memory_free(d0, h), 0);
}

TEST_F(Lib, CommandSubmissionMovesDataBothWays)
{
	DeviceBuffer dev;
	ASSERT_EQ(dev.create(d0, kSize), 0);
	ASSERT_EQ(dev.map_cpu(), 0);
	hlipc::Mapping host = hlipc::Mapping::map(2 * kSize, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(host.valid());
	uint64_t host_va = hlthunk_host_memory_map(d0, host.get(), 0, 2 * kSize);
	ASSERT_NE(host_va, 0u);
	hlipc::StagedDma dma;
	ASSERT_EQ(dma.init(d0), 0);

	hlipc::fill_pattern(host.bytes(), kSize, 7);
	ASSERT_EQ(dma.copy(dev.va(), host_va, kSize), 0);  // host -> device
	EXPECT_EQ(hlipc::check_pattern(dev.cpu(), kSize, 7), -1);
	ASSERT_EQ(dma.copy(host_va + kSize, dev.va(), kSize), 0);  // and back
	EXPECT_EQ(hlipc::check_pattern(host.bytes() + kSize, kSize, 7), -1);

	// Bad CS input is refused; a CB handle that does not exist too.
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	memset(&in, 0, sizeof(in));
	EXPECT_EQ(hlthunk_command_submission(d0, &in, &out), -EINVAL);
	EXPECT_EQ(hlthunk_command_submission(d0, nullptr, &out), -EINVAL);
	uint32_t status;
	EXPECT_LT(hlthunk_wait_for_cs(d0, 999999, 0, &status), 0);
	uint64_t cb;
	EXPECT_EQ(hlthunk_request_command_buffer(d0, 4096, nullptr), -EINVAL);
	ASSERT_EQ(hlthunk_request_command_buffer(d0, 4096, &cb), 0);
	EXPECT_EQ(hlthunk_destroy_command_buffer(d0, cb), 0);
	EXPECT_LT(hlthunk_destroy_command_buffer(d0, cb), 0);
	EXPECT_EQ(hlthunk_memory_unmap(d0, host_va), 0);
}

TEST(Ipc, QueryReportsTheAbi)
{
	struct hlthunk_ipc_info info;
	ASSERT_EQ(hlthunk_ipc_query(&info), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(info.abi_version, info.lib_abi_version);
	EXPECT_TRUE(info.features & HLTHUNK_IPC_FEAT_DMABUF);
	EXPECT_TRUE(info.features & HLTHUNK_IPC_FEAT_ASYNC);
	EXPECT_GT(info.max_batch, 0u);
	EXPECT_EQ(hlthunk_ipc_query(nullptr), -EINVAL);
	int fd = hlthunk_ipc_get_fd();
	EXPECT_GE(fd, 0);
	EXPECT_EQ(hlthunk_ipc_get_fd(), fd);  // one context per process
}

TEST_F(Lib, ChannelCopyBetweenDevices)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	uint32_t ch, ch2, back;
	long kernel0 = kernel_channels();
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0) << hlthunk_ipc_last_error();
	// Same device pair through other nodes: an id of its own on the same
	// kernel channel.
	ASSERT_EQ(hlthunk_ipc_channel_create(c0, c1, &ch2), 0);
	EXPECT_NE(ch, ch2);
	EXPECT_EQ(kernel_channels(), kernel0 + 1);
	ASSERT_EQ(hlthunk_ipc_channel_create(d1, d0, &back), 0);
	EXPECT_NE(ch, back);
	EXPECT_EQ(kernel_channels(), kernel0 + 2);

	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(a.va()), kSize), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 1), -1);

	// Addresses belong to the device (its one compute context), so the
	// control fds, which name the same devices, serve as well.
	memset(b.cpu(), 0, 8);
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, c0, c1, ptr(b.va()), ptr(a.va()), 8), 0);
	EXPECT_EQ(memcmp(b.cpu(), a.cpu(), 8), 0);
	// Sub-ranges at offsets.
	hlipc::fill_pattern(a.cpu(), kSize, 2);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va() + 4096),
					   ptr(a.va() + 8192), 100), 0);
	EXPECT_EQ(memcmp(b.cpu() + 4096, a.cpu() + 8192, 100), 0);
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), 4096, 1), -1);  // untouched

	// Back the other way.
	memset(a.cpu(), 0, kSize);
	ASSERT_EQ(hlthunk_ipc_channel_copy(back, d1, d0, ptr(a.va()), ptr(b.va()), 4096), 0);
	EXPECT_EQ(hlipc::check_pattern(a.cpu(), 4096, 1), -1);

	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch2), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), -ENOENT);  // double destroy
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(a.va()), 8), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(back), 0);
}

TEST_F(Lib, ChannelCopyRejectsBadInput)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	auto copy = [&](int sfd, int dfd, uint64_t dst, uint64_t src, size_t len) {
		return hlthunk_ipc_channel_copy(ch, sfd, dfd, ptr(dst), ptr(src), len);
	};
	// Unmapped addresses, lengths past the allocation, zero length.
	EXPECT_EQ(copy(d0, d1, b.va(), a.va() + kSize, 8), -EFAULT);
	EXPECT_EQ(copy(d0, d1, 0x1000, a.va(), 8), -EFAULT);
	EXPECT_EQ(copy(d0, d1, b.va(), a.va() + kSize - 4, 8), -ERANGE);
	EXPECT_EQ(copy(d0, d1, b.va() + 1, a.va(), kSize), -ERANGE);
	EXPECT_EQ(copy(d0, d1, b.va(), a.va(), 0), -EINVAL);
	// fds of other devices than the channel's, or swapped.
	EXPECT_EQ(copy(d1, d0, a.va(), b.va(), 8), -EINVAL);
	EXPECT_EQ(copy(d0, d0, a.va(), a.va(), 8), -EINVAL);
	// A closed fd and an fd that is no device.
	int null = open("/dev/null", O_RDWR);
	EXPECT_EQ(copy(null, d1, b.va(), a.va(), 8), -ENOTTY);
	close(null);
	EXPECT_EQ(copy(null, d1, b.va(), a.va(), 8), -EBADF);
	uint32_t bad;
	EXPECT_EQ(hlthunk_ipc_channel_create(null, d1, &bad), -EBADF);
	EXPECT_EQ(hlthunk_ipc_channel_create(d0, d1, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(0xffffff), -ENOENT);
	// Nothing was written by the refused copies.
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 0) >= 0, true);
	for (uint64_t i = 0; i < kSize; i++)
		ASSERT_EQ(b.cpu()[i], 0) << i;
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
}

TEST_F(Lib, UnmapAndFreeInvalidateTheRegistration)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	hlthunk_ipc_cookie cookie, again;
	uint64_t off, size;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va() + 4096, &cookie, &off, &size), 0);
	EXPECT_EQ(off, 4096u);
	EXPECT_EQ(size, kSize);
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &again, nullptr, nullptr), 0);
	EXPECT_EQ(cookie, again);  // registered once
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(a.va()), 64), 0);

	uint64_t old_va = a.va();
	a.reset();  // unmap + free
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(old_va), 64), -EFAULT);
	EXPECT_EQ(hlthunk_ipc_register_device_memory(d0, old_va, &again, nullptr, nullptr), -EFAULT);
	// The kernel no longer knows the cookie either.
	struct hlthunk_ipc_copy c = {ch, 0, cookie, 0, 0, 0, 64};
	uint64_t imp;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d1, b.va(), &c.dst_cookie, nullptr, nullptr), 0);
	EXPECT_EQ(hlthunk_ipc_copy(&c), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_import(c1, cookie, &imp, nullptr), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
}

TEST_F(Lib, CookiesImportAsyncAndBatch)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	hlthunk_ipc_cookie ca, cb;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &ca, nullptr, nullptr), 0);
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d1, b.va(), &cb, nullptr, nullptr), 0);

	// Import b's cookie into device 1's control fd: an address to copy to.
	uint64_t imp, imp_size;
	ASSERT_EQ(hlthunk_ipc_import(c1, cb, &imp, &imp_size), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(imp_size, kSize);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, c1, &ch), 0);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, c1, ptr(imp + 64), ptr(a.va()), 64), 0);
	EXPECT_EQ(memcmp(b.cpu() + 64, a.cpu(), 64), 0);
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, d0, c1, ptr(imp), ptr(a.va()), kSize + 1), -ERANGE);
	EXPECT_EQ(hlthunk_ipc_import(c1, 0x12345678, &imp_size, nullptr), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_unimport(c1, imp + 1), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_unimport(c1, imp), 0);
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, d0, c1, ptr(imp), ptr(a.va()), 8), -EFAULT);

	// By cookie: synchronous, asynchronous, batches.
	memset(b.cpu(), 0, kSize);
	struct hlthunk_ipc_copy c = {ch, 0, ca, 0, cb, 0, 4096};
	ASSERT_EQ(hlthunk_ipc_copy(&c), 0);
	EXPECT_EQ(memcmp(b.cpu(), a.cpu(), 4096), 0);
	c.src_offset = c.dst_offset = 4096;
	uint64_t seq;
	ASSERT_EQ(hlthunk_ipc_copy_async(&c, &seq), 0);
	EXPECT_EQ(hlthunk_ipc_wait(ch, seq, 10 * 1000 * 1000), 0);
	EXPECT_EQ(memcmp(b.cpu() + 4096, a.cpu() + 4096, 4096), 0);
	std::vector<struct hlthunk_ipc_copy> batch;
	for (uint64_t i = 2; i < 16; i++)
		batch.push_back({ch, 0, ca, i * 4096, cb, i * 4096, 4096});
	ASSERT_EQ(hlthunk_ipc_copy_batch(batch.data(), batch.size(), &seq), (int)batch.size());
	// poll() on the library's fd, then wait.
	struct pollfd p = {hlthunk_ipc_get_fd(), POLLIN, 0};
	EXPECT_GE(poll(&p, 1, 10000), 0);
	EXPECT_EQ(hlthunk_ipc_wait(ch, seq, 10 * 1000 * 1000), 0);
	EXPECT_EQ(memcmp(b.cpu(), a.cpu(), 16 * 4096), 0);
	// Bad input.
	c.length = kSize;  // offset 4096 + kSize: past the end
	EXPECT_EQ(hlthunk_ipc_copy(&c), -ERANGE);
	c.flags = 1;
	EXPECT_EQ(hlthunk_ipc_copy(&c), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_copy_async(&c, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_copy_batch(batch.data(), 0, &seq), -EINVAL);
	batch[1].channel_id = ch + 1000;  // one batch, one channel
	EXPECT_EQ(hlthunk_ipc_copy_batch(batch.data(), batch.size(), &seq), -EINVAL);
	EXPECT_LT(hlthunk_ipc_wait(ch, seq + 1000, 0), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
}

TEST_F(Lib, HostAndDmabufRegistration)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	hlipc::Mapping host = hlipc::Mapping::map(kSize, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(host.valid());
	hlipc::fill_pattern(host.bytes(), kSize, 9);
	hlthunk_ipc_cookie hc, dc, bc;
	ASSERT_EQ(hlthunk_ipc_register_host(host.get(), kSize,
					    HLTHUNK_IPC_ACCESS_READ | HLTHUNK_IPC_ACCESS_WRITE,
					    &hc), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlthunk_ipc_register_host(host.get(), kSize, 0x100, &hc), -EINVAL);
	int dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(d1, b.va(), kSize, 0,
								   O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);
	uint64_t size;
	ASSERT_EQ(hlthunk_ipc_register_dmabuf(dmabuf, d1, HLTHUNK_IPC_ACCESS_READ |
					      HLTHUNK_IPC_ACCESS_WRITE, &dc, &size), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(size, kSize);
	close(dmabuf);
	EXPECT_EQ(hlthunk_ipc_register_dmabuf(dmabuf, d1, HLTHUNK_IPC_ACCESS_READ, &bc, nullptr),
		  -EBADF);
	// Registered host memory and a registered dma-buf as copy ends.
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	struct hlthunk_ipc_copy c = {ch, 0, hc, 0, dc, 4096, 8192};
	ASSERT_EQ(hlthunk_ipc_copy(&c), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(b.cpu() + 4096, host.bytes(), 8192), 0);
	// Host memory mapped for device 0 is addressable on the channel too.
	uint64_t host_va = hlthunk_host_memory_map(d0, host.get(), 0, kSize);
	ASSERT_NE(host_va, 0u);
	memset(b.cpu(), 0, kSize);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(host_va + 100), 5000), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(b.cpu(), host.bytes() + 100, 5000), 0);
	EXPECT_EQ(hlthunk_memory_unmap(d0, host_va), 0);
	EXPECT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(host_va), 8), -EFAULT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
	EXPECT_EQ(hlthunk_ipc_deregister(hc), 0);
	EXPECT_EQ(hlthunk_ipc_deregister(hc), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_deregister(dc), 0);
}

TEST_F(Lib, ThreadsShareChannels)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	constexpr int kThreads = 8;
	constexpr uint64_t kSlice = kSize / kThreads;
	std::atomic<int> failures{0};
	std::vector<std::thread> ts;
	std::vector<uint32_t> ids(kThreads);
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&, t] {
			uint32_t ch;
			if (hlthunk_ipc_channel_create(d0, d1, &ch) < 0) {
				failures++;
				return;
			}
			ids[t] = ch;
			for (int n = 0; n < 20; n++) {
				uint64_t off = t * kSlice;
				if (hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va() + off),
							     ptr(a.va() + off), kSlice) < 0)
					failures++;
			}
			if (hlthunk_ipc_channel_destroy(ch) < 0)
				failures++;
		});
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(failures, 0);
	EXPECT_EQ(std::set<uint32_t>(ids.begin(), ids.end()).size(), (size_t)kThreads)
		<< "every create has its id";
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 1), -1);
	for (uint32_t id : ids)
		EXPECT_EQ(hlthunk_ipc_channel_destroy(id), -ENOENT);
}

TEST_F(Lib, ForkedChildUsesItsOwnContext)
{
	DeviceBuffer a, b;
	make_buffers(a, b);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(a.va()), 4096), 0);
	int parent_ipc = hlthunk_ipc_get_fd();

	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		// The parent's channel is not the child's; mappings are shared.
		int rc = 0;
		if (hlthunk_ipc_channel_destroy(ch) != -ENOENT)
			rc |= 1;
		uint32_t mine;
		if (hlthunk_ipc_channel_create(d0, d1, &mine) < 0)
			rc |= 2;
		if (hlthunk_ipc_channel_copy(mine, d0, d1, ptr(b.va() + 8192),
					     ptr(a.va() + 8192), 4096) < 0)
			rc |= 4;
		if (hlthunk_ipc_get_fd() < 0)
			rc |= 8;
		if (hlthunk_ipc_channel_destroy(mine) < 0)
			rc |= 16;
		_exit(rc);
	}
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(memcmp(b.cpu() + 8192, a.cpu() + 8192, 4096), 0);
	// The parent's context, channel and registrations are untouched.
	EXPECT_EQ(hlthunk_ipc_get_fd(), parent_ipc);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va() + 4096),
					   ptr(a.va() + 4096), 4096), 0);
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), 3 * 4096, 1), -1);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
}
