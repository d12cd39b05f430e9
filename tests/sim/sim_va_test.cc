// SPDX-License-Identifier: GPL-2.0
// The device VA space of an open: where MAP places a mapping (first fit,
// freed space reused, a guard page after each, hints and their alignment)
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

TEST_F(SimVa, FirstFitReusesFreedSpaceWithGuardPages)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h1, h2, a, b, c, x, y;
	ASSERT_EQ(d.alloc(kPage, &h1), 0);
	ASSERT_EQ(d.alloc(2 * kPage, &h2), 0);
	ASSERT_EQ(d.map(h1, &a), 0);
	ASSERT_EQ(d.map(h1, &b), 0);
	ASSERT_EQ(d.map(h1, &c), 0);
	EXPECT_EQ(b, a + 2 * kPage) << "one guard page between neighbours";
	EXPECT_EQ(c, b + 2 * kPage);

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
	EXPECT_EQ(x, y + 3 * kPage);

	// Hints: used when free and aligned, advice otherwise, an error when
	// forced.
	uint64_t far = a + 1024 * kPage, z;
	ASSERT_EQ(d.map(h1, &z, far), 0);
	EXPECT_EQ(z, far);
	uint64_t w;
	ASSERT_EQ(d.map(h1, &w, far + kPage), 0) << "z's guard page: advice only";
	EXPECT_NE(w, far + kPage);
	EXPECT_EQ(d.map(h1, &w, far + kPage, HL_MEM_FORCE_HINT), -EINVAL);
	EXPECT_EQ(d.map(h1, &w, far - kPage, HL_MEM_FORCE_HINT), -EINVAL)
		<< "ends in z";
	ASSERT_EQ(d.map(h1, &w, far - 2 * kPage, HL_MEM_FORCE_HINT), 0)
		<< "just room for it and its guard";
	EXPECT_EQ(w, far - 2 * kPage);

	// Large pages are aligned to their size.
	uint64_t big, bva;
	ASSERT_EQ(d.alloc(2 << 20, &big, 2 << 20), 0);
	ASSERT_EQ(d.map(big, &bva), 0);
	EXPECT_EQ(bva % (2 << 20), 0u);
	d.close_fd();
}

// Per-call cost of MAP and UNMAP (placing a mapping, finding one by its
// address) with 1024 and with 16384 mappings, measured side by side in
// one run: a walk of the mappings makes it grow with their number.
TEST_F(SimVa, CostDoesNotGrowWithTheNumberOfMappings)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va = 0;
	ASSERT_EQ(d.alloc(kPage, &h), 0);
	std::vector<uint64_t> vas;
	auto map_n = [&](size_t n) {
		while (vas.size() < n) {
			ASSERT_EQ(d.map(h, &va), 0) << vas.size() << " mappings";
			vas.push_back(va);
		}
	};
	// The best of three rounds of 256 map+unmap pairs, in microseconds.
	auto per_call = [&] {
		double best = 1e12;
		for (int round = 0; round < 3; round++) {
			auto t0 = std::chrono::steady_clock::now();
			for (int i = 0; i < 256; i++) {
				uint64_t v;
				EXPECT_EQ(d.map(h, &v), 0);
				EXPECT_EQ(d.unmap(v), 0);
			}
			std::chrono::duration<double, std::micro> dt =
				std::chrono::steady_clock::now() - t0;
			best = std::min(best, dt.count() / 256);
		}
		return best;
	};
	map_n(1024);
	double few = per_call();
	map_n(16384);
	double many = per_call();
	printf("map+unmap: %.1f us with 1024 mappings, %.1f us with 16384 (x%.2f)\n",
	       few, many, many / few);
	EXPECT_LT(many, 2.5 * few) << "the cost grows with the number of mappings";
	d.close_fd();
}
