// SPDX-License-Identifier: GPL-2.0
// A sync-manager cascade as wide as a user can make it: every user
// monitor armed on one SOB group, each fire adding to the group's SOB
// (which makes every armed monitor look again) and re-arming monitors
// (which fire at once).  One write from a queue must cost a bounded
// amount of work, a CS of many such writes must run where its owner's
// death stops it, and the CPU must be handed on meanwhile.
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint32_t kFirstMon = 289;	// HL_INFO_SYNC_MANAGER's first_available_monitor
constexpr uint32_t kSob = 800;		// a user SOB

double now_s()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

uint32_t arm_value(uint32_t sob, uint32_t val)
{
	return (sob / 8) | ((0xffu & ~(1u << (sob % 8))) << GAUDI2_MON_ARM_MASK_SHIFT) |
	       (val << GAUDI2_MON_ARM_VAL_SHIFT);
}

// Every user monitor watches kSob >= 1 and writes four payloads (its own
// and its next three neighbours'): the even ones add 1 to kSob, the odd
// ones re-arm themselves.  Nothing fires while kSob is 0.
std::vector<uint32_t> storm_setup()
{
	const uint64_t sob_reg = GAUDI2_CFG_BASE + GAUDI2_SM_SOB_OBJ_0 + 4ull * kSob;
	std::vector<uint32_t> w;
	for (uint32_t m = kFirstMon; m < GAUDI2_SM_NUM_MONS; m++) {
		const uint64_t arm_reg = GAUDI2_CFG_BASE + GAUDI2_SM_MON_ARM_0 + 4ull * m;
		const bool even = m % 2 == 0;
		put_monitor(w, m, even ? sob_reg : arm_reg,
			    even ? (GAUDI2_SOB_ADD_MASK | 1) : arm_value(kSob, 1), kSob, 1,
			    false, 3u << GAUDI2_MON_CFG_WR_NUM_SHIFT);
	}
	return w;
}

// n writes that each set kSob off again.
std::vector<uint32_t> storm_trigger(unsigned int n)
{
	std::vector<uint32_t> w;
	for (unsigned int i = 0; i < n; i++)
		put_sob(w, kSob, 1, true);
	return w;
}

class SimCascade : public LeakCheckedTest {};

}  // namespace

// A few writes, run by the submitter itself: each cascade is cut at its
// bound, the CS completes, and the monitors the cascade did not reach
// are still armed for the next write.
TEST_F(SimCascade, EachWriteIsBounded)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	ASSERT_EQ(d.run(storm_setup()), 0);
	const long cut = sim_event("sm_cut_cascades");
	ASSERT_GE(cut, 0);
	ASSERT_EQ(d.run(storm_trigger(8)), 0);
	EXPECT_GE(sim_event("sm_cut_cascades"), cut + 8) << "each write ran into its bound";
	// The storm goes on at the next write, bounded again.
	ASSERT_EQ(d.run(storm_trigger(1)), 0);
	EXPECT_GE(sim_event("sm_cut_cascades"), cut + 9);
}

// Thousands of such writes in one CS with a long timeout: the CS runs on
// the device's worker, so the submitter returns at once; killed, its
// close stops the CS at the next command, and the process is gone in
// well under the CS's timeout.
TEST_F(SimCascade, OwnerKilledDuringAStorm)
{
	int sv[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		Dev d(0);
		if (d.fd() < 0 || d.run(storm_setup()))
			_exit(10);
		const std::vector<uint32_t> w = storm_trigger(20000);
		uint64_t cb, seq;
		if (d.cb_with(w, &cb))
			_exit(11);
		const double t0 = now_s();
		if (d.cs({user_chunk(cb, static_cast<uint32_t>(w.size() * 4))}, &seq, 0, 120))
			_exit(12);
		// The submit did not run the storm (a generous bound under TCG).
		char c = now_s() - t0 < 5 ? 'r' : 's';
		if (write(sv[1], &c, 1) != 1)
			_exit(13);
		uint32_t st;
		d.wait(seq, 120ull * 1000 * 1000, &st);
		_exit(14);
	}
	close(sv[1]);
	char c = 0;
	ASSERT_EQ(read(sv[0], &c, 1), 1) << "the child failed before its submit returned";
	EXPECT_EQ(c, 'r') << "the submitting ioctl ran the storm";
	usleep(300 * 1000);	// the worker is in the storm now
	const double t0 = now_s();
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	const double took = now_s() - t0;
	EXPECT_TRUE(WIFSIGNALED(status));
	close(sv[0]);
	// Its close waits for the CS, which stops at its next command.
	EXPECT_LT(took, 10.0) << "the owner's death did not stop the CS";
	// The device is free for the next owner.
	Dev again(0);
	EXPECT_GE(again.fd(), 0);
}
