// SPDX-License-Identifier: GPL-2.0
// The queue packets beyond LIN_DMA and the sync manager, as hl-thunk's
// Gaudi2 tests and the runtimes use them: MSG_LONG to memory and to the
// sync manager, MSG_SHORT to SOBs and monitors, monitors that write a
// completion word to host memory or raise a queue's fence, FENCE waiting
// for it, STOP; and the packets and addresses a queue may not use.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;
// User SOBs start at 413, monitors at 289: below are the driver's.
constexpr uint32_t kSob = 600;
constexpr uint32_t kMon = 400;
// In the host range of the device VA space, far from any mapping here.
constexpr uint64_t kUnmapped = 0x208000000000ull;

void put_fence(std::vector<uint32_t> &w, uint32_t id, uint32_t target,
	       uint32_t dec)
{
	w.push_back(dec | (target << GAUDI2_PKT_FENCE_CFG_TARGET_VAL_SHIFT) |
		    (id << GAUDI2_PKT_FENCE_CFG_ID_SHIFT));
	w.push_back(ctl(GAUDI2_PACKET_FENCE));
}

void put_stop(std::vector<uint32_t> &w)
{
	w.push_back(0);
	w.push_back(ctl(GAUDI2_PACKET_STOP));
}

// CB_LIST: run entry *index of the table (16-byte entries).
void put_cb_list(std::vector<uint32_t> &w, uint64_t index, uint64_t table,
		 uint32_t extra_ctl = 0)
{
	w.push_back(0);
	w.push_back(ctl(GAUDI2_PACKET_CB_LIST) | extra_ctl);
	w.push_back(static_cast<uint32_t>(index));
	w.push_back(static_cast<uint32_t>(index >> 32));
	w.push_back(static_cast<uint32_t>(table));
	w.push_back(static_cast<uint32_t>(table >> 32));
}

// A 16-byte packet: its first word, its control word and an address.
void put_addr_packet(std::vector<uint32_t> &w, uint32_t word, uint32_t ctl_word,
		     uint64_t addr)
{
	w.push_back(word);
	w.push_back(ctl_word);
	w.push_back(static_cast<uint32_t>(addr));
	w.push_back(static_cast<uint32_t>(addr >> 32));
}

// LOAD_AND_EXE of cfg from src, run if predicate pred is set.
void put_load_and_exe(std::vector<uint32_t> &w, uint64_t src, uint32_t cfg,
		      uint32_t pred = 0)
{
	put_addr_packet(w, cfg, ctl(GAUDI2_PACKET_LOAD_AND_EXE) | pred, src);
}

// CP_DMA of the size bytes of CB cb (to the lower CP unless extra_ctl
// asks for the upper).
void put_cp_dma(std::vector<uint32_t> &w, uint64_t cb, uint32_t size,
		uint32_t extra_ctl = 0)
{
	put_addr_packet(w, size, ctl(GAUDI2_PACKET_CP_DMA) | extra_ctl, cb);
}

// Host memory mapped into the device: 32-bit words the device writes.
struct HostWords {
	explicit HostWords(Dev &d) : d(d)
	{
		p = static_cast<volatile uint32_t *>(
			mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		if (p == MAP_FAILED) {
			p = nullptr;
			return;
		}
		memset(const_cast<uint32_t *>(p), 0, kPage);
		if (d.map_host(const_cast<uint32_t *>(p), kPage, &va))
			va = 0;
	}
	~HostWords()
	{
		if (va)
			d.unmap(va);
		if (p)
			munmap(const_cast<uint32_t *>(p), kPage);
	}
	bool ok() const { return p && va; }
	uint64_t at(unsigned i) const { return va + 4 * i; }
	Dev &d;
	volatile uint32_t *p = nullptr;
	uint64_t va = 0;
};

class SimSync : public LeakCheckedTest {};

// Submits the CBs as one CS, one chunk each, and waits.
int run_cs(Dev &d, const std::vector<std::pair<std::vector<uint32_t>, uint32_t>> &jobs,
	   uint32_t *status)
{
	std::vector<uint64_t> cbs;
	std::vector<hl_cs_chunk> chunks;
	int rc = 0;
	for (auto &j : jobs) {
		uint64_t va;
		rc = d.cb_with(j.first, &va);
		if (rc)
			break;
		cbs.push_back(va);
		chunks.push_back(user_chunk(va, static_cast<uint32_t>(j.first.size() * 4),
					    j.second));
	}
	uint64_t seq;
	if (!rc)
		rc = d.cs(chunks, &seq);
	if (!rc)
		rc = d.wait(seq, 30ull * 1000 * 1000, status);
	for (uint64_t va : cbs)
		d.cb_free(va);
	return rc;
}

}  // namespace

// MSG_LONG writes a word to host memory and to device memory mapped into
// the device; STOP ends the CB, so what follows it is neither run nor
// checked.
TEST_F(SimSync, MsgLongWritesMemoryAndStopEndsTheCb)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	DevBuf dram(d, kPage);
	ASSERT_TRUE(host.ok() && dram.ok());

	std::vector<uint32_t> w;
	put_msg_long(w, host.at(1), 0xbaba0ded);
	put_msg_long(w, dram.va + 8, 0x12345678);
	put_stop(w);
	put_msg_long(w, host.at(2), 0xdead);
	w.push_back(0);
	w.push_back(0x1f << GAUDI2_PKT_CTL_OPCODE_SHIFT);	// no such packet
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(host.p[1], 0xbaba0dedu);
	EXPECT_EQ(host.p[2], 0u) << "a packet after STOP ran";
	uint32_t v;
	memcpy(&v, dram.data() + 8, 4);
	EXPECT_EQ(v, 0x12345678u);
}

// A monitor armed on a SOB writes its payload to host memory once the
// SOB reaches its value, and not before; SOBs and monitors keep their
// state from one CS to the next; a fired monitor is disarmed.
TEST_F(SimSync, MonitorWritesHostMemoryWhenTheSobIsReached)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());

	std::vector<uint32_t> arm;
	put_sob(arm, kSob, 0, false);
	put_monitor(arm, kMon, host.at(0), 0xc0de, kSob, 2);
	put_sob(arm, kSob, 1, true);
	ASSERT_EQ(d.run(arm), 0);
	EXPECT_EQ(host.p[0], 0u) << "fired at 1 of 2";

	std::vector<uint32_t> add;
	put_sob(add, kSob, 1, true);
	ASSERT_EQ(d.run(add), 0);
	EXPECT_EQ(host.p[0], 0xc0deu);

	host.p[0] = 0;
	ASSERT_EQ(d.run(add), 0);
	EXPECT_EQ(host.p[0], 0u) << "a fired monitor fired again";

	// Equal mode, armed when already met: fires at once; MSG_LONG to
	// the SOB's register address sets it like MSG_SHORT.
	std::vector<uint32_t> eq;
	put_msg_long(eq, GAUDI2_CFG_BASE + GAUDI2_SM_SOB_OBJ_0 + 4 * (kSob + 1), 7);
	put_monitor(eq, kMon + 1, host.at(3), 0x77, kSob + 1, 7, true);
	ASSERT_EQ(d.run(eq), 0);
	EXPECT_EQ(host.p[3], 0x77u);
}

// Two queues in one CS: the first waits on a FENCE that a monitor raises
// when the second signals a SOB, so the first queue's write comes after
// the second's, whatever the order of the chunks.
TEST_F(SimSync, FenceWaitsForAMonitorOfAnotherQueue)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	DevBuf src(d, kPage);
	ASSERT_TRUE(host.ok() && src.ok());

	// Queue PDMA_0_0 (QM PDMA0, stream 0) waits on its fence 0.
	std::vector<uint32_t> waiter;
	put_fence(waiter, 0, 1, 1);
	put_msg_long(waiter, host.at(0), 2);

	std::vector<uint32_t> signaller;
	put_sob(signaller, kSob, 0, false);
	put_monitor(signaller, kMon, GAUDI2_CFG_BASE + GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0,
		    1, kSob, 1);
	put_msg_long(signaller, host.at(0), 1);
	put_msg_long(signaller, host.at(1), 1);
	put_sob(signaller, kSob, 1, true);

	uint32_t st = ~0u;
	ASSERT_EQ(run_cs(d, {{waiter, GAUDI2_QUEUE_ID_PDMA_0_0},
			     {signaller, GAUDI2_QUEUE_ID_PDMA_1_0}}, &st), 0);
	EXPECT_EQ(st, HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(host.p[0], 2u) << "the fenced write did not come last";
	EXPECT_EQ(host.p[1], 1u);

	// The fence was decremented: a second wait needs a second signal.
	std::vector<uint32_t> raise;
	put_msg_long(raise, GAUDI2_CFG_BASE + GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0, 1);
	ASSERT_EQ(run_cs(d, {{waiter, GAUDI2_QUEUE_ID_PDMA_0_0},
			     {raise, GAUDI2_QUEUE_ID_PDMA_1_0}}, &st), 0);
	EXPECT_EQ(st, HL_WAIT_CS_STATUS_COMPLETED);
}

// A fence nothing raises: the CS hangs, as on the device, until its
// timeout.
TEST_F(SimSync, AFenceNothingRaisesTimesOut)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::vector<uint32_t> w;
	put_fence(w, 1, 1, 1);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	ASSERT_EQ(d.cs({user_chunk(cb, static_cast<uint32_t>(w.size() * 4))}, &seq,
		       HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT, 1), 0);
	uint32_t st = ~0u;
	EXPECT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), -ETIMEDOUT);
	EXPECT_EQ(st, HL_WAIT_CS_STATUS_TIMEDOUT);
	d.cb_free(cb);
}

// Restore chunks, as the driver on Gaudi2 (which has no context switch):
// ignored unless HL_CS_FLAGS_FORCE_RESTORE, then run first as a CS of
// their own (taking a sequence number) that the execute chunks wait
// for; a restore CS that fails (here: times out) fails the submission
// with ENOEXEC and nothing of the execute chunks runs.
TEST_F(SimSync, RestoreChunksRunFirstWhenForced)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());
	std::vector<uint32_t> restore, exec, stuck;
	put_msg_long(restore, host.at(0), 0x11);
	put_msg_long(exec, host.at(1), 0x22);
	put_fence(stuck, 1, 1, 1);
	uint64_t rcb, ecb, scb;
	ASSERT_EQ(d.cb_with(restore, &rcb), 0);
	ASSERT_EQ(d.cb_with(exec, &ecb), 0);
	ASSERT_EQ(d.cb_with(stuck, &scb), 0);
	hl_cs_chunk rc = user_chunk(rcb, static_cast<uint32_t>(restore.size() * 4));
	hl_cs_chunk ec = user_chunk(ecb, static_cast<uint32_t>(exec.size() * 4));
	hl_cs_chunk sc = user_chunk(scb, static_cast<uint32_t>(stuck.size() * 4));

	hl_cs_args a{};
	auto submit = [&](hl_cs_chunk *r, uint32_t flags) {
		a = {};
		a.in.chunks_restore = reinterpret_cast<uintptr_t>(r);
		a.in.num_chunks_restore = 1;
		a.in.chunks_execute = reinterpret_cast<uintptr_t>(&ec);
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = flags;
		return xioctl(d.fd(), DRM_IOCTL_HL_CS, &a);
	};
	uint32_t st = ~0u;
	ASSERT_EQ(submit(&rc, 0), 0);
	uint64_t seq1 = a.out.seq;
	ASSERT_EQ(d.wait(seq1, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(host.p[0], 0u) << "not forced: ignored";
	EXPECT_EQ(host.p[1], 0x22u);

	host.p[1] = 0;
	ASSERT_EQ(submit(&rc, HL_CS_FLAGS_FORCE_RESTORE), 0);
	EXPECT_EQ(a.out.seq, seq1 + 2) << "the restore CS took a sequence number";
	ASSERT_EQ(d.wait(a.out.seq, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(host.p[0], 0x11u);
	EXPECT_EQ(host.p[1], 0x22u);

	const std::string param = "/sys/module/habanalabs_sim/parameters/cs_timeout_s";
	std::string old = read_file(param);
	ASSERT_FALSE(old.empty());
	set_sim_param("cs_timeout_s", 1);
	host.p[1] = 0;
	int rc2 = submit(&sc, HL_CS_FLAGS_FORCE_RESTORE);
	set_sim_param("cs_timeout_s", std::stoul(old));
	EXPECT_EQ(rc2, -ENOEXEC);
	EXPECT_EQ(host.p[1], 0u) << "the execute chunks did not run";
	d.cb_free(rcb);
	d.cb_free(ecb);
	d.cb_free(scb);
}

// CP_DMA hands a lower CB to the queue manager's lower CP, as hl-thunk's
// legacy mode does for every EDMA job: its copies and writes run where
// the CP_DMA is, and its FENCE counts on the lower CP's counter, which a
// monitor raises through the fence register of CP 4 (and not CP 0's).
TEST_F(SimSync, CpDmaRunsALowerCbOnTheLowerCp)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	DevBuf buf(d, kPage);
	ASSERT_TRUE(host.ok() && buf.ok());
	fill_pattern(buf.data(), 256, 3);

	// The lower CB waits on its fence 0, then copies and writes.
	std::vector<uint32_t> lower;
	put_fence(lower, 0, 1, 1);
	put_lin_dma(lower, buf.va + 1024, buf.va, 256);
	put_msg_long(lower, host.at(0), 2);
	uint64_t lcb;
	ASSERT_EQ(d.cb_with(lower, &lcb), 0);
	std::vector<uint32_t> upper;
	put_cp_dma(upper, lcb, static_cast<uint32_t>(lower.size() * 4));
	put_msg_long(upper, host.at(2), 3);

	// Another queue raises the EDMA's lower CP fence (CP 4) once its own
	// write is done.
	const uint64_t fence_cp4 = GAUDI2_CFG_BASE + GAUDI2_DCORE0_EDMA0_QM_CP_FENCE0_RDATA_0 + 4 * 4;
	std::vector<uint32_t> signaller;
	put_sob(signaller, kSob, 0, false);
	put_monitor(signaller, kMon, fence_cp4, 1, kSob, 1);
	put_msg_long(signaller, host.at(1), 1);
	put_sob(signaller, kSob, 1, true);
	uint32_t st = ~0u;
	ASSERT_EQ(run_cs(d, {{upper, GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0},
			     {signaller, GAUDI2_QUEUE_ID_PDMA_1_0}}, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(host.p[0], 2u);
	EXPECT_EQ(host.p[1], 1u);
	EXPECT_EQ(host.p[2], 3u) << "the upper CB goes on after the CP_DMA";
	EXPECT_EQ(check_pattern(buf.data() + 1024, 256, 3), -1);

	// Raising stream 0's fence (CP 0) does not release the lower CP.
	std::vector<uint32_t> wrong;
	put_msg_long(wrong, GAUDI2_CFG_BASE + GAUDI2_DCORE0_EDMA0_QM_CP_FENCE0_RDATA_0, 1);
	std::vector<uint32_t> stuck;
	put_cp_dma(stuck, lcb, static_cast<uint32_t>(lower.size() * 4));
	uint64_t wcb, scb, seq;
	ASSERT_EQ(d.cb_with(wrong, &wcb), 0);
	ASSERT_EQ(d.cb_with(stuck, &scb), 0);
	ASSERT_EQ(d.cs({user_chunk(wcb, static_cast<uint32_t>(wrong.size() * 4),
				   GAUDI2_QUEUE_ID_PDMA_1_0),
			user_chunk(scb, static_cast<uint32_t>(stuck.size() * 4),
				   GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0)},
		       &seq, HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT, 1), 0);
	EXPECT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), -ETIMEDOUT);
	d.cb_free(lcb);
	d.cb_free(wcb);
	d.cb_free(scb);
}

// What CP_DMA may not do: hand the CB to the upper CP (nested CBs), be
// predicated, appear in a lower CB, or name a CB that is not mapped or
// holds a bad packet.  Refused at submission, and nothing runs.
TEST_F(SimSync, CpDmaRefusals)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());
	std::vector<uint32_t> lower, nested, bad, calls;
	put_msg_long(lower, host.at(0), 1);
	put_cb_list(calls, host.at(2), host.at(4));
	put_msg_long(bad, host.at(0), 1);
	bad.push_back(0);
	bad.push_back(ctl(GAUDI2_PACKET_WREG_BULK));
	uint64_t lcb, bcb, ncb, ccb;
	ASSERT_EQ(d.cb_with(lower, &lcb), 0);
	ASSERT_EQ(d.cb_with(calls, &ccb), 0);
	ASSERT_EQ(d.cb_with(bad, &bcb), 0);
	put_cp_dma(nested, lcb, 16);
	ASSERT_EQ(d.cb_with(nested, &ncb), 0);

	struct Case {
		const char *what;
		int err;
		std::vector<uint32_t> w;
	};
	std::vector<Case> cases;
	auto add = [&](const char *what, int err, uint64_t cb, uint32_t size,
		       uint32_t extra = 0) {
		Case c{what, err, {}};
		put_msg_long(c.w, host.at(1), 1);	// must not run
		put_cp_dma(c.w, cb, size, extra);
		cases.push_back(c);
	};
	add("to the upper CP", -EINVAL, lcb, 16, GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK);
	add("predicated", -EINVAL, lcb, 16, 1);
	add("CP_DMA in a lower CB", -EINVAL, ncb, 16);
	add("CB_LIST in a lower CB", -EINVAL, ccb, 24);
	add("lower CB not mapped", -EFAULT, 0x208000000000ull, 16);
	add("lower CB past its mapping", -EFAULT, lcb + kPage - 8, 16);
	add("bad packet in the lower CB", -EINVAL, bcb, 24);
	add("lower CB cut in a packet", -EINVAL, lcb, 12);
	Case cut{"CP_DMA cut by the CB's end", -EINVAL, {}};
	put_msg_long(cut.w, host.at(1), 1);
	put_cp_dma(cut.w, lcb, 16);
	cut.w.pop_back();
	cases.push_back(cut);
	for (auto &c : cases) {
		uint64_t cb, seq;
		ASSERT_EQ(d.cb_with(c.w, &cb), 0);
		EXPECT_EQ(d.cs_one(cb, static_cast<uint32_t>(c.w.size() * 4), &seq,
				   GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0), c.err) << c.what;
		d.cb_free(cb);
	}
	EXPECT_EQ(host.p[0], 0u);
	EXPECT_EQ(host.p[1], 0u);
	// An empty CP_DMA hands nothing.
	std::vector<uint32_t> empty;
	put_cp_dma(empty, 0, 0);
	put_msg_long(empty, host.at(1), 5);
	ASSERT_EQ(d.run(empty), 0);
	EXPECT_EQ(host.p[1], 5u);
	d.cb_free(lcb);
	d.cb_free(bcb);
	d.cb_free(ncb);
	d.cb_free(ccb);
}

// What a queue may not do is refused at submission with the driver's
// errno, and nothing of the CS runs.
TEST_F(SimSync, PacketsAndAddressesAQueueMayNotUseAreRefused)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());

	struct Case {
		const char *what;
		std::vector<uint32_t> w;
		int err;
	};
	std::vector<Case> cases;
	auto add = [&](const char *what, int err, auto build) {
		Case c{what, {}, err};
		put_msg_long(c.w, host.at(0), 1);	// must not run
		build(c.w);
		cases.push_back(c);
	};
	add("SOB the driver keeps", -EINVAL, [](auto &w) { put_sob(w, 0, 1, false); });
	add("sync stream's SOB", -EINVAL, [](auto &w) { put_sob(w, 412, 1, true); });
	add("monitor the driver keeps", -EINVAL, [](auto &w) {
		put_mon(w, GAUDI2_SM_MON_PAY_DATA_0, 124, 1);
	});
	add("sync stream's monitor", -EINVAL, [](auto &w) {
		put_mon(w, GAUDI2_SM_MON_ARM_0, 288, 1);
	});
	add("MSG_SHORT base 2", -EINVAL, [](auto &w) { put_msg_short(w, 2, 0, 1); });
	add("monitor status register", -EINVAL, [](auto &w) {
		put_mon(w, GAUDI2_SM_MON_STATUS_0, kMon, 1);
	});
	add("completion queue the driver keeps", -EINVAL, [](auto &w) {
		put_msg_long(w, GAUDI2_CFG_BASE + GAUDI2_SM_CQ_BASE_ADDR_L_0 + 4, 1);
	});
	add("completion queue security register", -EINVAL, [](auto &w) {
		put_msg_long(w, GAUDI2_CFG_BASE + GAUDI2_SM_CQ_SEC_0 + 4 * 5, 1);
	});
	add("MSI-X doorbell written by a queue", -EINVAL, [](auto &w) {
		put_msg_long(w, GAUDI2_CFG_BASE + GAUDI2_PCIE_MSIX_DB, 48);
	});
	add("long monitor", -EINVAL, [](auto &w) {
		put_mon(w, GAUDI2_SM_MON_CONFIG_0, kMon, GAUDI2_MON_CFG_LONG_SOB);
	});
	add("other configuration register", -EINVAL, [](auto &w) {
		put_msg_long(w, GAUDI2_CFG_BASE + 0x4C8A000, 1);
	});
	add("predicated STOP", -EINVAL, [](auto &w) {
		w.push_back(0);
		w.push_back(ctl(GAUDI2_PACKET_STOP) | 1);
	});
	add("scalars in a predicate map", -EINVAL, [&](auto &w) {
		put_load_and_exe(w, host.at(64), GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK |
						       GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK |
						       GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK);
	});
	add("predicates loaded and the scalars run", -EINVAL, [&](auto &w) {
		put_load_and_exe(w, host.at(64), GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK |
						       GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK);
	});
	add("LOAD_AND_EXE undefined bit", -EINVAL, [&](auto &w) {
		put_load_and_exe(w, host.at(64), GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK | 4);
	});
	add("truncated LOAD_AND_EXE", -EINVAL, [](auto &w) {
		w.push_back(GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK);
		w.push_back(ctl(GAUDI2_PACKET_LOAD_AND_EXE));
	});
	add("predicates from unmapped memory", -EFAULT, [](auto &w) {
		put_load_and_exe(w, kUnmapped, GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK);
	});
	add("predicates past a mapping's end", -EFAULT, [&](auto &w) {
		put_load_and_exe(w, host.va + kPage - 64, GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK);
	});
	add("MSG_LONG timestamp", -EINVAL, [&](auto &w) {
		put_msg_long(w, host.at(1), 1, 1u << 20);
	});
	add("WREG32", -EINVAL, [](auto &w) {
		w.push_back(1);
		w.push_back(ctl(GAUDI2_PACKET_WREG_32) |
			    (0x100 << GAUDI2_PKT_WREG32_CTL_REG_OFFSET_SHIFT));
	});
	add("truncated MSG_LONG", -EINVAL, [](auto &w) {
		w.push_back(1);
		w.push_back(ctl(GAUDI2_PACKET_MSG_LONG));
	});
	add("MSG_LONG to unmapped memory", -EFAULT, [](auto &w) {
		put_msg_long(w, kUnmapped, 1);
	});
	for (auto &c : cases) {
		EXPECT_EQ(d.run(c.w), c.err) << c.what;
		EXPECT_EQ(host.p[0], 0u) << c.what << ": part of the CS ran";
	}
}

// LOAD_AND_EXE loads a CP's predicates from memory, as 32 words (bit 0
// of word i is predicate i) or as one 32-bit map, and a packet that names
// a predicate runs only while it is set; predicate 0 is always set and
// not loaded.  The predicates keep their values into later CSs, and
// another stream's CP has its own.  hl-thunk's test_cs_load_pred_*.
TEST_F(SimSync, LoadedPredicatesDecideWhichPacketsRun)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());
	volatile uint32_t *words = host.p + 512;	// predicates, 128 bytes
	volatile uint32_t *map = host.p + 600;
	words[10] = 1;
	words[11] = 2;		// bit 0 clear: predicate 11 is not set
	words[0] = 0;		// predicate 0 stays set
	*map = 1u << 11;
	const uint32_t load = GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK;
	const uint32_t bitmap = load | GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK;

	std::vector<uint32_t> w;
	put_load_and_exe(w, host.at(512), load);
	put_msg_long(w, host.at(1), 0xa, 10);
	put_msg_long(w, host.at(2), 0xb, 11);
	put_msg_long(w, host.at(3), 0xc, 0);
	// A FENCE nothing raises, skipped: the CS completes.
	w.push_back(1 | (1 << GAUDI2_PKT_FENCE_CFG_TARGET_VAL_SHIFT));
	w.push_back(ctl(GAUDI2_PACKET_FENCE) | 13);
	put_load_and_exe(w, host.at(600), bitmap, 10);
	put_msg_long(w, host.at(4), 0xd, 10);
	put_msg_long(w, host.at(5), 0xe, 11);
	// Not loaded: its predicate (12) is clear.
	put_load_and_exe(w, host.at(512), load, 12);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(host.p[1], 0xau) << "predicate 10 was set";
	EXPECT_EQ(host.p[2], 0u) << "predicate 11 was clear";
	EXPECT_EQ(host.p[3], 0xcu) << "predicate 0 is always set";
	EXPECT_EQ(host.p[4], 0u) << "the map cleared predicate 10";
	EXPECT_EQ(host.p[5], 0xeu) << "the map set predicate 11";

	// The next CS finds them as they were; stream 1's CP has its own.
	w.clear();
	put_msg_long(w, host.at(6), 0xf, 11);
	put_msg_long(w, host.at(7), 0x10, 10);
	std::vector<uint32_t> other;
	put_msg_long(other, host.at(10), 0x11, 11);
	uint32_t st = ~0u;
	ASSERT_EQ(run_cs(d, {{w, GAUDI2_QUEUE_ID_PDMA_0_0}, {other, GAUDI2_QUEUE_ID_PDMA_0_1}},
			 &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(host.p[6], 0xfu);
	EXPECT_EQ(host.p[7], 0u);
	EXPECT_EQ(host.p[10], 0u) << "stream 1 used stream 0's predicates";
}

// LOAD_AND_EXE loads a CP's four scalar registers and runs the packet
// they hold: all four (a MSG_LONG), or the upper two (a MSG_SHORT), in
// the same packet or a later one, in the same CS or a later one.  A
// packet there that is not a write, or a write to memory not mapped,
// fails the CS when it runs.  hl-thunk's test_cs_load_scalars_exe_*.
TEST_F(SimSync, LoadAndExeRunsThePacketInTheScalars)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d);
	ASSERT_TRUE(host.ok());
	const uint32_t dst = GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK;
	const uint32_t load = GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK;
	const uint32_t exe = GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK;
	const uint32_t upper = GAUDI2_PKT_LOAD_AND_EXE_CFG_ETYPE_MASK;
	auto scalars = [&](unsigned at, const std::vector<uint32_t> &pkt, unsigned skip = 0) {
		for (unsigned i = 0; i < 4; i++)
			host.p[at + i] = 0;
		for (unsigned i = 0; i < pkt.size(); i++)
			host.p[at + skip + i] = pkt[i];
	};
	std::vector<uint32_t> pkt;
	put_msg_long(pkt, host.at(20), 0x77);
	scalars(700, pkt);
	pkt.clear();
	put_msg_long(pkt, host.at(21), 0x78);
	scalars(704, pkt);

	std::vector<uint32_t> w;
	put_load_and_exe(w, host.at(700), dst | load | exe);
	put_load_and_exe(w, host.at(704), dst | load);
	put_msg_long(w, host.at(22), 1);
	put_load_and_exe(w, 0, dst | exe);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(host.p[20], 0x77u) << "load and run in one packet";
	EXPECT_EQ(host.p[21], 0x78u) << "load, then run";

	// A later CS runs what the registers still hold (DST does not
	// matter to a packet that only runs them, as hl-thunk sends it).
	host.p[21] = 0;
	w.clear();
	put_load_and_exe(w, 0, exe);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(host.p[21], 0x78u);

	// The upper two registers: a SOB write, seen by a monitor.
	pkt.clear();
	put_sob(pkt, kSob, 5, false);
	scalars(708, pkt, 2);
	w.clear();
	put_sob(w, kSob, 0, false);
	put_load_and_exe(w, host.at(708), dst | load | exe | upper);
	put_monitor(w, kMon, host.at(23), 0x99, kSob, 5);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(host.p[23], 0x99u) << "the upper registers' MSG_SHORT did not run";

	// What the registers hold is checked when it runs.
	pkt.clear();
	put_lin_dma(pkt, host.at(24), host.at(25), 4);
	scalars(712, pkt);
	pkt.clear();
	put_msg_long(pkt, kUnmapped, 1);
	scalars(716, pkt);
	pkt.clear();
	put_msg_long(pkt, host.at(26), 1);
	scalars(720, pkt);
	for (unsigned at : {712u, 716u, 720u}) {
		w.clear();
		put_load_and_exe(w, host.at(at), dst | load | exe | (at == 720 ? upper : 0));
		put_msg_long(w, host.at(27), at);
		EXPECT_EQ(d.run(w), -EIO) << "scalars at word " << at;
		EXPECT_EQ(host.p[27], 0u) << "the CB went on after a failed packet";
	}
}

// CB_LIST reads its index when it runs and runs that entry of its table,
// a CP_DMA to the CP itself: a CB run before the caller goes on, which
// may rewrite the index and call the next (hl-thunk's test_cs_cb_list),
// and may wait on a FENCE another queue of the CS raises.  A bad index,
// entry or CB, or calls nested too deep, fail the CS when they run.
TEST_F(SimSync, CbListCallsTheEntryItsIndexNames)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	HostWords host(d), cbs(d), table(d);
	ASSERT_TRUE(host.ok() && cbs.ok() && table.ok());
	const uint64_t index = host.at(0);
	constexpr unsigned kCbs = 5, kCbWords = 64;
	auto set_cb = [&](unsigned i, const std::vector<uint32_t> &w, uint32_t entry_ctl =
				  ctl(GAUDI2_PACKET_CP_DMA) | GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK) {
		ASSERT_LE(w.size(), kCbWords);
		for (unsigned k = 0; k < w.size(); k++)
			cbs.p[i * kCbWords + k] = w[k];
		std::vector<uint32_t> entry;
		put_addr_packet(entry, static_cast<uint32_t>(w.size() * 4), entry_ctl,
				cbs.at(i * kCbWords));
		for (unsigned k = 0; k < 4; k++)
			table.p[4 * i + k] = entry[k];
	};
	// CB i marks that it ran, points the index at i + 1 and calls it.
	for (unsigned i = 0; i < kCbs; i++) {
		std::vector<uint32_t> w;
		put_msg_long(w, host.at(10 + i), i + 1);
		if (i + 1 < kCbs) {
			put_msg_long(w, index, i + 1);
			put_cb_list(w, index, table.va);
		}
		set_cb(i, w);
	}
	std::vector<uint32_t> top;
	put_msg_long(top, index, 0);
	put_cb_list(top, index, table.va);
	put_msg_long(top, host.at(30), 0x77);
	ASSERT_EQ(d.run(top), 0);
	for (unsigned i = 0; i < kCbs; i++)
		EXPECT_EQ(host.p[10 + i], i + 1) << "CB " << i;
	EXPECT_EQ(host.p[30], 0x77u) << "the caller did not go on";

	// A called CB waits on a FENCE that another queue of the CS raises.
	std::vector<uint32_t> waits;
	put_fence(waits, 0, 1, 1);
	put_msg_long(waits, host.at(31), 2);
	set_cb(6, waits);
	std::vector<uint32_t> caller, signaller;
	put_msg_long(caller, index, 6);
	put_cb_list(caller, index, table.va);
	put_sob(signaller, kSob, 0, false);
	put_monitor(signaller, kMon, GAUDI2_CFG_BASE + GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0,
		    1, kSob, 1);
	put_msg_long(signaller, host.at(31), 1);
	put_sob(signaller, kSob, 1, true);
	uint32_t st = ~0u;
	ASSERT_EQ(run_cs(d, {{caller, GAUDI2_QUEUE_ID_PDMA_0_0},
			     {signaller, GAUDI2_QUEUE_ID_PDMA_1_0}}, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(host.p[31], 2u) << "the called CB's FENCE did not wait";

	// Known only when they run: each fails the CS, the rest not run.
	std::vector<uint32_t> self;
	put_cb_list(self, index, table.va);
	set_cb(7, self);		// calls itself, deeper and deeper
	set_cb(8, {}, ctl(GAUDI2_PACKET_CP_DMA));		// to the lower CP
	set_cb(9, {}, ctl(GAUDI2_PACKET_NOP));		// not a CP_DMA
	std::vector<uint32_t> bad;
	bad.push_back(0);
	bad.push_back(0x1f << GAUDI2_PKT_CTL_OPCODE_SHIFT);	// no such packet
	set_cb(10, bad);
	for (uint32_t i : {7u, 8u, 9u, 10u, 0x10000000u}) {
		std::vector<uint32_t> w;
		put_msg_long(w, index, i);
		put_cb_list(w, index, table.va);
		put_msg_long(w, host.at(32), i);
		EXPECT_EQ(d.run(w), -EIO) << "index " << i;
		EXPECT_EQ(host.p[32], 0u) << "index " << i << ": the caller went on";
	}

	// Refused at submission.
	std::vector<uint32_t> w;
	put_cb_list(w, index, table.va, GAUDI2_PKT_CB_LIST_CTL_SIZE_DESC_MASK);
	EXPECT_EQ(d.run(w), -EINVAL) << "32-byte entries";
	w.clear();
	put_cb_list(w, kUnmapped, table.va);
	EXPECT_EQ(d.run(w), -EFAULT) << "index not mapped";
	w.clear();
	put_cb_list(w, index, table.va);
	w.pop_back();
	w.pop_back();
	EXPECT_EQ(d.run(w), -EINVAL) << "truncated";
}

TEST_F(SimSync, InfoNamesTheFirstUserSyncObjects)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	hl_info_sync_manager sm{};
	hl_info_args a{};
	a.op = HL_INFO_SYNC_MANAGER;
	a.return_pointer = reinterpret_cast<uintptr_t>(&sm);
	a.return_size = sizeof(sm);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	EXPECT_EQ(sm.first_available_sync_object, 413u);
	EXPECT_EQ(sm.first_available_monitor, 289u);
	EXPECT_EQ(sm.first_available_cq, 2u);
	a.dcore_id = 1;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	EXPECT_EQ(sm.first_available_sync_object, 0u);
}

namespace {

int info_into(int fd, uint32_t op, void *out, uint32_t size)
{
	hl_info_args a{};
	a.op = op;
	a.return_pointer = reinterpret_cast<uintptr_t>(out);
	a.return_size = size;
	return xioctl(fd, DRM_IOCTL_HL_INFO, &a);
}

// CP_FENCE0_RDATA_0 of DCORE<dcore> EDMA<inst>'s queue manager.
uint64_t edma_fence_reg(uint32_t dcore, uint32_t inst)
{
	return GAUDI2_CFG_BASE + GAUDI2_DCORE0_EDMA0_QM_CP_FENCE0_RDATA_0 +
	       dcore * GAUDI2_DCORE_OFFSET + inst * GAUDI2_EDMA_INSTANCE_OFFSET;
}

}  // namespace

// The eight EDMA engines of a Gaudi2 without a binned one: reported in
// edma_enabled_mask, every stream of each runs LIN_DMA, each queue
// manager has its own fence counters, and HL_INFO_HW_IDLE and
// HL_INFO_ENGINE_STATUS report the engine busy while its CS is in flight.
TEST_F(SimSync, EdmaEnginesRunTheirQueues)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	hl_info_hw_ip_info hw{};
	ASSERT_EQ(info_into(d.fd(), HL_INFO_HW_IP_INFO, &hw, sizeof(hw)), 0);
	EXPECT_EQ(hw.edma_enabled_mask, 0xffu);

	// 8 engines x 4 streams, each copying its own 128-byte slice.
	static const uint32_t first[8] = {
		GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE0_EDMA_1_0,
		GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE1_EDMA_1_0,
		GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE2_EDMA_1_0,
		GAUDI2_QUEUE_ID_DCORE3_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE3_EDMA_1_0};
	DevBuf buf(d, 2 * kPage);
	ASSERT_TRUE(buf.ok());
	fill_pattern(buf.data(), kPage, 21);
	memset(buf.data() + kPage, 0, kPage);
	std::vector<std::pair<std::vector<uint32_t>, uint32_t>> jobs;
	for (uint32_t e = 0; e < 8; e++) {
		for (uint32_t s = 0; s < 4; s++) {
			uint32_t off = (e * 4 + s) * 128;
			std::vector<uint32_t> w;
			put_lin_dma(w, buf.va + kPage + off, buf.va + off, 128);
			jobs.emplace_back(w, first[e] + s);
		}
	}
	uint32_t st = ~0u;
	ASSERT_EQ(run_cs(d, jobs, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(memcmp(buf.data() + kPage, buf.data(), kPage), 0);

	// DCORE3 EDMA1 stream 3 waits on its fence 2 (CP 3), which a PDMA
	// queue raises; the same fence of DCORE3 EDMA0 is another counter.
	memset(buf.data() + kPage, 0, kPage);
	std::vector<uint32_t> waiter, raiser;
	put_fence(waiter, 2, 1, 1);
	put_lin_dma(waiter, buf.va + kPage, buf.va, 256);
	put_msg_long(raiser, edma_fence_reg(3, 0) + 4 * (2 * GAUDI2_QM_FENCE_CPS + 3), 1);
	put_msg_long(raiser, edma_fence_reg(3, 1) + 4 * (2 * GAUDI2_QM_FENCE_CPS + 3), 1);
	jobs.clear();
	jobs.emplace_back(waiter, GAUDI2_QUEUE_ID_DCORE3_EDMA_1_3);
	jobs.emplace_back(raiser, GAUDI2_QUEUE_ID_PDMA_0_0);
	ASSERT_EQ(run_cs(d, jobs, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(memcmp(buf.data() + kPage, buf.data(), 256), 0);
	// DCORE3 EDMA0's counter kept the 1 it got: its FENCE passes at once.
	std::vector<uint32_t> other;
	put_fence(other, 2, 1, 1);
	jobs.clear();
	jobs.emplace_back(other, GAUDI2_QUEUE_ID_DCORE3_EDMA_0_3);
	ASSERT_EQ(run_cs(d, jobs, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);

	// Busy: only the engine whose queue has a CS in flight.
	std::vector<uint32_t> w;
	put_lin_dma(w, buf.va + kPage, buf.va, 64);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	set_cs_delay_ms(1500);
	ASSERT_EQ(d.cs_one(cb, w.size() * 4, &seq, GAUDI2_QUEUE_ID_DCORE1_EDMA_0_2), 0);
	hl_info_hw_idle idle{};
	ASSERT_EQ(info_into(d.fd(), HL_INFO_HW_IDLE, &idle, sizeof(idle)), 0);
	EXPECT_EQ(idle.is_idle, 0u);
	EXPECT_EQ(idle.busy_engines_mask_ext[0], 1ull << GAUDI2_DCORE1_ENGINE_ID_EDMA_0);
	std::vector<char> text(1024, 0);
	ASSERT_EQ(info_into(d.fd(), HL_INFO_ENGINE_STATUS, text.data(), text.size()), 0);
	std::string s(text.data());
	EXPECT_NE(s.find("DCORE1_EDMA0  N  11\n"), std::string::npos) << s;
	EXPECT_NE(s.find("DCORE3_EDMA1  Y  34\n"), std::string::npos) << s;
	EXPECT_NE(s.find("PDMA0  Y  45\n"), std::string::npos) << s;
	ASSERT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	set_cs_delay_ms(0);
	ASSERT_EQ(info_into(d.fd(), HL_INFO_HW_IDLE, &idle, sizeof(idle)), 0);
	EXPECT_EQ(idle.is_idle, 1u);
	EXPECT_EQ(idle.busy_engines_mask_ext[0], 0u);
	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(buf.release(), 0);
}
