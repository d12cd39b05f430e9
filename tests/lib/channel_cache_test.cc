// SPDX-License-Identifier: MIT
#include "channel_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace hlthunk;

namespace {

struct Kernel {
	std::atomic<uint32_t> next{1};
	std::atomic<int> created{0};
	std::vector<uint32_t> destroyed;
	int fail_create = 0;

	ChannelCache make()
	{
		return ChannelCache(
			[this](int, int) -> Result<uint32_t> {
				if (fail_create)
					return Err{fail_create};
				created++;
				return next++;
			},
			[this](uint32_t id) -> Result<void> {
				destroyed.push_back(id);
				return {};
			});
	}
};

const DeviceKey d0{1, 0}, d1{1, 1}, r0{0, 0};

}  // namespace

TEST(ChannelCache, OneChannelPerOrderedDevicePair)
{
	Kernel k;
	auto cache = k.make();
	auto a = cache.acquire(d0, d1, 10, 11);
	auto b = cache.acquire(d0, d1, 20, 21);  // other fds, same devices
	auto c = cache.acquire(d1, d0, 11, 10);  // other direction
	auto d = cache.acquire(r0, d1, 30, 11);  // real dev 0 is not sim dev 0
	ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
	EXPECT_EQ(*a, *b);
	EXPECT_NE(*a, *c);
	EXPECT_NE(*a, *d);
	EXPECT_EQ(k.created, 3);
	EXPECT_EQ(cache.refs(*a), 2);
}

TEST(ChannelCache, LastReleaseDestroysAndDoubleDestroyIsEnoent)
{
	Kernel k;
	auto cache = k.make();
	uint32_t id = *cache.acquire(d0, d1, 10, 11);
	ASSERT_TRUE(cache.acquire(d0, d1, 10, 11).ok());
	EXPECT_TRUE(cache.release(id).ok());
	EXPECT_TRUE(k.destroyed.empty());
	EXPECT_TRUE(cache.release(id).ok());
	EXPECT_EQ(k.destroyed, std::vector<uint32_t>{id});
	EXPECT_EQ(cache.release(id).error(), -ENOENT);
	EXPECT_EQ(cache.release(12345).error(), -ENOENT);
	EXPECT_FALSE(cache.contains(id));
	// The pair gets a fresh channel afterwards.
	auto again = cache.acquire(d0, d1, 10, 11);
	ASSERT_TRUE(again.ok());
	EXPECT_NE(*again, id);
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
}

TEST(ChannelCache, ThreadsShareOneChannel)
{
	Kernel k;
	auto cache = k.make();
	std::vector<std::thread> ts;
	std::mutex mu;
	std::set<uint32_t> ids;
	for (int t = 0; t < 16; t++)
		ts.emplace_back([&] {
			for (int n = 0; n < 200; n++) {
				auto id = cache.acquire(d0, d1, 10, 11);
				ASSERT_TRUE(id.ok());
				std::lock_guard<std::mutex> l(mu);
				ids.insert(*id);
			}
		});
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(ids.size(), 1u);
	EXPECT_EQ(k.created, 1);
	EXPECT_EQ(cache.refs(*ids.begin()), 16 * 200);
}

TEST(ChannelCache, ForgetAllDoesNotDestroy)
{
	Kernel k;
	auto cache = k.make();
	uint32_t id = *cache.acquire(d0, d1, 10, 11);
	cache.forget_all();
	EXPECT_TRUE(k.destroyed.empty());
	EXPECT_EQ(cache.release(id).error(), -ENOENT);
}
