// SPDX-License-Identifier: MIT
// The entry points that go through the profiling layer's table (the same
// ones as in hl-thunk): each calls the table in use, which is this
// library's own unless a profiling layer wrapped it (api_shim.cc).
#include "c_bridge.h"
#include "hlthunk.h"

namespace {

const struct hlthunk_functions_pointers &fns()
{
	return *hlt_functions();
}

}  // namespace

extern "C" hlthunk_public int hlthunk_close(int fd)
{
	return fns().fp_hlthunk_close(fd);
}

extern "C" hlthunk_public int hlthunk_command_submission(int fd,
							 struct hlthunk_cs_in *in,
							 struct hlthunk_cs_out *out)
{
	return fns().fp_hlthunk_command_submission(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_command_submission_timeout(int fd,
								 struct hlthunk_cs_in *in,
								 struct hlthunk_cs_out *out,
								 uint32_t timeout)
{
	return fns().fp_hlthunk_command_submission_timeout(fd, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_staged_command_submission(int fd, uint64_t sequence,
								struct hlthunk_cs_in *in,
								struct hlthunk_cs_out *out)
{
	return fns().fp_hlthunk_staged_command_submission(fd, sequence, in, out);
}

extern "C" hlthunk_public int hlthunk_staged_command_submission_timeout(
	int fd, uint64_t sequence, struct hlthunk_cs_in *in, struct hlthunk_cs_out *out,
	uint32_t timeout)
{
	return fns().fp_hlthunk_staged_cs_timeout(fd, sequence, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_signal_submission(int fd,
							struct hlthunk_signal_in *in,
							struct hlthunk_signal_out *out)
{
	return fns().fp_hlthunk_signal_submission(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_signal_submission_timeout(int fd,
								struct hlthunk_signal_in *in,
								struct hlthunk_signal_out *out,
								uint32_t timeout)
{
	return fns().fp_hlthunk_signal_submission_timeout(fd, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in,
						      struct hlthunk_wait_out *out)
{
	return fns().fp_hlthunk_wait_for_signal(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_wait_for_signal_timeout(int fd,
							      struct hlthunk_wait_in *in,
							      struct hlthunk_wait_out *out,
							      uint32_t timeout)
{
	return fns().fp_hlthunk_wait_for_signal_timeout(fd, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_wait_for_collective_signal(int fd,
								 struct hlthunk_wait_in *in,
								 struct hlthunk_wait_out *out)
{
	return fns().fp_hlthunk_wait_for_collective_sig(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_wait_for_collective_signal_timeout(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out, uint32_t timeout)
{
	return fns().fp_hlthunk_wait_for_collective_sig_timeout(fd, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_reserve_encaps_signals(int fd,
							     struct hlthunk_sig_res_in *in,
							     struct hlthunk_sig_res_out *out)
{
	return fns().fp_hlthunk_reserve_signals(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_unreserve_encaps_signals(int fd,
							       struct reserve_sig_handle *handle,
							       uint32_t *status)
{
	return fns().fp_hlthunk_unreserve_signals(fd, handle, status);
}

extern "C" hlthunk_public int hlthunk_staged_command_submission_encaps_signals(
	int fd, uint64_t handle_id, struct hlthunk_cs_in *in, struct hlthunk_cs_out *out)
{
	return fns().fp_hlthunk_staged_cs_encaps_signals(fd, handle_id, in, out);
}

extern "C" hlthunk_public int hlthunk_wait_for_reserved_encaps_signals(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out)
{
	return fns().fp_hlthunk_wait_for_reserved_encaps_signals(fd, in, out);
}

extern "C" hlthunk_public int hlthunk_wait_for_reserved_encaps_collective_signals(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out)
{
	return fns().fp_hlthunk_wait_for_collective_reserved_encap_sig(fd, in, out);
}

extern "C" hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
							   uint64_t hint_addr,
							   uint64_t host_size)
{
	return fns().fp_hlthunk_host_memory_map(fd, host_virt_addr, hint_addr, host_size);
}

extern "C" hlthunk_public uint64_t hlthunk_host_memory_map_flags(int fd,
								 void *host_virt_addr,
								 uint64_t hint_addr,
								 uint64_t host_size,
								 uint32_t flags)
{
	return fns().fp_hlthunk_host_memory_map_flags(fd, host_virt_addr, hint_addr,
						      host_size, flags);
}

extern "C" hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr)
{
	return fns().fp_hlthunk_memory_unmap(fd, device_virt_addr);
}

extern "C" hlthunk_public int hlthunk_get_hw_block(int fd, uint64_t block_address,
						   uint32_t *block_size, uint64_t *handle)
{
	return fns().fp_hlthunk_get_hw_block(fd, block_address, block_size, handle);
}

extern "C" hlthunk_public int hlthunk_get_dram_replaced_rows_info(
	int fd, struct hlthunk_dram_replaced_rows_info *info)
{
	return fns().fp_get_dram_replaced_rows_info(fd, info);
}

extern "C" hlthunk_public int hlthunk_get_dram_pending_rows_info(int fd, uint32_t *out)
{
	return fns().fp_get_dram_pending_rows_info(fd, out);
}

extern "C" hlthunk_public int hlthunk_get_mapped_cb_device_va_by_handle(int fd,
									uint64_t cb_handle,
									uint64_t *device_va)
{
	return fns().fp_hlthunk_get_mapped_cb_device_va_by_handle(fd, cb_handle, device_va);
}

extern "C" hlthunk_public int hlthunk_profiler_start(int fd)
{
	return fns().fp_hlthunk_profiler_start(fd);
}

extern "C" hlthunk_public int hlthunk_profiler_stop(int fd)
{
	return fns().fp_hlthunk_profiler_stop(fd);
}

extern "C" hlthunk_public int hlthunk_profiler_get_trace(int fd, void *buffer,
							 uint64_t *size,
							 uint64_t *num_entries)
{
	return fns().fp_hlthunk_profiler_get_trace(fd, buffer, size, num_entries);
}

extern "C" hlthunk_public void hlthunk_profiler_destroy(void)
{
	fns().fp_hlthunk_profiler_destroy();
}
