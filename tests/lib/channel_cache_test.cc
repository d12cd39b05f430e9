// SPDX-License-Identifier: MIT
#include "channel_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace hlthunk;

namespace {

// A kernel that hands out the lowest free channel number, as
// habanalabs_ipc does: a destroyed number comes back at the next create.
struct Kernel {
	std::mutex mu;
	std::set<uint32_t> live;
	std::atomic<int> created{0};
	std::vector<uint32_t> destroyed;
	int fail_create = 0;

	ChannelCache make()
	{
		return ChannelCache(
			[this](int, int) -> Result<uint32_t> {
				if (fail_create)
					return Err{fail_create};
				std::lock_guard<std::mutex> l(mu);
				uint32_t id = 1;
				while (live.count(id))
					id++;
				live.insert(id);
				created++;
				return id;
			},
			[this](uint32_t id) -> Result<void> {
				std::lock_guard<std::mutex> l(mu);
				live.erase(id);
				destroyed.push_back(id);
				return {};
			});
	}
};

const DeviceKey d0{1, 0}, d1{1, 1}, r0{0, 0};

uint32_t kid_of(ChannelCache &c, uint32_t id)
{
	auto u = c.use(id);
	return u ? (*u)->kid : 0;
}

}  // namespace

TEST(ChannelCache, EveryCreateHasItsIdAndAPairSharesOneKernelChannel)
{
	Kernel k;
	auto cache = k.make();
	auto a = cache.acquire(d0, d1, 10, 11);
	auto b = cache.acquire(d0, d1, 20, 21);  // other fds, same devices
	auto c = cache.acquire(d1, d0, 11, 10);  // other direction
	auto d = cache.acquire(r0, d1, 30, 11);  // real dev 0 is not sim dev 0
	ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
	EXPECT_NE(*a, *b);
	EXPECT_NE(*a, 0u);
	EXPECT_EQ(kid_of(cache, *a), kid_of(cache, *b));
	EXPECT_NE(kid_of(cache, *a), kid_of(cache, *c));
	EXPECT_NE(kid_of(cache, *a), kid_of(cache, *d));
	EXPECT_EQ(k.created, 3);
	EXPECT_EQ(cache.ids_sharing(*a), 2);
	EXPECT_EQ(cache.size(), 4u);
}

// One component destroying its id twice must not end another's channel.
TEST(ChannelCache, AnExtraDestroyFailsAndLeavesTheOtherIdsChannel)
{
	Kernel k;
	auto cache = k.make();
	uint32_t mine = *cache.acquire(d0, d1, 10, 11);
	uint32_t theirs = *cache.acquire(d0, d1, 10, 11);
	EXPECT_TRUE(cache.release(mine).ok());
	EXPECT_EQ(cache.release(mine).error(), -ENOENT);
	EXPECT_EQ(cache.release(mine).error(), -ENOENT);
	EXPECT_TRUE(k.destroyed.empty());
	EXPECT_TRUE(cache.live(theirs));
	EXPECT_FALSE(cache.live(mine));
	EXPECT_EQ(cache.use(mine).error(), -ENOENT);
	EXPECT_TRUE(cache.use(theirs).ok());
	EXPECT_TRUE(cache.release(theirs).ok());
	EXPECT_EQ(k.destroyed.size(), 1u);
	EXPECT_EQ(cache.release(12345).error(), -ENOENT);
	EXPECT_EQ(cache.release(0).error(), -ENOENT);
}

// The kernel reuses the number of a destroyed channel; the library's id of
// the destroyed channel must not reach the new one.
TEST(ChannelCache, AStaleIdNeverReachesTheChannelThatReusedItsNumber)
{
	Kernel k;
	auto cache = k.make();
	uint32_t old_id = *cache.acquire(d0, d1, 10, 11);
	uint32_t old_kid = kid_of(cache, old_id);
	ASSERT_TRUE(cache.release(old_id).ok());
	uint32_t new_id = *cache.acquire(d1, d0, 11, 10);
	EXPECT_EQ(kid_of(cache, new_id), old_kid) << "the kernel reused the number";
	EXPECT_NE(new_id, old_id);
	EXPECT_EQ(cache.use(old_id).error(), -ENOENT);
	EXPECT_EQ(cache.release(old_id).error(), -ENOENT);
	EXPECT_TRUE(cache.live(new_id));
	// Many rounds through the same slot: never an old id again.
	std::set<uint32_t> seen{old_id, new_id};
	for (int i = 0; i < 5000; i++) {
		ASSERT_TRUE(cache.release(new_id).ok());
		new_id = *cache.acquire(d0, d1, 10, 11);
		EXPECT_TRUE(seen.insert(new_id).second) << "id " << new_id << " again";
	}
}

TEST(ChannelCache, FailedCreateIsNotCached)
{
	Kernel k;
	auto cache = k.make();
	k.fail_create = -EBADF;
	EXPECT_EQ(cache.acquire(d0, d1, -1, 11).error(), -EBADF);
	EXPECT_EQ(cache.size(), 0u);
	k.fail_create = 0;
	EXPECT_TRUE(cache.acquire(d0, d1, 10, 11).ok());
	EXPECT_EQ(k.created, 1);
}

TEST(ChannelCache, ThreadsShareOneKernelChannel)
{
	Kernel k;
	auto cache = k.make();
	std::vector<std::thread> ts;
	std::mutex mu;
	std::set<uint32_t> ids, kids;
	for (int t = 0; t < 8; t++)
		ts.emplace_back([&] {
			for (int n = 0; n < 100; n++) {
				auto id = cache.acquire(d0, d1, 10, 11);
				ASSERT_TRUE(id.ok());
				std::lock_guard<std::mutex> l(mu);
				ids.insert(*id);
				kids.insert(kid_of(cache, *id));
			}
		});
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(ids.size(), 800u);
	EXPECT_EQ(kids.size(), 1u);
	EXPECT_EQ(k.created, 1);
	EXPECT_EQ(cache.ids_sharing(*ids.begin()), 800);
}

TEST(ChannelCache, IdsAreBoundedAndFreedSlotsAreReused)
{
	Kernel k;
	auto cache = k.make();
	std::vector<uint32_t> ids;
	for (uint32_t i = 0; i < ChannelCache::kMaxIds; i++)
		ids.push_back(*cache.acquire(d0, d1, 10, 11));
	EXPECT_EQ(cache.acquire(d0, d1, 10, 11).error(), -ENOSPC);
	ASSERT_TRUE(cache.release(ids[7]).ok());
	EXPECT_TRUE(cache.acquire(d0, d1, 10, 11).ok());
}

// The destroy ioctl waits for copies in flight, outside the cache's lock:
// other ids stay usable meanwhile, and the kernel channel is destroyed
// only after the last call using it returned.
TEST(ChannelCache, DestroyWaitsForCallsInFlightWithoutHoldingTheLock)
{
	Kernel k;
	auto cache = k.make();
	uint32_t a = *cache.acquire(d0, d1, 10, 11);
	uint32_t other = *cache.acquire(d1, d0, 11, 10);
	auto use = cache.use(a);
	ASSERT_TRUE(use.ok());
	std::atomic<bool> released{false};
	std::thread t([&] {
		EXPECT_TRUE(cache.release(a).ok());
		released = true;
	});
	// The id is gone at once, the kernel channel stays while in use.
	while (cache.live(a))
		std::this_thread::yield();
	for (int i = 0; i < 100; i++) {
		EXPECT_TRUE(cache.use(other).ok()) << "lock held by the destroy";
		EXPECT_TRUE(cache.acquire(r0, d1, 1, 2).ok());
	}
	EXPECT_FALSE(released);
	EXPECT_TRUE(k.destroyed.empty());
	use->reset();
	t.join();
	EXPECT_TRUE(released);
	EXPECT_EQ(k.destroyed.size(), 1u);
}

TEST(ChannelCache, ForgetAllDoesNotDestroyButEndsEveryId)
{
	Kernel k;
	auto cache = k.make();
	uint32_t id = *cache.acquire(d0, d1, 10, 11);
	uint64_t gen = cache.generation();
	cache.forget_all();
	EXPECT_NE(cache.generation(), gen);
	EXPECT_TRUE(k.destroyed.empty());
	EXPECT_EQ(cache.release(id).error(), -ENOENT);
	EXPECT_EQ(cache.size(), 0u);
	uint32_t again = *cache.acquire(d0, d1, 10, 11);
	EXPECT_NE(again, id);
}
