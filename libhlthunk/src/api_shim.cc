// SPDX-License-Identifier: MIT
// The profiling layer of hl-thunk: a library named libhl_shim.so that, when
// present, wraps a table of the library's calls (struct
// hlthunk_functions_pointers).  The first hlthunk_open looks for it, unless
// HABANA_SHIM_DISABLE is "1"; its ShimGetFunctions(SHIM_API_HLTHUNK, table)
// returns the table the wrapped calls go through from then on, and
// hlthunk_profiler_destroy (or unloading this library) calls its
// ShimFinish and drops it.  Without a profiling layer the profiler calls
// answer -1, as hl-thunk's do.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "c_bridge.h"
#include "hlthunk.h"

namespace {

constexpr const char *kShimLibrary = "libhl_shim.so";
constexpr int kShimApiHlthunk = 1;  // the profiler's id for hl-thunk's table

// This library's own calls, for the profiling layer to wrap (hl-thunk's
// table order).  Mutable: it is handed to the layer as hl-thunk hands its.
struct hlthunk_functions_pointers own_table = {
	.fp_hlthunk_command_submission = hlt_command_submission_original,
	.fp_hlthunk_open = hlt_open_original,
	.fp_hlthunk_close = hlt_close_original,
	.fp_hlthunk_profiler_start = hlt_profiler_start_original,
	.fp_hlthunk_profiler_stop = hlt_profiler_stop_original,
	.fp_hlthunk_profiler_get_trace = hlt_profiler_get_trace_original,
	.fp_hlthunk_device_memory_alloc = hlthunk_device_memory_alloc,
	.fp_hlthunk_device_memory_free = hlthunk_device_memory_free,
	.fp_hlthunk_device_memory_map = hlthunk_device_memory_map,
	.fp_hlthunk_host_memory_map = hlt_host_memory_map_original,
	.fp_hlthunk_memory_unmap = hlt_memory_unmap_original,
	.fp_hlthunk_debug = hlthunk_debug,
	.fp_hlthunk_request_command_buffer = hlthunk_request_command_buffer,
	.fp_hlthunk_destroy_command_buffer = hlthunk_destroy_command_buffer,
	.fp_hlthunk_wait_for_cs = hlthunk_wait_for_cs,
	.fp_hlthunk_get_device_name_from_fd = hlthunk_get_device_name_from_fd,
	.fp_hlthunk_get_pci_bus_id_from_fd = hlthunk_get_pci_bus_id_from_fd,
	.fp_hlthunk_get_device_index_from_pci_bus_id = hlthunk_get_device_index_from_pci_bus_id,
	.fp_hlthunk_malloc = hlthunk_malloc,
	.fp_hlthunk_free = hlthunk_free,
	.fp_hlthunk_signal_submission = hlt_signal_submission_original,
	.fp_hlthunk_wait_for_signal = hlt_wait_for_signal_original,
	.fp_hlthunk_get_time_sync_info = hlthunk_get_time_sync_info,
	.fp_hlthunk_get_cs_counters_info = hlthunk_get_cs_counters_info,
	.fp_hlthunk_profiler_destroy = hlt_profiler_destroy_original,
	.fp_hlthunk_request_mapped_command_buffer = hlthunk_request_mapped_command_buffer,
	.fp_hlthunk_wait_for_collective_sig = hlt_wait_for_collective_original,
	.fp_hlthunk_deprecated_func1 = hlthunk_deprecated_func1,
	.fp_hlthunk_get_cb_usage_count = hlthunk_get_cb_usage_count,
	.fp_hlthunk_staged_command_submission = hlt_staged_cs_original,
	.fp_hlthunk_get_hw_block = hlt_get_hw_block_original,
	.fp_hlthunk_wait_for_interrupt = hlthunk_wait_for_interrupt,
	.fp_hlthunk_device_memory_export_dmabuf_fd = hlthunk_device_memory_export_dmabuf_fd,
	.fp_hlthunk_command_submission_timeout = hlt_command_submission_timeout_original,
	.fp_hlthunk_signal_submission_timeout = hlt_signal_submission_timeout_original,
	.fp_hlthunk_wait_for_signal_timeout = hlt_wait_for_signal_timeout_original,
	.fp_hlthunk_wait_for_collective_sig_timeout = hlt_wait_for_collective_timeout_original,
	.fp_hlthunk_staged_cs_timeout = hlt_staged_cs_timeout_original,
	.fp_hlthunk_reserve_signals = hlt_reserve_signals_original,
	.fp_hlthunk_unreserve_signals = hlt_unreserve_signals_original,
	.fp_hlthunk_staged_cs_encaps_signals = hlt_staged_cs_encaps_original,
	.fp_hlthunk_wait_for_reserved_encaps_signals = hlt_wait_for_encaps_original,
	.fp_hlthunk_wait_for_collective_reserved_encap_sig = hlt_wait_for_encaps_collective_original,
	.fp_hlthunk_host_memory_map_flags = hlt_host_memory_map_flags_original,
	.fp_get_dram_replaced_rows_info = hlt_dram_replaced_rows_original,
	.fp_get_dram_pending_rows_info = hlt_dram_pending_rows_original,
	.fp_DEPRECATED1 = nullptr,
	.fp_hlthunk_wait_for_interrupt_by_handle = hlthunk_wait_for_interrupt_by_handle,
	.fp_hlthunk_get_mapped_cb_device_va_by_handle = hlt_mapped_cb_device_va_original,
	.fp_hlthunk_get_pll_frequency = hlthunk_get_pll_frequency,
	.fp_hlthunk_deprecated_func2 = hlthunk_deprecated_func2,
	.fp_hlthunk_deprecated_func3 = hlthunk_deprecated_func3,
	.fp_hlthunk_device_mapped_memory_export_dmabuf_fd = hlthunk_device_mapped_memory_export_dmabuf_fd,
};

std::atomic<const struct hlthunk_functions_pointers *> table{&own_table};

struct Shim {
	std::mutex mu;
	bool checked = false;
	void *handle = nullptr;
	void (*finish)(int api) = nullptr;
};

// Constant-initialized: usable from the unload destructor, and nothing
// is allocated to look for the profiling layer.
Shim the_shim;

Shim &shim()
{
	return the_shim;
}

void unload_locked(Shim &s)
{
	s.checked = false;
	table.store(&own_table, std::memory_order_release);
	if (s.handle) {
		if (s.finish)
			s.finish(kShimApiHlthunk);
		dlclose(s.handle);
		s.handle = nullptr;
		s.finish = nullptr;
	}
}

__attribute__((destructor)) void unload_at_exit()
{
	hlt_profiler_destroy_original();
}

void load_shim_once();

}  // namespace

extern "C" const struct hlthunk_functions_pointers *hlt_functions(void)
{
	return table.load(std::memory_order_acquire);
}

extern "C" void hlt_shim_check(void)
{
	try {
		load_shim_once();
	} catch (...) {
		// No memory for the bookkeeping: go on without a profiling
		// layer; the next open looks again.
	}
}

namespace {

void load_shim_once()
{
	Shim &s = shim();
	std::lock_guard<std::mutex> l(s.mu);
	if (s.checked)
		return;
	// Looked for once until hlthunk_profiler_destroy: a library added
	// later is found at the next open after that.
	s.checked = true;
	const char *off = getenv("HABANA_SHIM_DISABLE");
	if (off && !strcmp(off, "1"))
		return;
	void *h = dlopen(kShimLibrary, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return;
	using GetFunctions = void *(*)(int api, void *orig);
	auto get = reinterpret_cast<GetFunctions>(dlsym(h, "ShimGetFunctions"));
	if (!get) {
		dlclose(h);
		return;
	}
	s.handle = h;
	s.finish = reinterpret_cast<void (*)(int)>(dlsym(h, "ShimFinish"));
	auto *wrapped = static_cast<const struct hlthunk_functions_pointers *>(
		get(kShimApiHlthunk, &own_table));
	if (wrapped)
		table.store(wrapped, std::memory_order_release);
}

}  // namespace

extern "C" void hlt_profiler_destroy_original(void)
{
	try {
		Shim &s = shim();
		std::lock_guard<std::mutex> l(s.mu);
		unload_locked(s);
	} catch (...) {
		// Nothing was loaded if the bookkeeping could not be made.
	}
}

extern "C" hlthunk_public void hlthunk_profiler_destroy(void)
{
	hlt_functions()->fp_hlthunk_profiler_destroy();
}

extern "C" int hlt_profiler_start_original(int)
{
	return -1;
}

extern "C" hlthunk_public int hlthunk_profiler_start(int fd)
{
	return hlt_functions()->fp_hlthunk_profiler_start(fd);
}

extern "C" int hlt_profiler_stop_original(int)
{
	return -1;
}

extern "C" hlthunk_public int hlthunk_profiler_stop(int fd)
{
	return hlt_functions()->fp_hlthunk_profiler_stop(fd);
}

extern "C" int hlt_profiler_get_trace_original(int, void *, uint64_t *, uint64_t *)
{
	return -1;
}

extern "C" hlthunk_public int hlthunk_profiler_get_trace(int fd, void *buffer,
							 uint64_t *size,
							 uint64_t *num_entries)
{
	return hlt_functions()->fp_hlthunk_profiler_get_trace(fd, buffer, size, num_entries);
}
