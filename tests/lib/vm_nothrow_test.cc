// SPDX-License-Identifier: MIT
// Nothing crosses the C ABI but a return value.  This program replaces
// operator new (the library's allocations come here too) and makes the
// k-th allocation of a call throw std::bad_alloc, for k = 0, 1, 2, ...
// until the call gets through without one.  Every such call must return
// its failure value with errno ENOMEM (an exception escaping would end the
// program in std::terminate) and leave nothing behind: no fd, no device
// memory, no mapping, no registration, no channel.  Runs in the VM with
// 'habanalabs_sim num_devices=2' and habanalabs_ipc loaded.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

#include "device_buffer.h"
#include "hlthunk.h"
#include "sim_counters.h"

namespace {

std::atomic<long> countdown{-1};
std::atomic<long> fired{0};

void *allocate(std::size_t n)
{
	if (countdown.load(std::memory_order_relaxed) >= 0 &&
	    countdown.fetch_sub(1) == 0) {
		fired++;
		throw std::bad_alloc();
	}
	if (void *p = std::malloc(n ? n : 1))
		return p;
	throw std::bad_alloc();
}

}  // namespace

void *operator new(std::size_t n) { return allocate(n); }
void *operator new[](std::size_t n) { return allocate(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept
{
	try {
		return allocate(n);
	} catch (...) {
		return nullptr;
	}
}
void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept
{
	return operator new(n, t);
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

namespace {

std::string read(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream s;
	s << f.rdbuf();
	return s.str();
}

long sysfs_long(const std::string &path) { return std::stol(read(path)); }

// What the call under test might leave behind.
struct Leaks {
	long fds, memory, regions, channels, userptrs, mappings;
	static Leaks now()
	{
		Leaks l{};
		for (int fd = 0; fd < 1024; fd++)
			l.fds += fcntl(fd, F_GETFD) >= 0;
		l.memory = sysfs_long("/sys/class/habanalabs_sim/hlsim0/memory_used") +
			   sysfs_long("/sys/class/habanalabs_sim/hlsim1/memory_used");
		l.regions = sysfs_long("/sys/class/misc/hl_ipc/stats/regions");
		l.channels = sysfs_long("/sys/class/misc/hl_ipc/stats/channels");
		auto sim = hltest::sim_counters();
		l.userptrs = sim["userptrs"];
		l.mappings = sim["mappings"];
		return l;
	}
};

void expect_same(const Leaks &a, const Leaks &b, long k)
{
	EXPECT_EQ(a.fds, b.fds) << "fds, failure at allocation " << k;
	EXPECT_EQ(a.memory, b.memory) << "device memory, failure at " << k;
	EXPECT_EQ(a.regions, b.regions) << "registrations, failure at " << k;
	EXPECT_EQ(a.channels, b.channels) << "channels, failure at " << k;
	EXPECT_EQ(a.userptrs, b.userptrs) << "pinned host memory, failure at " << k;
	EXPECT_EQ(a.mappings, b.mappings) << "device mappings, failure at " << k;
}

// Runs call() with its k-th allocation failing, k = 0, 1, ..., until a run
// with no failure; after a failed run, failed(rc) must hold, errno must be
// ENOMEM and nothing may have been left behind.  Returns the result of the
// run that got through.
template <typename R, typename Call, typename Failed>
R each_failure(const char *name, Call call, Failed failed)
{
	for (long k = 0; k < 100000; k++) {
		Leaks before = Leaks::now();
		fired = 0;
		errno = 0;
		countdown = k;
		R rc = call();
		int err = errno;
		countdown = -1;
		if (!fired)
			return rc;
		EXPECT_TRUE(failed(rc)) << name << ": allocation " << k << " failed, "
					<< "the call returned " << (long long)rc;
		EXPECT_EQ(err, ENOMEM) << name << ", allocation " << k;
		EXPECT_NE(std::string(hlthunk_ipc_last_error()).find("ENOMEM"),
			  std::string::npos)
			<< hlthunk_ipc_last_error();
		expect_same(before, Leaks::now(), k);
		if (::testing::Test::HasFailure())
			return rc;
	}
	ADD_FAILURE() << name << ": never got through";
	return R{};
}

bool is_enomem(int rc) { return rc == -ENOMEM; }
bool is_zero(uint64_t v) { return v == 0; }

void *ptr(uint64_t va) { return reinterpret_cast<void *>(va); }

}  // namespace

TEST(NoThrow, DevicesOpenCloseAndDescribe)
{
	int fd = each_failure<int>("hlthunk_open", [] {
		return hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	}, is_enomem);
	ASSERT_GE(fd, 0);
	int c = each_failure<int>("hlthunk_open_control", [] {
		return hlthunk_open_control(1, nullptr);
	}, is_enomem);
	ASSERT_GE(c, 0);
	EXPECT_EQ(each_failure<int>("hlthunk_get_device_count", [] {
		return hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2);
	}, is_enomem), 2);
	char bus[16];
	EXPECT_EQ(each_failure<int>("hlthunk_get_pci_bus_id_from_fd", [&] {
		return hlthunk_get_pci_bus_id_from_fd(c, bus, sizeof(bus));
	}, is_enomem), 0);
	struct hlthunk_hw_ip_info hw;
	EXPECT_EQ(each_failure<int>("hlthunk_get_hw_ip_info", [&] {
		return hlthunk_get_hw_ip_info(fd, &hw);
	}, is_enomem), 0);
	int m = each_failure<int>("hlthunk_open_control_by_module_id", [] {
		return hlthunk_open_control_by_module_id(1);
	}, is_enomem);
	ASSERT_GE(m, 0);
	EXPECT_EQ(hlthunk_close(m), 0);
	int n = each_failure<int>("hlthunk_open_control_by_name", [] {
		return hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI2, nullptr);
	}, is_enomem);
	ASSERT_GE(n, 0);
	EXPECT_EQ(hlthunk_close(n), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_get_device_index_from_pci_bus_id", [&] {
		return hlthunk_get_device_index_from_pci_bus_id(bus);
	}, is_enomem), 1);
	struct hlthunk_user_mapping maps[4];
	struct hlthunk_page_fault_info pf = {};
	pf.mappings_buf = maps;
	EXPECT_EQ(each_failure<int>("hlthunk_get_page_fault_info", [&] {
		return hlthunk_get_page_fault_info(fd, &pf, 4);
	}, is_enomem), 0);
	EXPECT_EQ(pf.num_of_mappings, 0u) << "the emulated device saw no fault";
	struct hlthunk_sec_attest_info att;
	EXPECT_EQ(each_failure<int>("hlthunk_get_sec_attest_info", [&] {
		return hlthunk_get_sec_attest_info(fd, 1, &att);
	}, [](int rc) { return rc == -ENOMEM; }), -EIO)
		<< "the emulated firmware does not attest";
	// hlthunk_close closes the fd whatever happens to the bookkeeping.
	fired = 0;
	countdown = 0;
	int rc = hlthunk_close(c);
	countdown = -1;
	EXPECT_EQ(rc, 0);
	EXPECT_LT(fcntl(c, F_GETFD), 0);
	EXPECT_EQ(hlthunk_close(fd), 0);
}

TEST(NoThrow, MemoryChannelsAndCopies)
{
	int d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	int d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d0, 0);
	ASSERT_GE(d1, 0);
	const uint64_t size = 64 * 1024;
	// The process's /dev/hl_ipc context, opened on first use, is not a
	// leak of the call that happens to open it.
	ASSERT_GE(hlthunk_ipc_get_fd(), 0);

	// Allocation and mapping: a failed call gives back what it took.
	uint64_t h = each_failure<uint64_t>("hlthunk_device_memory_alloc", [&] {
		return hlthunk_device_memory_alloc(d0, size, 0, false, false);
	}, is_zero);
	ASSERT_NE(h, 0u);
	uint64_t va = each_failure<uint64_t>("hlthunk_device_memory_map", [&] {
		return hlthunk_device_memory_map(d0, h, 0);
	}, is_zero);
	ASSERT_NE(va, 0u);
	void *host = mmap(nullptr, size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(host, MAP_FAILED);
	uint64_t hva = each_failure<uint64_t>("hlthunk_host_memory_map", [&] {
		return hlthunk_host_memory_map(d0, host, 0, size);
	}, is_zero);
	ASSERT_NE(hva, 0u);

	hlipc::DeviceBuffer b;
	ASSERT_EQ(b.create(d1, size), 0);
	ASSERT_EQ(b.map_cpu(), 0);
	hlipc::fill_pattern(static_cast<unsigned char *>(host), size, 4);

	uint32_t ch = 0;
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_channel_create", [&] {
		return hlthunk_ipc_channel_create(d0, d1, &ch);
	}, is_enomem), 0);
	// The first copies resolve and register through the caches.
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_channel_copy", [&] {
		return hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(hva), size);
	}, is_enomem), 0);
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), size, 4), -1);
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_channel_copy", [&] {
		return hlthunk_ipc_channel_copy(ch, d0, d1, ptr(b.va()), ptr(va), size);
	}, is_enomem), 0);

	hlthunk_ipc_cookie ca = 0, cb = 0, range = 0;
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_register_device_memory", [&] {
		return hlthunk_ipc_register_device_memory(d1, b.va(), &cb, nullptr, nullptr);
	}, is_enomem), 0);
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_register_device_range", [&] {
		return hlthunk_ipc_register_device_range(d0, va, 4096,
							 HLTHUNK_IPC_ACCESS_READ,
							 &range, nullptr);
	}, is_enomem), 0);
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_register_host", [&] {
		return hlthunk_ipc_register_host(host, size, HLTHUNK_IPC_ACCESS_READ, &ca);
	}, is_enomem), 0);
	uint64_t imp = 0;
	ASSERT_EQ(each_failure<int>("hlthunk_ipc_import", [&] {
		return hlthunk_ipc_import(d1, cb, &imp, nullptr);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_unimport", [&] {
		return hlthunk_ipc_unimport(d1, imp);
	}, is_enomem), 0);

	// By cookie, async, batches: a count the kernel cannot take is E2BIG
	// before anything is allocated for it.
	struct hlthunk_ipc_copy c = {ch, 0, ca, 0, cb, 0, 4096};
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_copy", [&] {
		return hlthunk_ipc_copy(&c);
	}, is_enomem), 0);
	uint64_t seq = 0;
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_copy_async", [&] {
		return hlthunk_ipc_copy_async(&c, &seq);
	}, is_enomem), 0);
	struct hlthunk_ipc_copy batch[4] = {c, c, c, c};
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_copy_batch", [&] {
		return hlthunk_ipc_copy_batch(batch, 4, &seq);
	}, is_enomem), 4);
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_copy_batch (UINT32_MAX)", [&] {
		return hlthunk_ipc_copy_batch(batch, UINT32_MAX, &seq);
	}, is_enomem), -E2BIG);
	struct hlthunk_ipc_info info;
	ASSERT_EQ(hlthunk_ipc_query(&info), 0);
	EXPECT_EQ(hlthunk_ipc_copy_batch(batch, info.max_batch + 1, &seq), -E2BIG);
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_wait", [&] {
		return hlthunk_ipc_wait(ch, seq, 10 * 1000 * 1000);
	}, is_enomem), 0);

	// Taking it all down.
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_deregister", [&] {
		return hlthunk_ipc_deregister(range);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_deregister", [&] {
		return hlthunk_ipc_deregister(ca);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_ipc_channel_destroy", [&] {
		return hlthunk_ipc_channel_destroy(ch);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_memory_unmap", [&] {
		return hlthunk_memory_unmap(d0, hva);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_memory_unmap", [&] {
		return hlthunk_memory_unmap(d0, va);
	}, is_enomem), 0);
	EXPECT_EQ(each_failure<int>("hlthunk_device_memory_free", [&] {
		return hlthunk_device_memory_free(d0, h);
	}, is_enomem), 0);
	munmap(host, size);
	b.reset();
	EXPECT_EQ(hlthunk_close(d0), 0);
	EXPECT_EQ(hlthunk_close(d1), 0);
}

// The call of the report: with a count no memory could hold.
TEST(NoThrow, HugeBatchIsRefusedNotAborted)
{
	int d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	int d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d0, 0);
	ASSERT_GE(d1, 0);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	struct hlthunk_ipc_copy c = {ch, 0, 1, 0, 2, 0, 8};
	uint64_t seq;
	errno = 0;
	EXPECT_EQ(hlthunk_ipc_copy_batch(&c, UINT32_MAX, &seq), -E2BIG);
	EXPECT_EQ(errno, E2BIG);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
	hlthunk_close(d0);
	hlthunk_close(d1);
}
