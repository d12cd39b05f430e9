// SPDX-License-Identifier: MIT
// What each hl-thunk call sends to the driver, and what it makes of the
// answer, for the calls whose work the emulated device does not do (sync
// streams, staged submissions, interrupts, engine commands, ...) and for
// the marshalling of every INFO result.  The ioctl is recorded by the test
// executable's own ioctl() on one fd number (ioctl_recorder.c), so each
// call's request and argument are checked byte for byte; the VM tests
// check what habanalabs_sim answers.  Host test.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "hlthunk.h"
#include "habanalabs_extra.h"
#include "ioctl_recorder.h"

namespace {

constexpr int fd = REC_FD;

template <typename T>
T arg_of(int i)
{
	T a;
	memcpy(&a, rec_get(i)->arg, sizeof(a));
	return a;
}

struct hl_cs_chunk chunk_of(int i)
{
	struct hl_cs_chunk c;
	memcpy(&c, rec_get(i)->chunk, sizeof(c));
	return c;
}

// Answers an INFO query with bytes 1, 2, 3, ... in its result.
void fill_info_counting(unsigned long req, void *arg)
{
	if (req != DRM_IOCTL_HL_INFO)
		return;
	auto *a = static_cast<struct hl_info_args *>(arg);
	auto *p = reinterpret_cast<unsigned char *>(static_cast<uintptr_t>(a->return_pointer));
	for (uint32_t i = 0; i < a->return_size; i++)
		p[i] = static_cast<unsigned char>(i + 1);
	a->user_buffer_actual_size = 77;
}

struct hl_info_args info_sent(int i = 0)
{
	EXPECT_EQ(rec_get(i)->request, (unsigned long)DRM_IOCTL_HL_INFO);
	return arg_of<struct hl_info_args>(i);
}

}  // namespace

TEST(Encoding, InfoOpcodesAndSizes)
{
	struct {
		const char *name;
		uint32_t op, size, arg;
		int (*call)();
	} cases[] = {
		{"hw_ip", HL_INFO_HW_IP_INFO, sizeof(struct hl_info_hw_ip_info), 0,
		 [] { struct hlthunk_hw_ip_info x; return hlthunk_get_hw_ip_info(fd, &x); }},
		{"open_stats", HL_INFO_OPEN_STATS, sizeof(struct hl_open_stats_info), 0,
		 [] { struct hlthunk_open_stats_info x; return hlthunk_get_open_stats(fd, &x); }},
		{"dram_usage", HL_INFO_DRAM_USAGE, sizeof(struct hl_info_dram_usage), 0,
		 [] { struct hlthunk_dram_usage_info x; return hlthunk_get_dram_usage(fd, &x); }},
		{"idle", HL_INFO_HW_IDLE, sizeof(struct hl_info_hw_idle), 0,
		 [] { struct hlthunk_engines_idle_info x; return hlthunk_get_busy_engines_mask(fd, &x); }},
		{"pll", HL_INFO_PLL_FREQUENCY, sizeof(struct hl_pll_frequency_info), 5,
		 [] { struct hlthunk_pll_frequency_info x; return hlthunk_get_pll_frequency(fd, 5, &x); }},
		{"util", HL_INFO_DEVICE_UTILIZATION, sizeof(struct hl_info_device_utilization), 300,
		 [] { uint32_t x; return hlthunk_get_device_utilization(fd, 300, &x); }},
		{"clk", HL_INFO_CLK_RATE, sizeof(struct hl_info_clk_rate), 0,
		 [] { uint32_t a, b; return hlthunk_get_clk_rate(fd, &a, &b); }},
		{"reset", HL_INFO_RESET_COUNT, sizeof(struct hl_info_reset_count), 0,
		 [] { struct hlthunk_reset_count_info x; return hlthunk_get_reset_count_info(fd, &x); }},
		{"time", HL_INFO_TIME_SYNC, sizeof(struct hl_info_time_sync), 0,
		 [] { struct hlthunk_time_sync_info x; return hlthunk_get_time_sync_info(fd, &x); }},
		{"sm", HL_INFO_SYNC_MANAGER, sizeof(struct hl_info_sync_manager), 2,
		 [] { struct hlthunk_sync_manager_info x; return hlthunk_get_sync_manager_info(fd, 2, &x); }},
		{"cs_counters", HL_INFO_CS_COUNTERS, sizeof(struct hl_info_cs_counters), 0,
		 [] { struct hl_info_cs_counters x; return hlthunk_get_cs_counters_info(fd, &x); }},
		{"pci", HL_INFO_PCI_COUNTERS, sizeof(struct hl_info_pci_counters), 0,
		 [] { struct hlthunk_pci_counters_info x; return hlthunk_get_pci_counters_info(fd, &x); }},
		{"throttle", HL_INFO_CLK_THROTTLE_REASON, sizeof(struct hl_info_clk_throttle), 0,
		 [] { struct hlthunk_clk_throttle_info x; return hlthunk_get_clk_throttle_info(fd, &x); }},
		{"energy", HL_INFO_TOTAL_ENERGY, sizeof(struct hl_info_energy), 0,
		 [] { struct hlthunk_energy_info x; return hlthunk_get_total_energy_consumption_info(fd, &x); }},
		{"power", HL_INFO_POWER, sizeof(struct hl_power_info), 0,
		 [] { struct hlthunk_power_info x; return hlthunk_get_power_info(fd, &x); }},
		{"rows", HL_INFO_DRAM_REPLACED_ROWS, sizeof(struct hlthunk_dram_replaced_rows_info), 0,
		 [] { struct hlthunk_dram_replaced_rows_info x; return hlthunk_get_dram_replaced_rows_info(fd, &x); }},
		{"pending", HL_INFO_DRAM_PENDING_ROWS, sizeof(uint32_t), 0,
		 [] { uint32_t x; return hlthunk_get_dram_pending_rows_info(fd, &x); }},
		{"attest", HL_INFO_SECURED_ATTESTATION, sizeof(struct hl_info_sec_attest), 99,
		 [] { struct hlthunk_sec_attest_info x; return hlthunk_get_sec_attest_info(fd, 99, &x); }},
		{"orders", HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, sizeof(struct hl_info_dev_memalloc_page_sizes), 0,
		 [] { uint64_t x; return hlthunk_get_dev_memalloc_page_orders(fd, &x); }},
		{"open_dev", HL_INFO_LAST_ERR_OPEN_DEV_TIME, sizeof(struct hl_info_last_err_open_dev_time), 0,
		 [] { struct hlthunk_event_record_open_dev_time x; return hlthunk_get_event_record(fd, HLTHUNK_OPEN_DEV, &x); }},
		{"cs_timeout", HL_INFO_CS_TIMEOUT_EVENT, sizeof(struct hl_info_cs_timeout_event), 0,
		 [] { struct hlthunk_event_record_cs_timeout x; return hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &x); }},
		{"razwi", HL_INFO_RAZWI_EVENT, sizeof(struct hl_info_razwi_event), 0,
		 [] { struct hlthunk_event_record_razwi_event x; return hlthunk_get_event_record(fd, HLTHUNK_RAZWI_EVENT, &x); }},
		{"undef", HL_INFO_UNDEFINED_OPCODE_EVENT, sizeof(struct hl_info_undefined_opcode_event), 0,
		 [] { struct hlthunk_event_record_undefined_opcode x; return hlthunk_get_event_record(fd, HLTHUNK_UNDEFINED_OPCODE, &x); }},
		{"hw_err", HL_INFO_HW_ERR_EVENT, sizeof(struct hl_info_hw_err_event), 0,
		 [] { struct hlthunk_event_record_critical_hw_err x; return hlthunk_get_event_record(fd, HLTHUNK_HW_ERR_OPCODE, &x); }},
		{"fw_err", HL_INFO_FW_ERR_EVENT, sizeof(struct hl_info_fw_err_event), 0,
		 [] { struct hlthunk_event_record_critical_fw_err x; return hlthunk_get_event_record(fd, HLTHUNK_FW_ERR_OPCODE, &x); }},
	};
	for (auto &c : cases) {
		rec_reset(0, fill_info_counting);
		EXPECT_EQ(c.call(), 0) << c.name;
		ASSERT_EQ(rec_count(), 1) << c.name;
		auto a = info_sent();
		EXPECT_EQ(a.op, c.op) << c.name;
		EXPECT_EQ(a.return_size, c.size) << c.name;
		EXPECT_EQ(a.dcore_id, c.arg) << c.name << ": the union argument";
		EXPECT_EQ(a.pad, 0u) << c.name;
	}
}

// Answers are copied field by field into hl-thunk's structures.
TEST(Encoding, InfoResultsLandInTheRightFields)
{
	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<struct hl_info_args *>(arg);
		auto *hw = reinterpret_cast<struct hl_info_hw_ip_info *>(
			static_cast<uintptr_t>(a->return_pointer));
		hw->device_id = 0x1020;
		hw->module_id = 5;
		hw->dram_size = 1ull << 40;
		hw->tpc_enabled_mask = 0xab;
		hw->revision_id = 3;
		hw->reserved_dram_size = 4096;
		hw->first_available_interrupt_id = 17;
		hw->server_type = HL_SERVER_GAUDI2_HLS2;
		strcpy(reinterpret_cast<char *>(hw->card_name), "CARD");
	});
	struct hlthunk_hw_ip_info hw;
	ASSERT_EQ(hlthunk_get_hw_ip_info(fd, &hw), 0);
	EXPECT_EQ(hw.device_id, 0x1020u);
	EXPECT_EQ(hw.module_id, 5u);
	EXPECT_EQ(hw.dram_size, 1ull << 40);
	EXPECT_EQ(hw.tpc_enabled_mask, 0xab);
	EXPECT_EQ(hw.revision_id, 3);
	EXPECT_EQ(hw.reserved_dram_size, 4096u);
	EXPECT_EQ(hw.first_available_interrupt_id, 17);
	EXPECT_EQ(hw.server_type, HL_SERVER_GAUDI2_HLS2);
	EXPECT_STREQ(reinterpret_cast<char *>(hw.card_name), "CARD");
	EXPECT_EQ(hlthunk_get_device_name_from_fd(fd), HLTHUNK_DEVICE_GAUDI2);

	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<struct hl_info_args *>(arg);
		auto *t = reinterpret_cast<struct hl_info_clk_throttle *>(
			static_cast<uintptr_t>(a->return_pointer));
		t->clk_throttling_reason = HL_CLK_THROTTLE_THERMAL;
		t->clk_throttling_timestamp_us[1] = 11;
		t->clk_throttling_duration_ns[1] = 22;
	});
	struct hlthunk_clk_throttle_info thr;
	ASSERT_EQ(hlthunk_get_clk_throttle_info(fd, &thr), 0);
	EXPECT_EQ(thr.clk_throttle_reason_bitmask, (uint32_t)HLTHUNK_CLK_THROTTLE_THERMAL);
	EXPECT_EQ(thr.clk_throttle_start_timestamp_us[1], 11u);
	EXPECT_EQ(thr.clk_throttle_duration_ns[1], 22u);

	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<struct hl_info_args *>(arg);
		auto *e = reinterpret_cast<struct hl_info_fw_err_event *>(
			static_cast<uintptr_t>(a->return_pointer));
		e->timestamp = 9;
		e->err_type = HL_INFO_FW_REPORTED_ERR;
		e->event_id = 42;
	});
	struct hlthunk_event_record_critical_fw_err fw;
	ASSERT_EQ(hlthunk_get_event_record(fd, HLTHUNK_FW_ERR_OPCODE, &fw), 0);
	EXPECT_EQ(fw.timestamp, 9);
	EXPECT_EQ(fw.err_type, HL_INFO_FW_REPORTED_ERR);
	EXPECT_EQ(fw.reported_err_id, 42);

	// The status comes back as the call's value, errors as negative.
	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<struct hl_info_args *>(arg);
		reinterpret_cast<struct hl_info_device_status *>(
			static_cast<uintptr_t>(a->return_pointer))->status =
			HL_DEVICE_STATUS_IN_RESET;
	});
	EXPECT_EQ(hlthunk_get_device_status_info(fd), HL_DEVICE_STATUS_IN_RESET);
	rec_reset(EBUSY, nullptr);
	EXPECT_EQ((int)hlthunk_get_device_status_info(fd), -EBUSY);
	EXPECT_FALSE(hlthunk_is_device_idle(fd));
}

TEST(Encoding, InfoCallsWithBuffersOfTheCaller)
{
	uint32_t events[10];
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_get_hw_events_arr(fd, true, sizeof(events), events), 0);
	auto a = info_sent();
	EXPECT_EQ(a.op, (uint32_t)HL_INFO_HW_EVENTS_AGGREGATE);
	EXPECT_EQ(a.return_pointer, reinterpret_cast<uintptr_t>(events));
	EXPECT_EQ(a.return_size, sizeof(events));

	char text[2048];
	int actual = 0;
	rec_reset(0, fill_info_counting);
	ASSERT_EQ(hlthunk_get_engine_status(fd, text, sizeof(text), &actual), 0);
	a = info_sent();
	EXPECT_EQ(a.op, (uint32_t)HL_INFO_ENGINE_STATUS);
	EXPECT_EQ(a.return_pointer, reinterpret_cast<uintptr_t>(text));
	EXPECT_EQ(actual, 77) << "the driver's user_buffer_actual_size";

	unsigned char fw[100];
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_fw_send_generic_request(fd, fw, sizeof(fw), 3), 0);
	a = info_sent();
	EXPECT_EQ(a.op, (uint32_t)HL_INFO_FW_GENERIC_REQ);
	EXPECT_EQ(a.fw_sub_opcode, 3u);
	EXPECT_EQ(a.return_size, sizeof(fw));

	// Page fault information: the fault, then the mappings the driver
	// saw, with their number.
	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<struct hl_info_args *>(arg);
		if (a->op == HL_INFO_PAGE_FAULT_EVENT) {
			auto *pf = reinterpret_cast<struct hl_page_fault_info *>(
				static_cast<uintptr_t>(a->return_pointer));
			pf->addr = 0x1234;
			pf->engine_id = 8;
		} else {
			auto *m = reinterpret_cast<struct hl_user_mapping *>(
				static_cast<uintptr_t>(a->return_pointer));
			m[0].dev_va = 0x1000;
			m[0].size = 4096;
			m[1].dev_va = 0x9000;
			m[1].size = 8192;
			a->array_size = 2;
		}
	});
	struct hlthunk_user_mapping maps[3];
	struct hlthunk_page_fault_info pf = {};
	pf.mappings_buf = maps;
	ASSERT_EQ(hlthunk_get_page_fault_info(fd, &pf, 3), 0);
	ASSERT_EQ(rec_count(), 2);
	EXPECT_EQ(info_sent(0).op, (uint32_t)HL_INFO_PAGE_FAULT_EVENT);
	a = info_sent(1);
	EXPECT_EQ(a.op, (uint32_t)HL_INFO_USER_MAPPINGS);
	EXPECT_EQ(a.return_size, 3 * sizeof(struct hl_user_mapping));
	EXPECT_EQ(pf.addr, 0x1234u);
	EXPECT_EQ(pf.engine_id, 8);
	EXPECT_EQ(pf.num_of_mappings, 2u);
	EXPECT_EQ(maps[1].dev_va, 0x9000u);
	EXPECT_EQ(maps[1].size, 8192u);
}

// An older driver's node answers ENOTTY to the accel numbering: the call
// is made again with the former 'H' numbering.
TEST(Encoding, LegacyNumberingWhenTheNodeDoesNotKnowTheAccelOne)
{
	rec_reset(0, nullptr);
	rec_fail_request(DRM_IOCTL_HL_INFO, ENOTTY);
	uint32_t cur, max;
	ASSERT_EQ(hlthunk_get_clk_rate(fd, &cur, &max), 0);
	ASSERT_EQ(rec_count(), 2);
	EXPECT_EQ(rec_get(0)->request, (unsigned long)DRM_IOCTL_HL_INFO);
	EXPECT_EQ(rec_get(1)->request, (unsigned long)HL_LEGACY_IOCTL_INFO);
	rec_reset(0, nullptr);
	rec_fail_request(DRM_IOCTL_HL_DEBUG, ENOTTY);
	struct hl_debug_args d = {};
	d.op = HL_DEBUG_OP_SET_MODE;
	d.enable = 1;
	ASSERT_EQ(hlthunk_debug(fd, &d), 0);
	ASSERT_EQ(rec_count(), 2);
	EXPECT_EQ(rec_get(1)->request, (unsigned long)HL_LEGACY_IOCTL_DEBUG);
	auto sent = arg_of<struct hl_debug_args>(1);
	EXPECT_EQ(memcmp(&sent, &d, sizeof(d)), 0);
}

TEST(Encoding, CommandSubmissionVariants)
{
	struct hl_cs_chunk c = {};
	c.cb_handle = 0x2000;
	c.cb_size = 24;
	struct hlthunk_cs_in in = {};
	in.chunks_execute = &c;
	in.num_chunks_execute = 1;
	in.flags = HL_CS_FLAGS_TIMESTAMP;
	struct hlthunk_cs_out out;

	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<union hl_cs_args *>(arg);
		memset(a, 0, sizeof(*a));
		a->out.seq = 41;
		a->out.sob_count_before_submission = 6;
	});
	ASSERT_EQ(hlthunk_command_submission_timeout(fd, &in, &out, 7), 0);
	auto a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(rec_get(0)->request, (unsigned long)DRM_IOCTL_HL_CS);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)(HL_CS_FLAGS_TIMESTAMP | HL_CS_FLAGS_CUSTOM_TIMEOUT));
	EXPECT_EQ(a.in.timeout, 7u);
	EXPECT_EQ(a.in.chunks_execute, reinterpret_cast<uintptr_t>(&c));
	EXPECT_EQ(out.seq, 41u);
	EXPECT_EQ(out.sob_count_before_submission, 6);

	// Staged: the sequence of the first part.
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION | HL_CS_FLAGS_STAGED_SUBMISSION_LAST;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_staged_command_submission_timeout(fd, 33, &in, &out, 2), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.seq, 33u);
	EXPECT_EQ(a.in.cs_flags, in.flags | HL_CS_FLAGS_CUSTOM_TIMEOUT);
	EXPECT_EQ(a.in.timeout, 2u);

	// Flush of PCI writes: a CS with only that flag.
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_cs_flush_pci_hbw_writes(fd), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES);
	EXPECT_EQ(a.in.num_chunks_execute, 0u);
}

TEST(Encoding, SyncStreamSubmissions)
{
	// Signal: one chunk naming the queue.
	struct hlthunk_signal_in sin = {};
	sin.queue_index = 5;
	sin.flags = HL_CS_FLAGS_TIMESTAMP;
	struct hlthunk_signal_out sout;
	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<union hl_cs_args *>(arg);
		memset(a, 0, sizeof(*a));
		a->out.seq = 9;
		a->out.sob_base_addr_offset = 0x40;
		a->out.sob_count_before_submission = 3;
	});
	ASSERT_EQ(hlthunk_signal_submission_timeout(fd, &sin, &sout, 4), 0);
	auto a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)(HL_CS_FLAGS_TIMESTAMP | HL_CS_FLAGS_SIGNAL |
					    HL_CS_FLAGS_CUSTOM_TIMEOUT));
	EXPECT_EQ(a.in.num_chunks_execute, 1u);
	EXPECT_EQ(a.in.timeout, 4u);
	ASSERT_TRUE(rec_get(0)->has_chunk);
	EXPECT_EQ(chunk_of(0).queue_index, 5u);
	EXPECT_EQ(sout.seq, 9u);
	EXPECT_EQ(sout.sob_base_addr_offset, 0x40u);
	EXPECT_EQ(sout.sob_count_before_submission, 3);

	// A status other than success is a failure, as in hl-thunk.
	rec_reset(0, [](unsigned long, void *arg) {
		static_cast<union hl_cs_args *>(arg)->out.status = 1;
	});
	EXPECT_EQ(hlthunk_signal_submission(fd, &sin, &sout), -EINVAL);

	// Wait: the signal's sequence array, one entry.
	uint64_t seqs[1] = {9};
	struct hlthunk_wait_for_signal_data w = {};
	w.signal_seq_arr = seqs;
	w.signal_seq_nr = 1;
	w.queue_index = 6;
	w.collective_engine_id = 2;
	struct hlthunk_wait_in win = {};
	win.hlthunk_wait_for_signal = reinterpret_cast<uint64_t *>(&w);
	win.num_wait_for_signal = 1;
	struct hlthunk_wait_out wout;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_wait_for_signal(fd, &win, &wout), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_WAIT);
	auto ch = chunk_of(0);
	EXPECT_EQ(ch.signal_seq_arr, reinterpret_cast<uintptr_t>(seqs));
	EXPECT_EQ(ch.num_signal_seq_arr, 1u);
	EXPECT_EQ(ch.queue_index, 6u);
	EXPECT_EQ(ch.collective_engine_id, 0u) << "not collective";

	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_wait_for_collective_signal_timeout(fd, &win, &wout, 3), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)(HL_CS_FLAGS_COLLECTIVE_WAIT |
					    HL_CS_FLAGS_CUSTOM_TIMEOUT));
	EXPECT_EQ(chunk_of(0).collective_engine_id, 2u);

	// Reserved signals: the handle and offset instead of the array.
	w.encaps_signal_seq = 0x77;
	w.encaps_signal_offset = 12;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_wait_for_reserved_encaps_collective_signals(fd, &win, &wout), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)(HL_CS_FLAGS_COLLECTIVE_WAIT |
					    HL_CS_FLAGS_ENCAP_SIGNALS));
	ch = chunk_of(0);
	EXPECT_EQ(ch.encaps_signal_seq, 0x77u);
	EXPECT_EQ(ch.encaps_signal_offset, 12u);

	struct hlthunk_sig_res_in rin = {3, 16};
	struct hlthunk_sig_res_out rout;
	rec_reset(0, [](unsigned long, void *arg) {
		auto *x = static_cast<union hl_cs_args *>(arg);
		memset(x, 0, sizeof(*x));
		x->out.handle_id = 5;
		x->out.count = 16;
		x->out.sob_base_addr_offset = 0x80;
	});
	ASSERT_EQ(hlthunk_reserve_encaps_signals(fd, &rin, &rout), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_RESERVE_SIGNALS_ONLY);
	EXPECT_EQ(a.in.encaps_signals_count, 16u);
	EXPECT_EQ(a.in.encaps_signals_q_idx, 3u);
	EXPECT_EQ(rout.handle.id, 5u);
	EXPECT_EQ(rout.handle.count, 16u);
	EXPECT_EQ(rout.handle.sob_base_addr_offset, 0x80u);

	uint32_t status = 9;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_unreserve_encaps_signals(fd, &rout.handle, &status), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY);
	EXPECT_EQ(a.in.encaps_sig_handle_id, 5u);
	EXPECT_EQ(status, 0u);

	struct hl_cs_chunk c = {};
	struct hlthunk_cs_in in = {};
	in.chunks_execute = &c;
	in.num_chunks_execute = 1;
	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION | HL_CS_FLAGS_STAGED_SUBMISSION_FIRST;
	struct hlthunk_cs_out out;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_staged_command_submission_encaps_signals(fd, 5, &in, &out), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.encaps_sig_handle_id, 5u);
	EXPECT_EQ(a.in.cs_flags, in.flags | HL_CS_FLAGS_ENCAP_SIGNALS);
}

TEST(Encoding, WaitsForCsMultiCsAndInterrupts)
{
	uint32_t status;
	uint64_t ts = 0;
	rec_reset(ETIMEDOUT, [](unsigned long, void *arg) {
		auto *a = static_cast<union hl_wait_cs_args *>(arg);
		a->out.status = HL_WAIT_CS_STATUS_TIMEDOUT;
	});
	EXPECT_EQ(hlthunk_wait_for_cs_with_timestamp(fd, 12, 1000, &status, &ts), -ETIMEDOUT);
	EXPECT_EQ(status, (uint32_t)HL_WAIT_CS_STATUS_TIMEDOUT) << "written on failure";
	auto w = arg_of<union hl_wait_cs_args>(0);
	EXPECT_EQ(rec_get(0)->request, (unsigned long)DRM_IOCTL_HL_WAIT_CS);
	EXPECT_EQ(w.in.seq, 12u);
	EXPECT_EQ(w.in.timeout_us, 1000u);
	EXPECT_EQ(w.in.flags, 0u);

	uint64_t seqs[3] = {1, 2, 3};
	struct hlthunk_wait_multi_cs_in min = {seqs, 500, 3};
	struct hlthunk_wait_multi_cs_out mout;
	rec_reset(0, [](unsigned long, void *arg) {
		auto *a = static_cast<union hl_wait_cs_args *>(arg);
		a->out.status = HL_WAIT_CS_STATUS_COMPLETED;
		a->out.cs_completion_map = 0x5;
		a->out.flags = HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
		a->out.timestamp_nsec = 999;
	});
	ASSERT_EQ(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, &ts), 0);
	w = arg_of<union hl_wait_cs_args>(0);
	EXPECT_EQ(w.in.flags, (uint32_t)HL_WAIT_CS_FLAGS_MULTI_CS);
	EXPECT_EQ(w.in.seq, reinterpret_cast<uintptr_t>(seqs));
	EXPECT_EQ(w.in.seq_arr_len, 3);
	EXPECT_EQ(mout.seq_set, 0x5u);
	EXPECT_EQ(mout.completed, 2);
	EXPECT_EQ(ts, 999u);

	uint64_t word = 0;
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_wait_for_interrupt(fd, &word, 8, 3, 700, &status), 0);
	w = arg_of<union hl_wait_cs_args>(0);
	EXPECT_EQ(w.in.flags, (uint32_t)(HL_WAIT_CS_FLAGS_INTERRUPT | (3u << 20)));
	EXPECT_EQ(w.in.addr, reinterpret_cast<uintptr_t>(&word));
	EXPECT_EQ(w.in.target, 8u);
	EXPECT_EQ(w.in.interrupt_timeout_us, 700u);

	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_wait_for_interrupt_by_handle(fd, 0x3000, 16, 8, UINT32_MAX, 700,
						       &status), 0);
	w = arg_of<union hl_wait_cs_args>(0);
	EXPECT_EQ(w.in.flags, (uint32_t)(HL_WAIT_CS_FLAGS_INTERRUPT |
					 HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
					 HL_WAIT_CS_FLAGS_INTERRUPT_MASK));
	EXPECT_EQ(w.in.cq_counters_handle, 0x3000u);
	EXPECT_EQ(w.in.cq_counters_offset, 16u);

	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_register_timestamp_interrupt(fd, 1, 0x3000, 8, 4, 0x5000, 24), 0);
	w = arg_of<union hl_wait_cs_args>(0);
	EXPECT_EQ(w.in.flags, (uint32_t)(HL_WAIT_CS_FLAGS_INTERRUPT |
					 HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
					 HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT | (1u << 20)));
	EXPECT_EQ(w.in.timestamp_handle, 0x5000u);
	EXPECT_EQ(w.in.timestamp_offset, 24u);
	EXPECT_NE(w.in.interrupt_timeout_us, 0u);
}

TEST(Encoding, EngineCommandsMemoryAndCommandBuffers)
{
	uint32_t ids[2] = {4, 9};
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_engine_cores_set_mode(fd, ids, 2, HL_ENGINE_CORE_HALT), 0);
	auto a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_ENGINE_CORE_COMMAND);
	EXPECT_EQ(a.in.engine_cores, reinterpret_cast<uintptr_t>(ids));
	EXPECT_EQ(a.in.num_engine_cores, 2u);
	EXPECT_EQ(a.in.core_command, (uint32_t)HL_ENGINE_CORE_HALT);
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_engines_command(fd, ids, 2, HL_ENGINE_RESUME), 0);
	a = arg_of<union hl_cs_args>(0);
	EXPECT_EQ(a.in.cs_flags, (uint32_t)HL_CS_FLAGS_ENGINES_COMMAND);
	EXPECT_EQ(a.in.engine_command, (uint32_t)HL_ENGINE_RESUME);
	EXPECT_EQ(a.in.num_engines, 2u);

	uint32_t size;
	uint64_t handle;
	rec_reset(0, [](unsigned long, void *arg) {
		auto *m = static_cast<union hl_mem_args *>(arg);
		m->out.block_handle = 0xabc000;
		m->out.block_size = 0x1000;
	});
	ASSERT_EQ(hlthunk_get_hw_block(fd, 0x7ff0000, &size, &handle), 0);
	auto m = arg_of<union hl_mem_args>(0);
	EXPECT_EQ(rec_get(0)->request, (unsigned long)DRM_IOCTL_HL_MEMORY);
	EXPECT_EQ(m.in.op, (uint32_t)HL_MEM_OP_MAP_BLOCK);
	EXPECT_EQ(m.in.map_block.block_addr, 0x7ff0000u);
	EXPECT_EQ(handle, 0xabc000u);
	EXPECT_EQ(size, 0x1000u);

	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_allocate_timestamp_elements(fd, 64, &handle), 0);
	m = arg_of<union hl_mem_args>(0);
	EXPECT_EQ(m.in.op, (uint32_t)HL_MEM_OP_TS_ALLOC);
	EXPECT_EQ(m.in.num_of_elements, 64u);

	rec_reset(0, nullptr);
	(void)hlthunk_device_memory_alloc(fd, 8192, 65536, true, true);
	m = arg_of<union hl_mem_args>(0);
	EXPECT_EQ(m.in.op, (uint32_t)HL_MEM_OP_ALLOC);
	EXPECT_EQ(m.in.flags, (uint32_t)(HL_MEM_CONTIGUOUS | HL_MEM_SHARED));
	EXPECT_EQ(m.in.alloc.page_size, 65536u);

	char host[64];
	rec_reset(0, nullptr);
	(void)hlthunk_host_memory_map_flags(fd, host, 0x5000, sizeof(host), HL_MEM_FORCE_HINT);
	m = arg_of<union hl_mem_args>(0);
	EXPECT_EQ(m.in.flags, (uint32_t)(HL_MEM_USERPTR | HL_MEM_FORCE_HINT));
	EXPECT_EQ(m.in.map_host.hint_addr, 0x5000u);
	EXPECT_EQ(m.in.map_host.mem_size, sizeof(host));

	rec_reset(0, [](unsigned long, void *arg) {
		static_cast<union hl_mem_args *>(arg)->out.fd = 7;
	});
	ASSERT_EQ(hlthunk_device_memory_export_dmabuf_fd(fd, 0x100000, 8192, 0), 7);
	m = arg_of<union hl_mem_args>(0);
	EXPECT_EQ(m.in.op, (uint32_t)HL_MEM_OP_EXPORT_DMABUF_FD);
	EXPECT_EQ(m.in.flags, (uint32_t)(O_RDWR | O_CLOEXEC)) << "hl-thunk's fixed flags";
	EXPECT_EQ(m.in.export_dmabuf_fd.offset, 0u);

	rec_reset(0, [](unsigned long, void *arg) {
		static_cast<union hl_cb_args *>(arg)->out.device_va = 0x30000;
	});
	ASSERT_EQ(hlthunk_request_mapped_command_buffer(fd, 4096, &handle), 0);
	auto cb = arg_of<union hl_cb_args>(0);
	EXPECT_EQ(cb.in.flags, (uint32_t)HL_CB_FLAGS_MAP);
	uint64_t va;
	rec_reset(0, [](unsigned long, void *arg) {
		static_cast<union hl_cb_args *>(arg)->out.device_va = 0x30000;
	});
	ASSERT_EQ(hlthunk_get_mapped_cb_device_va_by_handle(fd, 0x4000, &va), 0);
	cb = arg_of<union hl_cb_args>(0);
	EXPECT_EQ(cb.in.op, (uint32_t)HL_CB_OP_INFO);
	EXPECT_EQ(cb.in.flags, (uint32_t)HL_CB_FLAGS_GET_DEVICE_VA);
	EXPECT_EQ(cb.in.cb_handle, 0x4000u);
	EXPECT_EQ(va, 0x30000u);
}

TEST(Encoding, NotifierRegistersAnEventfdAndClosesItOnFailure)
{
	rec_reset(0, nullptr);
	int efd = hlthunk_notifier_create(fd);
	ASSERT_GE(efd, 0);
	auto a = info_sent();
	EXPECT_EQ(a.op, (uint32_t)HL_INFO_REGISTER_EVENTFD);
	EXPECT_EQ(a.eventfd, (uint32_t)efd);
	rec_reset(0, nullptr);
	ASSERT_EQ(hlthunk_notifier_release(fd, efd), 0);
	EXPECT_EQ(info_sent().op, (uint32_t)HL_INFO_UNREGISTER_EVENTFD);
	EXPECT_EQ(fcntl(efd, F_GETFD), -1) << "closed";

	rec_reset(EOPNOTSUPP, nullptr);
	EXPECT_EQ(hlthunk_notifier_create(fd), -EOPNOTSUPP);
	int probe = dup(0);
	EXPECT_EQ(probe, efd) << "the eventfd of the failed create was closed";
	close(probe);
}
