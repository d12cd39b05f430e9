// SPDX-License-Identifier: GPL-2.0
// Data integrity: every pairing of the region kinds available in this
// guest, sizes from 1 byte to 64 MiB, aligned and unaligned offsets and
// lengths, verified byte for byte on both sides of the copied range.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "ipc_util.h"

using namespace hlipc;

namespace {

struct Pair {
	Kind src, dst;
};

std::string pair_name(const testing::TestParamInfo<Pair> &p)
{
	return std::string(kind_name(p.param.src)) + "_to_" + kind_name(p.param.dst);
}

std::vector<Pair> all_pairs()
{
	std::vector<Pair> v;
	for (Kind s : {Kind::User, Kind::Vgem, Kind::Udmabuf, Kind::Sim})
		for (Kind d : {Kind::User, Kind::Vgem, Kind::Udmabuf, Kind::Sim})
			v.push_back({s, d});
	return v;
}

class DataTest : public testing::TestWithParam<Pair> {
protected:
	void SetUp() override
	{
		if (!kind_available(GetParam().src) || !kind_available(GetParam().dst))
			GTEST_SKIP() << "region kind not available in this kernel";
		ctx = open_ipc();
		ASSERT_GE(ctx, 0);
		ASSERT_EQ(chan_create(ctx, &ch), 0);
	}
	void TearDown() override
	{
		if (ctx >= 0)
			close(ctx);
	}

	// Copy len bytes from soff to doff between fresh buffers of size
	// bufsize and check the copied range and the bytes around it.
	void run(size_t bufsize, uint64_t soff, uint64_t doff, uint64_t len, uint32_t seed)
	{
		Buffer s, d;
		ASSERT_EQ(alloc(GetParam().src, bufsize, &s), 0);
		ASSERT_EQ(alloc(GetParam().dst, bufsize, &d), 0);
		fill(s.ptr, s.size, seed);
		fill(d.ptr, d.size, seed + 1);
		ASSERT_EQ(reg(ctx, &s, HL_IPC_REGION_READ), 0);
		ASSERT_EQ(reg(ctx, &d), 0);
		uint64_t seq = 0;
		ASSERT_EQ(copy(ctx, ch, s.cookie, soff, d.cookie, doff, len, 0, &seq), 0)
			<< "size " << len;
		EXPECT_GT(seq, 0u);
		// Source untouched, destination = source range, rest untouched.
		EXPECT_EQ(check(s.ptr, s.size, seed), -1);
		EXPECT_EQ(memcmp(d.ptr + doff, s.ptr + soff, len), 0) << "size " << len;
		EXPECT_EQ(check_range(d.ptr, 0, doff, seed + 1), -1);
		EXPECT_EQ(check_range(d.ptr, doff + len, d.size, seed + 1), -1);
		EXPECT_EQ(dereg(ctx, s.cookie), 0);
		EXPECT_EQ(dereg(ctx, d.cookie), 0);
	}

	int ctx = -1;
	uint32_t ch = 0;
};

TEST_P(DataTest, Sizes)
{
	const size_t sizes[] = {1, 2, 3, 7, 8, 63, 64, 4095, 4096, 4097, 65536 + 13,
				(1 << 20) - 1, (1 << 20) + 3, 4 << 20};
	uint32_t seed = 1;
	for (size_t n : sizes) {
		run(n, 0, 0, n, seed++);
		if (HasFatalFailure())
			return;
	}
}

TEST_P(DataTest, UnalignedOffsets)
{
	struct { uint64_t soff, doff, len; } cases[] = {
		{1, 0, 1}, {0, 1, 1}, {3, 5, 7}, {4095, 1, 2}, {1, 4095, 4098},
		{13, 4099, 65537}, {511, 7, (1 << 20) + 1}, {4096, 8192, 12288},
	};
	uint32_t seed = 100;
	for (auto &c : cases) {
		size_t bufsize = std::max(c.soff, c.doff) + c.len + 17;
		run(bufsize, c.soff, c.doff, c.len, seed++);
		if (HasFatalFailure())
			return;
	}
}

TEST_P(DataTest, Size64MiB)
{
	// Every pairing runs up to 4 MiB above; 64 MiB, which costs seconds
	// of pattern checking under TCG, runs on a cycle through the kinds
	// (user->vgem->udmabuf->sim->user and user->user), so that each kind
	// is a 64 MiB source and destination once.
	std::vector<Kind> k = available_kinds();
	bool on_cycle = GetParam().src == Kind::User && GetParam().dst == Kind::User;
	for (size_t i = 0; i < k.size(); i++)
		if (GetParam().src == k[i] && GetParam().dst == k[(i + 1) % k.size()])
			on_cycle = true;
	if (!on_cycle)
		GTEST_SKIP() << "64 MiB runs on the kind cycle only";
	// udmabuf's default size cap is 64 MiB.
	run(64u << 20, 0, 0, 64u << 20, 7);
}

INSTANTIATE_TEST_SUITE_P(Kinds, DataTest, testing::ValuesIn(all_pairs()), pair_name);

// Copies within one region: overlapping ranges move like memmove.
TEST(DataSameRegion, Overlap)
{
	int ctx = open_ipc();
	ASSERT_GE(ctx, 0);
	uint32_t ch;
	ASSERT_EQ(chan_create(ctx, &ch), 0);
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, 1 << 20, &b), 0);
	fill(b.ptr, b.size, 5);
	std::vector<uint8_t> ref(b.ptr, b.ptr + b.size);
	ASSERT_EQ(reg(ctx, &b), 0);
	ASSERT_EQ(copy(ctx, ch, b.cookie, 0, b.cookie, 1000, 500000), 0);
	memmove(ref.data() + 1000, ref.data(), 500000);
	EXPECT_EQ(memcmp(ref.data(), b.ptr, b.size), 0);
	ASSERT_EQ(copy(ctx, ch, b.cookie, 3000, b.cookie, 0, 700000), 0);
	memmove(ref.data(), ref.data() + 3000, 700000);
	EXPECT_EQ(memcmp(ref.data(), b.ptr, b.size), 0);
	close(ctx);
}

}  // namespace
