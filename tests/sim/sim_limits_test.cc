// SPDX-License-Identifier: GPL-2.0
// What one open of habanalabs_sim may make the kernel hold, and races on
// one fd: command buffers and pending CS work are bounded (ENOSPC,
// EAGAIN), pinned host memory is charged to RLIMIT_MEMLOCK as RDMA
// charges it (ENOMEM), device memory to the memory cgroup, a killed
// ALLOC stops, and objects are complete before another thread of the
// same open can see them.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "no_ipc_lock.h"
#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;

class SimLimits : public ::testing::Test {
protected:
	void SetUp() override
	{
		set_cs_delay_ms(0);
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
	}
	void TearDown() override
	{
		set_cs_delay_ms(0);
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
};

long vm_pinned_kb()
{
	std::ifstream f("/proc/self/status");
	std::string line;
	while (std::getline(f, line))
		if (line.rfind("VmPin:", 0) == 0)
			return std::stol(line.substr(6));
	return -1;
}

// Runs f in a child process; true if it exited 0.  A failed expectation
// in the child prints and exits 1.
template <typename F>
bool in_child(F f)
{
	pid_t pid = fork();
	if (pid == 0) {
		int rc = f();
		_exit(rc);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define CHILD_CHECK(cond)                                                   \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
				#cond);                                     \
			return 1;                                           \
		}                                                           \
	} while (0)

}  // namespace

// At most SIM_MAX_CBS (1024) command buffers, or 64 MiB of them, per open;
// a destroyed CB still mmapped keeps counting until its munmap.
TEST_F(SimLimits, CommandBuffersPerOpenAreBounded)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::vector<uint64_t> cbs;
	uint64_t cb;
	int rc;
	while ((rc = d.cb_create(kPage, &cb)) == 0 && cbs.size() < 5000)
		cbs.push_back(cb);
	EXPECT_EQ(rc, -ENOSPC);
	EXPECT_EQ(cbs.size(), 1024u);
	// Another open has its own budget.
	{
		Dev e(1);
		uint64_t other;
		ASSERT_EQ(e.cb_create(kPage, &other), 0);
		EXPECT_EQ(e.cb_destroy(other), 0);
	}
	// A destroyed but mapped CB still counts.
	void *p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, d.fd(), (off_t)cbs[0]);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(d.cb_destroy(cbs[0]), 0);
	EXPECT_EQ(d.cb_create(kPage, &cb), -ENOSPC);
	munmap(p, kPage);
	ASSERT_EQ(d.cb_create(kPage, &cb), 0);
	cbs[0] = cb;
	for (uint64_t h : cbs)
		EXPECT_EQ(d.cb_destroy(h), 0);
	// The byte bound: 64 MiB in 2 MiB CBs is 32 of them.
	cbs.clear();
	while ((rc = d.cb_create(HL_MAX_CB_SIZE, &cb)) == 0 && cbs.size() < 100)
		cbs.push_back(cb);
	EXPECT_EQ(rc, -ENOSPC);
	EXPECT_EQ(cbs.size(), 32u);
	for (uint64_t h : cbs)
		EXPECT_EQ(d.cb_destroy(h), 0);
}

// Pending CS work is bounded by its commands too, not only by the number
// of CSs (64): a CS that would go past 65536 pending distinct commands
// gets EAGAIN and is counted as a queue-full drop.
TEST_F(SimLimits, PendingCsWorkIsBounded)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va;
	ASSERT_EQ(d.alloc_map(kPage, &h, &va), 0);
	std::vector<uint32_t> w;
	// Alternating destinations: 20000 distinct commands.
	for (int i = 0; i < 20000; i++)
		put_lin_dma(w, va + 2048 + 8 * (i % 2), va, 8);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	set_cs_delay_ms(60 * 1000);
	int accepted = 0, rc;
	while ((rc = d.cs_one(cb, w.size() * 4, &seq)) == 0 && accepted < 10)
		accepted++;
	EXPECT_EQ(rc, -EAGAIN);
	EXPECT_EQ(accepted, 3) << "3 x 20000 packets fit, a fourth does not";
	hl_info_cs_counters c{};
	hl_info_args a{};
	a.op = HL_INFO_CS_COUNTERS;
	a.return_pointer = reinterpret_cast<uintptr_t>(&c);
	a.return_size = sizeof(c);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	EXPECT_EQ(c.ctx_queue_full_drop_cnt, 1u);
	// Closing aborts them; the work is released.
	EXPECT_EQ(d.cb_free(cb), 0);
	d.close_fd();
	EXPECT_EQ(stats()["command_submissions"], 0);
}

// Pinned host memory is charged to the process's pinned_vm within
// RLIMIT_MEMLOCK (without CAP_IPC_LOCK), and uncharged at unmap.
TEST_F(SimLimits, UserptrPinsAreChargedToMemlock)
{
	ASSERT_TRUE(in_child([] {
		CHILD_CHECK(hltest::drop_ipc_lock());
		struct rlimit r = {64 * 1024, 64 * 1024};
		CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &r) == 0);
		Dev d(3);
		CHILD_CHECK(d.fd() >= 0);
		auto *buf = static_cast<uint8_t *>(mmap(nullptr, 256 * 1024,
							PROT_READ | PROT_WRITE,
							MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		CHILD_CHECK(buf != MAP_FAILED);
		long pin0 = vm_pinned_kb();
		uint64_t va1, va2, va3;
		CHILD_CHECK(d.map_host(buf, 32 * 1024, &va1) == 0);
		CHILD_CHECK(vm_pinned_kb() == pin0 + 32);
		CHILD_CHECK(d.map_host(buf + 65536, 32 * 1024, &va2) == 0);
		// Beyond the limit: ENOMEM, as mlock() and RDMA answer.
		CHILD_CHECK(d.map_host(buf + 131072, 4096, &va3) == -ENOMEM);
		CHILD_CHECK(d.map_host(buf, 128 * 1024, &va3) == -ENOMEM);
		CHILD_CHECK(vm_pinned_kb() == pin0 + 64);
		CHILD_CHECK(d.unmap(va1) == 0);
		CHILD_CHECK(vm_pinned_kb() == pin0 + 32);
		CHILD_CHECK(d.map_host(buf + 131072, 4096, &va3) == 0);
		CHILD_CHECK(d.unmap(va2) == 0);
		CHILD_CHECK(d.unmap(va3) == 0);
		CHILD_CHECK(vm_pinned_kb() == pin0);
		return 0;
	}));
	// With CAP_IPC_LOCK the limit does not apply (root here).
	Dev d(3);
	struct rlimit old, r = {4096, 4096};
	getrlimit(RLIMIT_MEMLOCK, &old);
	std::vector<uint8_t> buf(64 * 1024);
	ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &r), 0);
	uint64_t va;
	EXPECT_EQ(d.map_host(buf.data(), buf.size(), &va), 0);
	EXPECT_EQ(d.unmap(va), 0);
	setrlimit(RLIMIT_MEMLOCK, &old);
}

// A process killed inside a large ALLOC stops allocating at once: the
// allocation loop looks for fatal signals (events: alloc_interrupted).
TEST_F(SimLimits, KilledAllocStopsAllocating)
{
	long before = sim_event("alloc_interrupted");
	ASSERT_GE(before, 0);
	uint64_t mem = memory_size(1);
	// The child allocates and frees the whole device, again and again:
	// nearly all its time is in the allocation loop.
	for (int round = 0; round < 20 && sim_event("alloc_interrupted") == before;
	     round++) {
		pid_t pid = fork();
		if (pid == 0) {
			Dev d(1);
			for (;;) {
				uint64_t h;
				if (d.alloc(mem, &h) == 0)
					d.free_handle(h);
			}
		}
		usleep(300 * 1000);
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		EXPECT_TRUE(WIFSIGNALED(status));
	}
	EXPECT_GT(sim_event("alloc_interrupted"), before)
		<< "no kill was seen inside the allocation loop";
	EXPECT_EQ(sysfs_attr(1, "memory_used"), "0");
}

// Device memory is charged to the allocating process's memory cgroup.
TEST_F(SimLimits, DeviceMemoryIsChargedToTheMemoryCgroup)
{
	const std::string root = "/sys/fs/cgroup";
	if (access((root + "/cgroup.controllers").c_str(), F_OK) != 0)
		mount("none", root.c_str(), "cgroup2", 0, nullptr);
	if (read_file(root + "/cgroup.controllers").find("memory") == std::string::npos)
		GTEST_SKIP() << "no memory cgroup controller";
	write_file(root + "/cgroup.subtree_control", "+memory");
	const std::string cg = root + "/hlsim-test";
	rmdir(cg.c_str());
	ASSERT_EQ(mkdir(cg.c_str(), 0755), 0) << strerror(errno);
	ASSERT_TRUE(in_child([&] {
		CHILD_CHECK(write_file(cg + "/cgroup.procs", std::to_string(getpid())));
		Dev d(1);
		CHILD_CHECK(d.fd() >= 0);
		long before = std::stol(read_file(cg + "/memory.current"));
		uint64_t h;
		CHILD_CHECK(d.alloc(16 << 20, &h) == 0);
		long after = std::stol(read_file(cg + "/memory.current"));
		CHILD_CHECK(after - before >= (16 << 20));
		CHILD_CHECK(d.free_handle(h) == 0);
		return 0;
	}));
	EXPECT_EQ(rmdir(cg.c_str()), 0) << strerror(errno);
}

// Two threads on one open: one creates CBs and allocations, the other
// destroys and frees whatever handle comes next (handles are small
// integers).  An object is complete, counted, before the other thread can
// reach it: nothing crashes, and every counter returns to 0.
TEST_F(SimLimits, CreateAndDestroyRaceOnOneOpen)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::atomic<bool> stop{false};
	std::atomic<long> neg{0};
	std::thread watcher([&] {
		while (!stop)
			for (auto &kv : stats())
				if (kv.second < 0)
					neg++;
	});
	std::thread destroyer([&] {
		while (!stop) {
			for (uint32_t id = 1; id < 64; id++) {
				uint64_t cb = ((uint64_t)id | (0x2ull << 47)) << 12;
				hl_cb_args a{};
				a.in.op = HL_CB_OP_DESTROY;
				a.in.cb_handle = cb;
				xioctl(d.fd(), DRM_IOCTL_HL_CB, &a);
				d.free_handle(id);
			}
		}
	});
	for (int i = 0; i < 4000; i++) {
		uint64_t h;
		d.cb_create(kPage, &h);
		d.alloc(kPage, &h);
	}
	stop = true;
	destroyer.join();
	watcher.join();
	EXPECT_EQ(neg, 0) << "a counter went below 0: an object was destroyed "
			     "before it was counted";
	d.close_fd();
}

// A userptr mapping may be larger than 4 GiB (hl-thunk's
// test_map_bigger_than_4GB): a copy from its last 64 KiB, past 4 GiB,
// lands.  It needs a guest of more than 5 GiB (vm-6.12.sim-userptr-5g,
// where HL_SIM_REQUIRE_BIG=1 makes a smaller guest a failure).
TEST_F(SimLimits, UserptrMappingBeyond4GiB)
{
	constexpr uint64_t kTail = 64 << 10;
	constexpr uint64_t kLen = (4ull << 30) + 2 * kTail;
	struct sysinfo si {};
	ASSERT_EQ(sysinfo(&si), 0);
	if ((uint64_t)si.totalram * si.mem_unit < kLen + (1ull << 30)) {
		if (getenv("HL_SIM_REQUIRE_BIG"))
			FAIL() << "the guest has too little memory for a 4 GiB mapping";
		GTEST_SKIP() << "needs a guest of more than 5 GiB";
	}
	void *p = mmap(nullptr, kLen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	uint8_t *tail = static_cast<uint8_t *>(p) + kLen - kTail;
	fill_pattern(tail, kTail, 21);
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		uint64_t va = 0;
		ASSERT_EQ(d.map_host(p, kLen, &va), 0);
		DevBuf dst(d, kTail);
		ASSERT_TRUE(dst.ok());
		std::vector<uint32_t> w;
		put_lin_dma(w, dst.va, va + kLen - kTail, kTail);
		ASSERT_EQ(d.run(w), 0);
		EXPECT_EQ(check_pattern(dst.data(), kTail, 21), -1);
		EXPECT_EQ(dst.release(), 0);
		EXPECT_EQ(d.unmap(va), 0);
	}
	munmap(p, kLen);
}
