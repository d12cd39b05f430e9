// SPDX-License-Identifier: MIT
// hl-thunk's command submission, memory, notification and debug calls
// through libhlthunk against habanalabs_sim (in the VM): what the
// emulated device does is checked for real (CS timeouts, timestamps, CB
// usage, the eventfd notifier, debug mode); what it cannot do (sync
// streams, staged and multi-CS, user interrupts, engine commands, trace
// components, timestamp buffers, blocks) must come back with the driver's
// errno for such a device.  And hl-thunk's consumer program runs.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "hlthunk.h"
#include "habanalabs_extra.h"

namespace {

void set_sim_param(const char *name, unsigned v)
{
	std::string p = std::string("/sys/module/habanalabs_sim/parameters/") + name;
	FILE *f = fopen(p.c_str(), "w");
	ASSERT_NE(f, nullptr);
	fprintf(f, "%u", v);
	fclose(f);
}

// The wait-for-signal input hl-thunk's wait calls take: one signal CS,
// *seq, waited for on queue.  It points into itself, so it is not copied.
struct WaitFor {
	WaitFor(uint32_t queue, uint64_t *seq)
	{
		w.queue_index = queue;
		w.signal_seq_arr = seq;
		w.signal_seq_nr = 1;
		in.hlthunk_wait_for_signal = reinterpret_cast<uint64_t *>(&w);
		in.num_wait_for_signal = 1;
	}
	WaitFor(const WaitFor &) = delete;
	WaitFor &operator=(const WaitFor &) = delete;
	struct hlthunk_wait_for_signal_data w = {};
	struct hlthunk_wait_in in = {};
};

// An open device with one allocation and a CB holding one LIN_DMA inside
// it.  As Gaudi2 requires, the CB is the user's: host memory mapped into
// the device, named by its device address.
class Cs : public ::testing::Test {
protected:
	void SetUp() override
	{
		fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		ASSERT_GE(fd, 0) << hlthunk_ipc_last_error();
		handle = hlthunk_device_memory_alloc(fd, 8192, 0, false, false);
		ASSERT_NE(handle, 0u);
		va = hlthunk_device_memory_map(fd, handle, 0);
		ASSERT_NE(va, 0u);
		w = static_cast<uint32_t *>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		ASSERT_NE(w, MAP_FAILED);
		cb = hlthunk_host_memory_map(fd, w, 0, 4096);
		ASSERT_NE(cb, 0u) << hlthunk_ipc_last_error();
		uint64_t src = va, dst = va + 4096;
		w[0] = 256;
		w[1] = GAUDI2_PACKET_LIN_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT |
		       GAUDI2_PKT_CTL_EB_MASK | GAUDI2_PKT_CTL_MB_MASK;
		memcpy(&w[2], &src, 8);
		memcpy(&w[4], &dst, 8);
		memset(&chunk, 0, sizeof(chunk));
		chunk.cb_handle = cb;
		chunk.cb_size = 24;
		chunk.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
		in = {};
		in.chunks_execute = &chunk;
		in.num_chunks_execute = 1;
	}
	void TearDown() override
	{
		set_sim_param("cs_delay_ms", 0);
		set_sim_param("cs_timeout_s", 30);
		EXPECT_EQ(hlthunk_memory_unmap(fd, cb), 0);
		munmap(w, 4096);
		EXPECT_EQ(hlthunk_memory_unmap(fd, va), 0);
		EXPECT_EQ(hlthunk_device_memory_free(fd, handle), 0);
		EXPECT_EQ(hlthunk_close(fd), 0);
	}
	int fd = -1;
	uint64_t handle = 0, va = 0, cb = 0;
	uint32_t *w = nullptr;
	struct hl_cs_chunk chunk;
	struct hlthunk_cs_in in;
};

}  // namespace

TEST_F(Cs, TimestampsAndBusyEngines)
{
	struct hlthunk_cs_out out;
	in.flags = HL_CS_FLAGS_TIMESTAMP;
	ASSERT_EQ(hlthunk_command_submission(fd, &in, &out), 0);
	uint32_t status;
	uint64_t ts = 0;
	ASSERT_EQ(hlthunk_wait_for_cs_with_timestamp(fd, out.seq, 10000000, &status, &ts), 0);
	EXPECT_EQ(status, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_GT(ts, 0u);

	set_sim_param("cs_delay_ms", 1500);
	in.flags = 0;
	ASSERT_EQ(hlthunk_command_submission(fd, &in, &out), 0);
	EXPECT_FALSE(hlthunk_is_device_idle(fd));
	struct hlthunk_engines_idle_info idle;
	ASSERT_EQ(hlthunk_get_busy_engines_mask(fd, &idle), 0);
	EXPECT_NE(idle.mask[0], 0u);
	ASSERT_EQ(hlthunk_wait_for_cs(fd, out.seq, 30000000, &status), 0);
	EXPECT_EQ(status, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_TRUE(hlthunk_is_device_idle(fd));

	// A kernel CB: no Gaudi2 user queue takes it, so no CS uses it.
	uint64_t kcb;
	ASSERT_EQ(hlthunk_request_command_buffer(fd, 4096, &kcb), 0);
	struct hl_cs_chunk kchunk = chunk;
	kchunk.cb_handle = kcb;
	kchunk.cs_chunk_flags = 0;
	in.chunks_execute = &kchunk;
	EXPECT_EQ(hlthunk_command_submission(fd, &in, &out), -EINVAL);
	in.chunks_execute = &chunk;
	uint32_t usage = 7;
	ASSERT_EQ(hlthunk_get_cb_usage_count(fd, kcb, &usage), 0);
	EXPECT_EQ(usage, 0u);
	EXPECT_EQ(hlthunk_destroy_command_buffer(fd, kcb), 0);
}

// hlthunk_command_submission_timeout's timeout reaches the device: a CS
// that outlives it ends TIMEDOUT, with the event, the notifier's eventfd
// and the reset count.
TEST_F(Cs, TimeoutEventAndNotifier)
{
	int nfd = hlthunk_notifier_create(fd);
	ASSERT_GE(nfd, 0) << hlthunk_ipc_last_error();
	uint64_t events = 0, count = 7;
	ASSERT_EQ(hlthunk_notifier_recv(fd, nfd, &events, &count, 0, 0), 0);
	EXPECT_EQ(count, 0u) << "nothing happened yet";
	struct hlthunk_reset_count_info r0, r1;
	ASSERT_EQ(hlthunk_get_reset_count_info(fd, &r0), 0);

	set_sim_param("cs_delay_ms", 8000);
	struct hlthunk_cs_out out;
	ASSERT_EQ(hlthunk_command_submission_timeout(fd, &in, &out, 1), 0);
	uint32_t status = 99;
	EXPECT_EQ(hlthunk_wait_for_cs(fd, out.seq, 60000000, &status), -ETIMEDOUT);
	EXPECT_EQ(status, (uint32_t)HL_WAIT_CS_STATUS_TIMEDOUT);
	set_sim_param("cs_delay_ms", 0);

	struct hlthunk_event_record_cs_timeout ev;
	ASSERT_EQ(hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &ev), 0);
	EXPECT_EQ(ev.seq, out.seq);
	EXPECT_GT(ev.timestamp, 0);
	ASSERT_EQ(hlthunk_get_reset_count_info(fd, &r1), 0);
	EXPECT_EQ(r1.soft_reset_count, r0.soft_reset_count + 1);
	ASSERT_EQ(hlthunk_notifier_recv(fd, nfd, &events, &count, 0, 10000), 0);
	EXPECT_EQ(count, 1u);
	EXPECT_EQ(events, (uint64_t)HL_NOTIFIER_EVENT_CS_TIMEOUT);
	EXPECT_EQ(hlthunk_notifier_release(fd, nfd), 0);
	EXPECT_EQ(fcntl(nfd, F_GETFD), -1) << "released and closed";
	EXPECT_EQ(hlthunk_notifier_release(fd, nfd), -EINVAL) << "not registered";

	// A control node has no notifier (as the driver's).
	int c = hlthunk_open_control(0, nullptr);
	EXPECT_EQ(hlthunk_notifier_create(c), -EOPNOTSUPP);
	EXPECT_EQ(hlthunk_close(c), 0);
}

// A signal CS on one queue and a wait CS for it on another, as the
// runtimes pair DMA streams; each signal counts on from the last.
TEST_F(Cs, SignalAndWaitForSignal)
{
	struct hlthunk_signal_in sin = {};
	sin.queue_index = GAUDI2_QUEUE_ID_PDMA_0_0;
	struct hlthunk_signal_out s1 = {}, s2 = {};
	ASSERT_EQ(hlthunk_signal_submission(fd, &sin, &s1), 0);
	ASSERT_EQ(hlthunk_signal_submission_timeout(fd, &sin, &s2, 5), 0);
	EXPECT_GT(s2.seq, s1.seq);
	EXPECT_EQ(s2.sob_count_before_submission, s1.sob_count_before_submission + 1);
	EXPECT_EQ(s2.sob_base_addr_offset, 0u);

	for (uint64_t seq : {s1.seq, s2.seq}) {
		WaitFor wf(GAUDI2_QUEUE_ID_PDMA_1_0, &seq);
		struct hlthunk_wait_out wout = {};
		ASSERT_EQ(hlthunk_wait_for_signal_timeout(fd, &wf.in, &wout, 5), 0);
		// ULLONG_MAX: the signal had completed, nothing was submitted.
		if (wout.seq != ULLONG_MAX) {
			uint32_t st = ~0u;
			ASSERT_EQ(hlthunk_wait_for_cs(fd, wout.seq, 5000000, &st), 0);
			EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
		}
	}
	uint32_t st = ~0u;
	ASSERT_EQ(hlthunk_wait_for_cs(fd, s2.seq, 5000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
}

// What the emulated Gaudi2 does not have, answered with the driver's
// errno for such a device.
TEST_F(Cs, WhatTheDeviceCannotDo)
{
	struct hlthunk_cs_out out;
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION | HL_CS_FLAGS_STAGED_SUBMISSION_FIRST;
	EXPECT_EQ(hlthunk_staged_command_submission(fd, 0, &in, &out), -EPERM);
	EXPECT_EQ(hlthunk_staged_command_submission_timeout(fd, 0, &in, &out, 5), -EPERM);
	EXPECT_EQ(hlthunk_staged_command_submission_encaps_signals(fd, 1, &in, &out), -EPERM);
	in.flags = 0;

	// Sync streams, on a queue that has none: the NICs' (the device has
	// no NIC either).
	struct hlthunk_signal_in sin = {};
	sin.queue_index = GAUDI2_QUEUE_ID_NIC_0_0;
	struct hlthunk_signal_out sout;
	EXPECT_EQ(hlthunk_signal_submission(fd, &sin, &sout), -EINVAL);
	EXPECT_EQ(hlthunk_signal_submission_timeout(fd, &sin, &sout, 5), -EINVAL);
	uint64_t seq = 1;
	WaitFor wf(GAUDI2_QUEUE_ID_NIC_0_0, &seq);
	struct hlthunk_wait_in &win = wf.in;
	struct hlthunk_wait_out wout;
	EXPECT_EQ(hlthunk_wait_for_signal(fd, &win, &wout), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_signal_timeout(fd, &win, &wout, 5), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_collective_signal(fd, &win, &wout), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_collective_signal_timeout(fd, &win, &wout, 5), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_reserved_encaps_signals(fd, &win, &wout), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_reserved_encaps_collective_signals(fd, &win, &wout),
		  -EINVAL);
	struct hlthunk_sig_res_in rin = {0, 4};
	struct hlthunk_sig_res_out rout;
	EXPECT_EQ(hlthunk_reserve_encaps_signals(fd, &rin, &rout), -EINVAL);
	struct reserve_sig_handle rh = {1, 0, 4};
	uint32_t st;
	EXPECT_EQ(hlthunk_unreserve_encaps_signals(fd, &rh, &st), -EINVAL);

	uint32_t core = 0;
	EXPECT_EQ(hlthunk_engine_cores_set_mode(fd, &core, 1, HL_ENGINE_CORE_HALT), -EPERM);
	EXPECT_EQ(hlthunk_engines_command(fd, &core, 1, HL_ENGINE_STALL), -EPERM);
	EXPECT_EQ(hlthunk_cs_flush_pci_hbw_writes(fd), 0);

	uint64_t seqs[2] = {1, 2};
	struct hlthunk_wait_multi_cs_in min = {seqs, 1000, 2};
	struct hlthunk_wait_multi_cs_out mout;
	EXPECT_EQ(hlthunk_wait_for_multi_cs(fd, &min, &mout), -EPERM);
	uint64_t ts;
	EXPECT_EQ(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, &ts), -EPERM);

	uint64_t h;
	uint32_t bsize;
	EXPECT_EQ(hlthunk_get_hw_block(fd, 0x1000000, &bsize, &h), -EINVAL);
	// A CB mapped into the device has a device address; an unmapped one
	// has none.
	uint64_t mapped, dva = 0;
	ASSERT_EQ(hlthunk_request_mapped_command_buffer(fd, 4096, &mapped), 0);
	EXPECT_EQ(hlthunk_get_mapped_cb_device_va_by_handle(fd, mapped, &dva), 0);
	EXPECT_NE(dva, 0u);
	EXPECT_EQ(hlthunk_destroy_command_buffer(fd, mapped), 0);
	EXPECT_EQ(hlthunk_get_mapped_cb_device_va_by_handle(fd, cb, &dva), -EINVAL);

	// Debug mode is real; the trace components are not.
	struct hl_debug_args dbg = {};
	dbg.op = HL_DEBUG_OP_ETF;
	EXPECT_EQ(hlthunk_debug(fd, &dbg), -EFAULT) << "not in debug mode";
	dbg.op = HL_DEBUG_OP_SET_MODE;
	dbg.enable = 1;
	EXPECT_EQ(hlthunk_debug(fd, &dbg), 0);
	dbg.op = HL_DEBUG_OP_ETF;
	EXPECT_EQ(hlthunk_debug(fd, &dbg), -EINVAL);
	dbg.op = HL_DEBUG_OP_SET_MODE;
	dbg.enable = 0;
	EXPECT_EQ(hlthunk_debug(fd, &dbg), 0);
	// The driver's debugfs window on device memory is not emulated.
	struct hlthunk_debugfs dfs;
	EXPECT_EQ(hlthunk_debugfs_open(fd, &dfs), -EPERM);

	// Nothing of this happened on the device: the next CS runs.
	ASSERT_EQ(hlthunk_command_submission(fd, &in, &out), 0);
	EXPECT_EQ(hlthunk_wait_for_cs(fd, out.seq, 10000000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
}

// Gaudi2's user interrupts and timestamp buffers through the library:
// the driver's checks, and waits that answer without a CS (the waits a
// CS wakes are tests/sim's SimIrq).
TEST_F(Cs, UserInterruptsAndTimestamps)
{
	constexpr uint32_t kIrq = 48;	// the first user interrupt
	uint32_t st = ~0u;
	uint64_t ts = 0, value = 0;
	EXPECT_EQ(hlthunk_wait_for_interrupt(fd, &value, 1, 0, 1000, &st), -EINVAL)
		<< "interrupt 0 is a decoder's, and no decoder is enabled";
	EXPECT_EQ(hlthunk_wait_for_interrupt(fd, &value, 1, kIrq + 64, 1000, &st), -EINVAL);
	// Any user interrupt: nothing raises one, so the wait times out.
	EXPECT_EQ(hlthunk_wait_for_interrupt(fd, &value, 1, UINT32_MAX, 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	// A counter already at its target completes at once, with the time.
	value = 5;
	EXPECT_EQ(hlthunk_wait_for_interrupt_with_timestamp(fd, &value, 5, kIrq, 1000000,
							    &st, &ts), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_NE(ts, 0u);
	EXPECT_EQ(hlthunk_wait_for_interrupt(fd, nullptr, 1, kIrq, 1000, &st), -EINVAL);
	EXPECT_EQ(hlthunk_wait_for_interrupt(fd, reinterpret_cast<void *>(8), 1, kIrq, 1000,
					     &st), -EFAULT);

	uint64_t cq, tsh = 0;
	ASSERT_EQ(hlthunk_request_mapped_command_buffer(fd, 4096, &cq), 0);
	EXPECT_EQ(hlthunk_wait_for_interrupt_by_handle(fd, cq, 0, 1, kIrq, 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	EXPECT_EQ(hlthunk_wait_for_interrupt_by_handle_with_timestamp(fd, cq, 0, 0, kIrq, 1000,
								      &st, &ts), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(hlthunk_wait_for_interrupt_by_handle(fd, cq, 512, 1, kIrq, 1000, &st), -EINVAL)
		<< "past the CB's 512 counters";
	EXPECT_EQ(hlthunk_wait_for_interrupt_by_handle(fd, cb, 0, 1, kIrq, 1000, &st), -EINVAL)
		<< "a device address is no CB handle";

	EXPECT_EQ(hlthunk_allocate_timestamp_elements(fd, 0, &tsh), -EINVAL);
	EXPECT_EQ(hlthunk_allocate_timestamp_elements(fd, TS_MAX_ELEMENTS_NUM + 1, &tsh), -EINVAL);
	ASSERT_EQ(hlthunk_allocate_timestamp_elements(fd, 16, &tsh), 0);
	EXPECT_EQ(hlthunk_register_timestamp_interrupt(fd, kIrq, cq, 0, 1, tsh, 0), 0);
	EXPECT_EQ(hlthunk_register_timestamp_interrupt(fd, kIrq, cq, 0, 1, tsh, 16), -EINVAL);
	EXPECT_EQ(hlthunk_register_timestamp_interrupt(fd, 0, cq, 0, 1, tsh, 0), -EINVAL);
	EXPECT_EQ(hlthunk_register_timestamp_interrupt(fd, kIrq, cq, 0, 1, cq, 0), -EINVAL)
		<< "a CB is no timestamp buffer";
	// The registration holds the CB; both go when the device closes.
	EXPECT_EQ(hlthunk_destroy_command_buffer(fd, cq), 0);
}

TEST_F(Cs, HostMemoryMapWithFlags)
{
	std::vector<uint8_t> host(3 * 4096, 0x11);
	uint64_t hva = hlthunk_host_memory_map_flags(fd, host.data(), 0, host.size(), 0);
	ASSERT_NE(hva, 0u) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlthunk_memory_unmap(fd, hva), 0);
	// Flags are the driver's: an unknown one is refused.
	errno = 0;
	EXPECT_EQ(hlthunk_host_memory_map_flags(fd, host.data(), 0, host.size(), 0x800), 0u);
	EXPECT_EQ(errno, EINVAL);
}

// A program written against hl-thunk's API alone runs unchanged.
TEST(Consumer, HlThunkProgramRuns)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(HLTHUNK_CONSUMER, HLTHUNK_CONSUMER, (char *)nullptr);
		_exit(127);
	}
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}
