// SPDX-License-Identifier: MIT
// The calls transports use (hlthunk_ipc_lookup_address,
// hlthunk_ipc_channel_create_ex, hlthunk_ipc_query_cookie) against
// habanalabs_sim and habanalabs_ipc in the VM: what they report, checked
// against what the program itself made, and every kind of bad input.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"

using hlipc::DeviceBuffer;

namespace {

constexpr uint64_t kPage = 4096;

std::string bus_of(int fd)
{
	char bus[32] = "";
	EXPECT_EQ(hlthunk_get_pci_bus_id_from_fd(fd, bus, sizeof(bus)), 0);
	return bus;
}

// Runs f in a child as user nobody; returns the child's exit status.
template <typename F>
int as_nobody(F f)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(f());
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

class Transport : public ::testing::Test {
protected:
	void SetUp() override
	{
		d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		ASSERT_GE(d0, 0) << hlthunk_ipc_last_error();
		c0 = hlthunk_open_control(-1, bus_of(d0).c_str());
		ASSERT_GE(c0, 0) << hlthunk_ipc_last_error();
	}
	void TearDown() override
	{
		for (int fd : {d0, c0})
			if (fd >= 0)
				hlthunk_close(fd);
	}
	int d0 = -1, c0 = -1;
};

TEST_F(Transport, LookupDeviceMemory)
{
	DeviceBuffer buf;
	ASSERT_EQ(buf.create(d0, 4 * kPage), 0);
	struct hlthunk_ipc_mem_info info;
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(hlthunk_ipc_lookup_address(buf.va(), 4 * kPage, &info), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(info.kind, (uint32_t)HLTHUNK_IPC_MEM_DEVICE);
	EXPECT_EQ(info.fd, d0);
	EXPECT_EQ(info.base, buf.va());
	EXPECT_EQ(info.size, 4 * kPage);
	EXPECT_EQ(std::string(info.pci_bus_id), bus_of(d0));
	for (auto r : info.reserved)
		EXPECT_EQ(r, 0u);
	// Any sub-range names the same mapping.
	ASSERT_EQ(hlthunk_ipc_lookup_address(buf.va() + kPage + 3, 17, &info), 0);
	EXPECT_EQ(info.base, buf.va());
	ASSERT_EQ(hlthunk_ipc_lookup_address(buf.va() + 4 * kPage - 1, 1, &info), 0);
	// Past the end, before the start, after the unmap.
	errno = 0;
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va() + kPage, 3 * kPage + 1, &info),
		  -ERANGE);
	EXPECT_EQ(errno, ERANGE);
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va() + 4 * kPage, 1, &info), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va() - 1, 1, &info), -ENOENT);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("which device maps"),
		  std::string::npos)
		<< hlthunk_ipc_last_error();
	uint64_t va = buf.va();
	buf.reset();
	EXPECT_EQ(hlthunk_ipc_lookup_address(va, 1, &info), -ENOENT);
}

TEST_F(Transport, LookupHostMappedAndPlainHostMemory)
{
	void *host = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(host, MAP_FAILED);
	uint64_t hva = hlthunk_host_memory_map(d0, host, 0, 2 * kPage);
	ASSERT_NE(hva, 0u) << hlthunk_ipc_last_error();
	struct hlthunk_ipc_mem_info info;
	ASSERT_EQ(hlthunk_ipc_lookup_address(hva + 5, 10, &info), 0);
	EXPECT_EQ(info.kind, (uint32_t)HLTHUNK_IPC_MEM_HOST_MAPPED);
	EXPECT_EQ(info.base, hva);
	EXPECT_EQ(info.size, 2 * kPage);
	EXPECT_EQ(info.fd, d0);
	// The host pointer itself is no device's address.
	EXPECT_EQ(hlthunk_ipc_lookup_address((uintptr_t)host, 1, &info), -ENOENT);
	EXPECT_EQ(hlthunk_memory_unmap(d0, hva), 0);
	munmap(host, 2 * kPage);
}

TEST_F(Transport, LookupBadInput)
{
	struct hlthunk_ipc_mem_info info;
	DeviceBuffer buf;
	ASSERT_EQ(buf.create(d0, kPage), 0);
	errno = 0;
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va(), 0, &info), -EINVAL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va(), 1, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_lookup_address(buf.va(), UINT64_MAX, &info), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_lookup_address(UINT64_MAX, 2, &info), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_lookup_address(0, 1, &info), -ENOENT);
}

// The fd the memory was mapped on is reported only while it is still that
// file; after hlthunk_close the mappings are forgotten.
TEST_F(Transport, LookupAfterTheFdIsClosed)
{
	int fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(fd, 0) << hlthunk_ipc_last_error();
	uint64_t h = hlthunk_device_memory_alloc(fd, kPage, 0, false, false);
	ASSERT_NE(h, 0u);
	uint64_t va = hlthunk_device_memory_map(fd, h, 0);
	ASSERT_NE(va, 0u);
	struct hlthunk_ipc_mem_info info;
	ASSERT_EQ(hlthunk_ipc_lookup_address(va, 1, &info), 0);
	EXPECT_EQ(info.fd, fd);
	// The number now names another file: not reported as the device's.
	int dup_target = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(dup_target, 0);
	int saved = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	ASSERT_GE(saved, 0);
	ASSERT_EQ(dup2(dup_target, fd), fd);
	ASSERT_EQ(hlthunk_ipc_lookup_address(va, 1, &info), 0);
	EXPECT_EQ(info.fd, -1);
	EXPECT_EQ(std::string(info.pci_bus_id), bus_of(saved));
	close(dup_target);
	ASSERT_EQ(dup2(saved, fd), fd);
	close(saved);
	ASSERT_EQ(hlthunk_ipc_lookup_address(va, 1, &info), 0);
	EXPECT_EQ(info.fd, fd);
	EXPECT_EQ(hlthunk_close(fd), 0);
	EXPECT_EQ(hlthunk_ipc_lookup_address(va, 1, &info), -ENOENT);
}

// Two devices hand out the same addresses (separate address spaces): the
// address alone does not say which device, and the call says so.
TEST_F(Transport, LookupAmbiguousAcrossDevices)
{
	int d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d1, 0) << hlthunk_ipc_last_error();
	DeviceBuffer a, b;
	ASSERT_EQ(a.create(d0, kPage), 0);
	ASSERT_EQ(b.create(d1, kPage), 0);
	struct hlthunk_ipc_mem_info info;
	if (a.va() == b.va()) {
		EXPECT_EQ(hlthunk_ipc_lookup_address(a.va(), 1, &info), -EEXIST);
	} else {
		ASSERT_EQ(hlthunk_ipc_lookup_address(b.va(), 1, &info), 0);
		EXPECT_EQ(info.fd, d1);
	}
	// With the second mapped elsewhere (a hint), each is unique.
	uint64_t h = hlthunk_device_memory_alloc(d1, kPage, 0, false, false);
	ASSERT_NE(h, 0u);
	uint64_t far = hlthunk_device_memory_map(d1, h, a.va() + (1ull << 30));
	ASSERT_NE(far, 0u);
	if (far != a.va()) {
		ASSERT_EQ(hlthunk_ipc_lookup_address(far, 1, &info), 0);
		EXPECT_EQ(info.fd, d1);
	}
	EXPECT_EQ(hlthunk_memory_unmap(d1, far), 0);
	EXPECT_EQ(hlthunk_device_memory_free(d1, h), 0);
	a.reset();
	b.reset();
	hlthunk_close(d1);
}

TEST_F(Transport, HostChannelsCopyData)
{
	constexpr uint64_t kLen = 3 * kPage + 123;
	std::vector<unsigned char> src(kLen), dst(kLen, 0);
	hlipc::fill_pattern(src.data(), kLen, 7);
	hlthunk_ipc_cookie sc = 0, dc = 0;
	ASSERT_EQ(hlthunk_ipc_register_host(src.data(), kLen, HLTHUNK_IPC_ACCESS_READ,
					    &sc), 0)
		<< hlthunk_ipc_last_error();
	ASSERT_EQ(hlthunk_ipc_register_host(dst.data(), kLen,
					    HLTHUNK_IPC_ACCESS_READ |
						    HLTHUNK_IPC_ACCESS_WRITE,
					    &dc), 0);
	uint32_t hh = 0, again = 0;
	ASSERT_EQ(hlthunk_ipc_channel_create_ex(-1, -1,
						HLTHUNK_IPC_CHANNEL_SRC_HOST |
							HLTHUNK_IPC_CHANNEL_DST_HOST,
						&hh), 0)
		<< hlthunk_ipc_last_error();
	// Every create has an id of its own (one kernel channel per pair
	// behind them); ending one leaves the other working.
	ASSERT_EQ(hlthunk_ipc_channel_create_ex(-1, -1,
						HLTHUNK_IPC_CHANNEL_SRC_HOST |
							HLTHUNK_IPC_CHANNEL_DST_HOST,
						&again), 0);
	EXPECT_NE(again, hh);
	struct hlthunk_ipc_copy c = {};
	c.channel_id = again;
	c.src_cookie = sc;
	c.dst_cookie = dc;
	c.length = kLen;
	ASSERT_EQ(hlthunk_ipc_copy(&c), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(src.data(), dst.data(), kLen), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(again), 0);
	EXPECT_EQ(hlthunk_ipc_copy(&c), -ENOENT);
	memset(dst.data(), 0, kLen);
	c.channel_id = hh;
	ASSERT_EQ(hlthunk_ipc_copy(&c), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(src.data(), dst.data(), kLen), 0);

	// Host to device and device to host, through device memory.
	DeviceBuffer buf;
	ASSERT_EQ(buf.create(d0, 4 * kPage), 0);
	ASSERT_EQ(buf.map_cpu(), 0);
	hlthunk_ipc_cookie bc = 0;
	uint64_t boff = 0, bsize = 0;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(c0, buf.va() + 1, &bc, &boff,
						     &bsize), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(boff, 1u);
	uint32_t h2d = 0, d2h = 0;
	ASSERT_EQ(hlthunk_ipc_channel_create_ex(-1, c0, HLTHUNK_IPC_CHANNEL_SRC_HOST,
						&h2d), 0);
	ASSERT_EQ(hlthunk_ipc_channel_create_ex(d0, -1, HLTHUNK_IPC_CHANNEL_DST_HOST,
						&d2h), 0);
	EXPECT_NE(h2d, d2h);
	EXPECT_NE(h2d, hh);
	c.channel_id = h2d;
	c.dst_cookie = bc;
	c.dst_offset = 1;
	ASSERT_EQ(hlthunk_ipc_copy(&c), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(buf.cpu() + 1, src.data(), kLen), 0);
	memset(dst.data(), 0, kLen);
	c.channel_id = d2h;
	c.src_cookie = bc;
	c.src_offset = 1;
	c.dst_cookie = dc;
	c.dst_offset = 0;
	uint64_t seq = 0;
	ASSERT_EQ(hlthunk_ipc_copy_async(&c, &seq), 0);
	ASSERT_EQ(hlthunk_ipc_wait(d2h, seq, 10ull * 1000 * 1000), 0);
	EXPECT_EQ(memcmp(dst.data(), src.data(), kLen), 0);

	for (uint32_t id : {hh, h2d, d2h})
		EXPECT_EQ(hlthunk_ipc_channel_destroy(id), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(hh), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(again), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_deregister(sc), 0);
	EXPECT_EQ(hlthunk_ipc_deregister(dc), 0);
}

TEST_F(Transport, HostChannelBadInput)
{
	uint32_t id = 0;
	errno = 0;
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(-1, c0, 1u << 2, &id), -EINVAL);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(-1, c0, ~0u, &id), -EINVAL);
	// A host end names no fd.
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(c0, c0, HLTHUNK_IPC_CHANNEL_SRC_HOST,
						&id), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(c0, c0, HLTHUNK_IPC_CHANNEL_DST_HOST,
						&id), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(-1, c0, HLTHUNK_IPC_CHANNEL_SRC_HOST,
						nullptr), -EINVAL);
	// A device end needs a device fd.
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(-1, -1, HLTHUNK_IPC_CHANNEL_SRC_HOST,
						&id), -EBADF);
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(null_fd, 0);
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(null_fd, -1,
						HLTHUNK_IPC_CHANNEL_DST_HOST, &id),
		  -ENOTTY);
	close(null_fd);
	EXPECT_EQ(hlthunk_ipc_channel_create_ex(1000, -1, HLTHUNK_IPC_CHANNEL_DST_HOST,
						&id), -EBADF);
	// Without flags it is hlthunk_ipc_channel_create: an id of its own
	// each time, ended once.
	ASSERT_EQ(hlthunk_ipc_channel_create_ex(d0, c0, 0, &id), 0);
	uint32_t plain = 0;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, c0, &plain), 0);
	EXPECT_NE(plain, id);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(id), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(id), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(plain), 0);
}

TEST_F(Transport, QueryCookie)
{
	std::vector<unsigned char> host(10000);
	hlthunk_ipc_cookie hc = 0;
	ASSERT_EQ(hlthunk_ipc_register_host(host.data(), host.size(),
					    HLTHUNK_IPC_ACCESS_READ, &hc), 0);
	struct hlthunk_ipc_region_info info;
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(hlthunk_ipc_query_cookie(hc, &info), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(info.size, host.size());
	EXPECT_EQ(info.access, (uint32_t)HLTHUNK_IPC_ACCESS_READ);
	EXPECT_EQ(info.dev_kind, (uint32_t)HLTHUNK_IPC_DEV_KIND_HOST);
	EXPECT_EQ(info.dev_major, 0u);
	EXPECT_EQ(info.reserved[0], 0u);
	EXPECT_EQ(info.reserved[1], 0u);

	DeviceBuffer buf;
	ASSERT_EQ(buf.create(d0, 2 * kPage), 0);
	hlthunk_ipc_cookie dc = 0;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, buf.va(), &dc, nullptr,
						     nullptr), 0);
	ASSERT_EQ(hlthunk_ipc_query_cookie(dc, &info), 0);
	EXPECT_EQ(info.size, 2 * kPage);
	EXPECT_EQ(info.access,
		  (uint32_t)(HLTHUNK_IPC_ACCESS_READ | HLTHUNK_IPC_ACCESS_WRITE));
	EXPECT_EQ(info.dev_kind, (uint32_t)HLTHUNK_IPC_DEV_KIND_SIM);
	struct hlthunk_hw_ip_info hw;
	ASSERT_EQ(hlthunk_get_hw_ip_info(d0, &hw), 0);
	EXPECT_EQ(info.dev_index, hw.module_id);
	EXPECT_NE(info.dev_major, 0u);

	// Another user: refused unless registered for any user.
	hlthunk_ipc_cookie any = 0;
	ASSERT_EQ(hlthunk_ipc_register_host(host.data(), host.size(),
					    HLTHUNK_IPC_ACCESS_READ |
						    HLTHUNK_IPC_ACCESS_ANY_USER,
					    &any), 0);
	// /dev/hl_ipc is 0600 (the udev rules open it to group hl); here
	// the node is opened to everyone for the child.
	struct stat node;
	ASSERT_EQ(stat("/dev/hl_ipc", &node), 0);
	ASSERT_EQ(chmod("/dev/hl_ipc", 0666), 0);
	int st = as_nobody([&] {
		struct hlthunk_ipc_region_info i;
		// Another user's cookie looks like no cookie at all.
		if (hlthunk_ipc_query_cookie(hc, &i) != -ENOENT)
			return 1;
		if (hlthunk_ipc_query_cookie(any, &i) != 0 || i.size != 10000)
			return 2;
		return 0;
	});
	chmod("/dev/hl_ipc", node.st_mode & 07777);
	EXPECT_EQ(st, 0);

	// Unknown, revoked, NULL.
	errno = 0;
	EXPECT_EQ(hlthunk_ipc_query_cookie(0, &info), -ENOENT);
	EXPECT_EQ(errno, ENOENT);
	EXPECT_EQ(hlthunk_ipc_query_cookie(hc ^ (1ull << 40), &info), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_query_cookie(hc, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_deregister(hc), 0);
	EXPECT_EQ(hlthunk_ipc_query_cookie(hc, &info), -ENOENT);
	EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("querying a cookie"),
		  std::string::npos)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(hlthunk_ipc_deregister(any), 0);
}

}  // namespace
