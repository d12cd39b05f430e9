// SPDX-License-Identifier: GPL-2.0
// Fenced dma-bufs and workers: what another user's busy buffer can and
// cannot delay.  A copy waits for a dma-buf's fences before it enters any
// region, within fence_timeout_ms, so that deregistration, close and
// channel destruction never wait for a fence; a fatal signal ends the
// wait; and one user's copies, however long they wait, hold at most
// user_max_workers workers and never delay another user's copies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <drm.h>

#include "ipc_util.h"
#include "test_exporter.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0)
{
	return std::chrono::duration<double>(Clock::now() - t0).count();
}

// vgem's fence ioctls (include/uapi/drm/vgem_drm.h).  A vgem fence
// signals when asked to, or by itself after 10 s.
struct VgemFenceAttach {
	uint32_t handle;
	uint32_t flags;
	uint32_t out_fence;
	uint32_t pad;
};
struct VgemFenceSignal {
	uint32_t fence;
	uint32_t flags;
};
constexpr uint32_t VGEM_FENCE_WRITE = 1;
#define HLT_VGEM_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, VgemFenceAttach)
#define HLT_VGEM_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, VgemFenceSignal)

// A fence on a vgem buffer, signalled at the latest when this goes.
class Fence {
public:
	Fence(const Buffer &b, bool write) : drm_(b.aux_fd)
	{
		VgemFenceAttach a{};
		a.handle = b.handle;
		a.flags = write ? VGEM_FENCE_WRITE : 0;
		if (ioctl(drm_, HLT_VGEM_FENCE_ATTACH, &a) == 0) {
			id_ = a.out_fence;
			ok_ = true;
		}
	}
	~Fence() { signal(); }
	Fence(const Fence &) = delete;
	Fence &operator=(const Fence &) = delete;
	bool ok() const { return ok_; }
	void signal()
	{
		if (!ok_)
			return;
		VgemFenceSignal s{};
		s.fence = id_;
		ioctl(drm_, HLT_VGEM_FENCE_SIGNAL, &s);
		ok_ = false;
	}

private:
	int drm_;
	uint32_t id_ = 0;
	bool ok_ = false;
};

int reg_host_dmabuf(int ctx, int dmabuf, uint64_t *cookie)
{
	return reg_dmabuf(ctx, dmabuf, RW | HL_IPC_REGION_DEV_HOST, cookie, -1);
}

#define NEED_VGEM()                                                   \
	do {                                                          \
		if (!kind_available(Kind::Vgem))                      \
			GTEST_SKIP() << "vgem not loaded";            \
	} while (0)

// A peer copies the owner's memory into a dma-buf of its own that
// carries a fence; the owner deregisters, then closes: neither waits for
// the fence.
TEST(Fence, DeregisterAndCloseDoNotWaitForAPeersFence)
{
	NEED_VGEM();
	ParamScope bound("fence_timeout_ms", "30000");
	Ctx peer;
	Buffer v;
	ASSERT_EQ(alloc(Kind::Vgem, 1 << 20, &v), 0);
	uint64_t vk = 0;
	ASSERT_EQ(reg_host_dmabuf(peer.fd, v.dmabuf, &vk), 0);

	for (bool by_close : {false, true}) {
		SCOPED_TRACE(by_close ? "close" : "deregister");
		auto owner = std::make_unique<Ctx>();
		Buffer u;
		ASSERT_EQ(alloc(Kind::User, 1 << 20, &u), 0);
		ASSERT_EQ(reg(owner->fd, &u), 0);
		Fence f(v, true);
		ASSERT_TRUE(f.ok());
		uint64_t seq = 0;
		ASSERT_EQ(copy(peer.fd, peer.ch, u.cookie, 0, vk, 0, 1 << 20, HL_IPC_COPY_ASYNC,
			       &seq), 0);
		std::this_thread::sleep_for(std::chrono::milliseconds(300));
		auto t0 = Clock::now();
		if (by_close)
			owner.reset();
		else
			EXPECT_EQ(dereg(owner->fd, u.cookie), 0);
		double took = seconds_since(t0);
		EXPECT_LT(took, 2.0) << "the owner waited for the peer's fence";
		memset(u.ptr, 0x5a, u.size);
		f.signal();
		int32_t status = 1;
		ASSERT_EQ(wait(peer.fd, peer.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
		EXPECT_EQ(status, -ENOENT);
		for (size_t i = 0; i < u.size; i += 4096)
			ASSERT_EQ(u.ptr[i], 0x5a) << "owner memory touched after it left";
	}
}

// A fence that outlives fence_timeout_ms fails the copy with ETIMEDOUT;
// once signalled, the copy goes through.  Readers wait only for writers.
TEST(Fence, WaitIsBoundedAndEndsWithTheFence)
{
	NEED_VGEM();
	ParamScope bound("fence_timeout_ms", "300");
	Ctx c;
	Buffer v, u;
	ASSERT_EQ(alloc(Kind::Vgem, 1 << 16, &v), 0);
	ASSERT_EQ(alloc(Kind::User, 1 << 16, &u), 0);
	uint64_t vk = 0;
	ASSERT_EQ(reg_host_dmabuf(c.fd, v.dmabuf, &vk), 0);
	ASSERT_EQ(reg(c.fd, &u), 0);
	fill(u.ptr, u.size, 3);
	{
		Fence f(v, true);
		ASSERT_TRUE(f.ok());
		auto t0 = Clock::now();
		EXPECT_EQ(copy(c.fd, c.ch, u.cookie, 0, vk, 0, u.size), -ETIMEDOUT);
		double took = seconds_since(t0);
		EXPECT_GT(took, 0.25);
		EXPECT_LT(took, 3.0);
		uint64_t seq = 0;
		int32_t status = 0;
		ASSERT_EQ(copy(c.fd, c.ch, u.cookie, 0, vk, 0, u.size, HL_IPC_COPY_ASYNC, &seq), 0);
		ASSERT_EQ(wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
		EXPECT_EQ(status, -ETIMEDOUT);
		// Reading waits only for writers, of whom there is one.
		EXPECT_EQ(copy(c.fd, c.ch, vk, 0, u.cookie, 0, u.size), -ETIMEDOUT);
		f.signal();
		EXPECT_EQ(copy(c.fd, c.ch, u.cookie, 0, vk, 0, u.size), 0);
		EXPECT_EQ(check(v.ptr, v.size, 3), -1);
	}
	{
		Fence f(v, false);	// a reader
		ASSERT_TRUE(f.ok());
		fill(u.ptr, u.size, 4);
		auto t0 = Clock::now();
		EXPECT_EQ(copy(c.fd, c.ch, vk, 0, u.cookie, 0, u.size), 0);
		EXPECT_LT(seconds_since(t0), 0.25) << "a read waited for a reader";
		EXPECT_EQ(check(u.ptr, u.size, 3), -1);
		EXPECT_EQ(copy(c.fd, c.ch, u.cookie, 0, vk, 0, u.size), -ETIMEDOUT);
	}
}

// Destroying a channel whose copy waits for a fence returns at once.
TEST(Fence, DestroyDoesNotWaitForAFence)
{
	NEED_VGEM();
	ParamScope bound("fence_timeout_ms", "30000");
	Ctx c;
	Buffer v, u;
	ASSERT_EQ(alloc(Kind::Vgem, 1 << 16, &v), 0);
	ASSERT_EQ(alloc(Kind::User, 1 << 16, &u), 0);
	uint64_t vk = 0;
	ASSERT_EQ(reg_host_dmabuf(c.fd, v.dmabuf, &vk), 0);
	ASSERT_EQ(reg(c.fd, &u), 0);
	Fence f(v, true);
	ASSERT_TRUE(f.ok());
	uint32_t id = 0;
	ASSERT_EQ(chan_create(c.fd, &id), 0);
	uint64_t seq = 0;
	ASSERT_EQ(copy(c.fd, id, u.cookie, 0, vk, 0, u.size, HL_IPC_COPY_ASYNC, &seq), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	auto t0 = Clock::now();
	EXPECT_EQ(chan_destroy(c.fd, id), 0);
	EXPECT_LT(seconds_since(t0), 1.0) << "destroy waited for the fence";
}

// A thread killed while its synchronous copy waits for a fence is gone
// at once.
TEST(Fence, FatalSignalEndsTheWait)
{
	NEED_VGEM();
	ParamScope bound("fence_timeout_ms", "30000");
	Buffer v;
	ASSERT_EQ(alloc(Kind::Vgem, 1 << 16, &v), 0);
	Fence f(v, true);
	ASSERT_TRUE(f.ok());
	int ready[2];
	ASSERT_EQ(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		Ctx c;
		Buffer u;
		uint64_t vk = 0;
		if (alloc(Kind::User, 1 << 16, &u) || reg(c.fd, &u) ||
		    reg_host_dmabuf(c.fd, v.dmabuf, &vk))
			_exit(2);
		(void)!write(ready[1], "x", 1);
		copy(c.fd, c.ch, u.cookie, 0, vk, 0, u.size);
		_exit(3);
	}
	char x;
	ASSERT_EQ(read(ready[0], &x, 1), 1);
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	auto t0 = Clock::now();
	kill(pid, SIGKILL);
	int st = 0;
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_LT(seconds_since(t0), 2.0);
	EXPECT_TRUE(WIFSIGNALED(st));
	close(ready[0]);
	close(ready[1]);
	EXPECT_TRUE(live_counters_are(0, 0, 0, 0));
}

// One user holds 300 copies at an exporter that does not let them go;
// another user's copy still runs at once: each user has its own share
// of the workers (user_max_workers).
TEST(Fence, OneUserCannotHoldEveryWorker)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to switch uid";
	TestExporter ex;
	if (!ex.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	NodeOpenToAll open_node;
	ParamScope chans("max_channels", "1024");
	ex.gate(false);
	int g = ex.create(HL_TESTEXP_GATED, 4096);
	ASSERT_GE(g, 0);
	int ready[2];
	ASSERT_EQ(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		Ctx c;
		Buffer u;
		uint64_t gk = 0;
		if (c.fd < 0 || alloc(Kind::User, 4096, &u) || reg(c.fd, &u) ||
		    reg_host_dmabuf(c.fd, g, &gk))
			_exit(3);
		for (int i = 0; i < 300; i++) {
			uint32_t id;
			uint64_t s;
			if (chan_create(c.fd, &id) ||
			    copy(c.fd, id, u.cookie, 0, gk, 0, 16, HL_IPC_COPY_ASYNC, &s))
				_exit(4);
		}
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	char x;
	ASSERT_EQ(read(ready[0], &x, 1), 1);
	// Let the other user's work items take every worker they can.
	int held = 0, last = -1;
	for (int stable = 0, t = 0; stable < 10 && t < 600; t++) {
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
		held = ex.waiters();
		stable = held == last ? stable + 1 : 0;
		last = held;
	}
	EXPECT_GT(held, 0);
	EXPECT_LE(held, atoi(read_param("user_max_workers").c_str()));

	Ctx c;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 4096, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	ASSERT_EQ(reg(c.fd, &a), 0);
	ASSERT_EQ(reg(c.fd, &b), 0);
	fill(a.ptr, a.size, 8);
	uint64_t seq = 0;
	auto t0 = Clock::now();
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, 4096, HL_IPC_COPY_ASYNC, &seq), 0);
	int32_t status = 1;
	int ret = wait(c.fd, c.ch, seq, 10ll * 1000 * 1000 * 1000, &status);
	double took = seconds_since(t0);
	ex.gate(true);
	kill(pid, SIGKILL);
	waitpid(pid, nullptr, 0);
	close(ready[0]);
	close(ready[1]);
	close(g);
	ASSERT_EQ(ret, 0) << "the copy waited for another user's workers";
	EXPECT_EQ(status, 0);
	EXPECT_LT(took, 2.0);
	EXPECT_EQ(check(b.ptr, b.size, 8), -1);
}

}  // namespace
