// SPDX-License-Identifier: MIT
#include "fast_path.h"

#include <gtest/gtest.h>

#include "channel_cache.h"
#include "registration_cache.h"

using namespace hlthunk;

TEST(FastPath, RemembersRegionsAndSubRanges)
{
	FastPath f;
	f.sync(1, 1);
	uint64_t c, o;
	EXPECT_FALSE(f.find(3, 0x1000, 8, &c, &o));
	f.add(3, 0x1000, 0x1000, 77);
	ASSERT_TRUE(f.find(3, 0x1800, 8, &c, &o));
	EXPECT_EQ(c, 77u);
	EXPECT_EQ(o, 0x800u);
	EXPECT_FALSE(f.find(4, 0x1800, 8, &c, &o));       // other fd
	EXPECT_FALSE(f.find(3, 0x1ff8, 9, &c, &o));       // past the end
	EXPECT_FALSE(f.find(3, 0x2000, 1, &c, &o));       // after
	EXPECT_FALSE(f.find(3, 0xfff, 1, &c, &o));        // before
	EXPECT_FALSE(f.find(3, 0x1800, UINT64_MAX, &c, &o));
}

TEST(FastPath, KeepsTheLastFewAndForgetsOnGenerationChange)
{
	FastPath f;
	f.sync(1, 1);
	for (int i = 0; i < 5; i++)
		f.add(3, 0x10000 * (i + 1), 0x1000, i);
	uint64_t c, o;
	EXPECT_FALSE(f.find(3, 0x10000, 1, &c, &o));  // evicted, oldest
	EXPECT_TRUE(f.find(3, 0x50000, 1, &c, &o));
	f.set_channel_ok(9, 3, 4);
	EXPECT_TRUE(f.channel_ok(9, 3, 4));
	EXPECT_FALSE(f.channel_ok(9, 4, 3));
	EXPECT_FALSE(f.channel_ok(8, 3, 4));
	f.sync(1, 1);  // unchanged: kept
	EXPECT_TRUE(f.channel_ok(9, 3, 4));
	f.sync(2, 1);
	EXPECT_FALSE(f.channel_ok(9, 3, 4));
	EXPECT_FALSE(f.find(3, 0x50000, 1, &c, &o));
	f.set_channel_ok(9, 3, 4);
	f.sync(2, 2);
	EXPECT_FALSE(f.channel_ok(9, 3, 4));
}

TEST(FastPath, CacheGenerationsMoveOnEveryRemoval)
{
	RegistrationCache regs([](const MappingDesc &) -> Result<Registration> {
		return Registration{};
	}, [](uint64_t) {});
	uint64_t g = regs.generation();
	ASSERT_TRUE(regs.add({3, 0x1000, 0x1000, MappingKind::Device, 1, 0, 0}).ok());
	EXPECT_EQ(regs.generation(), g);  // adding never invalidates
	regs.remove_mapping(3, 0x1000);
	EXPECT_NE(regs.generation(), g);
	g = regs.generation();
	ASSERT_TRUE(regs.add({3, 0x1000, 0x1000, MappingKind::Device, 1, 0, 0}).ok());
	regs.remove_handle(3, 1);
	EXPECT_NE(regs.generation(), g);
	g = regs.generation();
	regs.remove_fd(9);  // even an fd without mappings: it may be reused
	EXPECT_NE(regs.generation(), g);

	ChannelCache ch([](int, int) -> Result<uint32_t> { return 5u; },
			[](uint32_t) -> Result<void> { return {}; });
	g = ch.generation();
	ASSERT_TRUE(ch.acquire({1, 0}, {1, 1}, 3, 4).ok());
	ASSERT_TRUE(ch.acquire({1, 0}, {1, 1}, 3, 4).ok());
	EXPECT_EQ(ch.generation(), g);
	ASSERT_TRUE(ch.release(5).ok());
	EXPECT_EQ(ch.generation(), g);  // still referenced
	ASSERT_TRUE(ch.release(5).ok());
	EXPECT_NE(ch.generation(), g);
}
