// SPDX-License-Identifier: MIT
// hl-thunk's device and INFO calls through libhlthunk against
// habanalabs_sim (in the VM, 'habanalabs_sim num_devices=2'): opening by
// name, module id and bus id, and every query, with what the emulated
// device really does.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hlthunk.h"
#include "habanalabs_extra.h"

namespace {

std::string bus_of(int index)
{
	char buf[32] = "";
	std::string p = "/sys/class/habanalabs_sim/hlsim" + std::to_string(index) +
			"/pci_addr";
	FILE *f = fopen(p.c_str(), "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	std::string s = buf;
	while (!s.empty() && s.back() == '\n')
		s.pop_back();
	return s;
}

uint64_t raw_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

}  // namespace

TEST(Compat, OpenAndDescribeDevices)
{
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), 2);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2), 2);
	EXPECT_EQ(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI), 0);
	EXPECT_EQ(hlthunk_open(HLTHUNK_DEVICE_GOYA, nullptr), -ENODEV);

	// By module id (the emulated module id is the index).
	int m1 = hlthunk_open_by_module_id(1);
	ASSERT_GE(m1, 0) << hlthunk_ipc_last_error();
	char bus[16];
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(m1, bus, sizeof(bus)), 0);
	EXPECT_EQ(std::string(bus), bus_of(1));
	EXPECT_EQ(hlthunk_get_device_id_from_fd(m1), (uint32_t)HL_PCI_DEVICE_ID_GAUDI2);
	EXPECT_EQ(hlthunk_get_device_name_from_fd(m1), HLTHUNK_DEVICE_GAUDI2);
	EXPECT_EQ(hlthunk_open_by_module_id(1), -EBUSY) << "open in this process";
	EXPECT_EQ(hlthunk_open_by_module_id(7), -ENODEV);

	int c1 = hlthunk_open_control_by_module_id(1);
	ASSERT_GE(c1, 0);
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(c1, bus, sizeof(bus)), 0);
	EXPECT_EQ(std::string(bus), bus_of(1));
	int c0 = hlthunk_open_control_by_bus_id(bus_of(0).c_str());
	ASSERT_GE(c0, 0);
	ASSERT_EQ(hlthunk_get_pci_bus_id_from_fd(c0, bus, sizeof(bus)), 0);
	EXPECT_EQ(std::string(bus), bus_of(0));
	// Without the domain, as hl-thunk accepts it.
	int c0b = hlthunk_open_control_by_bus_id(bus_of(0).substr(5).c_str());
	EXPECT_GE(c0b, 0);
	int cn = hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI2, nullptr);
	EXPECT_GE(cn, 0);
	EXPECT_EQ(hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI, nullptr), -ENODEV);
	EXPECT_EQ(hlthunk_get_device_index_from_pci_bus_id(bus_of(1).c_str()), 1);
	EXPECT_EQ(hlthunk_get_device_index_from_pci_bus_id(bus_of(0).c_str()), 0);
	for (int fd : {m1, c1, c0, c0b, cn})
		EXPECT_EQ(hlthunk_close(fd), 0);
}

TEST(Compat, InfoQueriesOnComputeAndControlNodes)
{
	int d = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d, 0);
	int c = hlthunk_open_control(0, nullptr);
	ASSERT_GE(c, 0);
	for (int fd : {d, c}) {
		struct hlthunk_hw_ip_info hw;
		ASSERT_EQ(hlthunk_get_hw_ip_info(fd, &hw), 0);
		EXPECT_EQ(hw.device_id, (uint32_t)HL_PCI_DEVICE_ID_GAUDI2);
		EXPECT_GT(hw.dram_size, 0u);
		EXPECT_EQ(std::string((char *)hw.card_name), "HLSIM");
		EXPECT_EQ(hw.device_mem_alloc_default_page_size, 4096u);

		EXPECT_EQ(hlthunk_get_device_status_info(fd), HL_DEVICE_STATUS_OPERATIONAL);
		EXPECT_TRUE(hlthunk_is_device_idle(fd));
		struct hlthunk_engines_idle_info idle;
		ASSERT_EQ(hlthunk_get_busy_engines_mask(fd, &idle), 0);
		EXPECT_EQ(idle.is_idle, 1u);

		struct hlthunk_dram_usage_info du;
		ASSERT_EQ(hlthunk_get_dram_usage(fd, &du), 0);
		EXPECT_LE(du.dram_free_mem, hw.dram_size);

		uint64_t orders;
		ASSERT_EQ(hlthunk_get_dev_memalloc_page_orders(fd, &orders), 0);
		EXPECT_EQ(orders, (1ull << 12) | (1ull << 16) | (1ull << 21));

		struct hlthunk_pll_frequency_info pll;
		ASSERT_EQ(hlthunk_get_pll_frequency(fd, HL_GAUDI2_DMA_PLL, &pll), 0);
		EXPECT_GT(pll.output[0], 0);
		EXPECT_EQ(hlthunk_get_pll_frequency(fd, HL_GAUDI2_PLL_MAX, &pll), -EINVAL);

		uint32_t rate = 77;
		ASSERT_EQ(hlthunk_get_device_utilization(fd, 100, &rate), 0);
		EXPECT_EQ(rate, 0u);
		uint32_t cur, max;
		ASSERT_EQ(hlthunk_get_clk_rate(fd, &cur, &max), 0);
		EXPECT_GT(max, 0u);
		EXPECT_LE(cur, max);

		struct hlthunk_reset_count_info rst;
		ASSERT_EQ(hlthunk_get_reset_count_info(fd, &rst), 0);
		EXPECT_EQ(rst.hard_reset_count, 0u);

		struct hlthunk_time_sync_info ts;
		uint64_t before = raw_ns();
		ASSERT_EQ(hlthunk_get_time_sync_info(fd, &ts), 0);
		EXPECT_GE(ts.host_time, before);
		EXPECT_LE(ts.host_time, raw_ns());

		struct hlthunk_sync_manager_info sm;
		EXPECT_EQ(hlthunk_get_sync_manager_info(fd, 0, &sm), 0);
		EXPECT_EQ(hlthunk_get_sync_manager_info(fd, 99, &sm), -EINVAL);

		struct hl_info_cs_counters csc;
		EXPECT_EQ(hlthunk_get_cs_counters_info(fd, &csc), 0);
		struct hlthunk_pci_counters_info pci;
		EXPECT_EQ(hlthunk_get_pci_counters_info(fd, &pci), 0);
		struct hlthunk_clk_throttle_info thr;
		ASSERT_EQ(hlthunk_get_clk_throttle_info(fd, &thr), 0);
		EXPECT_EQ(thr.clk_throttle_reason_bitmask, 0u);
		struct hlthunk_energy_info e;
		ASSERT_EQ(hlthunk_get_total_energy_consumption_info(fd, &e), 0);
		EXPECT_GT(e.total_energy_consumption, 0u);
		struct hlthunk_power_info pw;
		ASSERT_EQ(hlthunk_get_power_info(fd, &pw), 0);
		EXPECT_GT(pw.power, 0u);

		struct hlthunk_hw_asic_status as;
		memset(&as, 0, sizeof(as));
		ASSERT_EQ(hlthunk_get_hw_asic_status(fd, &as), 0);
		EXPECT_EQ(as.valid, 1);
		EXPECT_EQ(as.status, HL_DEVICE_STATUS_OPERATIONAL);
		EXPECT_EQ(as.open_stats.is_compute_ctx_active, 1);
		EXPECT_EQ(as.power.power, pw.power);
		EXPECT_GT(as.timestamp_sec, 0u);

		struct hlthunk_open_stats_info os;
		ASSERT_EQ(hlthunk_get_open_stats(fd, &os), 0);
		EXPECT_GE(os.open_counter, 1u);

		struct hlthunk_dram_replaced_rows_info rows;
		memset(&rows, 0xff, sizeof(rows));
		ASSERT_EQ(hlthunk_get_dram_replaced_rows_info(fd, &rows), 0);
		EXPECT_EQ(rows.num_replaced_rows, 0);
		uint32_t pending = 7;
		ASSERT_EQ(hlthunk_get_dram_pending_rows_info(fd, &pending), 0);
		EXPECT_EQ(pending, 0u);

		// The emulated firmware has no attestation or generic requests.
		struct hlthunk_sec_attest_info att;
		EXPECT_EQ(hlthunk_get_sec_attest_info(fd, 5, &att), -EIO);
		unsigned char req[64];
		EXPECT_EQ(hlthunk_fw_send_generic_request(fd, req, sizeof(req), 0), -EIO);
		EXPECT_EQ(hlthunk_fw_send_generic_request(fd, req, sizeof(req), 3), -EINVAL);
		// No events table.
		uint32_t events[16];
		EXPECT_EQ(hlthunk_get_hw_events_arr(fd, false, sizeof(events), events),
			  -EOPNOTSUPP);
		EXPECT_EQ(hlthunk_get_hw_events_arr(fd, true, sizeof(events), events),
			  -EOPNOTSUPP);

		// Captured events: none of these happened.
		struct hlthunk_event_record_open_dev_time od;
		ASSERT_EQ(hlthunk_get_event_record(fd, HLTHUNK_OPEN_DEV, &od), 0);
		EXPECT_GT(od.timestamp, 0) << "the compute open of this test";
		struct hlthunk_event_record_razwi_event rz;
		ASSERT_EQ(hlthunk_get_event_record(fd, HLTHUNK_RAZWI_EVENT, &rz), 0);
		EXPECT_EQ(rz.num_of_possible_engines, 0);
		struct hlthunk_event_record_undefined_opcode uo;
		EXPECT_EQ(hlthunk_get_event_record(fd, HLTHUNK_UNDEFINED_OPCODE, &uo), 0);
		struct hlthunk_event_record_critical_hw_err hwe;
		EXPECT_EQ(hlthunk_get_event_record(fd, HLTHUNK_HW_ERR_OPCODE, &hwe), 0);
		struct hlthunk_event_record_critical_fw_err fwe;
		EXPECT_EQ(hlthunk_get_event_record(fd, HLTHUNK_FW_ERR_OPCODE, &fwe), 0);
		EXPECT_EQ(hlthunk_get_event_record(fd, (enum hlthunk_event_record_id)9, &fwe),
			  -EINVAL);

		struct hlthunk_user_mapping maps[4];
		struct hlthunk_page_fault_info pf;
		memset(&pf, 0, sizeof(pf));
		pf.mappings_buf = maps;
		ASSERT_EQ(hlthunk_get_page_fault_info(fd, &pf, 4), 0);
		EXPECT_EQ(pf.num_of_mappings, 0u);

		std::vector<char> text(4096);
		int actual = -1;
		ASSERT_EQ(hlthunk_get_engine_status(fd, text.data(), text.size(), &actual), 0);
		EXPECT_GT(actual, 0);
		EXPECT_EQ(strlen(text.data()), (size_t)actual);
		EXPECT_EQ(hlthunk_get_engine_status(fd, text.data(), 100, &actual), -EINVAL);

		// The INFO ioctl as it is.
		struct hl_info_device_status st;
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_DEVICE_STATUS;
		a.return_pointer = reinterpret_cast<uintptr_t>(&st);
		a.return_size = sizeof(st);
		ASSERT_EQ(hlthunk_get_info(fd, &a), 0);
		EXPECT_EQ(st.status, (uint32_t)HL_DEVICE_STATUS_OPERATIONAL);
		a.op = 1000;
		EXPECT_EQ(hlthunk_get_info(fd, &a), -EINVAL);
	}
	EXPECT_EQ(hlthunk_close(c), 0);
	EXPECT_EQ(hlthunk_close(d), 0);
}
