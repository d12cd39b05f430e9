/* SPDX-License-Identifier: MIT */
/*
 * The library's internal calls that its C parts use: the entry points whose
 * parameters or result have an enumeration type are written in C (an
 * enumeration argument outside its enumerators is a value C code may pass,
 * and C++ may not even load), and they call these with plain ints.  The
 * profiling layer's table (struct hlthunk_functions_pointers) points at the
 * *_original implementations.  None of these is exported.
 */
#ifndef HLTHUNK_C_BRIDGE_H
#define HLTHUNK_C_BRIDGE_H

#include <stdint.h>

#include "hlthunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The table of the calls a profiling layer may wrap, as in use now.  Each
 * public call of the table is written beside its *_original
 * implementation and calls the implementation through this table, as
 * hl-thunk does.
 */
const struct hlthunk_functions_pointers *hlt_functions(void);
/* Before the first open: loads the profiling layer, if there is one. */
void hlt_shim_check(void);

int hlt_open(int device_name, const char *busid);
int hlt_open_control_by_name(int device_name, const char *busid);
int hlt_device_count(int device_name);
int hlt_device_status(int fd);
int hlt_event_record(int fd, int event_id, void *buf);
int hlt_engines_command(int fd, const uint32_t *engine_ids,
			uint32_t num_engines, int command);

/* The implementations behind the profiling layer's table. */
int hlt_open_original(enum hlthunk_device_name device_name, const char *busid);
int hlt_close_original(int fd);
int hlt_command_submission_original(int fd, struct hlthunk_cs_in *in,
				    struct hlthunk_cs_out *out);
int hlt_command_submission_timeout_original(int fd, struct hlthunk_cs_in *in,
					    struct hlthunk_cs_out *out,
					    uint32_t timeout);
int hlt_staged_cs_original(int fd, uint64_t sequence, struct hlthunk_cs_in *in,
			   struct hlthunk_cs_out *out);
int hlt_staged_cs_timeout_original(int fd, uint64_t sequence,
				   struct hlthunk_cs_in *in,
				   struct hlthunk_cs_out *out, uint32_t timeout);
int hlt_signal_submission_original(int fd, struct hlthunk_signal_in *in,
				   struct hlthunk_signal_out *out);
int hlt_signal_submission_timeout_original(int fd, struct hlthunk_signal_in *in,
					   struct hlthunk_signal_out *out,
					   uint32_t timeout);
int hlt_wait_for_signal_original(int fd, struct hlthunk_wait_in *in,
				 struct hlthunk_wait_out *out);
int hlt_wait_for_signal_timeout_original(int fd, struct hlthunk_wait_in *in,
					 struct hlthunk_wait_out *out,
					 uint32_t timeout);
int hlt_wait_for_collective_original(int fd, struct hlthunk_wait_in *in,
				     struct hlthunk_wait_out *out);
int hlt_wait_for_collective_timeout_original(int fd, struct hlthunk_wait_in *in,
					     struct hlthunk_wait_out *out,
					     uint32_t timeout);
int hlt_reserve_signals_original(int fd, struct hlthunk_sig_res_in *in,
				 struct hlthunk_sig_res_out *out);
int hlt_unreserve_signals_original(int fd, struct reserve_sig_handle *handle,
				   uint32_t *status);
int hlt_staged_cs_encaps_original(int fd, uint64_t handle_id,
				  struct hlthunk_cs_in *in,
				  struct hlthunk_cs_out *out);
int hlt_wait_for_encaps_original(int fd, struct hlthunk_wait_in *in,
				 struct hlthunk_wait_out *out);
int hlt_wait_for_encaps_collective_original(int fd, struct hlthunk_wait_in *in,
					    struct hlthunk_wait_out *out);
uint64_t hlt_host_memory_map_original(int fd, void *host_virt_addr,
				      uint64_t hint_addr, uint64_t host_size);
uint64_t hlt_host_memory_map_flags_original(int fd, void *host_virt_addr,
					    uint64_t hint_addr,
					    uint64_t host_size, uint32_t flags);
int hlt_memory_unmap_original(int fd, uint64_t device_virt_addr);
int hlt_get_hw_block_original(int fd, uint64_t block_address,
			      uint32_t *block_size, uint64_t *handle);
int hlt_dram_replaced_rows_original(int fd,
				    struct hlthunk_dram_replaced_rows_info *info);
int hlt_dram_pending_rows_original(int fd, uint32_t *out);
int hlt_mapped_cb_device_va_original(int fd, uint64_t cb_handle,
				     uint64_t *device_va);
int hlt_profiler_start_original(int fd);
int hlt_profiler_stop_original(int fd);
int hlt_profiler_get_trace_original(int fd, void *buffer, uint64_t *size,
				    uint64_t *num_entries);
void hlt_profiler_destroy_original(void);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_C_BRIDGE_H */
