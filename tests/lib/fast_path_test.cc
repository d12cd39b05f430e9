// SPDX-License-Identifier: MIT
#include "fast_path.h"

#include <gtest/gtest.h>

#include "channel_cache.h"
#include "registration_cache.h"

using namespace hlthunk;

namespace {
const DeviceKey d3{1, 3}, d4{1, 4};
}

TEST(FastPath, RemembersRegionsAndSubRangesPerDeviceAndAccess)
{
	FastPath f;
	f.sync(1, 1);
	uint64_t c, o;
	EXPECT_FALSE(f.find(d3, 0x1000, 8, false, &c, &o));
	f.add(d3, 0x1000, 0x1000, false, 77);
	ASSERT_TRUE(f.find(d3, 0x1800, 8, false, &c, &o));
	EXPECT_EQ(c, 77u);
	EXPECT_EQ(o, 0x800u);
	EXPECT_FALSE(f.find(d3, 0x1800, 8, true, &c, &o));   // read-only one
	EXPECT_FALSE(f.find(d4, 0x1800, 8, false, &c, &o));  // other device
	EXPECT_FALSE(f.find(d3, 0x1ff8, 9, false, &c, &o));  // past the end
	EXPECT_FALSE(f.find(d3, 0x2000, 1, false, &c, &o));  // after
	EXPECT_FALSE(f.find(d3, 0xfff, 1, false, &c, &o));   // before
	EXPECT_FALSE(f.find(d3, 0x1800, UINT64_MAX, false, &c, &o));
	f.add(d3, 0x1000, 0x1000, true, 78);
	ASSERT_TRUE(f.find(d3, 0x1800, 8, true, &c, &o));
	EXPECT_EQ(c, 78u);
}

TEST(FastPath, KeepsTheLastFewAndForgetsOnGenerationChange)
{
	FastPath f;
	f.sync(1, 1);
	for (int i = 0; i < 5; i++)
		f.add(d3, 0x10000 * (i + 1), 0x1000, true, i);
	uint64_t c, o;
	KernelChannel kc, *kid;
	DeviceKey s, d;
	EXPECT_FALSE(f.find(d3, 0x10000, 1, false, &c, &o));  // evicted, oldest
	EXPECT_TRUE(f.find(d3, 0x50000, 1, false, &c, &o));
	f.set_channel(9, 3, 4, &kc, d3, d4);
	ASSERT_TRUE(f.channel(9, 3, 4, &kid, &s, &d));
	EXPECT_EQ(kid, &kc);
	EXPECT_EQ(s, d3);
	EXPECT_EQ(d, d4);
	EXPECT_FALSE(f.channel(9, 4, 3, &kid, &s, &d));
	EXPECT_FALSE(f.channel(8, 3, 4, &kid, &s, &d));
	f.sync(1, 1);  // unchanged: kept
	EXPECT_TRUE(f.channel(9, 3, 4, &kid, &s, &d));
	f.sync(2, 1);
	EXPECT_FALSE(f.channel(9, 3, 4, &kid, &s, &d));
	EXPECT_FALSE(f.find(d3, 0x50000, 1, false, &c, &o));
	f.set_channel(9, 3, 4, &kc, d3, d4);
	f.sync(2, 2);
	EXPECT_FALSE(f.channel(9, 3, 4, &kid, &s, &d));
}

TEST(FastPath, CacheGenerationsMoveOnEveryChange)
{
	RegistrationCache regs(
		[](const MappingDesc &, int, Access) -> Result<uint64_t> { return 1u; },
		[](uint64_t) {}, [](int, const FileId &) { return 0; });
	FileId f{1, 2, 3};
	uint64_t g = regs.generation();
	ASSERT_TRUE(regs.add({d3, 0x1000, 0x1000, MappingKind::Device, 1, 0, 0, 5, f}).ok());
	EXPECT_NE(regs.generation(), g);  // a new mapping may replace a stale one
	g = regs.generation();
	regs.remove_mapping(d3, 0x1000);
	EXPECT_NE(regs.generation(), g);
	g = regs.generation();
	ASSERT_TRUE(regs.add({d3, 0x1000, 0x1000, MappingKind::Device, 1, 0, 0, 5, f}).ok());
	g = regs.generation();
	regs.remove_handle(d3, 1);
	EXPECT_NE(regs.generation(), g);
	g = regs.generation();
	regs.remove_context(d4);  // even without mappings: a device was opened
	EXPECT_NE(regs.generation(), g);
	g = regs.generation();
	regs.remove_origin(9, f);  // an fd closed: its number may be reused
	EXPECT_NE(regs.generation(), g);

	ChannelCache ch([](int, int) -> Result<uint32_t> { return 5u; },
			[](uint32_t) -> Result<void> { return {}; });
	g = ch.generation();
	uint32_t a = *ch.acquire({1, 0}, {1, 1}, 3, 4);
	uint32_t b = *ch.acquire({1, 0}, {1, 1}, 3, 4);
	EXPECT_EQ(ch.generation(), g);
	ASSERT_TRUE(ch.release(a).ok());
	EXPECT_NE(ch.generation(), g);  // an id ended, even if its channel lives
	g = ch.generation();
	ASSERT_TRUE(ch.release(b).ok());
	EXPECT_NE(ch.generation(), g);
}
