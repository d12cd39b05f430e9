// SPDX-License-Identifier: MIT
// The registration cache against the real kernel modules (in the VM with
// 'habanalabs_sim num_devices=2' and habanalabs_ipc): a closed and reused
// fd, a VA handed out again, unmap of exported memory, deregistration of a
// cached cookie, access of registrations, host memory remapped between map
// and copy, and copies racing an unmap.  In every case a copy moves the
// memory the address names now, or fails; never memory of an old mapping.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"
#include "mapping.h"
#include "staged_dma.h"
#include "uapi/habanalabs_ipc.h"

using hlipc::DeviceBuffer;

namespace {

constexpr uint64_t kSize = 256 * 1024;

void *ptr(uint64_t va) { return reinterpret_cast<void *>(va); }

// Devices 0 and 1 through the library, a channel 0 -> 1.
class Cache : public ::testing::Test {
protected:
	void SetUp() override
	{
		d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		ASSERT_GE(d0, 0) << hlthunk_ipc_last_error();
		ASSERT_GE(d1, 0) << hlthunk_ipc_last_error();
		ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0)
			<< hlthunk_ipc_last_error();
	}
	void TearDown() override
	{
		if (ch)
			hlthunk_ipc_channel_destroy(ch);
		for (int fd : {d0, d1})
			if (fd >= 0)
				hlthunk_close(fd);
	}
	void make(DeviceBuffer &b, int fd, uint32_t seed)
	{
		ASSERT_EQ(b.create(fd, kSize), 0);
		ASSERT_EQ(b.map_cpu(), 0);
		if (seed)
			hlipc::fill_pattern(b.cpu(), kSize, seed);
		else
			memset(b.cpu(), 0, kSize);
	}
	int copy(uint64_t dst, uint64_t src, size_t len)
	{
		return hlthunk_ipc_channel_copy(ch, d0, d1, ptr(dst), ptr(src), len);
	}
	int d0 = -1, d1 = -1;
	uint32_t ch = 0;
};

// The regions of this process's /dev/hl_ipc context, from its fdinfo:
// flags and the index of the device, for those of the given size.
struct Region {
	unsigned flags, dev_index;
};
std::vector<Region> regions_of_size(uint64_t size)
{
	std::ifstream f("/proc/self/fdinfo/" + std::to_string(hlthunk_ipc_get_fd()));
	std::vector<Region> out;
	std::string line;
	while (std::getline(f, line)) {
		unsigned long long sz = 0;
		unsigned flags = 0, kind, major, index;
		auto p = line.find("flags=");
		auto q = line.find(" size=");
		auto d = line.find(" dev=");
		if (line.rfind("hl_ipc-region:", 0) != 0 || p == std::string::npos ||
		    q == std::string::npos || d == std::string::npos)
			continue;
		flags = std::stoul(line.substr(p + 6), nullptr, 0);
		sz = std::stoull(line.substr(q + 6));
		if (sscanf(line.c_str() + d + 5, "%u:%u:%u", &kind, &major, &index) != 3)
			continue;
		if (sz == size)
			out.push_back({flags, index});
	}
	return out;
}

int query(uint64_t cookie, struct hl_ipc_region_query *q)
{
	memset(q, 0, sizeof(*q));
	q->cookie = cookie;
	return ioctl(hlthunk_ipc_get_fd(), HL_IPC_IOCTL_REGION_QUERY, q) ? -errno : 0;
}

}  // namespace

// hl-thunk's hlthunk_close is close(2), so programs close device fds behind
// the library's back.  The device reopened on the same fd number, with new
// memory at the same address, must be what a copy moves.
TEST_F(Cache, PlainCloseAndReopenOnTheSameNumberCopiesTheNewMemory)
{
	DeviceBuffer b;
	make(b, d1, 0);
	uint64_t old_va;
	{
		DeviceBuffer a;
		make(a, d0, 1);
		old_va = a.va();
		ASSERT_EQ(copy(b.va(), a.va(), kSize), 0) << hlthunk_ipc_last_error();
		ASSERT_EQ(hlipc::check_pattern(b.cpu(), kSize, 1), -1);
		// The program drops its view and closes the device with close(2),
		// leaving the mapping (and the library's registration) behind.
		a.reset_view();
		ASSERT_EQ(close(d0), 0);
		a.forget();
	}
	int again = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_EQ(again, d0) << "reopened on the same number: " << again << " "
			     << hlthunk_ipc_last_error();
	DeviceBuffer a2;
	make(a2, d0, 2);
	EXPECT_EQ(a2.va(), old_va) << "the driver hands the address out again";
	memset(b.cpu(), 0, kSize);
	ASSERT_EQ(copy(b.va(), a2.va(), kSize), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 2), -1)
		<< "the copy moved the old allocation, not the one mapped there now";
}

// An fd number now naming another file is found out by the identity check
// (a thread without memo takes the checked path).
TEST_F(Cache, AReusedFdNumberIsNotTakenForTheDevice)
{
	DeviceBuffer a, b;
	make(a, d0, 1);
	make(b, d1, 0);
	ASSERT_EQ(copy(b.va(), a.va(), 4096), 0);
	int saved = dup(d0);
	ASSERT_GE(saved, 0);
	ASSERT_EQ(close(d0), 0);
	int null = open("/dev/null", O_RDWR);
	ASSERT_EQ(null, d0);
	int rc = 0;
	std::thread([&] { rc = copy(b.va(), a.va(), 4096); }).join();
	EXPECT_EQ(rc, -ENOTTY);
	uint64_t c;
	EXPECT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &c, nullptr, nullptr),
		  -ENOTTY);
	// Put the device back where the fixture expects it.
	ASSERT_EQ(dup2(saved, d0), d0);
	close(saved);
	std::thread([&] { rc = copy(b.va(), a.va(), 4096); }).join();
	EXPECT_EQ(rc, 0) << hlthunk_ipc_last_error();
}

// The driver refuses to unmap exported memory; the cache's registration is
// an export, so the library lets go of it first, and puts the mapping back
// if the driver refuses anyway (here: the program's own dma-buf).
TEST_F(Cache, UnmapLetsGoOfTheCachesExportAndRestoresItOnFailure)
{
	DeviceBuffer b;
	make(b, d1, 0);
	uint64_t h = hlthunk_device_memory_alloc(d0, kSize, 0, false, false);
	ASSERT_NE(h, 0u);
	uint64_t va = hlthunk_device_memory_map(d0, h, 0);
	ASSERT_NE(va, 0u);
	ASSERT_EQ(copy(b.va(), va, 4096), 0) << hlthunk_ipc_last_error();
	int dmabuf = hlthunk_device_memory_export_dmabuf_fd(d0, va, kSize,
							    O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);
	EXPECT_EQ(hlthunk_memory_unmap(d0, va), -EINVAL) << "exported by the program";
	EXPECT_EQ(hlthunk_device_memory_free(d0, h), -EINVAL) << "still mapped";
	// The mapping is still known: copies go on.
	EXPECT_EQ(copy(b.va(), va, 4096), 0) << hlthunk_ipc_last_error();
	close(dmabuf);
	EXPECT_EQ(hlthunk_memory_unmap(d0, va), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlthunk_device_memory_free(d0, h), 0);
	EXPECT_EQ(copy(b.va(), va, 4096), -EFAULT);
}

// hlthunk_ipc_deregister of a cookie the cache made: the cache must not go
// on using it.
TEST_F(Cache, DeregisteringACachedCookieDoesNotLeaveItInTheCache)
{
	DeviceBuffer a, b;
	make(a, d0, 1);
	make(b, d1, 0);
	hlthunk_ipc_cookie c1, c2;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &c1, nullptr, nullptr), 0);
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d1, b.va(), &c2, nullptr, nullptr), 0);
	ASSERT_EQ(hlthunk_ipc_deregister(c1), 0);
	struct hl_ipc_region_query q;
	EXPECT_EQ(query(c1, &q), -ENOENT) << "the kernel forgot it";
	struct hlthunk_ipc_copy cp = {ch, 0, c1, 0, c2, 0, 64};
	EXPECT_EQ(hlthunk_ipc_copy(&cp), -ENOENT);
	// The library registers the memory afresh rather than use c1.
	ASSERT_EQ(copy(b.va(), a.va(), kSize), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 1), -1);
	hlthunk_ipc_cookie c3;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &c3, nullptr, nullptr), 0);
	EXPECT_NE(c3, c1);
	EXPECT_EQ(hlthunk_ipc_deregister(c1), -ENOENT);
}

// Registrations grant the access they are for.
TEST_F(Cache, RegistrationsGrantOnlyTheAccessAskedFor)
{
	DeviceBuffer a, b;
	make(a, d0, 1);
	make(b, d1, 0);
	struct hl_ipc_region_query q;
	hlthunk_ipc_cookie rw, ro, one;
	uint64_t off;
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d1, b.va(), &rw, nullptr, nullptr), 0);
	ASSERT_EQ(query(rw, &q), 0);
	EXPECT_EQ(q.region_flags, HL_IPC_REGION_READ | HL_IPC_REGION_WRITE);
	EXPECT_EQ(q.size, kSize);

	// Read-only, one page in the middle: a peer can read it, not write it.
	ASSERT_EQ(hlthunk_ipc_register_device_range(d1, b.va() + 8192 + 100, 50,
						    HLTHUNK_IPC_ACCESS_READ, &ro, &off), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(off, 100u);
	ASSERT_EQ(query(ro, &q), 0);
	EXPECT_EQ(q.region_flags, (uint32_t)HL_IPC_REGION_READ);
	EXPECT_EQ(q.size, 4096u);
	ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &one, nullptr, nullptr), 0);
	struct hlthunk_ipc_copy into = {ch, 0, one, 0, ro, 0, 64};
	EXPECT_EQ(hlthunk_ipc_copy(&into), -EROFS);  // not writable
	for (uint64_t i = 0; i < kSize; i++)
		ASSERT_EQ(b.cpu()[i], 0) << i;
	hlipc::fill_pattern(b.cpu(), kSize, 3);
	struct hlthunk_ipc_copy from = {ch, 0, ro, 0, one, 0, 4096};
	ASSERT_EQ(hlthunk_ipc_copy(&from), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(memcmp(a.cpu(), b.cpu() + 8192, 4096), 0);
	from.length = 4097;  // past the registered page
	EXPECT_EQ(hlthunk_ipc_copy(&from), -ERANGE);

	EXPECT_EQ(hlthunk_ipc_register_device_range(d1, b.va(), 0, 0, &ro, nullptr), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_register_device_range(d1, b.va(), kSize + 1, 0, &one, nullptr),
		  -ERANGE);
	EXPECT_EQ(hlthunk_ipc_register_device_range(d1, b.va(), 8, 0x80, &one, nullptr),
		  -EINVAL);
	// The caller's registration holds an export: no unmap until it ends.
	EXPECT_EQ(hlthunk_memory_unmap(d1, b.va()), -EINVAL);
	EXPECT_EQ(hlthunk_ipc_deregister(ro), 0);
}

// What the cache registers for a copy grants what the copy needs: the
// source only reading, the destination reading and writing (a cookie of a
// read-only use never lets anyone write the memory).
TEST_F(Cache, ACopySourceIsRegisteredReadOnly)
{
	DeviceBuffer a, b;
	make(a, d0, 1);
	make(b, d1, 0);
	ASSERT_EQ(copy(b.va(), a.va(), kSize), 0) << hlthunk_ipc_last_error();
	auto regs = regions_of_size(kSize);
	ASSERT_EQ(regs.size(), 2u) << "one region per buffer";
	for (auto &r : regs) {
		if (r.dev_index == 0)
			EXPECT_EQ(r.flags, (unsigned)HL_IPC_REGION_READ) << "the source";
		else
			EXPECT_EQ(r.flags, (unsigned)(HL_IPC_REGION_READ | HL_IPC_REGION_WRITE))
				<< "the destination";
	}
}

// Host memory is registered when it is mapped: if the program remaps the
// range before the first copy, the copy still moves the pages the device
// mapping uses (what a DMA from that address reads), not the new ones.
TEST_F(Cache, HostMemoryRemappedAfterMapCopiesTheDeviceMappingsPages)
{
	DeviceBuffer b, dma_dst;
	make(b, d1, 0);
	make(dma_dst, d0, 0);
	hlipc::Mapping host = hlipc::Mapping::map(kSize, PROT_READ | PROT_WRITE,
						  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(host.valid());
	hlipc::fill_pattern(host.bytes(), kSize, 5);
	uint64_t hva = hlthunk_host_memory_map(d0, host.get(), 0, kSize);
	ASSERT_NE(hva, 0u) << hlthunk_ipc_last_error();
	// Replace the pages behind the same address.
	void *p = mmap(host.get(), kSize, PROT_READ | PROT_WRITE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_EQ(p, host.get());
	hlipc::fill_pattern(host.bytes(), kSize, 6);

	hlipc::StagedDma dma;
	ASSERT_EQ(dma.init(d0), 0);
	ASSERT_EQ(dma.copy(dma_dst.va(), hva, kSize), 0);
	ASSERT_EQ(hlipc::check_pattern(dma_dst.cpu(), kSize, 5), -1)
		<< "the device reads the pages pinned at map time";
	ASSERT_EQ(copy(b.va(), hva, kSize), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 5), -1)
		<< "the channel copy must move the same pages as the device";
	EXPECT_EQ(hlthunk_memory_unmap(d0, hva), 0);
}

// Copies racing an unmap end in success (the kernel holds what a copy in
// flight uses) or a clean error; once the unmap has returned, every copy
// from the address fails.
TEST_F(Cache, CopiesRacingAnUnmapNeverUseAStaleRegistration)
{
	DeviceBuffer b;
	make(b, d1, 0);
	for (int round = 0; round < 5; round++) {
		uint64_t h = hlthunk_device_memory_alloc(d0, kSize, 0, false, false);
		ASSERT_NE(h, 0u);
		uint64_t va = hlthunk_device_memory_map(d0, h, 0);
		ASSERT_NE(va, 0u);
		std::atomic<bool> unmapped{false}, stop{false};
		std::atomic<int> bad{0}, ok{0};
		std::thread t([&] {
			while (!stop) {
				bool after = unmapped.load();
				int rc = copy(b.va(), va, 4096);
				if (rc == 0)
					ok++;
				if (after && rc == 0)
					bad++;
				else if (rc && rc != -EFAULT && rc != -ENOENT)
					bad++;
			}
		});
		while (ok < 20)
			std::this_thread::yield();
		int rc;
		// -EINVAL while a copy in flight still holds the export.
		auto deadline = std::chrono::steady_clock::now() +
				std::chrono::seconds(20);
		while ((rc = hlthunk_memory_unmap(d0, va)) == -EINVAL &&
		       std::chrono::steady_clock::now() < deadline)
			std::this_thread::yield();
		if (rc) {
			stop = true;
			t.join();
		}
		ASSERT_EQ(rc, 0) << hlthunk_ipc_last_error();
		unmapped = true;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
		stop = true;
		t.join();
		EXPECT_EQ(bad, 0) << "round " << round;
		EXPECT_EQ(hlthunk_device_memory_free(d0, h), 0);
	}
}
