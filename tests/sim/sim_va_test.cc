// SPDX-License-Identifier: GPL-2.0
// The device VA space of an open: where MAP places a mapping (first fit,
// freed space reused, neighbours touching, hints and their alignment)
// and that placing and finding one does not cost more with more mappings.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;

class SimVa : public ::testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
	}
	void TearDown() override
	{
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
};

}  // namespace

TEST_F(SimVa, FirstFitReusesFreedSpaceNeighboursTouch)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h1, h2, a, b, c, x, y;
	ASSERT_EQ(d.alloc(kPage, &h1), 0);
	ASSERT_EQ(d.alloc(2 * kPage, &h2), 0);
	ASSERT_EQ(d.map(h1, &a), 0);
	ASSERT_EQ(d.map(h1, &b), 0);
	ASSERT_EQ(d.map(h1, &c), 0);
	EXPECT_EQ(b, a + kPage) << "neighbours touch, as the driver's VA blocks";
	EXPECT_EQ(c, b + kPage);

	// A freed place is taken again first.
	ASSERT_EQ(d.unmap(b), 0);
	ASSERT_EQ(d.map(h1, &x), 0);
	EXPECT_EQ(x, b);
	// Two freed neighbours merge: a two-page mapping fits where they were.
	ASSERT_EQ(d.unmap(a), 0);
	ASSERT_EQ(d.unmap(x), 0);
	ASSERT_EQ(d.map(h2, &y), 0);
	EXPECT_EQ(y, a);
	// The last mapping freed gives its place back to the untouched end.
	ASSERT_EQ(d.unmap(c), 0);
	ASSERT_EQ(d.map(h1, &x), 0);
	EXPECT_EQ(x, y + 2 * kPage);

	// Hints: used when free and aligned, advice otherwise, an error when
	// forced; a free range right beside a mapping is free (the driver's
	// get_va_block() keeps no gap).
	uint64_t far = a + 1024 * kPage, z;
	ASSERT_EQ(d.map(h1, &z, far), 0);
	EXPECT_EQ(z, far);
	uint64_t w, v, u, t;
	ASSERT_EQ(d.map(h1, &w, far + 2 * kPage, HL_MEM_FORCE_HINT), 0);
	EXPECT_EQ(w, far + 2 * kPage);
	ASSERT_EQ(d.map(h1, &v, far), 0) << "z's place: advice only";
	EXPECT_NE(v, far);
	EXPECT_EQ(d.map(h1, &v, far, HL_MEM_FORCE_HINT), -EINVAL) << "taken by z";
	EXPECT_EQ(d.map(h2, &u, far - kPage, HL_MEM_FORCE_HINT), -EINVAL)
		<< "ends in z";
	EXPECT_EQ(d.map(h2, &u, far + kPage, HL_MEM_FORCE_HINT), -EINVAL)
		<< "ends in w";
	ASSERT_EQ(d.map(h1, &u, far - kPage, HL_MEM_FORCE_HINT), 0)
		<< "right below z";
	EXPECT_EQ(u, far - kPage);
	// The one page between z and w, as hl-thunk's
	// test_pdma_cache_lines_inconsistency maps it.
	ASSERT_EQ(d.map(h1, &t, far + kPage, HL_MEM_FORCE_HINT), 0)
		<< "the hole between two mappings";
	EXPECT_EQ(t, far + kPage);

	// Large pages are aligned to their size.
	uint64_t big, bva;
	ASSERT_EQ(d.alloc(2 << 20, &big, 2 << 20), 0);
	ASSERT_EQ(d.map(big, &bva), 0);
	EXPECT_EQ(bva % (2 << 20), 0u);
	d.close_fd();
}

// Per-call cost of MAP and UNMAP (placing a mapping, finding one by its
// address) with 1024 and with 16384 mappings, on two devices measured in
// alternating rounds, so that a busy host slows both alike: a walk of the
// mappings makes the larger ~16 times slower.
TEST_F(SimVa, CostDoesNotGrowWithTheNumberOfMappings)
{
	Dev few_dev(0), many_dev(1);
	ASSERT_GE(few_dev.fd(), 0);
	ASSERT_GE(many_dev.fd(), 0);
	Dev *devs[2] = {&few_dev, &many_dev};
	const size_t counts[2] = {1024, 16384};
	uint64_t h[2];
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(devs[i]->alloc(kPage, &h[i]), 0);
		for (size_t n = 0; n < counts[i]; n++) {
			uint64_t va;
			ASSERT_EQ(devs[i]->map(h[i], &va), 0) << n << " mappings";
		}
	}
	// The best of five rounds of 256 map+unmap pairs each, in microseconds.
	double best[2] = {1e12, 1e12};
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 2; i++) {
			auto t0 = std::chrono::steady_clock::now();
			for (int k = 0; k < 256; k++) {
				uint64_t v;
				EXPECT_EQ(devs[i]->map(h[i], &v), 0);
				EXPECT_EQ(devs[i]->unmap(v), 0);
			}
			std::chrono::duration<double, std::micro> dt =
				std::chrono::steady_clock::now() - t0;
			best[i] = std::min(best[i], dt.count() / 256);
		}
	}
	printf("map+unmap: %.1f us with 1024 mappings, %.1f us with 16384 (x%.2f)\n",
	       best[0], best[1], best[1] / best[0]);
	EXPECT_LT(best[1], 2.5 * best[0]) << "the cost grows with the number of mappings";
	few_dev.close_fd();
	many_dev.close_fd();
}
