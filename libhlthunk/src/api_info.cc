// SPDX-License-Identifier: MIT
// The INFO queries of hl-thunk: each is one HL_IOCTL_INFO opcode whose
// result is copied into hl-thunk's structure.
#include <ctime>
#include <cstring>
#include <vector>

#include "c_bridge.h"
#include "c_return.h"
#include "hlthunk.h"
#include "info_query.h"

using namespace hlthunk;

namespace {

// The common shape: a NULL result pointer is -EINVAL, the ioctl's error
// is returned as it is, and fill copies the answer on success.
template <typename Raw, typename Out, typename Fill>
int query(const char *name, int fd, uint32_t op, Out *out, Fill fill,
	  uint32_t arg = 0)
{
	return c_entry(name, [&]() -> int {
		if (!out)
			return c_return(-EINVAL);
		Raw raw;
		int rc = info_query(fd, op, &raw, arg);
		if (rc < 0)
			return c_return(rc);
		fill(raw, out);
		return 0;
	});
}

}  // namespace

extern "C" hlthunk_public int hlthunk_get_hw_ip_info(int fd,
						     struct hlthunk_hw_ip_info *out)
{
	return query<struct hl_info_hw_ip_info>(
		"hlthunk_get_hw_ip_info", fd, HL_INFO_HW_IP_INFO, out,
		[](const struct hl_info_hw_ip_info &hw, struct hlthunk_hw_ip_info *o) {
			memset(o, 0, sizeof(*o));
			o->sram_base_address = hw.sram_base_address;
			o->dram_base_address = hw.dram_base_address;
			o->dram_size = hw.dram_size;
			o->sram_size = hw.sram_size;
			o->num_of_events = hw.num_of_events;
			o->device_id = hw.device_id;
			o->cpld_version = hw.cpld_version;
			o->psoc_pci_pll_nr = hw.psoc_pci_pll_nr;
			o->psoc_pci_pll_nf = hw.psoc_pci_pll_nf;
			o->psoc_pci_pll_od = hw.psoc_pci_pll_od;
			o->psoc_pci_pll_div_factor = hw.psoc_pci_pll_div_factor;
			o->tpc_enabled_mask = hw.tpc_enabled_mask;
			o->dram_enabled = hw.dram_enabled;
			memcpy(o->cpucp_version, hw.cpucp_version, sizeof(o->cpucp_version));
			o->module_id = hw.module_id;
			memcpy(o->card_name, hw.card_name, sizeof(o->card_name));
			o->decoder_enabled_mask = hw.decoder_enabled_mask;
			o->mme_master_slave_mode = hw.mme_master_slave_mode;
			o->tpc_enabled_mask_ext = hw.tpc_enabled_mask_ext;
			o->dram_page_size = hw.dram_page_size;
			o->first_available_interrupt_id = hw.first_available_interrupt_id;
			o->edma_enabled_mask = hw.edma_enabled_mask;
			o->server_type = hw.server_type;
			o->number_of_user_interrupts = hw.number_of_user_interrupts;
			o->device_mem_alloc_default_page_size =
				hw.device_mem_alloc_default_page_size;
			o->security_enabled = hw.security_enabled;
			o->revision_id = hw.revision_id;
			o->tpc_interrupt_id = hw.tpc_interrupt_id;
			o->engine_core_interrupt_reg_addr = hw.engine_core_interrupt_reg_addr;
			o->rotator_enabled_mask = hw.rotator_enabled_mask;
			o->reserved_dram_size = hw.reserved_dram_size;
		});
}

extern "C" hlthunk_public int hlthunk_get_open_stats(int fd,
						     struct hlthunk_open_stats_info *out)
{
	return query<struct hl_open_stats_info>(
		"hlthunk_get_open_stats", fd, HL_INFO_OPEN_STATS, out,
		[](const struct hl_open_stats_info &s, struct hlthunk_open_stats_info *o) {
			o->open_counter = s.open_counter;
			o->last_open_period_ms = s.last_open_period_ms;
			o->is_compute_ctx_active = s.is_compute_ctx_active;
			o->compute_ctx_in_release = s.compute_ctx_in_release;
		});
}

extern "C" hlthunk_public int hlthunk_get_dram_usage(int fd,
						     struct hlthunk_dram_usage_info *out)
{
	return query<struct hl_info_dram_usage>(
		"hlthunk_get_dram_usage", fd, HL_INFO_DRAM_USAGE, out,
		[](const struct hl_info_dram_usage &u, struct hlthunk_dram_usage_info *o) {
			o->dram_free_mem = u.dram_free_mem;
			o->ctx_dram_mem = u.ctx_dram_mem;
		});
}

extern "C" int hlt_device_status(int fd)
{
	return c_entry("hlthunk_get_device_status_info", [&]() -> int {
		struct hl_info_device_status st;
		int rc = info_query(fd, HL_INFO_DEVICE_STATUS, &st);
		if (rc < 0)
			return c_return(rc);
		return static_cast<int>(st.status);
	});
}

namespace {

int hw_idle(int fd, struct hlthunk_engines_idle_info *out)
{
	return query<struct hl_info_hw_idle>(
		"hlthunk_get_busy_engines_mask", fd, HL_INFO_HW_IDLE, out,
		[](const struct hl_info_hw_idle &h, struct hlthunk_engines_idle_info *o) {
			memset(o, 0, sizeof(*o));
			o->is_idle = h.is_idle;
			static_assert(HLTHUNK_BUSY_ENGINES_MASK_SIZE ==
					      HL_BUSY_ENGINES_MASK_EXT_SIZE,
				      "one mask word per uapi word");
			for (int i = 0; i < HLTHUNK_BUSY_ENGINES_MASK_SIZE; i++)
				o->mask[i] = h.busy_engines_mask_ext[i];
		});
}

}  // namespace

extern "C" hlthunk_public bool hlthunk_is_device_idle(int fd)
{
	struct hlthunk_engines_idle_info info;
	return hw_idle(fd, &info) == 0 && info.is_idle;
}

extern "C" hlthunk_public int hlthunk_get_busy_engines_mask(int fd,
							    struct hlthunk_engines_idle_info *info)
{
	return hw_idle(fd, info);
}

extern "C" hlthunk_public int hlthunk_get_pll_frequency(int fd, uint32_t index,
							struct hlthunk_pll_frequency_info *out)
{
	return query<struct hl_pll_frequency_info>(
		"hlthunk_get_pll_frequency", fd, HL_INFO_PLL_FREQUENCY, out,
		[](const struct hl_pll_frequency_info &f,
		   struct hlthunk_pll_frequency_info *o) {
			for (int i = 0; i < HL_PLL_NUM_OUTPUTS; i++)
				o->output[i] = f.output[i];
		},
		index);
}

extern "C" hlthunk_public int hlthunk_get_device_utilization(int fd, uint32_t period_ms,
							     uint32_t *rate)
{
	return query<struct hl_info_device_utilization>(
		"hlthunk_get_device_utilization", fd, HL_INFO_DEVICE_UTILIZATION, rate,
		[](const struct hl_info_device_utilization &u, uint32_t *o) {
			*o = u.utilization;
		},
		period_ms);
}

extern "C" hlthunk_public int hlthunk_get_hw_events_arr(int fd, bool aggregate,
							uint32_t hw_events_arr_size,
							uint32_t *hw_events_arr)
{
	return c_entry("hlthunk_get_hw_events_arr", [&]() -> int {
		if (!hw_events_arr)
			return c_return(-EINVAL);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = aggregate ? HL_INFO_HW_EVENTS_AGGREGATE : HL_INFO_HW_EVENTS;
		a.return_pointer = reinterpret_cast<uintptr_t>(hw_events_arr);
		a.return_size = hw_events_arr_size;
		int rc = hl_info(fd, &a);
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz,
						   uint32_t *max_clk_mhz)
{
	return c_entry("hlthunk_get_clk_rate", [&]() -> int {
		if (!cur_clk_mhz || !max_clk_mhz)
			return c_return(-EINVAL);
		struct hl_info_clk_rate r;
		int rc = info_query(fd, HL_INFO_CLK_RATE, &r);
		if (rc < 0)
			return c_return(rc);
		*cur_clk_mhz = r.cur_clk_rate_mhz;
		*max_clk_mhz = r.max_clk_rate_mhz;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_reset_count_info(int fd,
							   struct hlthunk_reset_count_info *out)
{
	return query<struct hl_info_reset_count>(
		"hlthunk_get_reset_count_info", fd, HL_INFO_RESET_COUNT, out,
		[](const struct hl_info_reset_count &r, struct hlthunk_reset_count_info *o) {
			o->hard_reset_count = r.hard_reset_cnt;
			o->soft_reset_count = r.soft_reset_cnt;
		});
}

extern "C" hlthunk_public int hlthunk_get_time_sync_info(int fd,
							 struct hlthunk_time_sync_info *out)
{
	return query<struct hl_info_time_sync>(
		"hlthunk_get_time_sync_info", fd, HL_INFO_TIME_SYNC, out,
		[](const struct hl_info_time_sync &t, struct hlthunk_time_sync_info *o) {
			o->device_time = t.device_time;
			o->host_time = t.host_time;
		});
}

extern "C" hlthunk_public int hlthunk_get_sync_manager_info(int fd, int dcore_id,
							    struct hlthunk_sync_manager_info *out)
{
	return query<struct hl_info_sync_manager>(
		"hlthunk_get_sync_manager_info", fd, HL_INFO_SYNC_MANAGER, out,
		[](const struct hl_info_sync_manager &m,
		   struct hlthunk_sync_manager_info *o) {
			o->first_available_sync_object = m.first_available_sync_object;
			o->first_available_monitor = m.first_available_monitor;
			o->first_available_cq = m.first_available_cq;
			o->reserved = 0;
		},
		static_cast<uint32_t>(dcore_id));
}

extern "C" hlthunk_public int hlthunk_get_cs_counters_info(int fd,
							   struct hl_info_cs_counters *out)
{
	return query<struct hl_info_cs_counters>(
		"hlthunk_get_cs_counters_info", fd, HL_INFO_CS_COUNTERS, out,
		[](const struct hl_info_cs_counters &c, struct hl_info_cs_counters *o) {
			*o = c;
		});
}

extern "C" hlthunk_public int hlthunk_get_pci_counters_info(int fd,
							    struct hlthunk_pci_counters_info *out)
{
	return query<struct hl_info_pci_counters>(
		"hlthunk_get_pci_counters_info", fd, HL_INFO_PCI_COUNTERS, out,
		[](const struct hl_info_pci_counters &p, struct hlthunk_pci_counters_info *o) {
			o->rx_throughput = p.rx_throughput;
			o->tx_throughput = p.tx_throughput;
			o->replay_cnt = static_cast<uint32_t>(p.replay_cnt);
		});
}

extern "C" hlthunk_public int hlthunk_get_clk_throttle_info(int fd,
							    struct hlthunk_clk_throttle_info *out)
{
	return query<struct hl_info_clk_throttle>(
		"hlthunk_get_clk_throttle_info", fd, HL_INFO_CLK_THROTTLE_REASON, out,
		[](const struct hl_info_clk_throttle &t, struct hlthunk_clk_throttle_info *o) {
			o->clk_throttle_reason_bitmask = t.clk_throttling_reason;
			for (int i = 0; i < HL_CLK_THROTTLE_TYPE_MAX; i++) {
				o->clk_throttle_start_timestamp_us[i] =
					t.clk_throttling_timestamp_us[i];
				o->clk_throttle_duration_ns[i] = t.clk_throttling_duration_ns[i];
			}
		});
}

extern "C" hlthunk_public int hlthunk_get_total_energy_consumption_info(
	int fd, struct hlthunk_energy_info *out)
{
	return query<struct hl_info_energy>(
		"hlthunk_get_total_energy_consumption_info", fd, HL_INFO_TOTAL_ENERGY, out,
		[](const struct hl_info_energy &e, struct hlthunk_energy_info *o) {
			o->total_energy_consumption = e.total_energy_consumption;
		});
}

extern "C" hlthunk_public int hlthunk_get_power_info(int fd, struct hlthunk_power_info *out)
{
	return query<struct hl_power_info>(
		"hlthunk_get_power_info", fd, HL_INFO_POWER, out,
		[](const struct hl_power_info &p, struct hlthunk_power_info *o) {
			o->power = p.power;
		});
}

extern "C" hlthunk_public int hlthunk_get_hw_asic_status(int fd,
							 struct hlthunk_hw_asic_status *out)
{
	return c_entry("hlthunk_get_hw_asic_status", [&]() -> int {
		if (!out)
			return c_return(-EINVAL);
		out->valid = 0;
		struct hl_info_device_status st;
		int rc = info_query(fd, HL_INFO_DEVICE_STATUS, &st);
		if (rc < 0)
			return c_return(rc);
		out->status = static_cast<enum hl_device_status>(st.status);
		out->valid = 1;
		if ((rc = hlthunk_get_clk_throttle_info(fd, &out->throttle)) ||
		    (rc = hlthunk_get_open_stats(fd, &out->open_stats)))
			return rc;
		// Power is read only from a working device, as hl-thunk does.
		if (st.status == HL_DEVICE_STATUS_OPERATIONAL &&
		    (rc = hlthunk_get_power_info(fd, &out->power)))
			return rc;
		out->timestamp_sec = static_cast<uint64_t>(time(nullptr));
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_info(int fd, struct hl_info_args *info)
{
	return c_entry("hlthunk_get_info", [&]() -> int {
		if (!info)
			return c_return(-EINVAL);
		int rc = hl_info(fd, info);
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" int hlt_dram_replaced_rows_original(int fd,
					       struct hlthunk_dram_replaced_rows_info *info)
{
	return c_entry("hlthunk_get_dram_replaced_rows_info", [&]() -> int {
		if (!info)
			return c_return(-EINVAL);
		// The driver answers in the firmware's layout, which is this one.
		struct hlthunk_dram_replaced_rows_info rows;
		int rc = info_query(fd, HL_INFO_DRAM_REPLACED_ROWS, &rows);
		if (rc < 0)
			return c_return(rc);
		*info = rows;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_dram_replaced_rows_info(
	int fd, struct hlthunk_dram_replaced_rows_info *info)
{
	return hlt_functions()->fp_get_dram_replaced_rows_info(fd, info);
}

extern "C" int hlt_dram_pending_rows_original(int fd, uint32_t *out)
{
	return c_entry("hlthunk_get_dram_pending_rows_info", [&]() -> int {
		if (!out)
			return c_return(-EINVAL);
		uint32_t n;
		int rc = info_query(fd, HL_INFO_DRAM_PENDING_ROWS, &n);
		if (rc < 0)
			return c_return(rc);
		*out = n;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_dram_pending_rows_info(int fd, uint32_t *out)
{
	return hlt_functions()->fp_get_dram_pending_rows_info(fd, out);
}

extern "C" hlthunk_public int hlthunk_get_sec_attest_info(int fd, uint32_t nonce,
							  struct hlthunk_sec_attest_info *info)
{
	return c_entry("hlthunk_get_sec_attest_info", [&]() -> int {
		if (!info)
			return c_return(-EINVAL);
		// 3.5 KiB: on the heap, not on the caller's stack.
		std::vector<uint8_t> buf(sizeof(struct hl_info_sec_attest));
		auto *t = reinterpret_cast<struct hl_info_sec_attest *>(buf.data());
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_SECURED_ATTESTATION;
		a.sec_attest_nonce = nonce;
		a.return_pointer = reinterpret_cast<uintptr_t>(t);
		a.return_size = sizeof(*t);
		int rc = hl_info(fd, &a);
		if (rc < 0)
			return c_return(rc);
		info->nonce = t->nonce;
		info->pcr_quote_len = t->pcr_quote_len;
		info->pub_data_len = t->pub_data_len;
		info->certificate_len = t->certificate_len;
		info->pcr_num_reg = t->pcr_num_reg;
		info->pcr_reg_len = t->pcr_reg_len;
		info->quote_sig_len = t->quote_sig_len;
		memcpy(info->pcr_data, t->pcr_data, sizeof(info->pcr_data));
		memcpy(info->pcr_quote, t->pcr_quote, sizeof(info->pcr_quote));
		memcpy(info->quote_sig, t->quote_sig, sizeof(info->quote_sig));
		memcpy(info->public_data, t->public_data, sizeof(info->public_data));
		memcpy(info->certificate, t->certificate, sizeof(info->certificate));
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_page_fault_info(int fd,
							  struct hlthunk_page_fault_info *pf,
							  uint32_t num_of_allocated_mappings)
{
	return c_entry("hlthunk_get_page_fault_info", [&]() -> int {
		if (!pf)
			return c_return(-EINVAL);
		pf->num_of_mappings = 0xFFFFFFFF;  // not known yet
		struct hl_page_fault_info f;
		int rc = info_query(fd, HL_INFO_PAGE_FAULT_EVENT, &f);
		if (rc < 0)
			return c_return(rc);
		pf->timestamp = f.timestamp;
		pf->addr = f.addr;
		pf->engine_id = f.engine_id;
		// The INFO ioctl's size is 32 bits.
		if (!pf->mappings_buf || !num_of_allocated_mappings ||
		    num_of_allocated_mappings > UINT32_MAX / sizeof(struct hl_user_mapping))
			return c_return(-EINVAL);
		std::vector<struct hl_user_mapping> maps(num_of_allocated_mappings);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_USER_MAPPINGS;
		a.return_pointer = reinterpret_cast<uintptr_t>(maps.data());
		a.return_size = static_cast<uint32_t>(
			maps.size() * sizeof(struct hl_user_mapping));
		rc = hl_info(fd, &a);
		// The driver reports how many there are, also when the array
		// is too small for them (-ENOMEM).
		pf->num_of_mappings = a.array_size;
		if (rc < 0)
			return c_return(rc);
		for (uint32_t i = 0; i < a.array_size && i < num_of_allocated_mappings; i++) {
			pf->mappings_buf[i].dev_va = maps[i].dev_va;
			pf->mappings_buf[i].size = maps[i].size;
		}
		return 0;
	});
}

extern "C" int hlt_event_record(int fd, int event_id, void *buf)
{
	return c_entry("hlthunk_get_event_record", [&]() -> int {
		if (!buf)
			return c_return(-EINVAL);
		int rc;
		switch (event_id) {
		case HLTHUNK_OPEN_DEV: {
			struct hl_info_last_err_open_dev_time t;
			if ((rc = info_query(fd, HL_INFO_LAST_ERR_OPEN_DEV_TIME, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_open_dev_time *>(buf);
			o->timestamp = t.timestamp;
			return 0;
		}
		case HLTHUNK_CS_TIMEOUT: {
			struct hl_info_cs_timeout_event t;
			if ((rc = info_query(fd, HL_INFO_CS_TIMEOUT_EVENT, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_cs_timeout *>(buf);
			o->timestamp = t.timestamp;
			o->seq = t.seq;
			return 0;
		}
		case HLTHUNK_RAZWI_EVENT: {
			struct hl_info_razwi_event t;
			if ((rc = info_query(fd, HL_INFO_RAZWI_EVENT, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_razwi_event *>(buf);
			o->timestamp = t.timestamp;
			o->addr = t.addr;
			o->num_of_possible_engines = t.num_of_possible_engines;
			unsigned n = t.num_of_possible_engines;
			if (n > HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR)
				n = HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR;
			memcpy(o->engine_id, t.engine_id, n * sizeof(uint16_t));
			o->flags = t.flags;
			return 0;
		}
		case HLTHUNK_UNDEFINED_OPCODE: {
			struct hl_info_undefined_opcode_event t;
			if ((rc = info_query(fd, HL_INFO_UNDEFINED_OPCODE_EVENT, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_undefined_opcode *>(buf);
			o->timestamp = t.timestamp;
			memcpy(o->cb_addr_streams, t.cb_addr_streams,
			       sizeof(o->cb_addr_streams));
			o->cq_addr = t.cq_addr;
			o->cq_size = t.cq_size;
			o->cb_addr_streams_len = t.cb_addr_streams_len;
			o->engine_id = t.engine_id;
			o->stream_id = t.stream_id;
			return 0;
		}
		case HLTHUNK_HW_ERR_OPCODE: {
			struct hl_info_hw_err_event t;
			if ((rc = info_query(fd, HL_INFO_HW_ERR_EVENT, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_critical_hw_err *>(buf);
			o->timestamp = t.timestamp;
			o->event_id = t.event_id;
			return 0;
		}
		case HLTHUNK_FW_ERR_OPCODE: {
			struct hl_info_fw_err_event t;
			if ((rc = info_query(fd, HL_INFO_FW_ERR_EVENT, &t)))
				return c_return(rc);
			auto *o = static_cast<struct hlthunk_event_record_critical_fw_err *>(buf);
			o->timestamp = t.timestamp;
			// The driver's err_type holds enum hl_info_fw_err_type.
			o->err_type = t.err_type == HL_INFO_FW_REPORTED_ERR ?
					      HL_INFO_FW_REPORTED_ERR :
					      HL_INFO_FW_HEARTBEAT_ERR;
			o->reported_err_id = t.event_id;
			return 0;
		}
		default:
			return c_return(-EINVAL);
		}
	});
}

extern "C" hlthunk_public int hlthunk_get_engine_status(int fd, char *status_buf,
							uint32_t status_buf_size,
							int *actual_size)
{
	return c_entry("hlthunk_get_engine_status", [&]() -> int {
		if (!status_buf || !status_buf_size || !actual_size)
			return c_return(-EINVAL);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_ENGINE_STATUS;
		a.return_pointer = reinterpret_cast<uintptr_t>(status_buf);
		a.return_size = status_buf_size;
		int rc = hl_info(fd, &a);
		if (rc < 0)
			return c_return(rc);
		*actual_size = static_cast<int>(a.user_buffer_actual_size);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_fw_send_generic_request(int fd, void *buff,
							      uint32_t buff_size,
							      uint32_t sub_opcode)
{
	return c_entry("hlthunk_fw_send_generic_request", [&]() -> int {
		if (!buff || !buff_size)
			return c_return(-EINVAL);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_FW_GENERIC_REQ;
		a.return_pointer = reinterpret_cast<uintptr_t>(buff);
		a.return_size = buff_size;
		a.fw_sub_opcode = sub_opcode;
		int rc = hl_info(fd, &a);
		return rc < 0 ? c_return(rc) : 0;
	});
}
