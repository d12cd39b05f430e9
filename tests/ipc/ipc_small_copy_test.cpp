// SPDX-License-Identifier: GPL-2.0
// Small synchronous copies (at most 4096 bytes between user-memory regions
// on an idle channel) run without a job and without entering their
// regions.  These tests check that the path is taken when it should be
// (the small_copies counter), that it gives the same results and errors
// as the general path, that deregistration and close still guarantee
// that the memory is not touched afterwards, and that sync copies leave
// poll alone.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "ipc_util.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr uint64_t kSmallMax = 4096;

class ApiSmallCopy : public testing::Test {
protected:
	void SetUp() override
	{
		ctx = open_ipc();
		ASSERT_GE(ctx, 0) << strerror(errno);
		ASSERT_EQ(chan_create(ctx, &ch), 0);
		ASSERT_EQ(alloc(Kind::User, kSize, &src), 0);
		ASSERT_EQ(alloc(Kind::User, kSize, &dst), 0);
		fill(src.ptr, kSize, 7);
		memset(dst.ptr, 0, kSize);
		ASSERT_EQ(reg(ctx, &src), 0);
		ASSERT_EQ(reg(ctx, &dst), 0);
	}
	void TearDown() override
	{
		if (ctx >= 0)
			close(ctx);
	}
	// A copy of the source's bytes [soff, soff + len) to dst at doff,
	// checked, and whether it took the small path.
	void copy_checked(uint64_t soff, uint64_t doff, uint64_t len, bool small)
	{
		long before = stat("small_copies");
		ASSERT_EQ(copy(ctx, ch, src.cookie, soff, dst.cookie, doff, len), 0)
			<< len << " bytes at " << soff << " -> " << doff;
		EXPECT_EQ(stat("small_copies"), before + (small ? 1 : 0))
			<< len << " bytes at " << soff << " -> " << doff;
		EXPECT_EQ(memcmp(dst.ptr + doff, src.ptr + soff, len), 0)
			<< len << " bytes at " << soff << " -> " << doff;
	}
	static constexpr size_t kSize = 64 << 10;
	int ctx = -1;
	uint32_t ch = 0;
	Buffer src, dst;
};

TEST_F(ApiSmallCopy, TakenAfterTheFirstSyncCopy)
{
	ASSERT_GE(stat("small_copies"), 0) << "no small_copies counter";
	// The first sync copy of a region takes the general path.
	copy_checked(0, 0, 8, false);
	// Then every size up to the limit, at odd offsets too.
	for (uint64_t len : {1ul, 7ul, 8ul, 63ul, 100ul, 1000ul, 4095ul, kSmallMax})
		for (uint64_t soff : {0ul, 1ul, 4093ul})
			copy_checked(soff, (soff * 3 + len) % (kSize - kSmallMax), len, true);
	// One byte past the limit is a general copy again.
	copy_checked(5, 9, kSmallMax + 1, false);
	// Right at the end of both regions.
	copy_checked(kSize - 8, kSize - 8, 8, true);
	// Async copies are never small.
	long before = stat("small_copies");
	uint64_t seq = 0;
	ASSERT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, 0, 8, HL_IPC_COPY_ASYNC, &seq), 0);
	EXPECT_EQ(wait(ctx, ch, seq, -1), 0);
	EXPECT_EQ(stat("small_copies"), before);
}

TEST_F(ApiSmallCopy, SameMemoryOverlapTakesTheGeneralPath)
{
	copy_checked(0, 0, 8, false);
	// A region with itself: overlapping ranges are moved as memmove does.
	uint8_t expect[256];
	fill(src.ptr, kSize, 9);
	memmove(expect, src.ptr + 100, sizeof(expect));
	long before = stat("small_copies");
	ASSERT_EQ(copy(ctx, ch, src.cookie, 100, src.cookie, 164, sizeof(expect)), 0);
	EXPECT_EQ(memcmp(src.ptr + 164, expect, sizeof(expect)), 0);
	EXPECT_EQ(stat("small_copies"), before) << "overlap took the small path";
	// Apart, the same region is fine for the small path.
	fill(src.ptr, kSize, 9);
	ASSERT_EQ(copy(ctx, ch, src.cookie, 0, src.cookie, 8192, 512), 0);
	EXPECT_EQ(memcmp(src.ptr + 8192, src.ptr, 512), 0);
	EXPECT_EQ(stat("small_copies"), before + 1);
}

TEST_F(ApiSmallCopy, DmabufRegionsTakeTheGeneralPath)
{
	if (!kind_available(Kind::Udmabuf) && !kind_available(Kind::Vgem))
		GTEST_SKIP() << "no dma-buf exporter in this kernel";
	Kind k = kind_available(Kind::Udmabuf) ? Kind::Udmabuf : Kind::Vgem;
	Buffer d;
	ASSERT_EQ(alloc(k, 16384, &d), 0);
	ASSERT_EQ(reg(ctx, &d), 0);
	copy_checked(0, 0, 8, false);  // user regions warmed up
	long before = stat("small_copies");
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(copy(ctx, ch, src.cookie, 64, d.cookie, 128, 256), 0);
		EXPECT_EQ(memcmp(d.ptr + 128, src.ptr + 64, 256), 0);
		ASSERT_EQ(copy(ctx, ch, d.cookie, 128, dst.cookie, 0, 256), 0);
		EXPECT_EQ(memcmp(dst.ptr, src.ptr + 64, 256), 0);
	}
	EXPECT_EQ(stat("small_copies"), before);
}

TEST_F(ApiSmallCopy, ErrorsAsOnTheGeneralPath)
{
	copy_checked(0, 0, 8, false);
	uint64_t ro = 0;
	Buffer r;
	ASSERT_EQ(alloc(Kind::User, 4096, &r), 0);
	ASSERT_EQ(reg_user(ctx, r.ptr, 4096, HL_IPC_REGION_READ, &ro), 0);
	ASSERT_EQ(copy(ctx, ch, ro, 0, dst.cookie, 0, 8), 0);  // warm it up
	long before = stat("small_copies");
	long failures = stat("lookup_failures");

	EXPECT_EQ(copy(ctx, ch, src.cookie, kSize - 7, dst.cookie, 0, 8), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, kSize - 7, 8), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, src.cookie, UINT64_MAX - 3, dst.cookie, 0, 8), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, UINT64_MAX, 8), -ERANGE);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, ro, 0, 8), -EROFS);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie ^ 1, 0, 8), -ENOENT);
	EXPECT_EQ(copy(ctx, ch + 1000, src.cookie, 0, dst.cookie, 0, 8), -ENOENT);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, 0, 0), -EINVAL);
	EXPECT_EQ(stat("lookup_failures"), failures + 1);

	// Revoked: ENOENT, and the memory is left alone.
	memset(dst.ptr, 0x5a, 64);
	ASSERT_EQ(dereg(ctx, dst.cookie), 0);
	EXPECT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, 0, 8), -ENOENT);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ(dst.ptr[i], 0x5a) << "byte " << i << " written after deregistration";
	EXPECT_EQ(stat("small_copies"), before) << "a failing copy counted as small";
	dst.cookie = 0;
}

// A copy waits for the queue of its channel: behind a queued async copy a
// small one is not small, and completes after it.
TEST_F(ApiSmallCopy, BusyChannelKeepsTheOrder)
{
	constexpr size_t big = 32 << 20;
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, big, &a), 0);
	ASSERT_EQ(alloc(Kind::User, big, &b), 0);
	fill(a.ptr, big, 3);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	copy_checked(0, 0, 8, false);
	long before = stat("small_copies");
	uint64_t s1 = 0, s2 = 0;
	ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, big, HL_IPC_COPY_ASYNC, &s1), 0);
	ASSERT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, 0, 8, 0, &s2), 0);
	EXPECT_EQ(s2, s1 + 1);
	uint64_t completed = 0;
	EXPECT_EQ(wait(ctx, ch, s1, 0, nullptr, &completed), 0)
		<< "the sync copy returned before the async copy queued ahead of it";
	EXPECT_GE(completed, s2);
	EXPECT_EQ(check(b.ptr, big, 3), -1);
	// Whether the small path was taken depends on whether the async
	// copy had finished; it must not have been if it was still queued.
	EXPECT_LE(stat("small_copies"), before + 1);
}

// Sync copies report themselves by returning: small or not, they never
// make the context readable; async copies do until WAITed for.
TEST_F(ApiSmallCopy, SyncCopiesLeavePollAlone)
{
	pollfd p{ctx, POLLIN, 0};
	copy_checked(0, 0, 8, false);
	copy_checked(0, 64, 8, true);
	copy_checked(0, 0, kSmallMax + 1, false);
	EXPECT_EQ(poll(&p, 1, 0), 0) << "readable after sync copies only";

	uint64_t s1 = 0;
	ASSERT_EQ(copy(ctx, ch, src.cookie, 0, dst.cookie, 0, 8, HL_IPC_COPY_ASYNC, &s1), 0);
	ASSERT_EQ(poll(&p, 1, 10000), 1);
	// A sync copy after it changes nothing: WAIT on the async copy clears.
	copy_checked(0, 128, 8, true);
	EXPECT_EQ(poll(&p, 1, 0), 1);
	EXPECT_EQ(wait(ctx, ch, s1, 0), 0);
	EXPECT_EQ(poll(&p, 1, 0), 0) << "still readable after WAIT on the only async copy";
}

// The deregistration guarantee holds for memory that small copies use
// without entering it: once DEREGISTER (or close of the owner) returns,
// a thread copying into the region as fast as it can has stopped writing.
// Whatever the test writes afterwards must stay.
void hammer_until_gone(int ctx, uint32_t ch, uint64_t s, uint64_t d, std::atomic<int> *state)
{
	state->store(1);
	int ret;
	// Whole pages: the longest copy the path takes, the widest window.
	while ((ret = copy(ctx, ch, s, 0, d, 0, kSmallMax)) == 0) {
	}
	state->store(ret == -ENOENT ? 2 : 3);
}

// One round: a thread copies into a fresh region as fast as it can, then
// the region is deregistered, or its owner (another context) closed, and
// whatever the test writes afterwards must stay.
void revoke_under_copies(int ctx, uint32_t ch, uint64_t src, bool close_owner, int round)
{
	const char *what = close_owner ? "close() of the owner" : "DEREGISTER";
	int owner = close_owner ? open_ipc() : ctx;
	ASSERT_GE(owner, 0);
	Buffer d;
	ASSERT_EQ(alloc(Kind::User, 4096, &d), 0);
	ASSERT_EQ(reg(owner, &d), 0);
	ASSERT_EQ(copy(ctx, ch, src, 0, d.cookie, 0, 8), 0);  // warm it up
	long before = stat("small_copies");
	std::atomic<int> state{0};
	std::thread t(hammer_until_gone, ctx, ch, src, d.cookie, &state);
	while (state.load() == 0 || stat("small_copies") < before + 100)
		std::this_thread::yield();
	EXPECT_EQ(close_owner ? close(owner) : dereg(ctx, d.cookie), 0) << what;
	memset(d.ptr, 0xee, 4096);
	t.join();
	EXPECT_EQ(state.load(), 2) << "the copies did not end with ENOENT after " << what;
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(d.ptr[i], 0xee) << "round " << round << ": byte " << i
					  << " written after " << what << " returned";
}

TEST_F(ApiSmallCopy, DeregisterStopsCopiesInFlight)
{
	for (int round = 0; round < 20 && !HasFatalFailure(); round++)
		revoke_under_copies(ctx, ch, src.cookie, false, round);
}

TEST_F(ApiSmallCopy, CloseOfTheOwnerStopsCopiesInFlight)
{
	for (int round = 0; round < 10 && !HasFatalFailure(); round++)
		revoke_under_copies(ctx, ch, src.cookie, true, round);
}

// Destroying the channel under a stream of small copies: each copy either
// completes or fails with ENOENT, and nothing is left behind.
TEST_F(ApiSmallCopy, ConcurrentChannelDestroy)
{
	copy_checked(0, 0, 8, false);
	for (int round = 0; round < 20; round++) {
		uint32_t c = 0;
		ASSERT_EQ(chan_create(ctx, &c), 0);
		std::atomic<int> bad{0};
		std::atomic<bool> started{false};
		std::thread t([&] {
			int ret;
			started = true;
			while ((ret = copy(ctx, c, src.cookie, 0, dst.cookie, 0, 64)) == 0) {
			}
			if (ret != -ENOENT && ret != -ECANCELED)
				bad = ret;
		});
		while (!started)
			std::this_thread::yield();
		usleep(round * 100);
		ASSERT_EQ(chan_destroy(ctx, c), 0);
		t.join();
		EXPECT_EQ(bad.load(), 0) << strerror(-bad.load());
	}
	EXPECT_EQ(memcmp(dst.ptr, src.ptr, 64), 0);
}

}  // namespace
