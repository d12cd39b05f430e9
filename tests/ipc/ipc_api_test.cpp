// SPDX-License-Identifier: GPL-2.0
// The /dev/hl_ipc API: INFO, cookies across processes and users,
// ordering, concurrency, async + WAIT + poll, batches, limits, and bad
// input for every ioctl.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <sys/ioctl.h>
#include <set>
#include <thread>

#include "ipc_util.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;

class Api : public testing::Test {
protected:
	void SetUp() override
	{
		ctx = open_ipc();
		ASSERT_GE(ctx, 0) << strerror(errno);
		ASSERT_EQ(chan_create(ctx, &ch), 0);
	}
	void TearDown() override
	{
		if (ctx >= 0)
			close(ctx);
	}
	int ctx = -1;
	uint32_t ch = 0;
};

TEST_F(Api, Info)
{
	hl_ipc_info i{};
	ASSERT_EQ(info(ctx, &i), 0);
	EXPECT_EQ(i.abi_version, HL_IPC_ABI_VERSION);
	EXPECT_TRUE(i.features & HL_IPC_FEAT_DMABUF);
	EXPECT_TRUE(i.features & HL_IPC_FEAT_USER_MEM);
	EXPECT_TRUE(i.features & HL_IPC_FEAT_ASYNC);
	EXPECT_TRUE(i.features & HL_IPC_FEAT_BATCH);
	EXPECT_GT(i.max_regions, 0u);
	EXPECT_GT(i.max_channels, 0u);
	EXPECT_GT(i.max_batch, 0u);
	EXPECT_GE(i.chunk_size, 4096u);
	EXPECT_EQ(i.engines, HL_IPC_ENGINE_CPU);

	hl_ipc_info bad{};
	bad.flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_INFO, &bad), -EINVAL);
	bad = {};
	bad.pad = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_INFO, &bad), -EINVAL);
	bad = {};
	bad.reserved[5] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_INFO, &bad), -EINVAL);
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_INFO, nullptr), -EFAULT);
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_NOP, nullptr), 0);
	EXPECT_EQ(xioctl(ctx, _IO(HL_IPC_IOCTL_MAGIC, 0x1f), nullptr), -ENOTTY);
	EXPECT_EQ(xioctl(ctx, _IOWR(HL_IPC_IOCTL_MAGIC, 0x00, uint64_t), &bad), -ENOTTY);
}

TEST_F(Api, CookiesAreUnguessable)
{
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	std::set<uint64_t> seen;
	std::vector<uint64_t> cookies;
	for (int i = 0; i < 64; i++) {
		uint64_t c;
		ASSERT_EQ(reg_user(ctx, b.ptr, 4096, RW, &c), 0);
		EXPECT_TRUE(seen.insert(c).second);
		cookies.push_back(c);
	}
	// Not an arithmetic sequence, and the high bits change.
	std::set<uint64_t> deltas, highs;
	for (size_t i = 1; i < cookies.size(); i++) {
		deltas.insert(cookies[i] - cookies[i - 1]);
		highs.insert(cookies[i] >> 32);
	}
	EXPECT_GT(deltas.size(), 32u);
	EXPECT_GT(highs.size(), 32u);
	// Neighbours of a valid cookie are not valid cookies.
	Buffer d;
	ASSERT_EQ(alloc(Kind::User, 4096, &d), 0);
	ASSERT_EQ(reg(ctx, &d), 0);
	for (uint64_t c : cookies) {
		for (uint64_t g : std::initializer_list<uint64_t>{c + 1, c - 1, c ^ (1ull << 40), c ^ (1ull << 63), c + (1ull << 24)}) {
			if (seen.count(g) || g == d.cookie)
				continue;
			EXPECT_EQ(copy(ctx, ch, g, 0, d.cookie, 0, 1), -ENOENT);
		}
	}
	for (uint64_t c : cookies)
		EXPECT_EQ(dereg(ctx, c), 0);
	for (uint64_t c : cookies)
		EXPECT_EQ(copy(ctx, ch, c, 0, d.cookie, 0, 1), -ENOENT) << "stale cookie";
	EXPECT_EQ(copy(ctx, ch, 0, 0, d.cookie, 0, 1), -ENOENT);
}

TEST_F(Api, Query)
{
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 12345, &b), 0);
	ASSERT_EQ(reg(ctx, &b, HL_IPC_REGION_READ), 0);
	hl_ipc_region_query q{};
	q.cookie = b.cookie;
	ASSERT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_QUERY, &q), 0);
	EXPECT_EQ(q.size, 12345u);
	EXPECT_EQ(q.type, (uint32_t)HL_IPC_REGION_USER);
	EXPECT_EQ(q.region_flags, HL_IPC_REGION_READ | HL_IPC_REGION_DEV_HOST);
	EXPECT_EQ(q.dev_kind, (uint32_t)HL_IPC_DEV_KIND_HOST);
	q.flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_QUERY, &q), -EINVAL);
	q = {};
	q.cookie = b.cookie;
	q.reserved[0] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_QUERY, &q), -EINVAL);
	ASSERT_EQ(dereg(ctx, b.cookie), 0);
	q = {};
	q.cookie = b.cookie;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_QUERY, &q), -ENOENT);
}

// One process registers and sends the cookie over a unix socket; the
// other copies into and out of it.
TEST_F(Api, TwoProcessesShareACookie)
{
	int sv[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	Buffer b;
	ASSERT_EQ(alloc(kind_available(Kind::Vgem) ? Kind::Vgem : Kind::User, 1 << 20, &b), 0);
	fill(b.ptr, b.size, 11);
	ASSERT_EQ(reg(ctx, &b), 0);
	ASSERT_EQ(write(sv[0], &b.cookie, sizeof(b.cookie)), (ssize_t)sizeof(b.cookie));

	int st = in_child([&] {
		close(sv[0]);
		uint64_t cookie = 0;
		if (read(sv[1], &cookie, sizeof(cookie)) != sizeof(cookie))
			return 1;
		int c = open_ipc();
		uint32_t id;
		if (c < 0 || chan_create(c, &id))
			return 2;
		Buffer mine;
		if (alloc(Kind::User, 1 << 20, &mine) || reg(c, &mine))
			return 3;
		// Out of the peer's region...
		if (copy(c, id, cookie, 0, mine.cookie, 0, 1 << 20))
			return 4;
		if (check(mine.ptr, mine.size, 11) != -1)
			return 5;
		// ...and into it, at an offset.
		fill(mine.ptr, mine.size, 12);
		if (copy(c, id, mine.cookie, 0, cookie, 4096, 4096))
			return 6;
		// A peer cannot deregister what it does not own.
		if (dereg(c, cookie) != -ENOENT)
			return 7;
		char done = 1;
		if (write(sv[1], &done, 1) != 1)
			return 8;
		close(c);
		return 0;
	});
	EXPECT_EQ(st, 0);
	Buffer ref;
	ASSERT_EQ(alloc(Kind::User, 1 << 20, &ref), 0);
	fill(ref.ptr, ref.size, 12);
	EXPECT_EQ(memcmp(b.ptr + 4096, ref.ptr, 4096), 0);
	EXPECT_EQ(check(b.ptr, 4096, 11), -1);
	close(sv[0]);
	close(sv[1]);
}

TEST_F(Api, OtherUidRefusedUnlessAnyUser)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to switch uid";
	Buffer priv, pub;
	ASSERT_EQ(alloc(Kind::User, 8192, &priv), 0);
	ASSERT_EQ(alloc(Kind::User, 8192, &pub), 0);
	fill(pub.ptr, pub.size, 3);
	ASSERT_EQ(reg(ctx, &priv), 0);
	ASSERT_EQ(reg(ctx, &pub, RW | HL_IPC_REGION_ANY_USER), 0);
	uint64_t pc = priv.cookie, uc = pub.cookie;

	NodeOpenToAll open_node;
	int st = in_child([&] {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			return 1;
		int c = open_ipc();
		uint32_t id;
		if (c < 0 || chan_create(c, &id))
			return 2;
		Buffer mine;
		if (alloc(Kind::User, 8192, &mine) || reg(c, &mine))
			return 3;
		// Forbidden and absent look alike: no existence oracle.
		if (copy(c, id, pc, 0, mine.cookie, 0, 16) != -ENOENT)
			return 4;
		if (copy(c, id, mine.cookie, 0, pc, 0, 16) != -ENOENT)
			return 5;
		hl_ipc_region_query q{};
		q.cookie = pc;
		if (xioctl(c, HL_IPC_IOCTL_REGION_QUERY, &q) != -ENOENT)
			return 6;
		if (copy(c, id, uc, 0, mine.cookie, 0, 8192))
			return 7;
		if (check(mine.ptr, 8192, 3) != -1)
			return 8;
		return 0;
	});
	EXPECT_EQ(st, 0);
}

TEST_F(Api, MemlockLimit)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to drop CAP_IPC_LOCK by switching uid";
	NodeOpenToAll open_node;
	int st = in_child([&] {
		rlimit r{1 << 20, 1 << 20};
		if (setrlimit(RLIMIT_MEMLOCK, &r))
			return 1;
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			return 2;
		int c = open_ipc();
		Buffer big, small;
		if (c < 0 || alloc(Kind::User, 4 << 20, &big) || alloc(Kind::User, 512 << 10, &small))
			return 3;
		if (reg(c, &big) != -ENOMEM)
			return 4;
		if (reg(c, &small))
			return 5;
		// The charge is returned on deregistration.
		if (dereg(c, small.cookie) || reg(c, &small))
			return 6;
		return 0;
	});
	EXPECT_EQ(st, 0);
}

// Copies on one channel complete in submission order.
TEST_F(Api, OrderingOnOneChannel)
{
	constexpr int N = 64;
	constexpr size_t SZ = 256 << 10;
	std::vector<std::unique_ptr<Buffer>> src(N);
	Buffer dst;
	ASSERT_EQ(alloc(Kind::User, SZ, &dst), 0);
	ASSERT_EQ(reg(ctx, &dst), 0);
	for (int i = 0; i < N; i++) {
		src[i] = std::make_unique<Buffer>();
		ASSERT_EQ(alloc(Kind::User, SZ, src[i].get()), 0);
		memset(src[i]->ptr, i + 1, SZ);
		ASSERT_EQ(reg(ctx, src[i].get(), HL_IPC_REGION_READ), 0);
	}
	uint64_t last = 0;
	for (int i = 0; i < N; i++) {
		uint64_t seq;
		ASSERT_EQ(copy(ctx, ch, src[i]->cookie, 0, dst.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &seq), 0);
		EXPECT_EQ(seq, last + 1);
		last = seq;
		// A sync copy in the middle lands after everything before it.
		if (i == N / 2) {
			ASSERT_EQ(copy(ctx, ch, src[0]->cookie, 0, dst.cookie, 0, 1, 0, &seq), 0);
			EXPECT_EQ(seq, last + 1);
			last = seq;
			EXPECT_EQ(dst.ptr[0], 1);
			EXPECT_EQ(dst.ptr[1], N / 2 + 1);
		}
	}
	uint64_t completed = 0;
	int32_t status = -1;
	ASSERT_EQ(wait(ctx, ch, last, -1, &status, &completed), 0);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(completed, last);
	for (size_t i = 0; i < SZ; i++)
		if (dst.ptr[i] != N) {
			ADD_FAILURE() << "byte " << i << " is " << int(dst.ptr[i]);
			break;
		}
	// Every earlier seq is reported complete too.
	for (uint64_t s = 1; s <= last; s++)
		EXPECT_EQ(wait(ctx, ch, s, 0), 0);
}

// Two channels copy at the same time, from two threads.
TEST_F(Api, ConcurrentChannels)
{
	constexpr size_t SZ = 16 << 20;
	uint32_t ch2;
	ASSERT_EQ(chan_create(ctx, &ch2), 0);
	Buffer a, b, c, d;
	for (Buffer *x : {&a, &b, &c, &d})
		ASSERT_EQ(alloc(Kind::User, SZ, x), 0);
	fill(a.ptr, SZ, 21);
	fill(c.ptr, SZ, 22);
	for (Buffer *x : {&a, &b, &c, &d})
		ASSERT_EQ(reg(ctx, x), 0);
	int r1 = -1, r2 = -1;
	std::thread t1([&] { r1 = copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ); });
	std::thread t2([&] { r2 = copy(ctx, ch2, c.cookie, 0, d.cookie, 0, SZ); });
	t1.join();
	t2.join();
	EXPECT_EQ(r1, 0);
	EXPECT_EQ(r2, 0);
	EXPECT_EQ(check(b.ptr, SZ, 21), -1);
	EXPECT_EQ(check(d.ptr, SZ, 22), -1);
	// Async on both channels, waited for together.
	uint64_t s1, s2;
	ASSERT_EQ(copy(ctx, ch, b.cookie, 0, a.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &s1), 0);
	ASSERT_EQ(copy(ctx, ch2, d.cookie, 0, c.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &s2), 0);
	EXPECT_EQ(wait(ctx, ch, s1, -1), 0);
	EXPECT_EQ(wait(ctx, ch2, s2, -1), 0);
}

TEST_F(Api, AsyncWaitPoll)
{
	constexpr size_t SZ = 32 << 20;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, SZ, &a), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &b), 0);
	fill(a.ptr, SZ, 31);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);

	pollfd p{ctx, POLLIN, 0};
	EXPECT_EQ(poll(&p, 1, 0), 0) << "nothing completed yet";
	uint64_t seq;
	ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &seq), 0);
	ASSERT_EQ(poll(&p, 1, 60000), 1);
	EXPECT_TRUE(p.revents & POLLIN);
	int32_t status = -1;
	EXPECT_EQ(wait(ctx, ch, seq, 0, &status), 0);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(check(b.ptr, SZ, 31), -1);
	// Reported: no longer readable.
	p.revents = 0;
	EXPECT_EQ(poll(&p, 1, 0), 0);

	// A wait with a short timeout on a long queue times out.
	uint64_t last = 0;
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &last), 0);
	int r = wait(ctx, ch, last, 1000);
	EXPECT_TRUE(r == -ETIMEDOUT || r == 0) << r;
	EXPECT_EQ(wait(ctx, ch, last, 120ll * 1000 * 1000 * 1000, &status), 0);
	EXPECT_EQ(status, 0);

	// Seqs that were never handed out.
	EXPECT_EQ(wait(ctx, ch, 0, 0), -EINVAL);
	EXPECT_EQ(wait(ctx, ch, last + 1, 0), -EINVAL);
	EXPECT_EQ(wait(ctx, ch + 100, 1, 0), -ENOENT);
	hl_ipc_wait w{};
	w.channel_id = ch;
	w.seq = 1;
	w.flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_WAIT, &w), -EINVAL);
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_WAIT, &w), -EINVAL);
	w.pad = 0;
	w.reserved[3] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_WAIT, &w), -EINVAL);
}

// A failed async copy reports its errno through WAIT.
TEST_F(Api, AsyncFailureStatus)
{
	constexpr size_t SZ = 32 << 20;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, SZ, &a), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &b), 0);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	uint64_t s[8];
	for (auto &x : s)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &x), 0);
	// Revoking the source stops the queued copies with ENOENT.
	ASSERT_EQ(dereg(ctx, a.cookie), 0);
	int32_t status = 0;
	ASSERT_EQ(wait(ctx, ch, s[7], -1, &status), 0);
	EXPECT_EQ(status, -ENOENT);
	EXPECT_TRUE(live_counters_are(1, 1, 1, 0));
}

TEST_F(Api, Batch)
{
	hl_ipc_info inf;
	ASSERT_EQ(info(ctx, &inf), 0);
	constexpr size_t SZ = 1 << 20;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, SZ, &a), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &b), 0);
	fill(a.ptr, SZ, 41);
	ASSERT_EQ(reg(ctx, &a, HL_IPC_REGION_READ), 0);
	ASSERT_EQ(reg(ctx, &b), 0);

	// Gather: reverse the order of 16 blocks.
	std::vector<hl_ipc_copy_desc> d(16);
	size_t blk = SZ / 16;
	for (size_t i = 0; i < 16; i++) {
		d[i] = {};
		d[i].src_cookie = a.cookie;
		d[i].src_offset = i * blk;
		d[i].dst_cookie = b.cookie;
		d[i].dst_offset = (15 - i) * blk;
		d[i].length = blk;
	}
	hl_ipc_copy_batch bt{};
	bt.channel_id = ch;
	bt.descs = reinterpret_cast<uintptr_t>(d.data());
	bt.count = 16;
	ASSERT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), 0);
	EXPECT_GT(bt.seq, 0u);
	for (size_t i = 0; i < 16; i++)
		EXPECT_EQ(memcmp(b.ptr + (15 - i) * blk, a.ptr + i * blk, blk), 0) << i;

	// Async batch.
	memset(b.ptr, 0, SZ);
	bt.flags = HL_IPC_COPY_ASYNC;
	ASSERT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), 0);
	int32_t status = -1;
	ASSERT_EQ(wait(ctx, ch, bt.seq, -1, &status), 0);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(memcmp(b.ptr + 15 * blk, a.ptr, blk), 0);

	// One bad descriptor rejects the whole batch and is named.
	memset(b.ptr, 0, SZ);
	d[5].length = SZ;
	bt.flags = 0;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -ERANGE);
	EXPECT_EQ(bt.error_index, 5u);
	for (size_t i = 0; i < SZ; i++)
		ASSERT_EQ(b.ptr[i], 0) << "a rejected batch copied something";
	bt.error_index = 0;
	d[5].length = blk;
	d[9].flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	EXPECT_EQ(bt.error_index, 9u);
	bt.error_index = 0;
	d[9].flags = 0;
	d[9].pad = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	d[9].pad = 0;
	d[3].dst_cookie = a.cookie;
	bt.error_index = 0;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EROFS);
	EXPECT_EQ(bt.error_index, 3u);
	d[3].dst_cookie = b.cookie;
	bt.error_index = 0;

	// Counts.
	bt.count = 0;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	std::vector<hl_ipc_copy_desc> many(inf.max_batch + 1, d[0]);
	bt.descs = reinterpret_cast<uintptr_t>(many.data());
	bt.count = inf.max_batch + 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -E2BIG);
	bt.count = inf.max_batch;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), 0);
	bt.descs = 8;  // unmapped
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EFAULT);
	bt.descs = reinterpret_cast<uintptr_t>(d.data());
	bt.count = 16;
	bt.reserved[0] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	bt.reserved[0] = 0;
	bt.flags = 0x80;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	bt.flags = 0;
	bt.error_index = 3;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -EINVAL);
	bt.error_index = 0;
	bt.channel_id = ch + 77;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY_BATCH, &bt), -ENOENT);
}

TEST_F(Api, BadRegister)
{
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 8192, &b), 0);
	auto base = [&] {
		hl_ipc_region_register r{};
		r.type = HL_IPC_REGION_USER;
		r.flags = RW | HL_IPC_REGION_DEV_HOST;
		r.fd = -1;
		r.dev_fd = HL_IPC_FD_HOST;
		r.addr = reinterpret_cast<uintptr_t>(b.ptr);
		r.length = 8192;
		return r;
	};
	auto R = [&](hl_ipc_region_register r) { return xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r); };
	hl_ipc_region_register r = base();
	ASSERT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r), 0);
	ASSERT_EQ(dereg(ctx, r.cookie), 0);

	r = base(); r.flags |= 0x100;           EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.flags = HL_IPC_REGION_WRITE | HL_IPC_REGION_DEV_HOST; EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.type = 0;                  EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.type = 3;                  EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.reserved[3] = 1;           EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.fd = 0;                    EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.length = 0;                EXPECT_EQ(R(r), -EINVAL);
	r = base(); r.addr = ~0ull - 100;        EXPECT_EQ(R(r), -ERANGE);
	r = base(); r.length = ~0ull;            EXPECT_EQ(R(r), -ERANGE);
	r = base(); r.addr = 4096; r.length = 4096; EXPECT_EQ(R(r), -EFAULT);
	// Device naming.
	r = base(); r.flags &= ~HL_IPC_REGION_DEV_HOST; EXPECT_EQ(R(r), -EBADF);
	r = base(); r.dev_fd = 0;                EXPECT_EQ(R(r), -EINVAL);
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	int devnull = open("/dev/null", O_RDWR);
	int regfile = open("/proc/self/status", O_RDONLY);
	int dir = open("/", O_RDONLY | O_DIRECTORY);
	for (int fd : {p[0], devnull, regfile, dir, ctx}) {
		r = base(); r.flags &= ~HL_IPC_REGION_DEV_HOST; r.dev_fd = fd;
		EXPECT_EQ(R(r), -ENODEV) << fd;
	}
	r = base(); r.flags &= ~HL_IPC_REGION_DEV_HOST; r.dev_fd = 9999; EXPECT_EQ(R(r), -EBADF);
	// dma-buf fds that are not dma-bufs.
	auto D = [&](int fd) {
		hl_ipc_region_register d{};
		d.type = HL_IPC_REGION_DMABUF;
		d.flags = RW | HL_IPC_REGION_DEV_HOST;
		d.fd = fd;
		d.dev_fd = HL_IPC_FD_HOST;
		return xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &d);
	};
	for (int fd : {p[0], devnull, regfile, dir, ctx})
		EXPECT_EQ(D(fd), -ENODEV) << fd;
	EXPECT_EQ(D(9999), -EBADF);
	EXPECT_EQ(D(-1), -EBADF);
	if (kind_available(Kind::Vgem)) {
		Buffer v;
		ASSERT_EQ(alloc(Kind::Vgem, 4096, &v), 0);
		hl_ipc_region_register d{};
		d.type = HL_IPC_REGION_DMABUF;
		d.flags = RW | HL_IPC_REGION_DEV_HOST;
		d.fd = v.dmabuf;
		d.dev_fd = HL_IPC_FD_HOST;
		d.addr = 4096;
		EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &d), -EINVAL);
		d.addr = 0;
		d.length = 1;
		EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &d), -EINVAL);
		// A dma-buf where a device is expected.
		r = base(); r.flags &= ~HL_IPC_REGION_DEV_HOST; r.dev_fd = v.dmabuf;
		EXPECT_EQ(R(r), -ENODEV);
		uint32_t id;
		EXPECT_EQ(chan_create(ctx, &id, v.dmabuf, -1, HL_IPC_CHANNEL_DST_HOST), -ENODEV);
	}
	// Read-only memory: readable region fine, writable region refused.
	void *ro = mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(ro, MAP_FAILED);
	uint64_t c;
	EXPECT_EQ(reg_user(ctx, ro, 8192, RW, &c), -EFAULT);
	ASSERT_EQ(reg_user(ctx, ro, 8192, HL_IPC_REGION_READ, &c), 0);
	Buffer d;
	ASSERT_EQ(alloc(Kind::User, 8192, &d), 0);
	ASSERT_EQ(reg(ctx, &d), 0);
	EXPECT_EQ(copy(ctx, ch, d.cookie, 0, c, 0, 10), -EROFS);
	EXPECT_EQ(copy(ctx, ch, c, 0, d.cookie, 0, 10), 0);
	munmap(ro, 8192);
	close(p[0]);
	close(p[1]);
	close(devnull);
	close(regfile);
	close(dir);
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, (void *)8), -EFAULT);
}

TEST_F(Api, BadDeregister)
{
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	hl_ipc_region_deregister d{};
	d.cookie = b.cookie;
	d.flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_DEREGISTER, &d), -EINVAL);
	d.flags = 0;
	d.pad = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_DEREGISTER, &d), -EINVAL);
	d.pad = 0;
	d.reserved[1] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_REGION_DEREGISTER, &d), -EINVAL);
	// Another context cannot deregister it.
	int other = open_ipc();
	EXPECT_EQ(dereg(other, b.cookie), -ENOENT);
	close(other);
	EXPECT_EQ(dereg(ctx, b.cookie ^ 0x1000000), -ENOENT);
	EXPECT_EQ(dereg(ctx, b.cookie), 0);
	EXPECT_EQ(dereg(ctx, b.cookie), -ENOENT);
	EXPECT_EQ(dereg(ctx, 0), -ENOENT);
}

TEST_F(Api, BadChannel)
{
	hl_ipc_channel_create c{};
	c.flags = 0x4 | HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST;
	c.src_fd = c.dst_fd = -1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_CHANNEL_CREATE, &c), -EINVAL);
	c.flags = HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST;
	c.reserved[2] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_CHANNEL_CREATE, &c), -EINVAL);
	uint32_t id;
	EXPECT_EQ(chan_create(ctx, &id, -1, -1, HL_IPC_CHANNEL_SRC_HOST), -EBADF);
	EXPECT_EQ(chan_create(ctx, &id, -1, -1, 0), -EBADF);
	EXPECT_EQ(chan_create(ctx, &id, 0, -1, HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST), -EINVAL);
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(chan_create(ctx, &id, p[0], -1, HL_IPC_CHANNEL_DST_HOST), -ENODEV);
	EXPECT_EQ(chan_create(ctx, &id, -1, p[1], HL_IPC_CHANNEL_SRC_HOST), -ENODEV);
	EXPECT_EQ(chan_create(ctx, &id, -1, ctx, HL_IPC_CHANNEL_SRC_HOST), -ENODEV);
	EXPECT_EQ(chan_create(ctx, &id, 12345, -1, HL_IPC_CHANNEL_DST_HOST), -EBADF);
	close(p[0]);
	close(p[1]);

	hl_ipc_channel_destroy d{};
	d.channel_id = ch;
	d.flags = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_CHANNEL_DESTROY, &d), -EINVAL);
	d.flags = 0;
	d.reserved[0] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_CHANNEL_DESTROY, &d), -EINVAL);
	EXPECT_EQ(chan_destroy(ctx, ch + 1000), -ENOENT);
	EXPECT_EQ(chan_destroy(ctx, 0), -ENOENT);
	// ...and destroying id 0 must not make 0 a valid id later.
	uint32_t fresh;
	ASSERT_EQ(chan_create(ctx, &fresh), 0);
	EXPECT_NE(fresh, 0u);
	EXPECT_EQ(chan_destroy(ctx, fresh), 0);
	// Another context's channel id means nothing here.
	int other = open_ipc();
	EXPECT_EQ(chan_destroy(other, ch), -ENOENT);
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	ASSERT_EQ(reg(other, &b), 0);
	EXPECT_EQ(copy(other, ch, b.cookie, 0, b.cookie, 1, 1), -ENOENT);
	EXPECT_EQ(wait(other, ch, 1, 0), -ENOENT);
	close(other);
	EXPECT_EQ(chan_destroy(ctx, ch), 0);
	EXPECT_EQ(chan_destroy(ctx, ch), -ENOENT);
	{
		std::string old = read_param("max_channels");
		write_param("max_channels", "4");
		std::vector<uint32_t> ids;
		int ret = 0;
		for (int i = 0; i < 5 && !ret; i++) {
			ret = chan_create(ctx, &id);
			if (!ret)
				ids.push_back(id);
		}
		EXPECT_EQ(ret, -ENOSPC);
		EXPECT_EQ(ids.size(), 4u);
		write_param("max_channels", old);
	}
}

TEST_F(Api, RegionLimit)
{
	std::string old = read_param("max_regions");
	write_param("max_regions", "8");
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 4096, &b), 0);
	int ret = 0, n = 0;
	uint64_t c;
	while (!ret && n < 20) {
		ret = reg_user(ctx, b.ptr, 4096, RW, &c);
		n += !ret;
	}
	EXPECT_EQ(ret, -ENOSPC);
	EXPECT_EQ(n, 8);
	EXPECT_EQ(dereg(ctx, c), 0);
	EXPECT_EQ(reg_user(ctx, b.ptr, 4096, RW, &c), 0);
	write_param("max_regions", old);
}

// The chunk size only changes where the engine reschedules, not results.
TEST_F(Api, SmallChunks)
{
	std::string old = read_param("chunk_size");
	write_param("chunk_size", "100");  // clamped to a page
	hl_ipc_info inf;
	ASSERT_EQ(info(ctx, &inf), 0);
	EXPECT_EQ(inf.chunk_size, (uint32_t)sysconf(_SC_PAGESIZE));
	constexpr size_t SZ = (1 << 20) + 333;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, SZ + 8192, &a), 0);
	ASSERT_EQ(alloc(Kind::User, SZ + 8192, &b), 0);
	fill(a.ptr, a.size, 51);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	ASSERT_EQ(copy(ctx, ch, a.cookie, 5, b.cookie, 4099, SZ), 0);
	EXPECT_EQ(memcmp(b.ptr + 4099, a.ptr + 5, SZ), 0);
	// Overlapping, backwards, in page-sized chunks.
	std::vector<uint8_t> ref(a.ptr, a.ptr + a.size);
	ASSERT_EQ(copy(ctx, ch, a.cookie, 0, a.cookie, 5000, SZ), 0);
	memmove(ref.data() + 5000, ref.data(), SZ);
	EXPECT_EQ(memcmp(ref.data(), a.ptr, a.size), 0);
	write_param("chunk_size", old);
}

TEST_F(Api, BadCopy)
{
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 8192, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 8192, &b), 0);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	const uint64_t M = ~0ull;
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 0), -EINVAL);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 8193), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 1, b.cookie, 0, 8192), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 1, 8192), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 8192, b.cookie, 0, 1), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, M - 1, b.cookie, 0, 4), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, M, 2), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 16, b.cookie, 0, M - 15), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, M), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 1ull << 62), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 16, 0x2), -EINVAL);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 16, 0x80000000u), -EINVAL);
	EXPECT_EQ(copy(ctx, ch + 9, a.cookie, 0, b.cookie, 0, 16), -ENOENT);
	EXPECT_EQ(copy(ctx, ch, a.cookie + 1, 0, b.cookie, 0, 16), -ENOENT);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie - 1, 0, 16), -ENOENT);
	hl_ipc_copy c{};
	c.channel_id = ch;
	c.src_cookie = a.cookie;
	c.dst_cookie = b.cookie;
	c.length = 16;
	c.reserved[1] = 1;
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY, &c), -EINVAL);
	EXPECT_EQ(xioctl(ctx, HL_IPC_IOCTL_COPY, (void *)16), -EFAULT);
	EXPECT_EQ(copy(ctx, ch, a.cookie, 8191, b.cookie, 8191, 1), 0);
}

// Destroying a channel with copies queued cancels them and frees them.
TEST_F(Api, DestroyWithCopiesInFlight)
{
	constexpr size_t SZ = 16 << 20;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, SZ, &a), 0);
	ASSERT_EQ(alloc(Kind::User, SZ, &b), 0);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	uint64_t seq;
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &seq), 0);
	EXPECT_GE(stat("jobs"), 1);
	EXPECT_EQ(chan_destroy(ctx, ch), 0);
	EXPECT_EQ(wait(ctx, ch, seq, 0), -ENOENT);
	EXPECT_TRUE(live_counters_are(1, 2, 0, 0));
	// A sync copy blocked behind a queue is released by destroy as well.
	ASSERT_EQ(chan_create(ctx, &ch), 0);
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ, HL_IPC_COPY_ASYNC, &seq), 0);
	int r = 1;
	std::thread t([&] { r = copy(ctx, ch, a.cookie, 0, b.cookie, 0, SZ); });
	usleep(20000);
	EXPECT_EQ(chan_destroy(ctx, ch), 0);
	t.join();
	EXPECT_TRUE(r == -ECANCELED || r == 0 || r == -ENOENT) << r;
	EXPECT_TRUE(live_counters_are(1, 2, 0, 0));
}

// Global counters in sysfs and per-channel counters in debugfs move.
TEST_F(Api, Counters)
{
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 65536, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 65536, &b), 0);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	long copies = stat("copies"), bytes = stat("bytes"), errors = stat("errors");
	EXPECT_EQ(stat("contexts"), 1);
	EXPECT_EQ(stat("regions"), 2);
	EXPECT_EQ(stat("channels"), 1);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 1000), 0);
	EXPECT_EQ(stat("copies"), copies + 10);
	EXPECT_EQ(stat("bytes"), bytes + 10000);
	EXPECT_EQ(stat("errors"), errors);
	std::ifstream f("/sys/kernel/debug/hl_ipc/channels");
	if (!f)
		GTEST_SKIP() << "debugfs not mounted";
	std::string line;
	bool found = false;
	while (std::getline(f, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		unsigned id;
		int tgid;
		char src[32], dst[32];
		unsigned long long next, done, pending, c, by, err;
		int busy;
		if (sscanf(line.c_str(), "%u %d %31s %31s %llu %llu %llu %d %llu %llu %llu", &id,
			   &tgid, src, dst, &next, &done, &pending, &busy, &c, &by, &err) == 11 &&
		    id == ch && tgid == getpid()) {
			found = true;
			EXPECT_EQ(c, 10u);
			EXPECT_EQ(by, 10000u);
			EXPECT_EQ(next, 10u);
			EXPECT_EQ(done, 10u);
			EXPECT_EQ(std::string(src), "0:0:0");
		}
	}
	EXPECT_TRUE(found);
}

// An exporter that gives no CPU access (no vmap) is refused clearly.
TEST_F(Api, ExporterWithoutCpuAccess)
{
	int dev = open("/dev/hl_ipc_novmap", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		GTEST_SKIP() << "hl_ipc_novmap test exporter not loaded";
	int dbuf = ioctl(dev, 0, 0);
	ASSERT_GE(dbuf, 0) << strerror(errno);
	uint64_t c;
	EXPECT_EQ(reg_dmabuf(ctx, dbuf, RW, &c), -EOPNOTSUPP);
	EXPECT_EQ(reg_dmabuf(ctx, dbuf, HL_IPC_REGION_READ, &c), -EOPNOTSUPP);
	EXPECT_TRUE(live_counters_are(1, 0, 1, 0));
	close(dbuf);
	close(dev);
}

// Device identity: compute and control nodes of one sim device are the
// same device; the node is not kept open by the module.
TEST(ApiSim, DeviceIdentityFromNodes)
{
	if (access("/dev/hlsim1", F_OK) || access("/dev/hlsim_controlD1", F_OK))
		GTEST_SKIP() << "needs habanalabs_sim with two devices";
	int st = in_child([] {
		int ctx = open_ipc();
		int comp = open("/dev/hlsim1", O_RDWR | O_CLOEXEC);
		int ctl = open("/dev/hlsim_controlD1", O_RDWR | O_CLOEXEC);
		if (ctx < 0 || comp < 0 || ctl < 0)
			return 1;
		uint32_t a, b, h;
		if (chan_create(ctx, &a, comp, ctl, 0))
			return 2;
		if (chan_create(ctx, &b, ctl, -1, HL_IPC_CHANNEL_DST_HOST))
			return 3;
		if (chan_create(ctx, &h, -1, comp, HL_IPC_CHANNEL_SRC_HOST))
			return 4;
		// A user region said to belong to the device, via either node.
		Buffer m;
		if (alloc(Kind::User, 4096, &m))
			return 5;
		hl_ipc_region_query q1{}, q2{};
		for (auto [fd, q] : {std::pair{comp, &q1}, std::pair{ctl, &q2}}) {
			hl_ipc_region_register r{};
			r.type = HL_IPC_REGION_USER;
			r.flags = RW;
			r.fd = -1;
			r.dev_fd = fd;
			r.addr = reinterpret_cast<uintptr_t>(m.ptr);
			r.length = 4096;
			if (xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r))
				return 6;
			q->cookie = r.cookie;
			if (xioctl(ctx, HL_IPC_IOCTL_REGION_QUERY, q))
				return 7;
		}
		if (q1.dev_kind != HL_IPC_DEV_KIND_SIM || q2.dev_kind != HL_IPC_DEV_KIND_SIM ||
		    q1.dev_major != q2.dev_major || q1.dev_index != 1 || q2.dev_index != 1)
			return 8;
		// The exclusive compute node can be reopened once we close it.
		close(comp);
		int again = open("/dev/hlsim1", O_RDWR | O_CLOEXEC);
		if (again < 0)
			return 9;
		close(again);
		// A closed device fd is EBADF.
		if (chan_create(ctx, &a, comp, -1, HL_IPC_CHANNEL_DST_HOST) != -EBADF)
			return 10;
		close(ctl);
		close(ctx);
		return 0;
	});
	EXPECT_EQ(st, 0);
}

}  // namespace
