/* SPDX-License-Identifier: MIT */
/*
 * hlthunk.h - userspace interface to Habana Gaudi devices and to the
 * node-local device-to-device copy channels of /dev/hl_ipc.
 *
 * The hlthunk_* calls, types, enumerations and macros below are those of
 * HabanaAI hl-thunk's public header (hl-thunk-open, commit 8636f13): same
 * names, prototypes, values and structure layouts, so that a program
 * written against hl-thunk compiles and links against this library
 * unchanged (tests/lib/abi/ checks this against data derived from
 * hl-thunk's header).  As hl-thunk's header does, this one makes the
 * habanalabs accelerator uapi visible (struct hl_info_args, struct
 * hl_cs_chunk, HL_WAIT_CS_STATUS_*, enum hl_device_status, ...): the
 * system's header when there is one (<drm/habanalabs_accel.h>, or the
 * older <misc/habanalabs.h>; or whichever the program included first),
 * else this library's own definitions (habanalabs_abi.h); to an older
 * system header, hlthunk_uapi_compat.h adds only what it lacks.  Define
 * HLTHUNK_OWN_UAPI to use the library's definitions (those of Linux 6.12)
 * in any case.  The hlthunk_ipc_* calls and
 * hlthunk_device_memory_export_dmabuf_range are this library's own.
 *
 * Conventions (Documentation/libhlthunk.md has the reference and every
 * difference from hl-thunk):
 *  - calls returning int return 0 (or the non-negative value documented
 *    per call) on success and a negative errno value (-EINVAL, -EBUSY, ...)
 *    on failure; errno is set to the positive value as well;
 *  - calls returning a uint64_t handle or device address return 0 on
 *    failure and set errno;
 *  - every call is thread-safe.
 */
#ifndef HLTHUNK_H
#define HLTHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(HABANALABS_H_) && !defined(HLTHUNK_OWN_UAPI) && defined(__has_include)
#if __has_include(<drm/habanalabs_accel.h>)
#include <drm/habanalabs_accel.h>
#elif __has_include(<misc/habanalabs.h>)
#include <misc/habanalabs.h>
#endif
#endif
#include "habanalabs_abi.h"		/* only if no uapi header came before */
#include "hlthunk_uapi_compat.h"	/* what an older one lacks */

#ifdef __cplusplus
extern "C" {
#endif

#define hlthunk_public __attribute__((visibility("default")))

/* Device nodes of the habanalabs driver: current kernels, then older ones. */
#define HLTHUNK_MAX_MINOR		256
#define HLTHUNK_DEV_NAME_PRIMARY	"/dev/accel/accel%d"
#define HLTHUNK_DEV_NAME_CONTROL	"/dev/accel/accel_controlD%d"
#define HLTHUNK_DEV_NAME_PRIMARY_LEGACY	"/dev/hl%d"
#define HLTHUNK_DEV_NAME_CONTROL_LEGACY	"/dev/hl_controlD%d"

/* Words of struct hlthunk_engines_idle_info.mask */
#define HLTHUNK_BUSY_ENGINES_MASK_SIZE	4

enum hlthunk_node_type {
	HLTHUNK_NODE_PRIMARY = 0,	/* compute node: one open at a time */
	HLTHUNK_NODE_CONTROL = 1,	/* control node: INFO only, shared */
	HLTHUNK_NODE_MAX = 2
};

/* ASIC types.  The placeholders keep the numbering of hl-thunk. */
enum hlthunk_device_name {
	HLTHUNK_DEVICE_GOYA = 0,
	HLTHUNK_DEVICE_PLACEHOLDER1 = 1,
	HLTHUNK_DEVICE_GAUDI = 2,
	HLTHUNK_DEVICE_INVALID = 3,
	HLTHUNK_DEVICE_DONT_CARE = 4,
	HLTHUNK_DEVICE_GAUDI2 = 5,
	HLTHUNK_DEVICE_PLACEHOLDER2 = 6,
	HLTHUNK_DEVICE_PLACEHOLDER3 = 7,
	HLTHUNK_DEVICE_PLACEHOLDER4 = 8,
	HLTHUNK_DEVICE_MAX = 9
};

/* What hlthunk_get_event_record() fetches, and the struct it fills. */
enum hlthunk_event_record_id {
	HLTHUNK_OPEN_DEV = 0,		/* hlthunk_event_record_open_dev_time */
	HLTHUNK_CS_TIMEOUT = 1,		/* hlthunk_event_record_cs_timeout */
	HLTHUNK_RAZWI_EVENT = 2,	/* hlthunk_event_record_razwi_event */
	HLTHUNK_UNDEFINED_OPCODE = 3,	/* hlthunk_event_record_undefined_opcode */
	HLTHUNK_HW_ERR_OPCODE = 4,	/* hlthunk_event_record_critical_hw_err */
	HLTHUNK_FW_ERR_OPCODE = 5	/* hlthunk_event_record_critical_fw_err */
};

/* ---- Information structures ------------------------------------------- */

/* Static properties of the ASIC (HL_INFO_HW_IP_INFO, in hl-thunk's order). */
struct hlthunk_hw_ip_info {
	uint64_t sram_base_address;
	uint64_t dram_base_address;
	uint64_t dram_size;
	uint32_t sram_size;
	uint32_t num_of_events;
	uint32_t device_id;		/* PCI device id */
	uint32_t cpld_version;
	uint32_t psoc_pci_pll_nr;
	uint32_t psoc_pci_pll_nf;
	uint32_t psoc_pci_pll_od;
	uint32_t psoc_pci_pll_div_factor;
	uint16_t tpc_enabled_mask;
	uint8_t dram_enabled;
	uint8_t cpucp_version[HL_INFO_VERSION_MAX_LEN];
	uint32_t module_id;
	uint8_t card_name[HL_INFO_CARD_NAME_MAX_LEN];
	uint32_t decoder_enabled_mask;
	uint8_t mme_master_slave_mode;
	uint64_t tpc_enabled_mask_ext;
	uint64_t dram_page_size;
	uint16_t first_available_interrupt_id;
	uint32_t edma_enabled_mask;
	uint16_t server_type;		/* enum hl_server_type */
	uint64_t reserved1;
	uint16_t number_of_user_interrupts;
	uint64_t device_mem_alloc_default_page_size;
	uint64_t reserved2;
	uint8_t reserved3;
	uint8_t reserved4;
	uint64_t reserved5;
	uint32_t reserved6;
	uint8_t reserved7;
	uint8_t security_enabled;
	uint8_t revision_id;
	uint16_t tpc_interrupt_id;
	uint64_t engine_core_interrupt_reg_addr;
	uint32_t rotator_enabled_mask;
	uint32_t reserved8;
	uint64_t reserved_dram_size;
};

struct hlthunk_dram_usage_info {
	uint64_t dram_free_mem;		/* of the device */
	uint64_t ctx_dram_mem;		/* allocated by this context */
};

struct hlthunk_engines_idle_info {
	uint32_t is_idle;
	uint32_t pad;
	uint64_t mask[HLTHUNK_BUSY_ENGINES_MASK_SIZE];	/* busy engine ids */
};

struct hlthunk_pll_frequency_info {
	uint16_t output[HL_PLL_NUM_OUTPUTS];	/* MHz, 0 if absent */
};

struct hlthunk_reset_count_info {
	uint32_t hard_reset_count;
	uint32_t soft_reset_count;
};

struct hlthunk_time_sync_info {
	uint64_t device_time;
	uint64_t host_time;
};

struct hlthunk_sync_manager_info {
	uint32_t first_available_sync_object;
	uint32_t first_available_monitor;
	uint32_t first_available_cq;
	uint32_t reserved;
};

struct hlthunk_pci_counters_info {
	uint64_t rx_throughput;
	uint64_t tx_throughput;
	uint32_t replay_cnt;
};

#define HLTHUNK_CLK_THROTTLE_POWER	(1 << HL_CLK_THROTTLE_TYPE_POWER)
#define HLTHUNK_CLK_THROTTLE_THERMAL	(1 << HL_CLK_THROTTLE_TYPE_THERMAL)

struct hlthunk_clk_throttle_info {
	uint32_t clk_throttle_reason_bitmask;	/* HLTHUNK_CLK_THROTTLE_* */
	uint64_t clk_throttle_start_timestamp_us[HL_CLK_THROTTLE_TYPE_MAX];
	uint64_t clk_throttle_duration_ns[HL_CLK_THROTTLE_TYPE_MAX];
};

struct hlthunk_energy_info {
	uint64_t total_energy_consumption;	/* mJ since the driver loaded */
};

struct hlthunk_power_info {
	uint64_t power;				/* mW */
};

/* ---- Command submission structures ------------------------------------ */

struct hlthunk_cs_in {
	void *chunks_restore;	/* array of struct hl_cs_chunk */
	void *chunks_execute;	/* array of struct hl_cs_chunk */
	uint32_t num_chunks_restore;
	uint32_t num_chunks_execute;
	uint32_t flags;		/* HL_CS_FLAGS_* */
};

struct hlthunk_cs_out {
	uint64_t seq;
	uint32_t status;
	uint16_t sob_count_before_submission;
};

struct hlthunk_signal_in {
	void *chunks_restore;
	uint32_t num_chunks_restore;
	uint32_t queue_index;
	uint32_t flags;
};

struct hlthunk_signal_out {
	uint64_t seq;
	uint32_t status;
	uint32_t sob_base_addr_offset;
	uint16_t sob_count_before_submission;
};

struct hlthunk_sig_res_in {
	uint32_t queue_index;
	uint32_t count;
};

struct reserve_sig_handle {
	uint32_t id;
	uint32_t sob_base_addr_offset;
	uint32_t count;
};

struct hlthunk_sig_res_out {
	struct reserve_sig_handle handle;
	uint32_t status;
};

/* What a wait CS waits for; hlthunk_wait_in.hlthunk_wait_for_signal
 * points at one of these (only one is supported). */
struct hlthunk_wait_for_signal_data {
	union {
		uint64_t *signal_seq_arr;	/* signal CS sequence numbers */
		uint64_t encaps_signal_seq;	/* reservation handle id */
	};
	uint32_t signal_seq_nr;		/* must be 1 */
	uint32_t queue_index;
	uint32_t flags;
	uint32_t collective_engine_id;
	uint32_t encaps_signal_offset;
};

struct hlthunk_wait_in {
	void *chunks_restore;
	uint32_t num_chunks_restore;
	uint64_t *hlthunk_wait_for_signal;	/* struct hlthunk_wait_for_signal_data */
	uint32_t num_wait_for_signal;		/* must be 1 */
	uint32_t flags;
};

struct hlthunk_wait_out {
	uint64_t seq;
	uint32_t status;
};

struct hlthunk_open_stats_info {
	uint64_t open_counter;
	uint64_t last_open_period_ms;
	uint8_t is_compute_ctx_active;
	uint8_t compute_ctx_in_release;
};

struct hlthunk_hw_asic_status {
	struct hlthunk_clk_throttle_info throttle;
	struct hlthunk_open_stats_info open_stats;
	struct hlthunk_power_info power;
	enum hl_device_status status;
	uint64_t timestamp_sec;
	uint8_t valid;
};

struct hlthunk_wait_multi_cs_in {
	uint64_t *seq;			/* array of seq_len sequence numbers */
	uint64_t timeout_us;
	uint32_t seq_len;
};

struct hlthunk_wait_multi_cs_out {
	uint32_t status;
	uint32_t seq_set;		/* bit i: seq[i] completed */
	uint8_t completed;		/* how many bits are set */
};

/* ---- DRAM rows, events, attestation ----------------------------------- */

#define DRAM_ROW_REPLACE_MAX	32

enum hlthunk_dram_row_replace_cause {
	HLTHUNK_ROW_REPLACE_CAUSE_DOUBLE_ECC_ERR = 0,
	HLTHUNK_ROW_REPLACE_CAUSE_MULTI_SINGLE_ECC_ERR = 1,
};

struct hlthunk_dram_row_info {
	uint8_t dram_idx;
	uint8_t pc;
	uint8_t sid;
	uint8_t bank_idx;
	uint16_t row_addr;
	uint8_t replaced_row_cause;	/* enum hlthunk_dram_row_replace_cause */
	uint8_t pad;
};

struct hlthunk_dram_replaced_rows_info {
	uint16_t num_replaced_rows;
	uint8_t pad[6];
	struct hlthunk_dram_row_info replaced_rows[DRAM_ROW_REPLACE_MAX];
};

struct hlthunk_event_record_open_dev_time {
	int64_t timestamp;
};

struct hlthunk_event_record_cs_timeout {
	int64_t timestamp;
	uint64_t seq;
};

struct hlthunk_event_record_razwi_event {
	int64_t timestamp;
	uint64_t addr;
	uint16_t engine_id[HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR];
	uint16_t num_of_possible_engines;
	uint8_t flags;			/* HL_RAZWI_* */
};

struct hlthunk_event_record_undefined_opcode {
	int64_t timestamp;
	uint64_t cb_addr_streams[MAX_QMAN_STREAMS_INFO][OPCODE_INFO_MAX_ADDR_SIZE];
	uint64_t cq_addr;
	uint32_t cq_size;
	uint32_t cb_addr_streams_len;
	uint32_t engine_id;
	uint32_t stream_id;
};

struct hlthunk_event_record_critical_hw_err {
	int64_t timestamp;
	uint16_t event_id;
};

struct hlthunk_event_record_critical_fw_err {
	int64_t timestamp;
	enum hl_info_fw_err_type err_type;
	uint16_t reported_err_id;
};

/* SEC_*_BUF_SZ: the sizes of habanalabs_abi.h. */
struct hlthunk_sec_attest_info {
	uint32_t nonce;
	uint16_t pcr_quote_len;
	uint16_t pub_data_len;
	uint16_t certificate_len;
	uint8_t pcr_num_reg;
	uint8_t pcr_reg_len;
	uint8_t quote_sig_len;
	uint8_t pcr_data[SEC_PCR_DATA_BUF_SZ];
	uint8_t pcr_quote[SEC_PCR_QUOTE_BUF_SZ];
	uint8_t quote_sig[SEC_SIGNATURE_BUF_SZ];
	uint8_t public_data[SEC_PUB_DATA_BUF_SZ];
	uint8_t certificate[SEC_CERTIFICATE_BUF_SZ];
};

struct hlthunk_user_mapping {
	uint64_t dev_va;
	uint64_t size;
};

struct hlthunk_page_fault_info {
	int64_t timestamp;
	uint64_t addr;
	uint16_t engine_id;
	uint32_t num_of_mappings;	/* filled in; 0xFFFFFFFF if unknown */
	struct hlthunk_user_mapping *mappings_buf;	/* caller's array */
};

/*
 * The calls a profiling layer may wrap.  When libhl_shim.so is found (and
 * HABANA_SHIM_DISABLE is not 1), hlthunk_open hands this library's table to
 * its ShimGetFunctions and calls these entries through the table it returns.
 */
struct hlthunk_functions_pointers {
	int (*fp_hlthunk_command_submission)(int fd, struct hlthunk_cs_in *in,
					     struct hlthunk_cs_out *out);
	int (*fp_hlthunk_open)(enum hlthunk_device_name device_name,
			       const char *busid);
	int (*fp_hlthunk_close)(int fd);
	int (*fp_hlthunk_profiler_start)(int fd);
	int (*fp_hlthunk_profiler_stop)(int fd);
	int (*fp_hlthunk_profiler_get_trace)(int fd, void *buffer,
					     uint64_t *size,
					     uint64_t *num_entries);
	uint64_t (*fp_hlthunk_device_memory_alloc)(int fd, uint64_t size,
						   uint64_t page_size,
						   bool contiguous, bool shared);
	int (*fp_hlthunk_device_memory_free)(int fd, uint64_t handle);
	uint64_t (*fp_hlthunk_device_memory_map)(int fd, uint64_t handle,
						 uint64_t hint_addr);
	uint64_t (*fp_hlthunk_host_memory_map)(int fd, void *host_virt_addr,
					       uint64_t hint_addr,
					       uint64_t host_size);
	int (*fp_hlthunk_memory_unmap)(int fd, uint64_t device_virt_addr);
	int (*fp_hlthunk_debug)(int fd, struct hl_debug_args *debug);
	int (*fp_hlthunk_request_command_buffer)(int fd, uint32_t cb_size,
						 uint64_t *cb_handle);
	int (*fp_hlthunk_destroy_command_buffer)(int fd, uint64_t cb_handle);
	int (*fp_hlthunk_wait_for_cs)(int fd, uint64_t seq,
				      uint64_t timeout_us, uint32_t *status);
	enum hlthunk_device_name (*fp_hlthunk_get_device_name_from_fd)(int fd);
	int (*fp_hlthunk_get_pci_bus_id_from_fd)(int fd, char *pci_bus_id,
						 int len);
	int (*fp_hlthunk_get_device_index_from_pci_bus_id)(const char *busid);
	void *(*fp_hlthunk_malloc)(size_t size);
	void (*fp_hlthunk_free)(void *pt);
	int (*fp_hlthunk_signal_submission)(int fd,
					    struct hlthunk_signal_in *in,
					    struct hlthunk_signal_out *out);
	int (*fp_hlthunk_wait_for_signal)(int fd, struct hlthunk_wait_in *in,
					  struct hlthunk_wait_out *out);
	int (*fp_hlthunk_get_time_sync_info)(int fd,
					     struct hlthunk_time_sync_info *info);
	int (*fp_hlthunk_get_cs_counters_info)(int fd,
					       struct hl_info_cs_counters *info);
	void (*fp_hlthunk_profiler_destroy)(void);
	int (*fp_hlthunk_request_mapped_command_buffer)(int fd,
							uint32_t cb_size,
							uint64_t *cb_handle);
	int (*fp_hlthunk_wait_for_collective_sig)(int fd,
						  struct hlthunk_wait_in *in,
						  struct hlthunk_wait_out *out);
	int (*fp_hlthunk_deprecated_func1)(int fd, uint64_t seq,
					   uint64_t timeout_us,
					   uint32_t *status,
					   uint64_t *timestamp);
	int (*fp_hlthunk_get_cb_usage_count)(int fd, uint64_t cb_handle,
					     uint32_t *usage_cnt);
	int (*fp_hlthunk_staged_command_submission)(int fd, uint64_t sequence,
						    struct hlthunk_cs_in *in,
						    struct hlthunk_cs_out *out);
	int (*fp_hlthunk_get_hw_block)(int fd, uint64_t block_address,
				       uint32_t *block_size, uint64_t *handle);
	int (*fp_hlthunk_wait_for_interrupt)(int fd, void *addr,
					     uint64_t target_value,
					     uint32_t interrupt_id,
					     uint64_t timeout_us,
					     uint32_t *status);
	int (*fp_hlthunk_device_memory_export_dmabuf_fd)(int fd, uint64_t handle,
							 uint64_t size,
							 uint32_t flags);
	int (*fp_hlthunk_command_submission_timeout)(int fd,
						     struct hlthunk_cs_in *in,
						     struct hlthunk_cs_out *out,
						     uint32_t timeout);
	int (*fp_hlthunk_signal_submission_timeout)(int fd,
						    struct hlthunk_signal_in *in,
						    struct hlthunk_signal_out *out,
						    uint32_t timeout);
	int (*fp_hlthunk_wait_for_signal_timeout)(int fd,
						  struct hlthunk_wait_in *in,
						  struct hlthunk_wait_out *out,
						  uint32_t timeout);
	int (*fp_hlthunk_wait_for_collective_sig_timeout)(int fd,
							  struct hlthunk_wait_in *in,
							  struct hlthunk_wait_out *out,
							  uint32_t timeout);
	int (*fp_hlthunk_staged_cs_timeout)(int fd, uint64_t sequence,
					    struct hlthunk_cs_in *in,
					    struct hlthunk_cs_out *out,
					    uint32_t timeout);
	int (*fp_hlthunk_reserve_signals)(int fd, struct hlthunk_sig_res_in *in,
					  struct hlthunk_sig_res_out *out);
	int (*fp_hlthunk_unreserve_signals)(int fd,
					    struct reserve_sig_handle *handle,
					    uint32_t *status);
	int (*fp_hlthunk_staged_cs_encaps_signals)(int fd, uint64_t sequence,
						   struct hlthunk_cs_in *in,
						   struct hlthunk_cs_out *out);
	int (*fp_hlthunk_wait_for_reserved_encaps_signals)(int fd,
							   struct hlthunk_wait_in *in,
							   struct hlthunk_wait_out *out);
	int (*fp_hlthunk_wait_for_collective_reserved_encap_sig)(int fd,
								 struct hlthunk_wait_in *in,
								 struct hlthunk_wait_out *out);
	uint64_t (*fp_hlthunk_host_memory_map_flags)(int fd, void *host_virt_addr,
						     uint64_t hint_addr,
						     uint64_t host_size,
						     uint32_t flags);
	int (*fp_get_dram_replaced_rows_info)(int fd,
					      struct hlthunk_dram_replaced_rows_info *info);
	int (*fp_get_dram_pending_rows_info)(int fd, uint32_t *out);
	/* No longer used: NULL. */
	int (*fp_DEPRECATED1)(int fd, void *addr, uint64_t target_value,
			      uint32_t engine_id, uint64_t timeout_us,
			      uint32_t *status, uint64_t *timestamp);
	int (*fp_hlthunk_wait_for_interrupt_by_handle)(int fd,
						       uint64_t cq_counters_handle,
						       uint64_t cq_counters_offset,
						       uint64_t target_value,
						       uint32_t interrupt_id,
						       uint64_t timeout_us,
						       uint32_t *status);
	int (*fp_hlthunk_get_mapped_cb_device_va_by_handle)(int fd,
							    uint64_t cb_handle,
							    uint64_t *device_va);
	int (*fp_hlthunk_get_pll_frequency)(int fd, uint32_t index,
					    struct hlthunk_pll_frequency_info *frequency);
	int (*fp_hlthunk_deprecated_func2)(int fd, uint32_t interrupt_id,
					   uint64_t cq_counters_handle,
					   uint64_t cq_counters_offset,
					   uint64_t target_value,
					   uint64_t timestamp_handle,
					   uint64_t timestamp_offset);
	int (*fp_hlthunk_deprecated_func3)(int fd, uint32_t num_elements,
					   uint64_t *handle);
	int (*fp_hlthunk_device_mapped_memory_export_dmabuf_fd)(int fd,
								uint64_t addr,
								uint64_t size,
								uint64_t offset,
								uint32_t flags);
};

/* The driver's debugfs files of a device, opened by hlthunk_debugfs_open. */
struct hlthunk_debugfs {
	int addr_fd;
	int data_fd;
	int clk_gate_fd;
	char clk_gate_val[32];		/* restored by hlthunk_debugfs_close */
};

/* ---- Opening devices --------------------------------------------------- */

/* The compute node of the first device of that ASIC type that can be
 * opened (HLTHUNK_DEVICE_DONT_CARE: any), or of the device at PCI address
 * busid.  Returns the fd, or a negative errno (-EBUSY: open elsewhere). */
hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
				const char *busid);
/* The compute node of the device whose hw_ip module_id is module_id. */
hlthunk_public int hlthunk_open_by_module_id(uint32_t module_id);
/* The control node with index dev_id (the N of its name), or of busid. */
hlthunk_public int hlthunk_open_control(int dev_id, const char *busid);
/* The control node of the first device of that type, or of busid. */
hlthunk_public int hlthunk_open_control_by_name(enum hlthunk_device_name device_name,
						const char *busid);
hlthunk_public int hlthunk_open_control_by_module_id(uint32_t module_id);
hlthunk_public int hlthunk_open_control_by_bus_id(const char *busid);
/* Closes fd and forgets what the library recorded for it. */
hlthunk_public int hlthunk_close(int fd);
/* Number of devices of that type (HLTHUNK_DEVICE_DONT_CARE: all). */
hlthunk_public int hlthunk_get_device_count(enum hlthunk_device_name device_name);

/* ---- Describing devices ------------------------------------------------ */

/* PCI device id, 0 on failure. */
hlthunk_public uint32_t hlthunk_get_device_id_from_fd(int fd);
/* HLTHUNK_DEVICE_INVALID when fd is not a device of a known type. */
hlthunk_public enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd);
/* Writes "dddd:bb:dd.f" and a NUL; len must hold 13 bytes (-ERANGE). */
hlthunk_public int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id,
						  int len);
/* Index (N of the node names) of the device at busid. */
hlthunk_public int hlthunk_get_device_index_from_pci_bus_id(const char *busid);
hlthunk_public int hlthunk_get_hw_ip_info(int fd,
					  struct hlthunk_hw_ip_info *hw_ip);
hlthunk_public int hlthunk_get_open_stats(int fd,
					  struct hlthunk_open_stats_info *open_stats);
/* Status, throttling, open statistics and power in one call. */
hlthunk_public int hlthunk_get_hw_asic_status(int fd,
					      struct hlthunk_hw_asic_status *hw_asic_status);
hlthunk_public int hlthunk_get_dram_usage(int fd,
					  struct hlthunk_dram_usage_info *dram_usage);
/* The device status, or a negative errno (cast) on failure. */
hlthunk_public enum hl_device_status hlthunk_get_device_status_info(int fd);
/* false on failure too. */
hlthunk_public bool hlthunk_is_device_idle(int fd);
hlthunk_public int hlthunk_get_busy_engines_mask(int fd,
						 struct hlthunk_engines_idle_info *info);
hlthunk_public int hlthunk_get_pll_frequency(int fd, uint32_t index,
					     struct hlthunk_pll_frequency_info *frequency);
hlthunk_public int hlthunk_get_device_utilization(int fd, uint32_t period_ms,
						  uint32_t *rate);
/* hw_events_arr_size is in bytes. */
hlthunk_public int hlthunk_get_hw_events_arr(int fd, bool aggregate,
					     uint32_t hw_events_arr_size,
					     uint32_t *hw_events_arr);
hlthunk_public int hlthunk_get_clk_rate(int fd, uint32_t *cur_clk_mhz,
					uint32_t *max_clk_mhz);
hlthunk_public int hlthunk_get_reset_count_info(int fd,
						struct hlthunk_reset_count_info *info);
hlthunk_public int hlthunk_get_time_sync_info(int fd,
					      struct hlthunk_time_sync_info *info);
hlthunk_public int hlthunk_get_sync_manager_info(int fd, int dcore_id,
						 struct hlthunk_sync_manager_info *info);
hlthunk_public int hlthunk_get_cs_counters_info(int fd,
						struct hl_info_cs_counters *info);
hlthunk_public int hlthunk_get_pci_counters_info(int fd,
						 struct hlthunk_pci_counters_info *info);
hlthunk_public int hlthunk_get_clk_throttle_info(int fd,
						 struct hlthunk_clk_throttle_info *info);
hlthunk_public int hlthunk_get_total_energy_consumption_info(int fd,
							     struct hlthunk_energy_info *info);
hlthunk_public int hlthunk_get_power_info(int fd,
					  struct hlthunk_power_info *info);
/* The INFO ioctl as it is: the caller fills *info. */
hlthunk_public int hlthunk_get_info(int fd, struct hl_info_args *info);
hlthunk_public int hlthunk_get_dram_replaced_rows_info(int fd,
						       struct hlthunk_dram_replaced_rows_info *info);
hlthunk_public int hlthunk_get_dram_pending_rows_info(int fd, uint32_t *out);
hlthunk_public int hlthunk_get_sec_attest_info(int fd, uint32_t nonce,
					       struct hlthunk_sec_attest_info *info);
/* num_of_allocated_mappings: entries of pf->mappings_buf. */
hlthunk_public int hlthunk_get_page_fault_info(int fd,
					       struct hlthunk_page_fault_info *pf,
					       uint32_t num_of_allocated_mappings);
/* buf is the struct that event_id names (enum hlthunk_event_record_id). */
hlthunk_public int hlthunk_get_event_record(int fd,
					    enum hlthunk_event_record_id event_id,
					    void *buf);
/* Text of the engines' status; *actual_size receives its length. */
hlthunk_public int hlthunk_get_engine_status(int fd, char *status_buf,
					     uint32_t status_buf_size,
					     int *actual_size);
/* Sends a generic request to the device's firmware; buff is in and out. */
hlthunk_public int hlthunk_fw_send_generic_request(int fd, void *buff,
						   uint32_t buff_size,
						   uint32_t sub_opcode);

/* ---- Command buffers and submission ------------------------------------ */

/* The handle is also the mmap() offset of the CB on the compute fd. */
hlthunk_public int hlthunk_request_command_buffer(int fd, uint32_t cb_size,
						  uint64_t *cb_handle);
/* A CB also mapped into the device's address space. */
hlthunk_public int hlthunk_request_mapped_command_buffer(int fd,
							 uint32_t cb_size,
							 uint64_t *cb_handle);
hlthunk_public int hlthunk_destroy_command_buffer(int fd, uint64_t cb_handle);
/* How many submissions in flight use the CB. */
hlthunk_public int hlthunk_get_cb_usage_count(int fd, uint64_t cb_handle,
					      uint32_t *usage_cnt);
hlthunk_public int hlthunk_get_mapped_cb_device_va_by_handle(int fd,
							     uint64_t cb_handle,
							     uint64_t *device_va);
hlthunk_public int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
					      struct hlthunk_cs_out *out);
/* timeout: seconds the CS may take before the driver declares it hung. */
hlthunk_public int hlthunk_command_submission_timeout(int fd,
						      struct hlthunk_cs_in *in,
						      struct hlthunk_cs_out *out,
						      uint32_t timeout);
/* Parts of one staged CS (in->flags has HL_CS_FLAGS_STAGED_SUBMISSION*). */
hlthunk_public int hlthunk_staged_command_submission(int fd, uint64_t sequence,
						     struct hlthunk_cs_in *in,
						     struct hlthunk_cs_out *out);
hlthunk_public int hlthunk_staged_command_submission_timeout(int fd,
							     uint64_t sequence,
							     struct hlthunk_cs_in *in,
							     struct hlthunk_cs_out *out,
							     uint32_t timeout);
/* Flushes the device's PCI writes towards the host. */
hlthunk_public int hlthunk_cs_flush_pci_hbw_writes(int fd);
/* Writes the CS status (HL_WAIT_CS_STATUS_*), on failure too. */
hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
				       uint64_t timeout_us, uint32_t *status);
hlthunk_public int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq,
						      uint64_t timeout_us,
						      uint32_t *status,
						      uint64_t *timestamp);
hlthunk_public int hlthunk_wait_for_multi_cs(int fd,
					     struct hlthunk_wait_multi_cs_in *in,
					     struct hlthunk_wait_multi_cs_out *out);
hlthunk_public int hlthunk_wait_for_multi_cs_with_timestamp(int fd,
							    struct hlthunk_wait_multi_cs_in *in,
							    struct hlthunk_wait_multi_cs_out *out,
							    uint64_t *timestamp);
/* User interrupts; interrupt_id UINT32_MAX: any of them. */
hlthunk_public int hlthunk_wait_for_interrupt(int fd, void *addr,
					      uint64_t target_value,
					      uint32_t interrupt_id,
					      uint64_t timeout_us,
					      uint32_t *status);
hlthunk_public int hlthunk_wait_for_interrupt_by_handle(int fd,
							uint64_t cq_counters_handle,
							uint64_t cq_counters_offset,
							uint64_t target_value,
							uint32_t interrupt_id,
							uint64_t timeout_us,
							uint32_t *status);
hlthunk_public int hlthunk_wait_for_interrupt_with_timestamp(int fd, void *addr,
							     uint64_t target_value,
							     uint32_t interrupt_id,
							     uint64_t timeout_us,
							     uint32_t *status,
							     uint64_t *timestamp);
hlthunk_public int hlthunk_wait_for_interrupt_by_handle_with_timestamp(int fd,
								       uint64_t cq_counters_handle,
								       uint64_t cq_counters_offset,
								       uint64_t target_value,
								       uint32_t interrupt_id,
								       uint64_t timeout_us,
								       uint32_t *status,
								       uint64_t *timestamp);
hlthunk_public int hlthunk_register_timestamp_interrupt(int fd,
							uint32_t interrupt_id,
							uint64_t cq_counters_handle,
							uint64_t cq_counters_offset,
							uint64_t target_value,
							uint64_t timestamps_handle,
							uint64_t timestamps_offset);
/* A buffer of elements_num 64-bit timestamps; the handle is its mmap offset. */
hlthunk_public int hlthunk_allocate_timestamp_elements(int fd,
						       uint32_t elements_num,
						       uint64_t *handle);

/* ---- Sync streams ------------------------------------------------------ */

hlthunk_public int hlthunk_signal_submission(int fd,
					     struct hlthunk_signal_in *in,
					     struct hlthunk_signal_out *out);
hlthunk_public int hlthunk_signal_submission_timeout(int fd,
						     struct hlthunk_signal_in *in,
						     struct hlthunk_signal_out *out,
						     uint32_t timeout);
hlthunk_public int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in,
					   struct hlthunk_wait_out *out);
hlthunk_public int hlthunk_wait_for_signal_timeout(int fd,
						   struct hlthunk_wait_in *in,
						   struct hlthunk_wait_out *out,
						   uint32_t timeout);
hlthunk_public int hlthunk_wait_for_collective_signal(int fd,
						      struct hlthunk_wait_in *in,
						      struct hlthunk_wait_out *out);
hlthunk_public int hlthunk_wait_for_collective_signal_timeout(int fd,
							      struct hlthunk_wait_in *in,
							      struct hlthunk_wait_out *out,
							      uint32_t timeout);
hlthunk_public int hlthunk_reserve_encaps_signals(int fd,
						  struct hlthunk_sig_res_in *in,
						  struct hlthunk_sig_res_out *out);
hlthunk_public int hlthunk_unreserve_encaps_signals(int fd,
						    struct reserve_sig_handle *handle,
						    uint32_t *status);
hlthunk_public int hlthunk_staged_command_submission_encaps_signals(int fd,
								    uint64_t handle_id,
								    struct hlthunk_cs_in *in,
								    struct hlthunk_cs_out *out);
hlthunk_public int hlthunk_wait_for_reserved_encaps_signals(int fd,
							    struct hlthunk_wait_in *in,
							    struct hlthunk_wait_out *out);
hlthunk_public int hlthunk_wait_for_reserved_encaps_collective_signals(int fd,
								      struct hlthunk_wait_in *in,
								      struct hlthunk_wait_out *out);

/* ---- Memory ------------------------------------------------------------ */

/* Supported allocation page sizes: bit n set for 2^n bytes. */
hlthunk_public int hlthunk_get_dev_memalloc_page_orders(int fd,
							uint64_t *page_order_bitmask);
/* Returns an opaque handle, 0 on failure. page_size 0: device default. */
hlthunk_public uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size,
						    uint64_t page_size,
						    bool contiguous, bool shared);
hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle);
/* Returns the device virtual address, 0 on failure. */
hlthunk_public uint64_t hlthunk_device_memory_map(int fd, uint64_t handle,
						  uint64_t hint_addr);
/* Pins host memory and maps it for the device; returns a device VA or 0. */
hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
						uint64_t hint_addr,
						uint64_t host_size);
/* The same with more HL_MEM_* flags (HL_MEM_USERPTR is always added). */
hlthunk_public uint64_t hlthunk_host_memory_map_flags(int fd,
						      void *host_virt_addr,
						      uint64_t hint_addr,
						      uint64_t host_size,
						      uint32_t flags);
hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr);
/* Exports size bytes of the device memory mapped at VA addr as a dma-buf;
 * returns its fd (always O_RDWR | O_CLOEXEC; flags are ignored, as by
 * hl-thunk) or a negative errno. */
hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(int fd,
							  uint64_t addr,
							  uint64_t size,
							  uint32_t flags);
/* The same from offset bytes into the mapping at VA addr; flags must be
 * O_RDWR | O_CLOEXEC (-EINVAL otherwise, as with hl-thunk). */
hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(int fd,
								 uint64_t addr,
								 uint64_t size,
								 uint64_t offset,
								 uint32_t flags);
/* Exports the whole pages of device memory that hold [addr, addr + size),
 * where addr is any address inside a mapping made by
 * hlthunk_device_memory_map through this library; *offset receives the
 * place of addr in the new dma-buf.  Returns the dma-buf fd or a negative
 * errno: -EFAULT when no device-memory mapping of fd holds addr, -ERANGE
 * when the range runs past its end or wraps, -EINVAL for size 0, a NULL
 * offset or a mapping of host memory.  flags: O_RDWR, O_CLOEXEC. */
hlthunk_public int hlthunk_device_memory_export_dmabuf_range(int fd,
							     uint64_t addr,
							     uint64_t size,
							     uint32_t flags,
							     uint64_t *offset);
/* A handle and size to mmap() a configuration-space block. */
hlthunk_public int hlthunk_get_hw_block(int fd, uint64_t block_address,
					uint32_t *block_size, uint64_t *handle);

/* ---- Debug, trace and notifications ------------------------------------ */

/* The DEBUG ioctl as it is (on-chip trace, debug mode). */
hlthunk_public int hlthunk_debug(int fd, struct hl_debug_args *debug);
/* The driver's debugfs access to the device's address space (root). */
hlthunk_public int hlthunk_debugfs_open(int fd, struct hlthunk_debugfs *debugfs);
hlthunk_public int hlthunk_debugfs_read(struct hlthunk_debugfs *debugfs,
					uint64_t full_address, uint32_t *val);
hlthunk_public int hlthunk_debugfs_write(struct hlthunk_debugfs *debugfs,
					 uint64_t full_address, uint32_t val);
hlthunk_public int hlthunk_debugfs_close(struct hlthunk_debugfs *debugfs);
/* An eventfd the driver signals on device events; returns it. */
hlthunk_public int hlthunk_notifier_create(int fd);
hlthunk_public int hlthunk_notifier_release(int fd, int handle);
/* Waits up to timeout ms; *notifier_events gets HL_NOTIFIER_EVENT_* bits
 * and *notifier_cnt the number of notifications (0: timed out). */
hlthunk_public int hlthunk_notifier_recv(int fd, int handle,
					 uint64_t *notifier_events,
					 uint64_t *notifier_cnt,
					 uint32_t flags, uint32_t timeout);
/* mode: HL_ENGINE_CORE_RUN or HL_ENGINE_CORE_HALT. */
hlthunk_public int hlthunk_engine_cores_set_mode(int fd,
						 const uint32_t *core_ids,
						 uint32_t num_cores,
						 uint32_t mode);
hlthunk_public int hlthunk_engines_command(int fd, const uint32_t *engine_ids,
					   uint32_t num_engines,
					   enum hl_engine_command command);

/* ---- Profiling layer --------------------------------------------------- */

/* Answered by the profiling layer (libhl_shim.so) if one is loaded; -1
 * without one. */
hlthunk_public int hlthunk_profiler_start(int fd);
hlthunk_public int hlthunk_profiler_stop(int fd);
hlthunk_public int hlthunk_profiler_get_trace(int fd, void *buffer,
					      uint64_t *size,
					      uint64_t *num_entries);
/* Unloads the profiling layer; the next hlthunk_open looks for it again. */
hlthunk_public void hlthunk_profiler_destroy(void);

/* ---- Utilities --------------------------------------------------------- */

/* Zeroed memory; release with hlthunk_free. */
hlthunk_public void *hlthunk_malloc(size_t size);
hlthunk_public void hlthunk_free(void *pt);
/* "MAJOR.MINOR.PATCH-libhlthunk", from hlthunk_malloc. */
hlthunk_public char *hlthunk_get_version(void);

/* A map of unsigned long keys to pointers.  lookup, insert and delete
 * return 0 on success, 1 for "not found" (or, for insert, "already
 * there") and -1 for a bad table or no memory; first and next return 1
 * with an entry, 0 at the end. */
hlthunk_public void *hlthunk_hash_create(void);
hlthunk_public int hlthunk_hash_destroy(void *t);
hlthunk_public int hlthunk_hash_lookup(void *t, unsigned long key,
				       void **value);
hlthunk_public int hlthunk_hash_insert(void *t, unsigned long key, void *value);
hlthunk_public int hlthunk_hash_delete(void *t, unsigned long key);
hlthunk_public int hlthunk_hash_next(void *t, unsigned long *key, void **value);
hlthunk_public int hlthunk_hash_first(void *t, unsigned long *key,
				      void **value);

/* Kept by hl-thunk for binary compatibility; each returns -EPERM. */
hlthunk_public int hlthunk_deprecated_func1(int fd, uint64_t seq,
					    uint64_t timeout_us,
					    uint32_t *status,
					    uint64_t *timestamp);
hlthunk_public int hlthunk_deprecated_func2(int fd, uint32_t interrupt_id,
					    uint64_t cq_counters_handle,
					    uint64_t cq_counters_offset,
					    uint64_t target_value,
					    uint64_t timestamp_handle,
					    uint64_t timestamp_offset);
hlthunk_public int hlthunk_deprecated_func3(int fd, uint32_t num_elements,
					    uint64_t *handle);

/* ---- Channels and registered memory (/dev/hl_ipc) ---------------------- */

/* A region cookie: names registered memory in any process of the node. */
typedef uint64_t hlthunk_ipc_cookie;

/* Access a region grants to copies that use it. */
#define HLTHUNK_IPC_ACCESS_READ		(1u << 0)
#define HLTHUNK_IPC_ACCESS_WRITE	(1u << 1)
/* Let processes of any user use the cookie (default: same uid only). */
#define HLTHUNK_IPC_ACCESS_ANY_USER	(1u << 2)

/* Feature bits of struct hlthunk_ipc_info (same values as the uapi's). */
#define HLTHUNK_IPC_FEAT_DMABUF		(1ull << 0)
#define HLTHUNK_IPC_FEAT_USER_MEM	(1ull << 1)
#define HLTHUNK_IPC_FEAT_ASYNC		(1ull << 2)
#define HLTHUNK_IPC_FEAT_BATCH		(1ull << 3)
#define HLTHUNK_IPC_FEAT_ANY_USER	(1ull << 4)
#define HLTHUNK_IPC_FEAT_QUERY		(1ull << 5)

struct hlthunk_ipc_info {
	uint32_t abi_version;		/* ABI version of /dev/hl_ipc */
	uint32_t lib_abi_version;	/* the ABI version this library speaks */
	uint64_t features;		/* HLTHUNK_IPC_FEAT_* */
	uint32_t max_regions;		/* regions per process */
	uint32_t max_channels;		/* channels per process */
	uint32_t max_batch;		/* copies in one batch */
	uint32_t chunk_size;		/* bytes the copy engine moves at once */
	uint64_t reserved[4];
};

struct hlthunk_ipc_copy {
	uint32_t channel_id;
	uint32_t flags;			/* must be 0 */
	hlthunk_ipc_cookie src_cookie;
	uint64_t src_offset;
	hlthunk_ipc_cookie dst_cookie;
	uint64_t dst_offset;
	uint64_t length;
};

/* What /dev/hl_ipc supports.  Opens it on first use; -EPROTO if its ABI
 * version is not the one this library speaks. */
hlthunk_public int hlthunk_ipc_query(struct hlthunk_ipc_info *info);

/* Registers a whole dma-buf exported by the device of dev_fd (any node
 * of it), or by the host when dev_fd is -1; returns its cookie and, when
 * size is not NULL, its size. */
hlthunk_public int hlthunk_ipc_register_dmabuf(int dmabuf_fd, int dev_fd,
					       uint32_t access,
					       hlthunk_ipc_cookie *cookie,
					       uint64_t *size);
/* Registers (pins) host memory; returns its cookie. */
hlthunk_public int hlthunk_ipc_register_host(void *addr, uint64_t size,
					     uint32_t access,
					     hlthunk_ipc_cookie *cookie);
/* Registers device memory named by a VA of hlthunk_device_memory_map, for
 * reading and writing by processes of the same user.  The whole allocation
 * is exported and registered once (cached); the cookie returned names that
 * allocation, *offset the place of addr in it.  The cookie stays valid
 * until the memory is unmapped or freed, or the cookie is deregistered. */
hlthunk_public int hlthunk_ipc_register_device_memory(int fd, uint64_t addr,
						      hlthunk_ipc_cookie *cookie,
						      uint64_t *offset,
						      uint64_t *size);
/* Registers [addr, addr + size) of mapped device memory (widened to whole
 * pages) with exactly the access asked (HLTHUNK_IPC_ACCESS_*; reading is
 * always granted).  The registration is the caller's: not cached, ended by
 * hlthunk_ipc_deregister, and until then the memory cannot be unmapped
 * (the driver refuses to unmap exported memory).  *offset receives the
 * place of addr in the registered range. */
hlthunk_public int hlthunk_ipc_register_device_range(int fd, uint64_t addr,
						     uint64_t size,
						     uint32_t access,
						     hlthunk_ipc_cookie *cookie,
						     uint64_t *offset);
/* Ends a registration.  A cookie of hlthunk_ipc_register_device_memory is
 * dropped from the library's cache too (the memory is registered again,
 * under a new cookie, when next used). */
hlthunk_public int hlthunk_ipc_deregister(hlthunk_ipc_cookie cookie);

/* Checks that a peer's cookie is usable here and gives it a device VA in
 * the address space of fd (the local fd of the peer's device, usually its
 * control node), so hlthunk_ipc_channel_copy can name peer memory like
 * local memory.  *size receives the region's size. */
hlthunk_public int hlthunk_ipc_import(int fd, hlthunk_ipc_cookie cookie,
				      uint64_t *addr, uint64_t *size);
/* Forgets an address returned by hlthunk_ipc_import. */
hlthunk_public int hlthunk_ipc_unimport(int fd, uint64_t addr);

/* Channels join two devices, each named by an fd of one of its nodes.
 * Every create returns an id of its own (channels of one device pair share
 * one kernel queue); destroy ends that id, and any later use of it fails
 * with -ENOENT. */
hlthunk_public int hlthunk_ipc_channel_create(int src_fd, int dst_fd,
					      uint32_t *channel_id);
hlthunk_public int hlthunk_ipc_channel_destroy(uint32_t channel_id);
/* Copies length bytes from device address src (of src_fd's device) to dst
 * (of dst_fd's device), synchronously, on the channel. */
hlthunk_public int hlthunk_ipc_channel_copy(uint32_t channel_id, int src_fd,
					    int dst_fd, void *dst, void *src,
					    size_t length);

/* Copies by cookie.  Synchronous. */
hlthunk_public int hlthunk_ipc_copy(const struct hlthunk_ipc_copy *copy);
/* Queues a copy; *seq receives the sequence number to wait for. */
hlthunk_public int hlthunk_ipc_copy_async(const struct hlthunk_ipc_copy *copy,
					  uint64_t *seq);
/* Queues count copies at once; *seq receives the sequence number of the
 * last one.  Returns the number queued (count) or a negative errno. */
hlthunk_public int hlthunk_ipc_copy_batch(const struct hlthunk_ipc_copy *copies,
					  uint32_t count, uint64_t *seq);
/* Waits until every copy up to seq on channel_id has completed. Returns 0,
 * -ETIMEDOUT, or the error of a failed copy. timeout_us 0: do not wait. */
hlthunk_public int hlthunk_ipc_wait(uint32_t channel_id, uint64_t seq,
				    uint64_t timeout_us);
/* The fd of /dev/hl_ipc this process uses, for poll(); negative errno. */
hlthunk_public int hlthunk_ipc_get_fd(void);

/* ---- Address lookup, host channels, cookie queries -------------------- */

/* What hlthunk_ipc_lookup_address found at an address. */
#define HLTHUNK_IPC_MEM_DEVICE		1	/* hlthunk_device_memory_map */
#define HLTHUNK_IPC_MEM_HOST_MAPPED	2	/* hlthunk_host_memory_map */

struct hlthunk_ipc_mem_info {
	int32_t fd;		/* the compute fd the mapping was made on, if
				 * that fd is still open on the same node;
				 * else -1 */
	uint32_t kind;		/* HLTHUNK_IPC_MEM_* */
	uint64_t base;		/* device VA where the mapping starts */
	uint64_t size;		/* bytes of the mapping */
	char pci_bus_id[16];	/* the device, "dddd:bb:dd.f", NUL-terminated */
	uint64_t reserved[4];	/* 0 */
};

/* Which device of this process maps [addr, addr + size): a mapping made
 * through this library by hlthunk_device_memory_map or
 * hlthunk_host_memory_map on any device.  Returns 0 and fills *info;
 * -ENOENT when no device mapping holds addr (for example plain host
 * memory), -ERANGE when the range runs past the end of the mapping that
 * holds addr, -EEXIST when mappings of two devices hold addr (device
 * address spaces are separate; map at distinct hint addresses), -EINVAL
 * for size 0, a wrapping range or NULL info. */
hlthunk_public int hlthunk_ipc_lookup_address(uint64_t addr, uint64_t size,
					struct hlthunk_ipc_mem_info *info);

/* Flags of hlthunk_ipc_channel_create_ex: that end is host memory, and its
 * fd must be -1. */
#define HLTHUNK_IPC_CHANNEL_SRC_HOST	(1u << 0)
#define HLTHUNK_IPC_CHANNEL_DST_HOST	(1u << 1)

/* hlthunk_ipc_channel_create, where either end may be the host (system
 * memory registered with hlthunk_ipc_register_host).  Like it, every call
 * returns an id of its own on the pair's one kernel channel; end it with
 * hlthunk_ipc_channel_destroy.  -EINVAL for unknown flags, a host end
 * whose fd is not -1, or NULL channel_id. */
hlthunk_public int hlthunk_ipc_channel_create_ex(int src_fd, int dst_fd,
					uint32_t flags,
					uint32_t *channel_id);

/* Where a region's memory lives (same values as the uapi's). */
#define HLTHUNK_IPC_DEV_KIND_HOST	0
#define HLTHUNK_IPC_DEV_KIND_SIM	1	/* habanalabs_sim */
#define HLTHUNK_IPC_DEV_KIND_REAL	2	/* habanalabs */

struct hlthunk_ipc_region_info {
	uint64_t size;		/* bytes */
	uint32_t access;	/* HLTHUNK_IPC_ACCESS_* it was registered with */
	uint32_t dev_kind;	/* HLTHUNK_IPC_DEV_KIND_* */
	uint32_t dev_major;	/* device node major, 0 for the host */
	uint32_t dev_index;	/* device index, 0 for the host */
	uint64_t reserved[2];	/* 0 */
};

/* Whether a cookie (of any process) is usable by this process, and what it
 * names.  0 and *info filled; -ENOENT for an unknown or revoked cookie and
 * for another user's region not registered for any user (the kernel does
 * not tell them apart), -EINVAL for NULL. */
hlthunk_public int hlthunk_ipc_query_cookie(hlthunk_ipc_cookie cookie,
					struct hlthunk_ipc_region_info *info);

/* ---- Errors ------------------------------------------------------------ */

/* A sentence for a negative errno returned by this library, saying what it
 * means here and what to do (load the module, fix permissions, ...).  The
 * string is static. */
hlthunk_public const char *hlthunk_ipc_strerror(int err);
/* The message of the last failure in this thread, with what failed: for
 * example "opening /dev/hl_ipc: ...".  Empty if nothing failed yet. */
hlthunk_public const char *hlthunk_ipc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */
