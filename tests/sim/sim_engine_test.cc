// SPDX-License-Identifier: GPL-2.0
// When the DMA engine runs a CS: a small CS on an idle engine runs in the
// submit ioctl (complete when it returns), anything else on the device's
// workqueue, and either way CSs run one at a time in submission order.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;
constexpr unsigned long kInlineDefault = 4ul << 20;

class SimEngine : public ::testing::Test {
protected:
	void SetUp() override
	{
		set_cs_delay_ms(0);
		set_sim_param("cs_inline_bytes", kInlineDefault);
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
		ASSERT_GE(sim_event("cs_inline"), 0) << "no cs_inline in debugfs events";
	}
	void TearDown() override
	{
		set_cs_delay_ms(0);
		set_sim_param("cs_inline_bytes", kInlineDefault);
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
};

// Submits one CS of the words; its CB is unmapped once submitted.
int submit(Dev &d, const std::vector<uint32_t> &w, uint64_t *seq)
{
	uint64_t cb;
	int rc = d.cb_with(w, &cb);
	if (rc)
		return rc;
	rc = d.cs_one(cb, w.size() * 4, seq);
	d.cb_free(cb);
	return rc;
}

uint32_t poll_status(Dev &d, uint64_t seq)
{
	uint32_t st = 0;
	EXPECT_EQ(d.wait(seq, 0, &st), 0);
	return st;
}

}  // namespace

TEST_F(SimEngine, SmallCsOnIdleEngineIsDoneAtSubmit)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, 4 * kPage), b(d, 4 * kPage);
	ASSERT_TRUE(a.ok() && b.ok());
	fill_pattern(a.data(), 4 * kPage, 21);

	// Exactly the limit: run by the submitter, complete at return.
	set_sim_param("cs_inline_bytes", 2 * kPage);
	std::vector<uint32_t> w;
	put_lin_dma(w, b.va, a.va, kPage);
	put_lin_dma(w, b.va + kPage, a.va + kPage, kPage);
	long before = sim_event("cs_inline");
	uint64_t seq;
	ASSERT_EQ(submit(d, w, &seq), 0);
	EXPECT_EQ(sim_event("cs_inline"), before + 1);
	EXPECT_EQ(poll_status(d, seq), (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(check_pattern(b.data(), 2 * kPage, 21), -1);

	// One byte over the limit: queued, and still done right.
	set_sim_param("cs_inline_bytes", 2 * kPage - 1);
	w.clear();
	put_lin_dma(w, b.va + 2 * kPage, a.va + 2 * kPage, 2 * kPage);
	before = sim_event("cs_inline");
	ASSERT_EQ(submit(d, w, &seq), 0);
	uint32_t st = 0;
	ASSERT_EQ(d.wait(seq, 10 * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(sim_event("cs_inline"), before);
	EXPECT_EQ(check_pattern(b.data(), 4 * kPage, 21), -1);

	// 0 turns it off; an injected delay does too.
	for (int off = 0; off < 2; off++) {
		set_sim_param("cs_inline_bytes", off ? kInlineDefault : 0);
		set_cs_delay_ms(off ? 200 : 0);
		memset(b.data(), 0, 4 * kPage);
		w.clear();
		put_lin_dma(w, b.va, a.va, 8);
		before = sim_event("cs_inline");
		ASSERT_EQ(submit(d, w, &seq), 0);
		ASSERT_EQ(d.wait(seq, 10 * 1000 * 1000, &st), 0);
		EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
		EXPECT_EQ(sim_event("cs_inline"), before) << "case " << off;
		EXPECT_EQ(memcmp(a.data(), b.data(), 8), 0);
	}
}

// A small CS behind a large one waits for it, even though the small one
// alone would run in the submit ioctl: the later copy's bytes win.
TEST_F(SimEngine, SmallCsBehindLargeOneKeepsOrder)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	const uint64_t n = std::min<uint64_t>(16ull << 20, memory_size(0) / 4);
	DevBuf big(d, n), dst(d, n), small(d, kPage);
	ASSERT_TRUE(big.ok() && dst.ok() && small.ok());
	fill_pattern(big.data(), n, 31);
	fill_pattern(small.data(), kPage, 32);

	int overtaken = 0, raced = 0;
	for (int round = 0; round < 5; round++) {
		memset(dst.data(), 0, kPage);
		std::vector<uint32_t> wl, ws;
		// Twice over, so the large CS is still running when the small one
		// comes, on a fast host too.
		put_lin_dma(wl, dst.va, big.va, static_cast<uint32_t>(n));
		put_lin_dma(wl, dst.va, big.va, static_cast<uint32_t>(n));
		put_lin_dma(ws, dst.va, small.va, kPage);
		uint64_t seq_l, seq_s;
		ASSERT_EQ(submit(d, wl, &seq_l), 0);
		ASSERT_EQ(submit(d, ws, &seq_s), 0);
		// Small first: done while the large one is not is out of order.
		uint32_t st_s = poll_status(d, seq_s), st_l = poll_status(d, seq_l);
		if (st_s == HL_WAIT_CS_STATUS_COMPLETED && st_l == HL_WAIT_CS_STATUS_BUSY)
			overtaken++;
		if (st_l == HL_WAIT_CS_STATUS_COMPLETED)
			raced++;  // the large one was over already: nothing shown
		uint32_t st = 0;
		ASSERT_EQ(d.wait(seq_s, 30 * 1000 * 1000, &st), 0);
		ASSERT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
		ASSERT_EQ(d.wait(seq_l, 30 * 1000 * 1000, &st), 0);
		EXPECT_EQ(check_pattern(dst.data(), kPage, 32), -1)
			<< "round " << round << ": the large CS ran after the small one";
	}
	EXPECT_EQ(overtaken, 0);
	EXPECT_LT(raced, 5) << "the large CS never outlasted a submission: the test shows nothing";
}
