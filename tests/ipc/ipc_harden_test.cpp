// SPDX-License-Identifier: GPL-2.0
// What a hostile or careless local user could do to habanalabs_ipc, and
// what the module promises in return: bounded queues and per-user limits,
// cookies that carry nothing but secret bits, destroy that never waits
// for other users' work, WAIT that never calls a forgotten failure a
// success, DEREGISTER after which the memory is never touched, CPU access
// bracketed for dma-bufs, no long-term writable pins of writeback files,
// clamped module parameters, and overlap-safe copies between two
// registrations of one memory.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <drm.h>
#include <drm_mode.h>
#include <sys/ioctl.h>

#include "ipc_util.h"
#include "sim_buffer.h"
#include "test_exporter.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr uint32_t RO = HL_IPC_REGION_READ;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0)
{
	return std::chrono::duration<double>(Clock::now() - t0).count();
}

int reg_fd(int ctx, int dmabuf, uint32_t flags, uint64_t *cookie)
{
	return reg_dmabuf(ctx, dmabuf, flags | HL_IPC_REGION_DEV_HOST, cookie, -1);
}

TEST(Harden, NodeIsRootOnly)
{
	struct stat st;
	ASSERT_EQ(::stat(HL_IPC_DEVICE_PATH, &st), 0);
	EXPECT_EQ(st.st_mode & 07777, 0600u);
	EXPECT_EQ(st.st_uid, 0u);
}

TEST(Harden, ChannelCountersAreRootOnly)
{
	struct stat st;
	if (::stat("/sys/kernel/debug/hl_ipc/channels", &st))
		GTEST_SKIP() << "debugfs not mounted";
	EXPECT_EQ(st.st_mode & 0777, 0400u);
}

struct ParamBound {
	const char *name;
	unsigned min, max;
};

const ParamBound kParams[] = {
	{"max_regions", 1, 1u << 20},	    {"max_channels", 1, 4096},
	{"max_batch", 1, 4096},		    {"chunk_size", 4096, 16u << 20},
	{"max_pending", 1, 65536},	    {"user_max_contexts", 1, 65536},
	{"user_max_channels", 1, 1u << 20}, {"user_max_regions", 1, 1u << 22},
	{"user_max_jobs", 1, 1u << 20},
};

TEST(Harden, ParamsAreClamped)
{
	for (const auto &p : kParams) {
		ParamScope keep(p.name, read_param(p.name));
		write_param(p.name, "4294967295");
		EXPECT_EQ(read_param(p.name), std::to_string(p.max)) << p.name;
		write_param(p.name, "0");
		EXPECT_EQ(read_param(p.name), std::to_string(p.min)) << p.name;
	}
	ParamScope chunk("chunk_size", "4294967295");
	Ctx c;
	hl_ipc_info i;
	ASSERT_EQ(info(c.fd, &i), 0);
	EXPECT_EQ(i.chunk_size, 16u << 20);
}

// Loading with absurd values clamps them as well.
TEST(Harden, LoadTimeParamsAreClamped)
{
	const char *dir = getenv("HL_KMOD_DIR");
	if (!dir)
		GTEST_SKIP() << "not in the VM harness (HL_KMOD_DIR unset)";
	std::string ko = std::string(dir) + "/habanalabs_ipc.ko";
	ASSERT_EQ(system("rmmod habanalabs_ipc"), 0);
	std::string cmd = "insmod " + ko + " chunk_size=1 max_batch=99999999 max_pending=0";
	int st = system(cmd.c_str());
	EXPECT_EQ(st, 0);
	if (st == 0) {
		EXPECT_EQ(read_param("chunk_size"), "4096");
		EXPECT_EQ(read_param("max_batch"), "4096");
		EXPECT_EQ(read_param("max_pending"), "1");
		ASSERT_EQ(system("rmmod habanalabs_ipc"), 0);
	}
	ASSERT_EQ(system(("insmod " + ko).c_str()), 0);
}

// Cookies are 64 random bits: no table index that registering would
// reveal (the low bits used to count up).
TEST(Harden, CookiesCarryNoIndex)
{
	Ctx c;
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	std::vector<uint64_t> cookies;
	for (int i = 0; i < 512; i++) {
		uint64_t k;
		ASSERT_EQ(reg_user(c.fd, b.ptr, 4096, RO, &k), 0);
		cookies.push_back(k);
	}
	std::set<uint64_t> unique(cookies.begin(), cookies.end());
	EXPECT_EQ(unique.size(), cookies.size());
	EXPECT_EQ(unique.count(0), 0u);
	int counting = 0, low_same = 0;
	for (size_t i = 1; i < cookies.size(); i++) {
		counting += ((cookies[i] - cookies[i - 1]) & 0xffffff) == 1;
		low_same += ((cookies[i] ^ cookies[i - 1]) & 0xffff) == 0;
	}
	EXPECT_LT(counting, 4) << "cookies count up in their low bits";
	EXPECT_LT(low_same, 4);
	// Every bit position takes both values across 512 cookies.
	uint64_t ones = 0, zeros = 0;
	for (uint64_t k : cookies) {
		ones |= k;
		zeros |= ~k;
	}
	EXPECT_EQ(ones, ~0ull);
	EXPECT_EQ(zeros, ~0ull);
}

long fdinfo_value(int fd, const std::string &key)
{
	std::ifstream f("/proc/self/fdinfo/" + std::to_string(fd));
	std::string line;
	while (std::getline(f, line))
		if (line.rfind(key + ":", 0) == 0)
			return std::stol(line.substr(key.size() + 1));
	return -1;
}

// Unknown and forbidden cookies get the same answer, and both count.
TEST(Harden, FailedLookupsLookAlikeAndCount)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to switch uid";
	Ctx owner;
	Buffer priv;
	ASSERT_EQ(alloc(Kind::User, 8192, &priv), 0);
	ASSERT_EQ(reg(owner.fd, &priv), 0);
	uint64_t pc = priv.cookie;
	long before = stat("lookup_failures");
	NodeOpenToAll open_node;
	int st = in_child([&] {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			return 1;
		prctl(PR_SET_DUMPABLE, 1);	// so /proc/self/fdinfo stays ours
		int c = open_ipc();
		if (c < 0)
			return 2;
		hl_ipc_region_query q{};
		q.cookie = pc;
		int forbidden = xioctl(c, HL_IPC_IOCTL_REGION_QUERY, &q);
		q = {};
		q.cookie = pc ^ 0x5a5a5a5a00000000ull;
		int unknown = xioctl(c, HL_IPC_IOCTL_REGION_QUERY, &q);
		if (forbidden != -ENOENT || unknown != -ENOENT)
			return 3;
		if (fdinfo_value(c, "hl_ipc-lookup-failures") != 2)
			return 4;
		return 0;
	});
	EXPECT_EQ(st, 0);
	EXPECT_EQ(stat("lookup_failures"), before + 2);
}

// A channel queues at most max_pending async copies; then EAGAIN.
TEST(Harden, AsyncQueueIsBounded)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	ParamScope pending("max_pending", "8");
	Ctx c;
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	uint64_t gc;
	ASSERT_EQ(reg_fd(c.fd, g, RW, &gc), 0);
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 4096, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	ASSERT_EQ(reg(c.fd, &a), 0);
	ASSERT_EQ(reg(c.fd, &b), 0);
	uint64_t seq;
	ASSERT_EQ(copy(c.fd, c.ch, gc, 0, a.cookie, 0, 4096, HL_IPC_COPY_ASYNC, &seq), 0);
	ASSERT_TRUE(ex.wait_for_waiters(1));
	int queued = 0, ret = 0;
	uint64_t last = seq;
	while (queued < 100 && !(ret = copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, 64,
					   HL_IPC_COPY_ASYNC, &seq))) {
		queued++;
		last = seq;
	}
	EXPECT_EQ(ret, -EAGAIN);
	EXPECT_EQ(queued, 8);
	ex.gate(true);
	int32_t status = 1;
	ASSERT_EQ(wait(c.fd, c.ch, last, HL_IPC_WAIT_INFINITE, &status), 0);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, 64, HL_IPC_COPY_ASYNC, &seq), 0);
	close(g);
}

// Queued async copies are bounded per user, across contexts.
TEST(Harden, AsyncJobsAreBoundedPerUser)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	ParamScope jobs("user_max_jobs", "6");
	Ctx c1, c2;
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 4096, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	uint64_t g1, g2, a1, b2;
	ASSERT_EQ(reg_fd(c1.fd, g, RW, &g1), 0);
	ASSERT_EQ(reg_fd(c2.fd, g, RW, &g2), 0);
	ASSERT_EQ(reg_user(c1.fd, a.ptr, 4096, RW, &a1), 0);
	ASSERT_EQ(reg_user(c2.fd, b.ptr, 4096, RW, &b2), 0);
	uint64_t s1, s2;
	ASSERT_EQ(copy(c1.fd, c1.ch, g1, 0, a1, 0, 16, HL_IPC_COPY_ASYNC, &s1), 0);
	ASSERT_EQ(copy(c2.fd, c2.ch, g2, 0, b2, 0, 16, HL_IPC_COPY_ASYNC, &s2), 0);
	ASSERT_TRUE(ex.wait_for_waiters(2));
	int n = 2, ret = 0;
	for (int i = 0; i < 20 && !ret; i++) {
		Ctx &c = i % 2 ? c2 : c1;
		uint64_t k = i % 2 ? b2 : a1;
		uint64_t sq;
		ret = copy(c.fd, c.ch, k, 0, k, 100, 16, HL_IPC_COPY_ASYNC, &sq);
		if (!ret)
			(i % 2 ? s2 : s1) = sq;
		n += !ret;
	}
	EXPECT_EQ(ret, -EAGAIN);
	EXPECT_EQ(n, 6);
	// Sync copies are bounded by the caller's own threads, not refused.
	ex.gate(true);
	ASSERT_EQ(wait(c1.fd, c1.ch, s1, HL_IPC_WAIT_INFINITE), 0);
	ASSERT_EQ(wait(c2.fd, c2.ch, s2, HL_IPC_WAIT_INFINITE), 0);
	EXPECT_EQ(copy(c1.fd, c1.ch, a1, 0, a1, 100, 16, HL_IPC_COPY_ASYNC, &s1), 0);
	close(g);
}

TEST(Harden, ContextsChannelsAndRegionsAreBoundedPerUser)
{
	{
		ParamScope ctxs("user_max_contexts", "4");
		std::vector<std::unique_ptr<Ctx>> v;
		for (int i = 0; i < 4; i++) {
			v.push_back(std::make_unique<Ctx>());
			ASSERT_GE(v.back()->fd, 0);
		}
		int fd = open_ipc();
		EXPECT_EQ(fd, -1);
		EXPECT_EQ(errno, EMFILE);
		if (fd >= 0)
			close(fd);
		v.pop_back();
		fd = open_ipc();
		EXPECT_GE(fd, 0);
		close(fd);
	}
	{
		ParamScope chans("user_max_channels", "5");
		Ctx c1, c2;	// one channel each
		uint32_t id;
		int n = 2, ret = 0;
		for (int i = 0; i < 10 && !ret; i++) {
			ret = chan_create(i % 2 ? c2.fd : c1.fd, &id);
			n += !ret;
		}
		EXPECT_EQ(ret, -ENOSPC);
		EXPECT_EQ(n, 5);
	}
	{
		ParamScope regs("user_max_regions", "7");
		Ctx c1, c2;
		Buffer b;
		ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
		uint64_t k;
		int n = 0, ret = 0;
		for (int i = 0; i < 20 && !ret; i++) {
			ret = reg_user(i % 2 ? c2.fd : c1.fd, b.ptr, 4096, RO, &k);
			n += !ret;
		}
		EXPECT_EQ(ret, -ENOSPC);
		EXPECT_EQ(n, 7);
	}
	EXPECT_TRUE(live_counters_are(0, 0, 0, 0));
}

// RLIMIT_MEMLOCK bounds a user, not each of its processes.
TEST(Harden, PinnedMemoryIsChargedPerUser)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to switch uid";
	NodeOpenToAll open_node;
	int p1[2], p2[2];
	ASSERT_EQ(pipe(p1), 0);
	ASSERT_EQ(pipe(p2), 0);
	auto as_nobody = [] {
		rlimit r{1 << 20, 1 << 20};
		return setrlimit(RLIMIT_MEMLOCK, &r) == 0 && setresgid(65534, 65534, 65534) == 0 &&
		       setresuid(65534, 65534, 65534) == 0;
	};
	pid_t holder = fork();
	if (holder == 0) {
		// Pins 768 KiB, says so, and holds it until told to go.
		char x = 0;
		Buffer b;
		int c = as_nobody() ? open_ipc() : -1;
		int ok = c >= 0 && !alloc(Kind::User, 768 << 10, &b) && !reg(c, &b);
		x = ok ? 'y' : 'n';
		if (write(p1[1], &x, 1) != 1 || read(p2[0], &x, 1) != 1)
			_exit(2);
		_exit(ok ? 0 : 1);
	}
	char x = 0;
	ASSERT_EQ(read(p1[0], &x, 1), 1);
	ASSERT_EQ(x, 'y');
	int st = in_child([&] {
		Buffer b;
		int c = as_nobody() ? open_ipc() : -1;
		if (c < 0 || alloc(Kind::User, 768 << 10, &b))
			return 1;
		return reg(c, &b) == -ENOMEM ? 0 : 2;
	});
	EXPECT_EQ(st, 0) << "a second process of the same user pinned past its limit";
	ASSERT_EQ(write(p2[1], &x, 1), 1);
	int hs;
	waitpid(holder, &hs, 0);
	EXPECT_TRUE(WIFEXITED(hs) && WEXITSTATUS(hs) == 0);
	// With the holder gone, the charge is back.
	st = in_child([&] {
		Buffer b;
		int c = as_nobody() ? open_ipc() : -1;
		if (c < 0 || alloc(Kind::User, 768 << 10, &b))
			return 1;
		return reg(c, &b) ? 2 : 0;
	});
	EXPECT_EQ(st, 0);
	for (int fd : {p1[0], p1[1], p2[0], p2[1]})
		close(fd);
}

// Destroying a channel never waits for a worker to become free: when
// every worker of the module's workqueue is busy with other channels,
// the destroy still returns at once and its queued copies are cancelled.
TEST(Harden, DestroyDoesNotWaitForOtherChannels)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	ParamScope chans("max_channels", "1024");
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	Ctx busy;
	uint64_t gc;
	ASSERT_EQ(reg_fd(busy.fd, g, RW, &gc), 0);
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 1 << 20, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 1 << 20, &b), 0);
	ASSERT_EQ(reg(busy.fd, &a), 0);
	ASSERT_EQ(reg(busy.fd, &b), 0);
	// Hold more copies at the gate than the workqueue runs at once.
	int held = 0, last = -1;
	auto t0 = Clock::now();
	for (int i = 0; i < 700; i++) {
		uint32_t id;
		uint64_t s;
		ASSERT_EQ(chan_create(busy.fd, &id), 0);
		ASSERT_EQ(copy(busy.fd, id, gc, 0, a.cookie, 0, 16, HL_IPC_COPY_ASYNC, &s), 0);
	}
	// Wait until the number of waiting copies stops growing.
	for (int stable = 0; stable < 20 && seconds_since(t0) < 120;) {
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
		held = ex.waiters();
		stable = held == last ? stable + 1 : 0;
		last = held;
	}
	if (held >= 700)
		GTEST_SKIP() << "the workqueue ran all " << held << " copies at once";
	ASSERT_GT(held, 0);

	// A channel whose work item cannot get a worker now.
	uint32_t victim;
	ASSERT_EQ(chan_create(busy.fd, &victim), 0);
	uint64_t s;
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(copy(busy.fd, victim, a.cookie, 0, b.cookie, 0, 1 << 20,
			       HL_IPC_COPY_ASYNC, &s), 0);
	std::atomic<int> sync_ret{1};	// the copy may queue before or after destroy
	std::thread sync_copy([&] {
		sync_ret = copy(busy.fd, victim, a.cookie, 0, b.cookie, 0, 4096);
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	t0 = Clock::now();
	EXPECT_EQ(chan_destroy(busy.fd, victim), 0);
	double took = seconds_since(t0);
	sync_copy.join();
	EXPECT_EQ(ex.waiters(), held) << "the gate must still hold the others";
	// The gate lets go after 60 s at the latest: well below that.
	EXPECT_LT(took, 20.0) << "destroy waited for other channels' work";
	EXPECT_TRUE(sync_ret == -ECANCELED || sync_ret == -ENOENT) << sync_ret;
	ex.gate(true);
	close(g);
}

// WAIT remembers the last 4096 failures of a channel; for older ones it
// says it cannot tell (EOVERFLOW) instead of reporting success.
TEST(Harden, WaitNeverCallsAForgottenFailureASuccess)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	constexpr int N = 4100;
	ParamScope pending("max_pending", "8192");
	ParamScope jobs("user_max_jobs", "8192");
	Ctx c;
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	uint64_t gc;
	ASSERT_EQ(reg_fd(c.fd, g, RW, &gc), 0);
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 4096, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	ASSERT_EQ(reg(c.fd, &a), 0);
	ASSERT_EQ(reg(c.fd, &b), 0);
	uint64_t first, s;
	ASSERT_EQ(copy(c.fd, c.ch, gc, 0, b.cookie, 0, 16, HL_IPC_COPY_ASYNC, &first), 0);
	ASSERT_TRUE(ex.wait_for_waiters(1));
	std::vector<uint64_t> seqs;
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, 16, HL_IPC_COPY_ASYNC, &s), 0);
		seqs.push_back(s);
	}
	// Every queued copy fails when it runs: its source is gone.
	ASSERT_EQ(dereg(c.fd, a.cookie), 0);
	ex.gate(true);
	int32_t status = 1;
	ASSERT_EQ(wait(c.fd, c.ch, seqs.back(), HL_IPC_WAIT_INFINITE, &status), 0);
	EXPECT_EQ(status, -ENOENT);
	// Older than every remembered failure: a success cannot be told
	// from a forgotten failure either.
	ASSERT_EQ(wait(c.fd, c.ch, first, 0, &status), 0);
	EXPECT_EQ(status, -EOVERFLOW);
	for (int i : {0, 1, N - 4097}) {
		ASSERT_EQ(wait(c.fd, c.ch, seqs[i], 0, &status), 0);
		EXPECT_EQ(status, -EOVERFLOW) << "seq " << seqs[i];
	}
	for (int i : {N - 4096, N - 2}) {
		ASSERT_EQ(wait(c.fd, c.ch, seqs[i], 0, &status), 0);
		EXPECT_EQ(status, -ENOENT) << "seq " << seqs[i];
	}
	close(g);
}

// A copy held by an exporter before it could enter the owner's memory
// (here in begin_cpu_access, as a fence would hold it) does not hold the
// owner's DEREGISTER: it returns at once, and the copy, when it goes on,
// finds the region gone and leaves the memory alone.
TEST(Harden, DeregisterDoesNotWaitForAnExporter)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	Ctx owner, peer;
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 65536);
	ASSERT_GE(g, 0);
	uint64_t gc;
	ASSERT_EQ(reg_fd(peer.fd, g, RW, &gc), 0);
	Buffer u;
	ASSERT_EQ(alloc(Kind::User, 65536, &u), 0);
	ASSERT_EQ(reg(owner.fd, &u), 0);
	uint64_t s;
	ASSERT_EQ(copy(peer.fd, peer.ch, gc, 0, u.cookie, 0, 65536, HL_IPC_COPY_ASYNC, &s), 0);
	ASSERT_TRUE(ex.wait_for_waiters(1));
	auto t0 = Clock::now();
	EXPECT_EQ(dereg(owner.fd, u.cookie), 0);
	EXPECT_LT(seconds_since(t0), 1.0) << "DEREGISTER waited for the exporter";
	memset(u.ptr, 0x5a, u.size);
	ex.gate(true);
	int32_t status = 1;
	ASSERT_EQ(wait(peer.fd, peer.ch, s, HL_IPC_WAIT_INFINITE, &status), 0);
	EXPECT_EQ(status, -ENOENT);
	for (size_t i = 0; i < u.size; i++)
		ASSERT_EQ(u.ptr[i], 0x5a) << "written after DEREGISTER at " << i;
	close(g);
}

// The same promise under a real race: a peer copies into the region in
// big chunks while the owner deregisters, then the owner's bytes must
// stay as it leaves them.
TEST(Harden, NoWriteAfterDeregister)
{
	constexpr size_t SZ = 32 << 20;
	ParamScope chunk("chunk_size", std::to_string(8 << 20));
	Buffer src;
	ASSERT_EQ(alloc(Kind::User, SZ, &src), 0);
	memset(src.ptr, 0x11, SZ);
	for (int iter = 0; iter < 12; iter++) {
		Ctx owner, peer;
		Buffer u;
		ASSERT_EQ(alloc(Kind::User, SZ, &u), 0);
		ASSERT_EQ(reg(owner.fd, &u), 0);
		ASSERT_EQ(reg(peer.fd, &src, RO), 0);
		std::atomic<bool> stop{false};
		std::thread copier([&] {
			while (!stop && !copy(peer.fd, peer.ch, src.cookie, 0, u.cookie, 0, SZ))
				;
		});
		std::this_thread::sleep_for(std::chrono::milliseconds(20 + 13 * iter));
		ASSERT_EQ(dereg(owner.fd, u.cookie), 0);
		// Back to front, so a chunk still being copied front to back
		// is met and overwrites what was just written.
		for (size_t at = SZ; at > 0; at -= 4096)
			memset(u.ptr + at - 4096, 0x77, 4096);
		stop = true;
		copier.join();
		for (size_t i = 0; i < SZ; i += 4096)
			ASSERT_EQ(u.ptr[i], 0x77) << "written after DEREGISTER, iteration " << iter;
		ASSERT_EQ(dereg(peer.fd, src.cookie), 0);
	}
}

// An exporter that takes the reservation lock in vmap, as exporters did
// before the 6.2 locking rules, must not be called with it held.
TEST(Harden, VmapWithoutReservationLockOnOldKernels)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	Ctx c;
	int d = ex.create(HL_TESTEXP_OLDLOCK, 8192);
	ASSERT_GE(d, 0);
	uint64_t dc;
	ASSERT_EQ(reg_fd(c.fd, d, RW, &dc), 0);
	Buffer u, back;
	ASSERT_EQ(alloc(Kind::User, 8192, &u), 0);
	ASSERT_EQ(alloc(Kind::User, 8192, &back), 0);
	fill(u.ptr, 8192, 77);
	ASSERT_EQ(reg(c.fd, &u), 0);
	ASSERT_EQ(reg(c.fd, &back), 0);
	ASSERT_EQ(copy(c.fd, c.ch, u.cookie, 0, dc, 0, 8192), 0);
	ASSERT_EQ(copy(c.fd, c.ch, dc, 0, back.cookie, 0, 8192), 0);
	EXPECT_EQ(check(back.ptr, 8192, 77), -1);
	close(d);
}

// Copies bracket their CPU access: an exporter whose CPU view is a copy
// of device memory sees the data in the right place.
TEST(Harden, CpuAccessIsBracketed)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	constexpr size_t SZ = 65536;
	Ctx c;
	int d = ex.create(HL_TESTEXP_SHADOW, SZ);
	ASSERT_GE(d, 0);
	auto *dev = static_cast<uint8_t *>(
		mmap(nullptr, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, d, 0));
	ASSERT_NE(dev, MAP_FAILED);
	fill(dev, SZ, 5);
	uint64_t dc;
	ASSERT_EQ(reg_fd(c.fd, d, RW, &dc), 0);
	Buffer u, v;
	ASSERT_EQ(alloc(Kind::User, SZ, &u), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &v), 0);
	fill(v.ptr, SZ, 6);
	ASSERT_EQ(reg(c.fd, &u), 0);
	ASSERT_EQ(reg(c.fd, &v), 0);
	// Device to host: the CPU view was refreshed from device memory.
	ASSERT_EQ(copy(c.fd, c.ch, dc, 0, u.cookie, 0, SZ), 0);
	EXPECT_EQ(check(u.ptr, SZ, 5), -1);
	// Host to device: written back, and bytes around it kept.
	ASSERT_EQ(copy(c.fd, c.ch, v.cookie, 100, dc, 100, 1000), 0);
	EXPECT_EQ(check_range(dev, 0, 100, 5), -1);
	EXPECT_EQ(check_range(dev, 100, 1100, 6), -1);
	EXPECT_EQ(check_range(dev, 1100, SZ, 5), -1);
	munmap(dev, SZ);
	close(d);
}

// Writing through a region needs what write(2) would need: a dma-buf
// file opened for writing.
TEST(Harden, WritableRegionNeedsWritableDmabuf)
{
	Ctx c;
	TestExporter ex;
	if (ex.available()) {
		int d = ex.create(HL_TESTEXP_SHADOW, 4096, false);
		ASSERT_GE(d, 0);
		uint64_t k;
		EXPECT_EQ(reg_fd(c.fd, d, RW, &k), -EACCES);
		EXPECT_EQ(reg_fd(c.fd, d, RO, &k), 0);
		close(d);
	}
	if (!kind_available(Kind::Vgem))
		GTEST_SKIP() << "vgem not loaded";
	Buffer b;
	ASSERT_EQ(alloc(Kind::Vgem, 4096, &b), 0);
	// A second buffer whose first (so only) dma-buf is read-only.
	drm_mode_create_dumb cd{};
	cd.width = 1024;
	cd.height = 1;
	cd.bpp = 32;
	ASSERT_EQ(ioctl(b.aux_fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd), 0);
	drm_prime_handle h{};
	h.handle = cd.handle;
	h.flags = DRM_CLOEXEC;
	ASSERT_EQ(ioctl(b.aux_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &h), 0);
	uint64_t k;
	EXPECT_EQ(reg_fd(c.fd, h.fd, RW, &k), -EACCES);
	EXPECT_EQ(reg_fd(c.fd, h.fd, RO, &k), 0);
	EXPECT_EQ(reg_fd(c.fd, b.dmabuf, RW, &k), 0);
	close(h.fd);
}

// habanalabs_sim exports with the access mode asked for, as the real
// driver does: a read-only export is read-only for mmap and for
// habanalabs_ipc alike.
TEST(Harden, SimExportKeepsItsAccessMode)
{
	if (!kind_available(Kind::Sim))
		GTEST_SKIP() << "habanalabs_sim not loaded";
	constexpr size_t SZ = 65536;
	Ctx c;
	Buffer b, u;
	ASSERT_EQ(alloc(Kind::Sim, SZ, &b), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &u), 0);
	fill(b.ptr, SZ, 11);
	fill(u.ptr, SZ, 12);
	int ro = sim_export(b, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(ro, 0);
	EXPECT_EQ(fcntl(ro, F_GETFL) & O_ACCMODE, O_RDONLY);
	errno = 0;
	EXPECT_EQ(mmap(nullptr, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), MAP_FAILED);
	EXPECT_EQ(errno, EACCES);
	void *r = mmap(nullptr, SZ, PROT_READ, MAP_SHARED, ro, 0);
	ASSERT_NE(r, MAP_FAILED);
	EXPECT_EQ(check(static_cast<uint8_t *>(r), SZ, 11), -1);
	munmap(r, SZ);
	uint64_t k = 0;
	EXPECT_EQ(reg_fd(c.fd, ro, RW, &k), -EACCES);
	ASSERT_EQ(reg_fd(c.fd, ro, RO, &k), 0);
	ASSERT_EQ(reg(c.fd, &u), 0);
	EXPECT_EQ(copy(c.fd, c.ch, u.cookie, 0, k, 0, SZ), -EROFS);
	EXPECT_EQ(check(b.ptr, SZ, 11), -1) << "a read-only export was written";
	EXPECT_EQ(copy(c.fd, c.ch, k, 0, u.cookie, 0, SZ), 0);
	EXPECT_EQ(check(u.ptr, SZ, 11), -1);
	int rw = sim_export(b, O_RDWR | O_CLOEXEC);
	ASSERT_GE(rw, 0);
	EXPECT_EQ(fcntl(rw, F_GETFL) & O_ACCMODE, O_RDWR);
	close(rw);
	close(ro);
}

// A user range is at most 64 GiB; longer ones are refused up front,
// without asking the kernel for a page array it would warn about.
TEST(Harden, HugeUserRangeRefused)
{
	Ctx c;
	// A page far from the top of user space, so that 64 GiB from it stay
	// below the top (ASLR may put an ordinary mapping within 64 GiB of
	// it, and the range would be refused for passing the top instead).
	// From 32 TiB: AddressSanitizer's shadow takes the low 16 TiB.
	void *p = MAP_FAILED;
	for (uint64_t at = 32ull << 40; p == MAP_FAILED && at < (64ull << 40); at += 1ull << 40)
		p = mmap(reinterpret_cast<void *>(at), 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_NE(p, MAP_FAILED) << strerror(errno);
	memset(p, 1, 4096);
	uint64_t k;
	EXPECT_EQ(reg_user(c.fd, p, 1ull << 40, RW, &k), -ERANGE);
	EXPECT_EQ(reg_user(c.fd, p, (64ull << 30) + 1, RW, &k), -ERANGE);
	// Within the limit: refused only by the pin, at the first missing page.
	EXPECT_EQ(reg_user(c.fd, p, 64ull << 30, RO, &k), -EFAULT);
	EXPECT_TRUE(live_counters_are(1, 0, 1, 0));
	munmap(p, 4096);
}

// A mounted ext4 image on a loop device, for a file with writeback.
class Ext4Image {
public:
	Ext4Image()
	{
		dir_ = "/tmp/hlipc-ext4";
		img_ = dir_ + ".img";
		std::string cmd = "modprobe -q loop; modprobe -q ext4; mkdir -p " + dir_ +
				  " && truncate -s 32M " + img_ + " && mkfs.ext4 -q -F " + img_ +
				  " >/dev/null 2>&1 && mount -o loop " + img_ + " " + dir_ +
				  " 2>/dev/null";
		ok_ = system(cmd.c_str()) == 0;
	}
	~Ext4Image()
	{
		if (ok_)
			umount(dir_.c_str());
		unlink(img_.c_str());
		rmdir(dir_.c_str());
	}
	bool ok() const { return ok_; }
	std::string path(const char *name) const { return dir_ + "/" + name; }

private:
	std::string dir_, img_;
	bool ok_ = false;
};

// Writable regions accept anonymous, shmem and hugetlbfs memory, not
// shared mappings of files whose filesystem writes dirty pages back.
TEST(Harden, NoWritablePinOfWritebackFiles)
{
	Ext4Image fs;
	if (!fs.ok())
		GTEST_SKIP() << "no loop device or ext4 in this kernel";
	Ctx c;
	std::string f = fs.path("data");
	int fd = open(f.c_str(), O_RDWR | O_CREAT, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 65536), 0);
	void *shared = mmap(nullptr, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	void *priv = mmap(nullptr, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(shared, MAP_FAILED);
	ASSERT_NE(priv, MAP_FAILED);
	uint64_t k;
	EXPECT_EQ(reg_user(c.fd, shared, 65536, RW, &k), -EOPNOTSUPP);
	EXPECT_EQ(reg_user(c.fd, shared, 65536, RO, &k), 0);
	EXPECT_EQ(reg_user(c.fd, priv, 65536, RW, &k), 0);
	int mfd = memfd_create("hlipc-shmem", MFD_CLOEXEC);
	ASSERT_GE(mfd, 0);
	ASSERT_EQ(ftruncate(mfd, 65536), 0);
	void *shm = mmap(nullptr, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(shm, MAP_FAILED);
	EXPECT_EQ(reg_user(c.fd, shm, 65536, RW, &k), 0);
	// habanalabs_sim pins userptr mappings with the same policy, and
	// answers as GUP answers the real driver on kernels that refuse.
	if (kind_available(Kind::Sim)) {
		uint64_t va = 0;
		EXPECT_EQ(sim_map_host(shared, 65536, &va), -EFAULT);
		ASSERT_EQ(sim_map_host(priv, 65536, &va), 0);
		EXPECT_EQ(sim_unmap(va), 0);
		ASSERT_EQ(sim_map_host(shm, 65536, &va), 0);
		EXPECT_EQ(sim_unmap(va), 0);
	}
	close(c.fd);
	c.fd = -1;
	munmap(shm, 65536);
	munmap(priv, 65536);
	munmap(shared, 65536);
	close(mfd);
	close(fd);
}

// One memory registered twice: copies between the two registrations
// behave like memmove, although the two kernel mappings differ.
void overlap_case(Kind kind)
{
	constexpr size_t SZ = 1 << 20, LEN = 256 << 10;
	Ctx c;
	Buffer b;
	ASSERT_EQ(alloc(kind, SZ, &b), 0);
	uint64_t one, two;
	if (kind == Kind::User) {
		ASSERT_EQ(reg_user(c.fd, b.ptr, SZ, RW, &one), 0);
		ASSERT_EQ(reg_user(c.fd, b.ptr, SZ, RW, &two), 0);
	} else {
		ASSERT_EQ(reg_fd(c.fd, b.dmabuf, RW, &one), 0);
		ASSERT_EQ(reg_fd(c.fd, b.dmabuf, RW, &two), 0);
	}
	for (long shift : {1L, 3L, 4096L, 65537L, -1L, -4096L, -70001L}) {
		size_t from = 300000, to = static_cast<size_t>(300000 + shift);
		fill(b.ptr, SZ, static_cast<uint32_t>(shift + 1000));
		std::vector<uint8_t> ref(b.ptr, b.ptr + SZ);
		memmove(ref.data() + to, ref.data() + from, LEN);
		ASSERT_EQ(copy(c.fd, c.ch, one, from, two, to, LEN), 0);
		ASSERT_EQ(memcmp(ref.data(), b.ptr, SZ), 0)
			<< kind_name(kind) << " shift " << shift;
	}
}

TEST(Harden, OverlapAcrossTwoRegistrations)
{
	for (Kind k : available_kinds()) {
		if (k == Kind::Sim)
			continue;	// the sim's own tests cover its buffers
		overlap_case(k);
	}
}

// A job copied in slices by the work item keeps its place in the order.
TEST(Harden, SlicedJobsKeepOrder)
{
	constexpr size_t SZ = 16 << 20;
	Ctx c;
	Buffer dst;
	ASSERT_EQ(alloc(Kind::User, SZ, &dst), 0);
	ASSERT_EQ(reg(c.fd, &dst), 0);
	std::vector<std::unique_ptr<Buffer>> src;
	for (int i = 0; i < 4; i++) {
		src.push_back(std::make_unique<Buffer>());
		ASSERT_EQ(alloc(Kind::User, SZ, src.back().get()), 0);
		fill(src.back()->ptr, SZ, 100 + i);
		ASSERT_EQ(reg(c.fd, src.back().get(), RO), 0);
	}
	uint64_t s = 0;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 4; i++)
			ASSERT_EQ(copy(c.fd, c.ch, src[i]->cookie, 0, dst.cookie, 0, SZ,
				       HL_IPC_COPY_ASYNC, &s), 0);
	// A small copy queued last lands last.
	ASSERT_EQ(copy(c.fd, c.ch, src[0]->cookie, 0, dst.cookie, 0, 4096, HL_IPC_COPY_ASYNC, &s), 0);
	int32_t status = 1;
	uint64_t done = 0;
	ASSERT_EQ(wait(c.fd, c.ch, s, HL_IPC_WAIT_INFINITE, &status, &done), 0);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(done, s);
	EXPECT_EQ(check_range(dst.ptr, 0, 4096, 100), -1);
	EXPECT_EQ(check_range(dst.ptr, 4096, SZ, 103), -1);
}

// A cgroup v2 memory cgroup for a child process, removed again.
class MemCgroup {
public:
	explicit MemCgroup(const char *name)
	{
		const std::string root = "/sys/fs/cgroup";
		mount("none", root.c_str(), "cgroup2", 0, nullptr);	// unless mounted
		std::ifstream ctl(root + "/cgroup.controllers");
		std::string line;
		std::getline(ctl, line);
		if (line.find("memory") == std::string::npos)
			return;
		std::ofstream(root + "/cgroup.subtree_control") << "+memory";
		dir_ = root + "/" + name;
		ok_ = mkdir(dir_.c_str(), 0755) == 0 || errno == EEXIST;
	}
	~MemCgroup()
	{
		if (ok_)
			rmdir(dir_.c_str());
	}
	bool ok() const { return ok_; }
	bool enter() const { return !!(std::ofstream(dir_ + "/cgroup.procs") << getpid()); }
	// Slab bytes charged to the cgroup.
	long slab() const
	{
		// The kernel folds its per-CPU counts into memory.stat every 2 s.
		std::this_thread::sleep_for(std::chrono::milliseconds(2500));
		std::ifstream st(dir_ + "/memory.stat");
		std::string key;
		long v = 0, sum = 0;
		while (st >> key >> v)
			if (key == "slab_reclaimable" || key == "slab_unreclaimable")
				sum += v;
		return sum;
	}

private:
	std::string dir_;
	bool ok_ = false;
};

// The records WAIT keeps of failed copies are memory the channel's
// creator caused: a worker that writes them charges them to the
// creator's memory cgroup, not to the root.
TEST(Harden, ErrorRecordsAreChargedToTheCreator)
{
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	MemCgroup cg("hlipc-test");
	if (!cg.ok())
		GTEST_SKIP() << "no cgroup v2 memory controller";
	constexpr int CHANNELS = 32, FAILS = 4000;
	ParamScope pending("max_pending", "8192");
	ParamScope jobs("user_max_jobs", "262144");
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	int pipefd[2];
	ASSERT_EQ(pipe(pipefd), 0);
	int st = in_child([&] {
		if (!cg.enter())
			return 2;
		Ctx c;
		Buffer u, w;
		uint64_t gk = 0;
		if (alloc(Kind::User, 4096, &u) || alloc(Kind::User, 4096, &w) ||
		    reg(c.fd, &u) || reg(c.fd, &w) || reg_fd(c.fd, g, RW, &gk))
			return 3;
		std::vector<uint32_t> ids(CHANNELS);
		for (auto &id : ids)
			if (chan_create(c.fd, &id))
				return 4;
		long before = cg.slab();
		std::vector<uint64_t> last(CHANNELS);
		for (int i = 0; i < CHANNELS; i++) {
			// A copy held at the gate, then copies that will fail.
			if (copy(c.fd, ids[i], gk, 0, w.cookie, 0, 16, HL_IPC_COPY_ASYNC, &last[i]))
				return 5;
			for (int j = 0; j < FAILS; j++)
				if (copy(c.fd, ids[i], u.cookie, 0, w.cookie, 0, 16,
					 HL_IPC_COPY_ASYNC, &last[i]))
					return 6;
		}
		if (dereg(c.fd, u.cookie))
			return 7;
		ex.gate(true);
		for (int i = 0; i < CHANNELS; i++) {
			int32_t status = 0;
			if (wait(c.fd, ids[i], last[i], HL_IPC_WAIT_INFINITE, &status) ||
			    status != -ENOENT)
				return 8;
		}
		long grew = cg.slab() - before;
		(void)!write(pipefd[1], &grew, sizeof(grew));
		return 0;
	});
	ex.gate(true);
	close(g);
	ASSERT_EQ(st, 0);
	long grew = 0;
	ASSERT_EQ(read(pipefd[0], &grew, sizeof(grew)), static_cast<ssize_t>(sizeof(grew)));
	close(pipefd[0]);
	close(pipefd[1]);
	// 128000 records fill about 2000 xarray nodes of 576 bytes.
	EXPECT_GT(grew, 512 << 10) << "the records were charged elsewhere";
}

}  // namespace
