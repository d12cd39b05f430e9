// SPDX-License-Identifier: GPL-2.0
// SRAM (module parameter sram_mb, 48 MiB by default as on Gaudi2):
// memory at Gaudi2's SRAM base that the queues reach without a mapping,
// as hl-thunk's dma_sram tests use it.  With sram_mb=0 the device reports
// none and the range is not memory.  vm-*.sim loads the module with the
// default and sets HL_SIM_REQUIRE_SRAM=1; vm-*.sim-no-sram loads it with
// sram_mb=0 and sets HL_SIM_REQUIRE_NO_SRAM=1, so that each fails if the
// device does not have what it was loaded with.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kSramBase = 0x1000FFFFFD000000ull;

uint64_t sram_size(Dev &d)
{
	hl_info_hw_ip_info hw;
	if (hw_ip_info(d.fd(), &hw))
		return ~0ull;
	if (hw.sram_size) {
		EXPECT_EQ(hw.sram_base_address, kSramBase);
	}
	return hw.sram_size;
}

class SimSram : public LeakCheckedTest {};

}  // namespace

// With sram_mb=0 the device reports no SRAM and the range is no memory.
TEST_F(SimSram, NoneWithSramMb0)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	if (sram_size(d)) {
		if (getenv("HL_SIM_REQUIRE_NO_SRAM"))
			FAIL() << "SRAM with sram_mb=0";
		GTEST_SKIP() << "this module was loaded with SRAM";
	}
	DevBuf a(d, 4096);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, kSramBase, a.va, 64);
	EXPECT_EQ(d.run(w), -EFAULT);
	EXPECT_EQ(a.release(), 0);
}

// Copies to and from SRAM, its ends, a MSG_LONG into it, a CB that runs
// from it, and that its contents outlive the open that wrote them.
TEST_F(SimSram, QueuesReachItWithoutAMapping)
{
	uint64_t size;
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		size = sram_size(d);
	}
	if (!size) {
		if (getenv("HL_SIM_REQUIRE_SRAM"))
			FAIL() << "no SRAM: the module's default is 48 MiB";
		GTEST_SKIP() << "the module was loaded with sram_mb=0";
	}
	EXPECT_EQ(size, 48ull << 20);
	constexpr uint32_t kLen = 1 << 20;
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		DevBuf a(d, 2 * kLen);
		ASSERT_TRUE(a.ok());
		fill_pattern(a.data(), kLen, 31);
		const uint64_t last = kSramBase + size - kLen;
		std::vector<uint32_t> w;
		put_lin_dma(w, last, a.va, kLen);		// into its last MiB
		put_lin_dma(w, a.va + kLen, last, kLen);	// and back
		put_msg_long(w, kSramBase + 8, 0xfeed);
		ASSERT_EQ(d.run(w), 0);
		EXPECT_EQ(check_pattern(a.data() + kLen, kLen, 31), -1);

		w.clear();
		put_lin_dma(w, last + 8, a.va, kLen);		// past its end
		EXPECT_EQ(d.run(w), -EFAULT);
		w.clear();
		put_lin_dma(w, kSramBase - 8, a.va, 64);	// before its start
		EXPECT_EQ(d.run(w), -EFAULT);

		// A CB in SRAM, on an EDMA queue: copy it there, then run it.
		std::vector<uint32_t> cb;
		put_msg_long(cb, kSramBase + 16, 0xcafe);
		memcpy(a.data(), cb.data(), cb.size() * 4);
		w.clear();
		put_lin_dma(w, kSramBase + 4096 + 8, a.va, static_cast<uint32_t>(cb.size() * 4));
		ASSERT_EQ(d.run(w), 0);
		uint64_t seq;
		uint32_t st = ~0u;
		ASSERT_EQ(d.cs_one(kSramBase + 4096 + 8, static_cast<uint32_t>(cb.size() * 4),
				   &seq, GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0), 0);
		ASSERT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), 0);
		EXPECT_EQ(a.release(), 0);
	}
	// A later open reads what the earlier one left.
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf b(d, 4096);
	ASSERT_TRUE(b.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, b.va, kSramBase, 24);
	ASSERT_EQ(d.run(w), 0);
	uint32_t words[6];
	memcpy(words, b.data(), sizeof(words));
	EXPECT_EQ(words[2], 0xfeedu);
	EXPECT_EQ(words[4], 0xcafeu) << "the CB in SRAM ran";
	EXPECT_EQ(b.release(), 0);
}
