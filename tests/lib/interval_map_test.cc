// SPDX-License-Identifier: MIT
#include "interval_map.h"

#include <gtest/gtest.h>

using hlthunk::IntervalMap;

TEST(IntervalMap, FindsWholeAndSubRanges)
{
	IntervalMap<int> m;
	ASSERT_TRUE(m.insert(0x1000, 0x1000, 1).ok());
	ASSERT_TRUE(m.insert(0x4000, 0x100, 2).ok());

	auto h = m.find(0x1000, 0x1000);
	ASSERT_TRUE(h.ok());
	EXPECT_EQ(*h->value, 1);
	EXPECT_EQ(h->offset, 0u);

	h = m.find(0x1800, 8);
	ASSERT_TRUE(h.ok());
	EXPECT_EQ(h->start, 0x1000u);
	EXPECT_EQ(h->offset, 0x800u);

	h = m.find(0x1fff, 1);  // last byte
	ASSERT_TRUE(h.ok());
	EXPECT_EQ(h->offset, 0xfffu);

	h = m.find(0x40ff, 1);
	ASSERT_TRUE(h.ok());
	EXPECT_EQ(*h->value, 2);
}

TEST(IntervalMap, UnmappedAddressesAreEfault)
{
	IntervalMap<int> m;
	EXPECT_EQ(m.find(0, 1).error(), -EFAULT);  // empty map
	ASSERT_TRUE(m.insert(0x1000, 0x1000, 1).ok());
	EXPECT_EQ(m.find(0xfff, 1).error(), -EFAULT);   // just below
	EXPECT_EQ(m.find(0x2000, 1).error(), -EFAULT);  // one past the end
	EXPECT_EQ(m.find(0x0, 1).error(), -EFAULT);
	EXPECT_EQ(m.find(UINT64_MAX, 1).error(), -EFAULT);
}

TEST(IntervalMap, LengthPastTheEndIsErange)
{
	IntervalMap<int> m;
	ASSERT_TRUE(m.insert(0x1000, 0x1000, 1).ok());
	EXPECT_EQ(m.find(0x1000, 0x1001).error(), -ERANGE);
	EXPECT_EQ(m.find(0x1fff, 2).error(), -ERANGE);
	// A length that would wrap the address space must not pass either.
	EXPECT_EQ(m.find(0x1800, UINT64_MAX).error(), -ERANGE);
}

TEST(IntervalMap, RejectsOverlapEmptyAndWrappingInserts)
{
	IntervalMap<int> m;
	ASSERT_TRUE(m.insert(0x1000, 0x1000, 1).ok());
	EXPECT_EQ(m.insert(0x1000, 0x1000, 2).error(), -EEXIST);
	EXPECT_EQ(m.insert(0x800, 0x801, 2).error(), -EEXIST);  // tail overlaps
	EXPECT_EQ(m.insert(0x1fff, 0x10, 2).error(), -EEXIST);  // head overlaps
	EXPECT_EQ(m.insert(0x1100, 0x10, 2).error(), -EEXIST);  // inside
	EXPECT_EQ(m.insert(0x0, 0x10000, 2).error(), -EEXIST);  // covers
	EXPECT_EQ(m.insert(0x5000, 0, 2).error(), -EINVAL);
	EXPECT_EQ(m.insert(UINT64_MAX - 4, 0x10, 2).error(), -EINVAL);
	// Touching neighbours are fine.
	EXPECT_TRUE(m.insert(0x800, 0x800, 3).ok());
	EXPECT_TRUE(m.insert(0x2000, 0x10, 4).ok());
	EXPECT_EQ(m.size(), 3u);
	EXPECT_EQ(*m.find(0x7ff + 0x800, 1)->value, 3);
}

TEST(IntervalMap, EraseInvalidates)
{
	IntervalMap<int> m;
	ASSERT_TRUE(m.insert(0x1000, 0x1000, 1).ok());
	ASSERT_TRUE(m.insert(0x3000, 0x1000, 2).ok());
	EXPECT_FALSE(m.erase(0x1800).has_value());  // only by start
	auto v = m.erase(0x1000);
	ASSERT_TRUE(v.has_value());
	EXPECT_EQ(*v, 1);
	EXPECT_EQ(m.find(0x1800, 1).error(), -EFAULT);
	EXPECT_TRUE(m.find(0x3000, 1).ok());
	EXPECT_EQ(m.erase_if([](int x) { return x == 2; }), 1u);
	EXPECT_TRUE(m.empty());
	// The space is free again.
	EXPECT_TRUE(m.insert(0x1000, 0x3000, 5).ok());
}
