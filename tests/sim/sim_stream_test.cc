// SPDX-License-Identifier: GPL-2.0
// Sync streams and the queues' rings, as the driver runs them on Gaudi2:
// a signal CS adds 1 to its queue's reserved SOB, a wait CS on another
// queue completes once that SOB has the signal's value, and each queue's
// ring holds HL_QUEUE_LENGTH jobs before a CS is refused with EAGAIN.
// hl-thunk's test_cs_drop relies on both.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

class SimStream : public LeakCheckedTest {};

constexpr uint32_t kDown = GAUDI2_QUEUE_ID_PDMA_0_0;
constexpr uint32_t kUp = GAUDI2_QUEUE_ID_PDMA_1_0;

struct Signal {
	int rc;
	uint64_t seq;
	uint32_t sob_offset;
	uint16_t count;
};

Signal signal_cs(int fd, uint32_t queue, uint32_t flags = 0, uint32_t timeout_s = 0)
{
	hl_cs_chunk c{};
	c.queue_index = queue;
	hl_cs_args a{};
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_SIGNAL | flags |
			(timeout_s ? HL_CS_FLAGS_CUSTOM_TIMEOUT : 0);
	a.in.timeout = timeout_s;
	Signal s{xioctl(fd, DRM_IOCTL_HL_CS, &a), 0, 0, 0};
	if (!s.rc) {
		s.seq = a.out.seq;
		s.sob_offset = a.out.sob_base_addr_offset;
		s.count = a.out.sob_count_before_submission;
	}
	return s;
}

// A wait CS on queue for signal CS signal_seq: its own sequence number
// in *seq (ULLONG_MAX when there was nothing left to wait for).
int wait_cs(int fd, uint32_t queue, uint64_t signal_seq, uint64_t *seq,
	    uint32_t timeout_s = 0)
{
	hl_cs_chunk c{};
	c.queue_index = queue;
	c.signal_seq_arr = reinterpret_cast<uintptr_t>(&signal_seq);
	c.num_signal_seq_arr = 1;
	hl_cs_args a{};
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = HL_CS_FLAGS_WAIT | (timeout_s ? HL_CS_FLAGS_CUSTOM_TIMEOUT : 0);
	a.in.timeout = timeout_s;
	int rc = xioctl(fd, DRM_IOCTL_HL_CS, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

// A CS of a CB that waits on a fence nothing raises, submitted at once:
// it holds the engine until its custom timeout of timeout_s, and every
// later CS waits behind it.  rc is 0 once it is submitted, seq is its.
struct Blocker {
	Blocker(Dev &d, uint32_t timeout_s) : d(d)
	{
		std::vector<uint32_t> w;
		w.push_back(1 | (1u << GAUDI2_PKT_FENCE_CFG_TARGET_VAL_SHIFT) |
			    (3u << GAUDI2_PKT_FENCE_CFG_ID_SHIFT));
		w.push_back(ctl(GAUDI2_PACKET_FENCE));
		rc = d.cb_with(w, &cb);
		if (!rc)
			rc = d.cs({user_chunk(cb, static_cast<uint32_t>(w.size() * 4), kDown)},
				  &seq, HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT, timeout_s);
	}
	~Blocker() { d.cb_free(cb); }
	Dev &d;
	uint64_t cb = 0;
	uint64_t seq = 0;
	int rc;
};

// Each signal CS on a queue counts on from the last, on that queue's
// own SOB; the SOB offset is 0, as gaudi2_get_sob_addr() gives it.  A
// wait CS for a signal that completed is not submitted: success, with
// ULLONG_MAX as its sequence number.
TEST_F(SimStream, SignalsCountPerQueueAndAWaitForADoneSignalIsNotRun)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	for (uint16_t i = 1; i <= 3; i++) {
		Signal s = signal_cs(d.fd(), kDown);
		ASSERT_EQ(s.rc, 0);
		EXPECT_EQ(s.count, i);
		EXPECT_EQ(s.sob_offset, 0u);
		uint32_t st = ~0u;
		ASSERT_EQ(d.wait(s.seq, 5000000, &st), 0);
		EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
		uint64_t wseq = 0;
		ASSERT_EQ(wait_cs(d.fd(), kUp, s.seq, &wseq), 0);
		EXPECT_EQ(wseq, ULLONG_MAX);
	}
	Signal other = signal_cs(d.fd(), GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0);
	ASSERT_EQ(other.rc, 0);
	EXPECT_EQ(other.count, 1u);
}

// A wait CS submitted while its signal CS is pending is a CS of its own:
// it and what its queue runs after it complete after the signal; a
// wait CS may also be the one waited for.
TEST_F(SimStream, WaitCsCompletesAfterItsSignal)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Blocker b(d, 3);
	ASSERT_EQ(b.rc, 0);
	uint64_t wseq = 0;
	uint32_t st = ~0u;
	Signal s = signal_cs(d.fd(), kDown);
	ASSERT_EQ(s.rc, 0);
	ASSERT_EQ(wait_cs(d.fd(), kUp, s.seq, &wseq), 0);
	ASSERT_NE(wseq, ULLONG_MAX);
	EXPECT_GT(wseq, s.seq);
	// Still pending: the blocker holds the engine for 3 s.
	ASSERT_EQ(d.wait(wseq, 0, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);

	ASSERT_EQ(d.wait(wseq, 10000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	ASSERT_EQ(d.wait(s.seq, 0, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(d.wait(b.seq, 0, &st), -ETIMEDOUT);
	// A wait CS is not a signal CS.
	EXPECT_EQ(wait_cs(d.fd(), kUp, wseq, &wseq), -EINVAL);
}

// A signal CS that times out before it runs never adds to its SOB; a
// wait CS for it then waits, as the device's queue would, until its
// own timeout.
TEST_F(SimStream, WaitForASignalThatNeverCameTimesOut)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Blocker b(d, 2);
	ASSERT_EQ(b.rc, 0);
	uint64_t wseq = 0;
	uint32_t st = ~0u;
	// A custom timeout of 0: it times out unless it already completed.
	Signal s = signal_cs(d.fd(), kDown, HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT |
					    HL_CS_FLAGS_CUSTOM_TIMEOUT, 0);
	ASSERT_EQ(s.rc, 0);
	ASSERT_EQ(wait_cs(d.fd(), kUp, s.seq, &wseq, 4), 0);
	ASSERT_NE(wseq, ULLONG_MAX);
	EXPECT_EQ(d.wait(wseq, 20000000, &st), -ETIMEDOUT);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_TIMEDOUT);
	EXPECT_EQ(d.wait(s.seq, 0, &st), -ETIMEDOUT);
	EXPECT_EQ(d.wait(b.seq, 0, &st), -ETIMEDOUT);

	// The stream goes on: the next signal counts 2 and a wait for it works.
	Signal next = signal_cs(d.fd(), kDown);
	ASSERT_EQ(next.rc, 0);
	EXPECT_EQ(next.count, 2u);
	ASSERT_EQ(d.wait(next.seq, 5000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
}

// A SOB counts to 32767; the signal that reaches it moves the stream to
// its other SOB, which starts again from 0 (the driver reports 0, then
// 1, ...), and waits go on working across the switch.
TEST_F(SimStream, StreamSwitchesSobsAfter32767Signals)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Signal s{};
	for (uint32_t i = 1; i < 32767; i++) {
		s = signal_cs(d.fd(), kDown);
		ASSERT_EQ(s.rc, 0) << "signal " << i;
		ASSERT_EQ(s.count, i);
	}
	Blocker b(d, 2);
	ASSERT_EQ(b.rc, 0);
	uint64_t w1 = 0, w2 = 0;
	uint32_t st = ~0u;
	Signal last = signal_cs(d.fd(), kDown);	// 32767: the switch
	ASSERT_EQ(last.rc, 0);
	EXPECT_EQ(last.count, 0u);
	Signal first = signal_cs(d.fd(), kDown);	// 1 on the other SOB
	ASSERT_EQ(first.rc, 0);
	EXPECT_EQ(first.count, 1u);
	ASSERT_EQ(wait_cs(d.fd(), kUp, last.seq, &w1), 0);
	ASSERT_EQ(wait_cs(d.fd(), kUp, first.seq, &w2), 0);
	ASSERT_NE(w1, ULLONG_MAX);
	ASSERT_NE(w2, ULLONG_MAX);
	ASSERT_EQ(d.wait(w2, 10000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	ASSERT_EQ(d.wait(w1, 0, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(d.wait(b.seq, 0, &st), -ETIMEDOUT);
}

// What the driver refuses in a signal or wait CS, with its errno, and
// whether it counts it as a validation drop.
TEST_F(SimStream, BadSyncStreamCsAreRefused)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Signal done = signal_cs(d.fd(), kDown);
	ASSERT_EQ(done.rc, 0);
	std::vector<uint32_t> w;
	put_nop(w);
	uint64_t cb, exec_seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	ASSERT_EQ(d.cs_one(cb, 8, &exec_seq), 0);
	uint32_t st;
	ASSERT_EQ(d.wait(exec_seq, 5000000, &st), 0);

	struct Case {
		const char *what;
		uint32_t flags;
		uint32_t queue;
		uint32_t nchunks;
		int nseq;	// wait: num_signal_seq_arr
		uint64_t signal_seq;
		bool bad_chunks, bad_seq_arr;
		int err;
		bool counted;
	};
	const uint32_t S = HL_CS_FLAGS_SIGNAL, W = HL_CS_FLAGS_WAIT;
	const Case cases[] = {
		{"two chunks", S, kDown, 2, 0, 0, false, false, -EINVAL, false},
		{"no chunk", S, kDown, 0, 0, 0, false, false, -EINVAL, false},
		{"chunks unreadable", S, kDown, 1, 0, 0, true, false, -EFAULT, true},
		{"NIC queue: no sync stream", S, GAUDI2_QUEUE_ID_NIC_0_0, 1, 0, 0,
		 false, false, -EINVAL, true},
		{"CPU queue", S, GAUDI2_QUEUE_ID_CPU_PQ, 1, 0, 0, false, false, -EINVAL, true},
		{"no such queue", S, GAUDI2_QUEUE_ID_SIZE, 1, 0, 0, false, false, -EINVAL, true},
		{"queue of an engine not here", S, GAUDI2_QUEUE_ID_DCORE0_TPC_0_0, 1, 0, 0,
		 false, false, -EINVAL, true},
		{"PDMA stream not open", W, GAUDI2_QUEUE_ID_PDMA_0_2, 1, 1, done.seq,
		 false, false, -EINVAL, true},
		{"wait for no signal", W, kUp, 1, 0, done.seq, false, false, -EINVAL, true},
		{"wait for two signals", W, kUp, 1, 2, done.seq, false, false, -EINVAL, true},
		{"signal sequence unreadable", W, kUp, 1, 1, done.seq, false, true, -EFAULT,
		 true},
		{"wait for a CS not submitted", W, kUp, 1, 1, exec_seq + 100, false, false,
		 -EINVAL, true},
		{"wait for an execute CS", W, kUp, 1, 1, exec_seq, false, false, -EINVAL, true},
		{"wait for reserved signals", W | HL_CS_FLAGS_ENCAP_SIGNALS, kUp, 1, 1,
		 done.seq, false, false, -EINVAL, true},
		{"collective wait: no collective master queue", HL_CS_FLAGS_COLLECTIVE_WAIT,
		 kUp, 1, 1, done.seq, false, false, -EINVAL, true},
		{"signal and wait", S | W, kUp, 1, 1, done.seq, false, false, -EINVAL, false},
	};
	for (const Case &c : cases) {
		hl_cs_chunk ch[2]{};
		uint64_t sseq[2] = {c.signal_seq, c.signal_seq};
		for (auto &x : ch) {
			x.queue_index = c.queue;
			x.signal_seq_arr = c.bad_seq_arr ? 8 : reinterpret_cast<uintptr_t>(sseq);
			x.num_signal_seq_arr = static_cast<uint32_t>(c.nseq);
		}
		hl_cs_args a{};
		a.in.chunks_execute = c.bad_chunks ? 8 : reinterpret_cast<uintptr_t>(ch);
		a.in.num_chunks_execute = c.nchunks;
		a.in.cs_flags = c.flags;
		uint64_t before = cs_counters(d.fd()).ctx_validation_drop_cnt;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), c.err) << c.what;
		EXPECT_EQ(cs_counters(d.fd()).ctx_validation_drop_cnt - before,
			  c.counted ? 1u : 0u) << c.what;
	}
	// None of them took a signal: the next one counts 2.
	Signal next = signal_cs(d.fd(), kDown);
	ASSERT_EQ(next.rc, 0);
	EXPECT_EQ(next.count, 2u);
	ASSERT_EQ(d.wait(next.seq, 5000000, &st), 0);
	EXPECT_EQ(d.cb_free(cb), 0);
}

// Each queue's ring holds HL_QUEUE_LENGTH (4096) jobs of CSs not yet
// completed.  A CS with more than its queue has left is refused with
// EAGAIN and counted as a queue-full drop; another queue still takes
// CSs, and the ring frees as CSs complete.
TEST_F(SimStream, QueueRingHoldsItsLengthInJobs)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::vector<uint32_t> w;
	put_nop(w);
	uint64_t cb, seq = 0;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	std::vector<hl_cs_chunk> down(HL_MAX_JOBS_PER_CS, user_chunk(cb, 8, kDown));

	Blocker b(d, 5);			// one entry
	ASSERT_EQ(b.rc, 0);
	for (int i = 0; i < 7; i++)		// 3584 more
		ASSERT_EQ(d.cs(down, &seq), 0) << "CS " << i;
	uint64_t before = cs_counters(d.fd()).ctx_queue_full_drop_cnt;
	EXPECT_EQ(d.cs(down, &seq), -EAGAIN);
	EXPECT_EQ(cs_counters(d.fd()).ctx_queue_full_drop_cnt - before, 1u);
	// 511 fit; and the other queue has its own ring.
	std::vector<hl_cs_chunk> fits(HL_MAX_JOBS_PER_CS - 1, user_chunk(cb, 8, kDown));
	ASSERT_EQ(d.cs(fits, &seq), 0);
	EXPECT_EQ(d.cs({user_chunk(cb, 8, kDown)}, &seq), -EAGAIN);
	EXPECT_EQ(signal_cs(d.fd(), kDown).rc, -EAGAIN);
	Signal up = signal_cs(d.fd(), kUp);
	ASSERT_EQ(up.rc, 0);

	uint32_t st = ~0u;
	ASSERT_EQ(d.wait(up.seq, 20000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(d.wait(b.seq, 0, &st), -ETIMEDOUT);
	ASSERT_EQ(d.cs(down, &seq), 0);
	ASSERT_EQ(d.wait(seq, 20000000, &st), 0);
	EXPECT_EQ(d.cb_free(cb), 0);
}

} // namespace
