// SPDX-License-Identifier: MIT
#include "registration_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace hlthunk;

namespace {

// Counts what the cache asks of its registrar; cookies are 100, 101, ...
struct Counter {
	std::atomic<int> registered{0};
	std::mutex mu;
	std::multiset<uint64_t> deregistered;
	int fail_with = 0;

	RegistrationCache make()
	{
		return RegistrationCache(
			[this](const MappingDesc &) -> Result<Registration> {
				if (fail_with)
					return Err{fail_with};
				Registration r;
				r.cookie = 100 + registered++;
				return r;
			},
			[this](uint64_t c) {
				std::lock_guard<std::mutex> l(mu);
				deregistered.insert(c);
			});
	}
};

MappingDesc dev(int fd, uint64_t va, uint64_t size, uint64_t handle)
{
	return MappingDesc{fd, va, size, MappingKind::Device, handle, 0, 0};
}

}  // namespace

TEST(RegistrationCache, RegistersEachMappingOnceForAllSubRanges)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x4000, 7)).ok());

	auto a = cache.resolve(3, 0x10000, 0x4000);
	auto b = cache.resolve(3, 0x12000, 8);
	auto d = cache.resolve(3, 0x13ff8, 8);
	ASSERT_TRUE(a.ok() && b.ok() && d.ok());
	EXPECT_EQ(c.registered, 1);
	EXPECT_EQ(a->cookie, 100u);
	EXPECT_EQ(b->cookie, 100u);
	EXPECT_EQ(b->offset, 0x2000u);
	EXPECT_EQ(d->offset, 0x3ff8u);
}

TEST(RegistrationCache, MappingsArePerFd)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	// The same VA in another device's address space is another mapping.
	ASSERT_TRUE(cache.add(dev(4, 0x10000, 0x1000, 1)).ok());
	EXPECT_EQ(cache.add(dev(3, 0x10800, 0x1000, 2)).error(), -EEXIST);
	auto a = cache.resolve(3, 0x10000, 1);
	auto b = cache.resolve(4, 0x10000, 1);
	ASSERT_TRUE(a.ok() && b.ok());
	EXPECT_NE(a->cookie, b->cookie);
	EXPECT_EQ(cache.resolve(5, 0x10000, 1).error(), -EFAULT);
}

TEST(RegistrationCache, BadRangesFailWithoutRegistering)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	EXPECT_EQ(cache.resolve(3, 0x20000, 8).error(), -EFAULT);
	EXPECT_EQ(cache.resolve(3, 0x10ff8, 9).error(), -ERANGE);
	EXPECT_EQ(c.registered, 0);
}

TEST(RegistrationCache, UnmapInvalidatesAndDeregisters)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	ASSERT_TRUE(cache.resolve(3, 0x10000, 8).ok());
	EXPECT_EQ(cache.remove_mapping(3, 0x10000), 1u);
	EXPECT_EQ(c.deregistered.count(100), 1u);
	EXPECT_EQ(cache.resolve(3, 0x10000, 8).error(), -EFAULT);
	EXPECT_EQ(cache.remove_mapping(3, 0x10000), 0u);
	// A new mapping at the same VA is registered afresh.
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 2)).ok());
	auto r = cache.resolve(3, 0x10000, 8);
	ASSERT_TRUE(r.ok());
	EXPECT_EQ(r->cookie, 101u);
}

TEST(RegistrationCache, InFlightUserKeepsRegistrationAlive)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	auto held = cache.resolve(3, 0x10000, 8);
	ASSERT_TRUE(held.ok());
	cache.remove_mapping(3, 0x10000);
	EXPECT_TRUE(c.deregistered.empty());  // a copy still uses it
	held = Err{-1};
	EXPECT_EQ(c.deregistered.count(100), 1u);
}

TEST(RegistrationCache, FreeDropsEveryMappingOfTheHandle)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 7)).ok());
	ASSERT_TRUE(cache.add(dev(3, 0x20000, 0x1000, 7)).ok());
	ASSERT_TRUE(cache.add(dev(3, 0x30000, 0x1000, 8)).ok());
	ASSERT_TRUE(cache.resolve(3, 0x10000, 1).ok());
	EXPECT_EQ(cache.remove_handle(3, 7), 2u);
	EXPECT_EQ(c.deregistered.size(), 1u);  // only the registered one
	EXPECT_EQ(cache.resolve(3, 0x20000, 1).error(), -EFAULT);
	EXPECT_TRUE(cache.resolve(3, 0x30000, 1).ok());
	EXPECT_EQ(cache.remove_fd(3), 1u);
	EXPECT_EQ(cache.size(), 0u);
	EXPECT_EQ(c.deregistered.size(), 2u);
}

TEST(RegistrationCache, ImportedRegionsUseThePeerCookieAndAreNotDeregistered)
{
	Counter c;
	auto cache = c.make();
	MappingDesc imp{3, 0x7000000000000000, 0x1000, MappingKind::Imported,
			0, 0, 0xabcdef};
	ASSERT_TRUE(cache.add(imp).ok());
	auto r = cache.resolve(3, 0x7000000000000010, 8);
	ASSERT_TRUE(r.ok());
	EXPECT_EQ(r->cookie, 0xabcdefu);
	EXPECT_EQ(r->offset, 0x10u);
	EXPECT_EQ(c.registered, 0);
	cache.remove_mapping(3, imp.va);
	r = Err{-1};
	EXPECT_TRUE(c.deregistered.empty());
}

TEST(RegistrationCache, FailedRegistrationIsRetriedNextTime)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	c.fail_with = -EOPNOTSUPP;
	EXPECT_EQ(cache.resolve(3, 0x10000, 1).error(), -EOPNOTSUPP);
	c.fail_with = 0;
	EXPECT_TRUE(cache.resolve(3, 0x10000, 1).ok());
	EXPECT_EQ(c.registered, 1);
}

TEST(RegistrationCache, ResetAfterForkKeepsMappingsButReregisters)
{
	Counter c;
	auto cache = c.make();
	ASSERT_TRUE(cache.add(dev(3, 0x10000, 0x1000, 1)).ok());
	ASSERT_TRUE(cache.resolve(3, 0x10000, 1).ok());
	cache.reset_after_fork();
	EXPECT_EQ(cache.size(), 1u);
	EXPECT_TRUE(c.deregistered.empty());  // the parent's to end
	auto r = cache.resolve(3, 0x10000, 1);
	ASSERT_TRUE(r.ok());
	EXPECT_EQ(r->cookie, 101u);  // registered again in the child
	EXPECT_EQ(c.registered, 2);
}

TEST(RegistrationCache, ConcurrentFirstUseRegistersOnce)
{
	Counter c;
	auto cache = c.make();
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(cache.add(dev(3, 0x100000 * (i + 1), 0x1000, i)).ok());
	std::vector<std::thread> ts;
	std::atomic<int> bad{0};
	for (int t = 0; t < 8; t++)
		ts.emplace_back([&] {
			for (int n = 0; n < 2000; n++) {
				uint64_t va = 0x100000 * (n % 8 + 1) + (n % 512);
				if (!cache.resolve(3, va, 8).ok())
					bad++;
			}
		});
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(c.registered, 8);
}
