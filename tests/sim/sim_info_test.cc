// SPDX-License-Identifier: GPL-2.0
// habanalabs_sim beyond memory and DMA: every INFO opcode, the DEBUG
// ioctl, CS timeouts and their event, the eventfd notifier, the other CS
// types and waits (answered as Gaudi2 would without the hardware), CB
// usage counts and open statistics.  Raw ioctls, in the VM.
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;

class SimInfo : public ::testing::Test {
protected:
	void SetUp() override
	{
		set_cs_delay_ms(0);
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
	}
	void TearDown() override
	{
		set_cs_delay_ms(0);
		set_cs_timeout_s(30);
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
	static void set_cs_timeout_s(unsigned s)
	{
		write_file("/sys/module/habanalabs_sim/parameters/cs_timeout_s",
			   std::to_string(s));
	}
};

// HL_IOCTL_INFO for op into out; 0 or -errno.  *back receives the
// arguments as the driver left them.
int info(int fd, uint32_t op, void *out, uint32_t size, uint32_t arg = 0,
	 hl_info_args *back = nullptr)
{
	hl_info_args a{};
	a.op = op;
	a.return_pointer = reinterpret_cast<uintptr_t>(out);
	a.return_size = size;
	a.dcore_id = arg;
	int rc = xioctl(fd, DRM_IOCTL_HL_INFO, &a);
	if (back)
		*back = a;
	return rc;
}

// The same into a whole object (first filled with 0xa5 bytes).
template <typename T>
int info_obj(int fd, uint32_t op, T *out, uint32_t arg = 0)
{
	memset(out, 0xa5, sizeof(*out));
	return info(fd, op, out, sizeof(*out), arg);
}

uint64_t raw_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

// A CB whose one LIN_DMA copies 64 bytes inside a fresh allocation.
struct Work {
	uint64_t handle = 0, va = 0, cb = 0;
	uint32_t cb_size = 0;
	void make(Dev &d)
	{
		ASSERT_EQ(d.alloc_map(kPage, &handle, &va), 0);
		std::vector<uint32_t> w;
		put_lin_dma(w, va + 1024, va, 64);
		cb_size = w.size() * 4;
		ASSERT_EQ(d.cb_with(w, &cb), 0);
	}
	void drop(Dev &d)
	{
		EXPECT_EQ(d.cb_free(cb), 0);
		EXPECT_EQ(d.unmap(va), 0);
		EXPECT_EQ(d.free_handle(handle), 0);
	}
};

}  // namespace

// Every opcode answers on the compute node, the queries on the control
// node too, with what the emulated device is doing.
TEST_F(SimInfo, EveryOpcodeAnswers)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	int ctl = open(control_path(0).c_str(), O_RDWR | O_CLOEXEC);
	ASSERT_GE(ctl, 0);

	for (int fd : {d.fd(), ctl}) {
		hl_info_hw_idle idle;
		ASSERT_EQ(info_obj(fd, HL_INFO_HW_IDLE, &idle), 0);
		EXPECT_EQ(idle.is_idle, 1u);
		EXPECT_EQ(idle.busy_engines_mask_ext[0], 0u);

		hl_info_device_utilization util;
		ASSERT_EQ(info_obj(fd, HL_INFO_DEVICE_UTILIZATION, &util, 100), 0);
		EXPECT_EQ(util.utilization, 0u);

		hl_info_clk_rate clk;
		ASSERT_EQ(info_obj(fd, HL_INFO_CLK_RATE, &clk), 0);
		EXPECT_GT(clk.max_clk_rate_mhz, 0u);
		EXPECT_LE(clk.cur_clk_rate_mhz, clk.max_clk_rate_mhz);

		hl_info_time_sync ts;
		uint64_t before = raw_ns();
		ASSERT_EQ(info_obj(fd, HL_INFO_TIME_SYNC, &ts), 0);
		uint64_t after = raw_ns();
		EXPECT_GE(ts.host_time, before);
		EXPECT_LE(ts.host_time, after);
		EXPECT_GT(ts.device_time, 0u);

		hl_info_pci_counters pci;
		ASSERT_EQ(info_obj(fd, HL_INFO_PCI_COUNTERS, &pci), 0);
		EXPECT_EQ(pci.replay_cnt, 0u);

		hl_info_clk_throttle thr;
		ASSERT_EQ(info_obj(fd, HL_INFO_CLK_THROTTLE_REASON, &thr), 0);
		EXPECT_EQ(thr.clk_throttling_reason, 0u);

		hl_info_sync_manager sm;
		ASSERT_EQ(info_obj(fd, HL_INFO_SYNC_MANAGER, &sm, 3), 0);
		EXPECT_EQ(info_obj(fd, HL_INFO_SYNC_MANAGER, &sm, 8), -EINVAL) << "dcore";

		hl_info_energy e1, e2;
		ASSERT_EQ(info_obj(fd, HL_INFO_TOTAL_ENERGY, &e1), 0);
		usleep(20 * 1000);
		ASSERT_EQ(info_obj(fd, HL_INFO_TOTAL_ENERGY, &e2), 0);
		EXPECT_GT(e2.total_energy_consumption, e1.total_energy_consumption);

		hl_power_info pw;
		ASSERT_EQ(info_obj(fd, HL_INFO_POWER, &pw), 0);
		EXPECT_GT(pw.power, 0u);

		hl_pll_frequency_info pll;
		ASSERT_EQ(info_obj(fd, HL_INFO_PLL_FREQUENCY, &pll, HL_GAUDI2_CPU_PLL), 0);
		EXPECT_GT(pll.output[0], 0u);
		EXPECT_EQ(info_obj(fd, HL_INFO_PLL_FREQUENCY, &pll, HL_GAUDI2_PLL_MAX), -EINVAL);

		hl_info_reset_count rst;
		ASSERT_EQ(info_obj(fd, HL_INFO_RESET_COUNT, &rst), 0);
		EXPECT_EQ(rst.hard_reset_cnt, 0u);

		hl_info_cs_counters csc;
		ASSERT_EQ(info_obj(fd, HL_INFO_CS_COUNTERS, &csc), 0);

		uint8_t rows[264];
		ASSERT_EQ(info(fd, HL_INFO_DRAM_REPLACED_ROWS, rows, sizeof(rows)), 0);
		EXPECT_EQ(rows[0] | rows[1], 0) << "no row replaced";
		uint32_t pending = 7;
		ASSERT_EQ(info_obj(fd, HL_INFO_DRAM_PENDING_ROWS, &pending), 0);
		EXPECT_EQ(pending, 0u);

		hl_info_undefined_opcode_event uo;
		ASSERT_EQ(info_obj(fd, HL_INFO_UNDEFINED_OPCODE_EVENT, &uo), 0);
		EXPECT_EQ(uo.timestamp, 0);

		// Nothing captured: success, nothing written.
		hl_info_razwi_event rz;
		ASSERT_EQ(info_obj(fd, HL_INFO_RAZWI_EVENT, &rz), 0);
		EXPECT_EQ(rz.timestamp, (int64_t)0xa5a5a5a5a5a5a5a5ull);
		hl_page_fault_info pf;
		ASSERT_EQ(info_obj(fd, HL_INFO_PAGE_FAULT_EVENT, &pf), 0);
		hl_user_mapping um[2];
		hl_info_args back;
		ASSERT_EQ(info(fd, HL_INFO_USER_MAPPINGS, um, sizeof(um), 0, &back), 0);
		EXPECT_EQ(back.array_size, 0u);
		hl_info_hw_err_event hwe;
		ASSERT_EQ(info_obj(fd, HL_INFO_HW_ERR_EVENT, &hwe), 0);
		hl_info_fw_err_event fwe;
		ASSERT_EQ(info_obj(fd, HL_INFO_FW_ERR_EVENT, &fwe), 0);
		hl_info_engine_err_event ee;
		ASSERT_EQ(info_obj(fd, HL_INFO_USER_ENGINE_ERR_EVENT, &ee), 0);

		// The emulated firmware does not attest (as a firmware without it).
		std::vector<uint8_t> big(sizeof(hl_info_signed));
		EXPECT_EQ(info(fd, HL_INFO_SECURED_ATTESTATION, big.data(),
			       sizeof(hl_info_sec_attest)), -EIO);
		EXPECT_EQ(info(fd, HL_INFO_DEV_SIGNED, big.data(), big.size()), -EIO);
		EXPECT_EQ(info(fd, HL_INFO_FW_GENERIC_REQ, big.data(), 64, 0), -EIO);
		EXPECT_EQ(info(fd, HL_INFO_FW_GENERIC_REQ, big.data(), 64, 1), -EINVAL)
			<< "unknown sub-opcode";
		// No hardware events table.
		uint32_t ev[8];
		EXPECT_EQ(info(fd, HL_INFO_HW_EVENTS, ev, sizeof(ev)), -EOPNOTSUPP);
		EXPECT_EQ(info(fd, HL_INFO_HW_EVENTS_AGGREGATE, ev, sizeof(ev)), -EOPNOTSUPP);
		EXPECT_EQ(info(fd, HL_INFO_HW_EVENTS, ev, 0), -EINVAL);

		// The engines' status as text, with its length.
		std::vector<char> text(1024, 0);
		ASSERT_EQ(info(fd, HL_INFO_ENGINE_STATUS, text.data(), text.size(), 0,
			       &back), 0);
		EXPECT_GT(back.user_buffer_actual_size, 0u);
		EXPECT_NE(std::string(text.data()).find("PDMA0"), std::string::npos);
		EXPECT_EQ(info(fd, HL_INFO_ENGINE_STATUS, text.data(), 512), -EINVAL)
			<< "under 1 KiB";

		// Arguments checked per opcode, as the driver does.
		EXPECT_EQ(info(fd, HL_INFO_CLK_RATE, nullptr, 8), -EINVAL);
		EXPECT_EQ(info(fd, HL_INFO_POWER, &pw, 0), -EINVAL);
		EXPECT_EQ(info(fd, HL_INFO_USER_MAPPINGS, nullptr, 16), -EINVAL);
		EXPECT_EQ(info(fd, 19, &pw, sizeof(pw)), -EINVAL) << "unknown op";
	}
	close(ctl);
}

// Busy while CSs are in flight: idle mask, utilization, power, energy.
TEST_F(SimInfo, BusyWhileCsInFlight)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Work w;
	w.make(d);
	hl_power_info idle_pw, busy_pw;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_POWER, &idle_pw), 0);

	set_cs_delay_ms(2000);
	uint64_t seq;
	ASSERT_EQ(d.cs_one(w.cb, w.cb_size, &seq), 0);
	hl_info_hw_idle idle;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_HW_IDLE, &idle), 0);
	EXPECT_EQ(idle.is_idle, 0u);
	// Only the engine of the CS's queue (PDMA_0_0) is busy.
	EXPECT_EQ(idle.busy_engines_mask_ext[0], 1ull << GAUDI2_ENGINE_ID_PDMA_0);
	hl_info_device_utilization util;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_DEVICE_UTILIZATION, &util), 0);
	EXPECT_EQ(util.utilization, 100u);
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_POWER, &busy_pw), 0);
	EXPECT_GT(busy_pw.power, idle_pw.power);

	uint32_t st;
	ASSERT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_HW_IDLE, &idle), 0);
	EXPECT_EQ(idle.is_idle, 1u);
	w.drop(d);
}

// Compute opens are counted and timed; control opens are not.
TEST_F(SimInfo, OpenStatistics)
{
	int ctl = open(control_path(1).c_str(), O_RDWR | O_CLOEXEC);
	ASSERT_GE(ctl, 0);
	hl_open_stats_info s0, s1, s2;
	ASSERT_EQ(info_obj(ctl, HL_INFO_OPEN_STATS, &s0), 0);
	EXPECT_EQ(s0.is_compute_ctx_active, 0);
	hl_info_last_err_open_dev_time t0;
	ASSERT_EQ(info_obj(ctl, HL_INFO_LAST_ERR_OPEN_DEV_TIME, &t0), 0);
	{
		Dev d(1);
		ASSERT_GE(d.fd(), 0);
		int ctl2 = open(control_path(1).c_str(), O_RDWR | O_CLOEXEC);
		close(ctl2);
		ASSERT_EQ(info_obj(ctl, HL_INFO_OPEN_STATS, &s1), 0);
		EXPECT_EQ(s1.open_counter, s0.open_counter + 1);
		EXPECT_EQ(s1.is_compute_ctx_active, 1);
		usleep(50 * 1000);
	}
	ASSERT_EQ(info_obj(ctl, HL_INFO_OPEN_STATS, &s2), 0);
	EXPECT_EQ(s2.open_counter, s1.open_counter);
	EXPECT_EQ(s2.is_compute_ctx_active, 0);
	EXPECT_GE(s2.last_open_period_ms, 50u);
	hl_info_last_err_open_dev_time t1;
	ASSERT_EQ(info_obj(ctl, HL_INFO_LAST_ERR_OPEN_DEV_TIME, &t1), 0);
	EXPECT_GT(t1.timestamp, t0.timestamp);
	close(ctl);
}

// Refused CSs are counted by why, for the device and for the open.
TEST_F(SimInfo, CsCountersCountWhatWasRefused)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Work w;
	w.make(d);
	hl_info_cs_counters c0, c1;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_CS_COUNTERS, &c0), 0);
	uint64_t seq;
	// validate_queue_index() refuses these: validation drops.
	EXPECT_EQ(d.cs_one(w.cb, w.cb_size, &seq, GAUDI2_QUEUE_ID_SIZE), -EINVAL);
	hl_cs_chunk kernel_cb = user_chunk(w.cb, w.cb_size);
	kernel_cb.cs_chunk_flags = 0;
	EXPECT_EQ(d.cs({kernel_cb}, &seq), -EINVAL);
	// The CS parser refuses these: parsing drops.
	EXPECT_EQ(d.cs_one(w.cb + (999 << 12), w.cb_size, &seq), -EFAULT);  // unmapped CB
	std::vector<uint32_t> bad = {8, 0x1f000000};  // opcode 0x1f
	uint64_t cb2;
	ASSERT_EQ(d.cb_with(bad, &cb2), 0);
	EXPECT_EQ(d.cs_one(cb2, 8, &seq), -EINVAL);  // a bad packet
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_CS_COUNTERS, &c1), 0);
	EXPECT_EQ(c1.ctx_validation_drop_cnt, c0.ctx_validation_drop_cnt + 2);
	EXPECT_EQ(c1.total_validation_drop_cnt, c0.total_validation_drop_cnt + 2);
	EXPECT_EQ(c1.ctx_parsing_drop_cnt, c0.ctx_parsing_drop_cnt + 2);
	// Another open sees the device's totals, not this open's counts.
	int ctl = open(control_path(0).c_str(), O_RDWR | O_CLOEXEC);
	hl_info_cs_counters cc;
	ASSERT_EQ(info_obj(ctl, HL_INFO_CS_COUNTERS, &cc), 0);
	EXPECT_EQ(cc.total_parsing_drop_cnt, c1.total_parsing_drop_cnt);
	EXPECT_EQ(cc.ctx_parsing_drop_cnt, 0u);
	close(ctl);
	EXPECT_EQ(d.cb_free(cb2), 0);
	w.drop(d);
}

// A CS that outlives its timeout: ETIMEDOUT with status TIMEDOUT, the
// event recorded, the open's eventfd signalled, the reset counted.
TEST_F(SimInfo, CsTimeoutIsReportedRecordedAndSignalled)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Work w;
	w.make(d);
	int efd = eventfd(0, EFD_CLOEXEC);
	hl_info_args a{};
	a.op = HL_INFO_REGISTER_EVENTFD;
	a.eventfd = efd;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), -EINVAL) << "one per open";
	hl_info_reset_count r0, r1;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_RESET_COUNT, &r0), 0);

	set_cs_delay_ms(10 * 1000);
	hl_cs_chunk c = user_chunk(w.cb, w.cb_size);
	hl_cs_args ca{};
	ca.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	ca.in.num_chunks_execute = 1;
	ca.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;
	ca.in.timeout = 1;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), 0);
	uint64_t seq = ca.out.seq;
	uint32_t st = 99;
	EXPECT_EQ(d.wait(seq, 60ull * 1000 * 1000, &st), -ETIMEDOUT);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_TIMEDOUT);
	set_cs_delay_ms(0);

	hl_info_cs_timeout_event ev;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_CS_TIMEOUT_EVENT, &ev), 0);
	EXPECT_EQ(ev.seq, seq);
	EXPECT_GT(ev.timestamp, 0);
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_RESET_COUNT, &r1), 0);
	EXPECT_EQ(r1.soft_reset_cnt, r0.soft_reset_cnt + 1);
	struct pollfd p = {efd, POLLIN, 0};
	ASSERT_EQ(poll(&p, 1, 10000), 1);
	uint64_t n;
	ASSERT_EQ(read(efd, &n, sizeof(n)), (ssize_t)sizeof(n));
	EXPECT_EQ(n, 1u);
	uint64_t mask = 0;
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_GET_EVENTS, &mask), 0);
	EXPECT_EQ(mask, (uint64_t)HL_NOTIFIER_EVENT_CS_TIMEOUT);
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_GET_EVENTS, &mask), 0);
	EXPECT_EQ(mask, 0u) << "read clears";

	// The device goes on: the next CS runs.
	uint64_t seq2;
	ASSERT_EQ(d.cs_one(w.cb, w.cb_size, &seq2), 0);
	EXPECT_EQ(d.wait(seq2, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	// With SKIP_RESET_ON_TIMEOUT no reset is counted; cs_timeout_s is
	// the default timeout.
	set_cs_timeout_s(1);
	set_cs_delay_ms(5000);
	ASSERT_EQ(d.cs({c}, &seq, HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT), 0);
	EXPECT_EQ(d.wait(seq, 60ull * 1000 * 1000, &st), -ETIMEDOUT);
	set_cs_delay_ms(0);
	ASSERT_EQ(info_obj(d.fd(), HL_INFO_RESET_COUNT, &r0), 0);
	EXPECT_EQ(r0.soft_reset_cnt, r1.soft_reset_cnt);

	a = {};
	a.op = HL_INFO_UNREGISTER_EVENTFD;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), -EINVAL);
	close(efd);
	w.drop(d);
}

// As the driver: a custom timeout of 0 arms the timeout at once (the CS
// times out and copies nothing), and a device timeout of "never" leaves
// every CS without a deadline, custom timeouts included.
TEST_F(SimInfo, CustomTimeoutZeroTimesOutAtOnce)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	fill_pattern(a.data(), 1024, 6);
	memset(a.data() + 2048, 0, 1024);
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va + 2048, a.va, 1024);
	uint64_t cb;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	hl_cs_chunk c = user_chunk(cb, w.size() * 4);
	hl_cs_args ca{};
	ca.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	ca.in.num_chunks_execute = 1;
	ca.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT | HL_CS_FLAGS_SKIP_RESET_ON_TIMEOUT;
	ca.in.timeout = 0;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), 0);
	uint32_t st = 99;
	EXPECT_EQ(d.wait(ca.out.seq, 30ull * 1000 * 1000, &st), -ETIMEDOUT);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_TIMEDOUT);
	std::vector<uint8_t> zeros(1024);
	EXPECT_EQ(memcmp(a.data() + 2048, zeros.data(), 1024), 0) << "nothing copied";

	// The device never times out: a custom timeout is not armed either.
	set_cs_timeout_s(0);
	set_cs_delay_ms(2500);
	ca = {};  // the ioctl wrote its output over it
	ca.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	ca.in.num_chunks_execute = 1;
	ca.in.cs_flags = HL_CS_FLAGS_CUSTOM_TIMEOUT;
	ca.in.timeout = 1;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), 0);
	EXPECT_EQ(d.wait(ca.out.seq, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(check_pattern(a.data() + 2048, 1024, 6), -1);
	set_cs_delay_ms(0);
	set_cs_timeout_s(30);
	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(a.release(), 0);
}

// Events belong to compute opens; a bad eventfd is refused.
TEST_F(SimInfo, EventfdOnlyOnComputeOpens)
{
	int ctl = open(control_path(0).c_str(), O_RDWR | O_CLOEXEC);
	int efd = eventfd(0, EFD_CLOEXEC);
	hl_info_args a{};
	a.op = HL_INFO_REGISTER_EVENTFD;
	a.eventfd = efd;
	EXPECT_EQ(xioctl(ctl, DRM_IOCTL_HL_INFO, &a), -EOPNOTSUPP);
	uint64_t mask;
	EXPECT_EQ(info_obj(ctl, HL_INFO_GET_EVENTS, &mask), -EOPNOTSUPP);
	Dev d(0);
	a.eventfd = ctl;  // not an eventfd
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), -EINVAL);
	a.eventfd = 100000;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), -EBADF);
	EXPECT_EQ(info(d.fd(), HL_INFO_GET_EVENTS, &mask, 4), -EINVAL) << "4 bytes";
	// Registered at close: released with the open.
	a.eventfd = efd;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &a), 0);
	d.close_fd();
	close(efd);
	close(ctl);
}

// The CS types the emulated device does not have or run, and waits it
// cannot do, answered as the driver answers on such a device.
TEST_F(SimInfo, UnsupportedSubmissionsAndWaits)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	Work w;
	w.make(d);
	hl_cs_chunk c = user_chunk(w.cb, w.cb_size);
	uint64_t seq;
	EXPECT_EQ(d.cs({c}, &seq, HL_CS_FLAGS_STAGED_SUBMISSION |
			       HL_CS_FLAGS_STAGED_SUBMISSION_FIRST), -EPERM);
	// Signal and wait CSs run (sim_stream_test.cc); collective waits
	// need a collective master queue, which Gaudi2 has none of.
	EXPECT_EQ(d.cs({c}, &seq, HL_CS_FLAGS_COLLECTIVE_WAIT), -EINVAL);
	EXPECT_EQ(d.cs({c}, &seq, HL_CS_FLAGS_SIGNAL | HL_CS_FLAGS_WAIT), -EINVAL);
	hl_cs_args a{};
	a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
	a.in.encaps_signals_count = 1;
	a.in.num_chunks_execute = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), -EINVAL);
	a = {};
	a.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
	a.in.encaps_sig_handle_id = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), -EINVAL);
	uint32_t core = 0;
	a = {};
	a.in.cs_flags = HL_CS_FLAGS_ENGINE_CORE_COMMAND;
	a.in.engine_cores = reinterpret_cast<uintptr_t>(&core);
	a.in.num_engine_cores = 1;
	a.in.core_command = HL_ENGINE_CORE_RUN;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), -EPERM);
	a.in.cs_flags = HL_CS_FLAGS_ENGINES_COMMAND;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), -EPERM);
	// A flush of PCI writes succeeds: emulated writes land at once.
	a = {};
	a.in.cs_flags = HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &a), 0);
	EXPECT_EQ(a.out.status, (uint32_t)HL_CS_STATUS_SUCCESS);
	w.drop(d);
}

// Debug mode: entered once, left once (EFAULT otherwise, as the driver),
// and left when the open ends; trace components: EFAULT outside debug
// mode, and none exists.
TEST_F(SimInfo, DebugModeAndTraceComponents)
{
	hl_debug_args a{};
	{
		Dev d(2);
		ASSERT_GE(d.fd(), 0);
		a.op = HL_DEBUG_OP_ETR;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), -EFAULT);
		a.op = HL_DEBUG_OP_SET_MODE;
		a.enable = 0;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), -EFAULT);
		a.enable = 1;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), 0);
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), -EFAULT);
		a.op = HL_DEBUG_OP_BMON;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), -EINVAL);
		a.op = 99;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), -EINVAL);
		a.op = HL_DEBUG_OP_SET_MODE;
		a.enable = 0;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), 0);
		a.enable = 1;
		EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), 0);
		EXPECT_EQ(xioctl(d.fd(), HL_LEGACY_IOCTL_DEBUG, &a), -EFAULT)
			<< "legacy numbering, already in debug mode";
	}
	Dev d(2);
	a.op = HL_DEBUG_OP_SET_MODE;
	a.enable = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_DEBUG, &a), 0) << "left at close";
	int ctl = open(control_path(2).c_str(), O_RDWR | O_CLOEXEC);
	EXPECT_EQ(xioctl(ctl, DRM_IOCTL_HL_DEBUG, &a), -ENOTTY) << "control node";
	close(ctl);
}
