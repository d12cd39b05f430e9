// SPDX-License-Identifier: MIT
#include "alloc_span.h"

#include <gtest/gtest.h>

using namespace hlthunk;

// How far the driver maps an allocation: rounded to the page size the
// driver uses, which is the caller's only where the device accepts user
// page sizes (it reports some), else the device default.
TEST(AllocationSpan, RoundsToThePageSizeTheDriverUses)
{
	const uint64_t orders = (1u << 12) | (1u << 16) | (1u << 21);
	EXPECT_EQ(*allocation_span(5000, 0, 4096, orders), 8192u);
	EXPECT_EQ(*allocation_span(5000, 65536, 4096, orders), 65536u);
	EXPECT_EQ(*allocation_span(65536, 65536, 4096, orders), 65536u);
	EXPECT_EQ(*allocation_span(65537, 65536, 4096, orders), 131072u);
	// A device without user page sizes (no orders reported) ignores the
	// one asked and rounds to its default, here 2 MiB pages.
	EXPECT_EQ(*allocation_span(5000, 4096, 2u << 20, 0), 2u << 20);
	EXPECT_EQ(*allocation_span(5000, 0, 2u << 20, 0), 2u << 20);
	// Sizes that cannot be mapped: no span, not a wrapped small one.
	EXPECT_FALSE(allocation_span(UINT64_MAX - 10, 0, 4096, orders));
	EXPECT_FALSE(allocation_span(1, 0, 0, 0));
	EXPECT_EQ(*allocation_span(0, 0, 4096, orders), 0u);
}
