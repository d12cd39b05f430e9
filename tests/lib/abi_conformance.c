/* SPDX-License-Identifier: MIT */
/*
 * hl-thunk's failure conventions, for every call of its API, on fds that
 * cannot be devices (a closed fd, /dev/null, -1): int calls return a
 * negative value and set errno to its opposite, calls returning a handle
 * or an address return 0, names are HLTHUNK_DEVICE_INVALID, ids 0, and no
 * call leaves an fd or memory behind.  The prototypes, values and layouts
 * themselves are checked against hl-thunk's header by abi/abi-check.sh.
 *
 * C11, -Wall -Werror, linked against the shared library.  Runs on the host
 * and in the VM (with the modules loaded: other device nodes exist then).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlthunk.h"

static int failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,   \
				#cond);                                      \
			failures++;                                          \
		}                                                            \
	} while (0)

/* A negative errno result that also set errno to the same value. */
#define CHECK_NEG(expr)                                                      \
	do {                                                                 \
		errno = 0;                                                   \
		int rc_ = (expr);                                            \
		if (rc_ >= 0 || errno != -rc_) {                             \
			fprintf(stderr, "%s:%d: %s = %d, errno %d\n",        \
				__FILE__, __LINE__, #expr, rc_, errno);      \
			failures++;                                          \
		}                                                            \
	} while (0)

/* A 0 result (handle, address) with errno set. */
#define CHECK_ZERO(expr)                                                     \
	do {                                                                 \
		errno = 0;                                                   \
		CHECK((expr) == 0);                                          \
		CHECK(errno != 0);                                           \
	} while (0)

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void calls_on(int fd)
{
	struct hlthunk_hw_ip_info hw;
	struct hlthunk_open_stats_info os;
	struct hlthunk_hw_asic_status as;
	struct hlthunk_dram_usage_info du;
	struct hlthunk_engines_idle_info idle;
	struct hlthunk_pll_frequency_info pll;
	struct hlthunk_reset_count_info rst;
	struct hlthunk_time_sync_info ts;
	struct hlthunk_sync_manager_info sm;
	struct hl_info_cs_counters csc;
	struct hlthunk_pci_counters_info pci;
	struct hlthunk_clk_throttle_info thr;
	struct hlthunk_energy_info en;
	struct hlthunk_power_info pw;
	struct hl_info_args info;
	struct hlthunk_dram_replaced_rows_info rows;
	struct hlthunk_sec_attest_info *att = malloc(sizeof(*att));
	struct hlthunk_user_mapping maps[2];
	struct hlthunk_page_fault_info pf = {.mappings_buf = maps};
	struct hlthunk_event_record_cs_timeout ev;
	struct hlthunk_cs_in in = {0};
	struct hlthunk_cs_out out;
	struct hlthunk_signal_in sin = {0};
	struct hlthunk_signal_out sout;
	uint64_t seqs[1] = {1};
	struct hlthunk_wait_for_signal_data wsd = {.signal_seq_arr = seqs,
						   .signal_seq_nr = 1};
	struct hlthunk_wait_in win = {.hlthunk_wait_for_signal = (uint64_t *)&wsd,
				      .num_wait_for_signal = 1};
	struct hlthunk_wait_out wout;
	struct hlthunk_sig_res_in rin = {0, 1};
	struct hlthunk_sig_res_out rout;
	struct reserve_sig_handle rh = {1, 0, 1};
	struct hlthunk_wait_multi_cs_in min = {seqs, 0, 1};
	struct hlthunk_wait_multi_cs_out mout;
	struct hl_debug_args dbg = {0};
	struct hlthunk_debugfs dfs;
	uint32_t u32, core = 0;
	uint64_t u64;
	char text[1024], host[64];
	int actual;
	unsigned char fw[64];

	in.flags = HL_CS_FLAGS_STAGED_SUBMISSION;
	CHECK(att != NULL);

	CHECK_NEG(hlthunk_get_hw_ip_info(fd, &hw));
	CHECK(hlthunk_get_device_name_from_fd(fd) == HLTHUNK_DEVICE_INVALID);
	CHECK(hlthunk_get_device_id_from_fd(fd) == 0);
	CHECK_NEG(hlthunk_get_pci_bus_id_from_fd(fd, text, 16));
	CHECK_NEG(hlthunk_get_open_stats(fd, &os));
	CHECK_NEG(hlthunk_get_hw_asic_status(fd, &as));
	CHECK_NEG(hlthunk_get_dram_usage(fd, &du));
	errno = 0;
	CHECK((int)hlthunk_get_device_status_info(fd) < 0);
	CHECK(errno != 0);
	CHECK(!hlthunk_is_device_idle(fd));
	CHECK_NEG(hlthunk_get_busy_engines_mask(fd, &idle));
	CHECK_NEG(hlthunk_get_pll_frequency(fd, 0, &pll));
	CHECK_NEG(hlthunk_get_device_utilization(fd, 100, &u32));
	CHECK_NEG(hlthunk_get_hw_events_arr(fd, false, sizeof(u32), &u32));
	CHECK_NEG(hlthunk_get_hw_events_arr(fd, true, sizeof(u32), &u32));
	CHECK_NEG(hlthunk_get_clk_rate(fd, &u32, &u32));
	CHECK_NEG(hlthunk_get_reset_count_info(fd, &rst));
	CHECK_NEG(hlthunk_get_time_sync_info(fd, &ts));
	CHECK_NEG(hlthunk_get_sync_manager_info(fd, 0, &sm));
	CHECK_NEG(hlthunk_get_cs_counters_info(fd, &csc));
	CHECK_NEG(hlthunk_get_pci_counters_info(fd, &pci));
	CHECK_NEG(hlthunk_get_clk_throttle_info(fd, &thr));
	CHECK_NEG(hlthunk_get_total_energy_consumption_info(fd, &en));
	CHECK_NEG(hlthunk_get_power_info(fd, &pw));
	memset(&info, 0, sizeof(info));
	info.op = HL_INFO_DEVICE_STATUS;
	info.return_pointer = (uintptr_t)&u64;
	info.return_size = sizeof(u64);
	CHECK_NEG(hlthunk_get_info(fd, &info));
	CHECK_NEG(hlthunk_get_dram_replaced_rows_info(fd, &rows));
	CHECK_NEG(hlthunk_get_dram_pending_rows_info(fd, &u32));
	CHECK_NEG(hlthunk_get_sec_attest_info(fd, 1, att));
	CHECK_NEG(hlthunk_get_page_fault_info(fd, &pf, 2));
	CHECK_NEG(hlthunk_get_event_record(fd, HLTHUNK_CS_TIMEOUT, &ev));
	CHECK_NEG(hlthunk_get_engine_status(fd, text, sizeof(text), &actual));
	CHECK_NEG(hlthunk_fw_send_generic_request(fd, fw, sizeof(fw), 0));
	CHECK_NEG(hlthunk_get_dev_memalloc_page_orders(fd, &u64));

	CHECK_ZERO(hlthunk_device_memory_alloc(fd, 4096, 0, false, false));
	CHECK_NEG(hlthunk_device_memory_free(fd, 1));
	CHECK_ZERO(hlthunk_device_memory_map(fd, 1, 0));
	CHECK_ZERO(hlthunk_host_memory_map(fd, host, 0, sizeof(host)));
	CHECK_ZERO(hlthunk_host_memory_map_flags(fd, host, 0, sizeof(host), 0));
	CHECK_NEG(hlthunk_memory_unmap(fd, 0x1000));
	CHECK_NEG(hlthunk_device_memory_export_dmabuf_fd(fd, 0x1000, 4096, 0));
	CHECK_NEG(hlthunk_device_mapped_memory_export_dmabuf_fd(fd, 0x1000, 4096, 0,
								O_RDWR | O_CLOEXEC));
	CHECK_NEG(hlthunk_get_hw_block(fd, 0x1000, &u32, &u64));
	CHECK_NEG(hlthunk_allocate_timestamp_elements(fd, 1, &u64));

	CHECK_NEG(hlthunk_request_command_buffer(fd, 4096, &u64));
	CHECK_NEG(hlthunk_request_mapped_command_buffer(fd, 4096, &u64));
	CHECK_NEG(hlthunk_destroy_command_buffer(fd, 1));
	CHECK_NEG(hlthunk_get_cb_usage_count(fd, 1, &u32));
	CHECK_NEG(hlthunk_get_mapped_cb_device_va_by_handle(fd, 1, &u64));
	CHECK_NEG(hlthunk_command_submission(fd, &in, &out));
	CHECK_NEG(hlthunk_command_submission_timeout(fd, &in, &out, 1));
	CHECK_NEG(hlthunk_staged_command_submission(fd, 1, &in, &out));
	CHECK_NEG(hlthunk_staged_command_submission_timeout(fd, 1, &in, &out, 1));
	CHECK_NEG(hlthunk_cs_flush_pci_hbw_writes(fd));
	CHECK_NEG(hlthunk_wait_for_cs(fd, 1, 0, &u32));
	CHECK_NEG(hlthunk_wait_for_cs_with_timestamp(fd, 1, 0, &u32, &u64));
	CHECK_NEG(hlthunk_wait_for_multi_cs(fd, &min, &mout));
	CHECK_NEG(hlthunk_wait_for_multi_cs_with_timestamp(fd, &min, &mout, &u64));
	CHECK_NEG(hlthunk_wait_for_interrupt(fd, &u64, 1, 0, 0, &u32));
	CHECK_NEG(hlthunk_wait_for_interrupt_with_timestamp(fd, &u64, 1, 0, 0, &u32, &u64));
	CHECK_NEG(hlthunk_wait_for_interrupt_by_handle(fd, 1, 0, 1, 0, 0, &u32));
	CHECK_NEG(hlthunk_wait_for_interrupt_by_handle_with_timestamp(fd, 1, 0, 1, 0, 0,
								      &u32, &u64));
	CHECK_NEG(hlthunk_register_timestamp_interrupt(fd, 0, 1, 0, 1, 1, 0));

	CHECK_NEG(hlthunk_signal_submission(fd, &sin, &sout));
	CHECK_NEG(hlthunk_signal_submission_timeout(fd, &sin, &sout, 1));
	CHECK_NEG(hlthunk_wait_for_signal(fd, &win, &wout));
	CHECK_NEG(hlthunk_wait_for_signal_timeout(fd, &win, &wout, 1));
	CHECK_NEG(hlthunk_wait_for_collective_signal(fd, &win, &wout));
	CHECK_NEG(hlthunk_wait_for_collective_signal_timeout(fd, &win, &wout, 1));
	CHECK_NEG(hlthunk_reserve_encaps_signals(fd, &rin, &rout));
	CHECK_NEG(hlthunk_unreserve_encaps_signals(fd, &rh, &u32));
	CHECK_NEG(hlthunk_staged_command_submission_encaps_signals(fd, 1, &in, &out));
	CHECK_NEG(hlthunk_wait_for_reserved_encaps_signals(fd, &win, &wout));
	CHECK_NEG(hlthunk_wait_for_reserved_encaps_collective_signals(fd, &win, &wout));

	CHECK_NEG(hlthunk_debug(fd, &dbg));
	CHECK_NEG(hlthunk_debugfs_open(fd, &dfs));
	CHECK_NEG(hlthunk_notifier_create(fd));
	CHECK_NEG(hlthunk_notifier_release(fd, 1000));
	CHECK_NEG(hlthunk_engine_cores_set_mode(fd, &core, 1, HL_ENGINE_CORE_RUN));
	CHECK_NEG(hlthunk_engines_command(fd, &core, 1, HL_ENGINE_STALL));
	CHECK_NEG(hlthunk_deprecated_func1(fd, 1, 0, &u32, &u64));
	CHECK_NEG(hlthunk_deprecated_func2(fd, 0, 0, 0, 0, 0, 0));
	CHECK_NEG(hlthunk_deprecated_func3(fd, 0, &u64));
	free(att);
}

/* NULL result pointers and out-of-range arguments, on any fd. */
static void bad_arguments(int fd)
{
	uint32_t u32;
	uint64_t u64;
	int actual;
	char buf[8];

	CHECK_NEG(hlthunk_get_hw_ip_info(fd, NULL));
	CHECK_NEG(hlthunk_get_open_stats(fd, NULL));
	CHECK_NEG(hlthunk_get_hw_asic_status(fd, NULL));
	CHECK_NEG(hlthunk_get_dram_usage(fd, NULL));
	CHECK_NEG(hlthunk_get_busy_engines_mask(fd, NULL));
	CHECK_NEG(hlthunk_get_pll_frequency(fd, 0, NULL));
	CHECK_NEG(hlthunk_get_device_utilization(fd, 100, NULL));
	CHECK_NEG(hlthunk_get_hw_events_arr(fd, false, 4, NULL));
	CHECK_NEG(hlthunk_get_clk_rate(fd, NULL, &u32));
	CHECK_NEG(hlthunk_get_clk_rate(fd, &u32, NULL));
	CHECK_NEG(hlthunk_get_reset_count_info(fd, NULL));
	CHECK_NEG(hlthunk_get_time_sync_info(fd, NULL));
	CHECK_NEG(hlthunk_get_sync_manager_info(fd, 0, NULL));
	CHECK_NEG(hlthunk_get_cs_counters_info(fd, NULL));
	CHECK_NEG(hlthunk_get_pci_counters_info(fd, NULL));
	CHECK_NEG(hlthunk_get_clk_throttle_info(fd, NULL));
	CHECK_NEG(hlthunk_get_total_energy_consumption_info(fd, NULL));
	CHECK_NEG(hlthunk_get_power_info(fd, NULL));
	CHECK_NEG(hlthunk_get_info(fd, NULL));
	CHECK_NEG(hlthunk_get_dram_replaced_rows_info(fd, NULL));
	CHECK_NEG(hlthunk_get_dram_pending_rows_info(fd, NULL));
	CHECK_NEG(hlthunk_get_sec_attest_info(fd, 0, NULL));
	CHECK_NEG(hlthunk_get_page_fault_info(fd, NULL, 1));
	CHECK_NEG(hlthunk_get_event_record(fd, HLTHUNK_OPEN_DEV, NULL));
	CHECK_NEG(hlthunk_get_event_record(fd, (enum hlthunk_event_record_id)77, buf));
	CHECK_NEG(hlthunk_get_engine_status(fd, NULL, 16, &actual));
	CHECK_NEG(hlthunk_get_engine_status(fd, buf, 0, &actual));
	CHECK_NEG(hlthunk_fw_send_generic_request(fd, NULL, 8, 0));
	CHECK_NEG(hlthunk_fw_send_generic_request(fd, buf, 0, 0));
	CHECK_NEG(hlthunk_get_dev_memalloc_page_orders(fd, NULL));
	CHECK_NEG(hlthunk_get_hw_block(fd, 0, NULL, &u64));
	CHECK_NEG(hlthunk_request_command_buffer(fd, 4096, NULL));
	CHECK_NEG(hlthunk_get_cb_usage_count(fd, 1, NULL));
	CHECK_NEG(hlthunk_command_submission(fd, NULL, NULL));
	CHECK_NEG(hlthunk_wait_for_cs(fd, 1, 0, NULL));
	CHECK_NEG(hlthunk_wait_for_cs_with_timestamp(fd, 1, 0, &u32, NULL));
	CHECK_NEG(hlthunk_wait_for_multi_cs(fd, NULL, NULL));
	CHECK_NEG(hlthunk_wait_for_interrupt(fd, NULL, 1, 0, 0, &u32));
	CHECK_NEG(hlthunk_signal_submission(fd, NULL, NULL));
	CHECK_NEG(hlthunk_wait_for_signal(fd, NULL, NULL));
	CHECK_NEG(hlthunk_reserve_encaps_signals(fd, NULL, NULL));
	CHECK_NEG(hlthunk_debug(fd, NULL));
	CHECK_NEG(hlthunk_debugfs_open(fd, NULL));
	CHECK_NEG(hlthunk_notifier_recv(fd, -1, NULL, &u64, 0, 0));
	CHECK_NEG(hlthunk_engine_cores_set_mode(fd, NULL, 1, HL_ENGINE_CORE_RUN));
	CHECK_NEG(hlthunk_engine_cores_set_mode(fd, &u32, 1, 77));
	CHECK_NEG(hlthunk_engines_command(fd, NULL, 1, HL_ENGINE_STALL));
	CHECK_NEG(hlthunk_engines_command(fd, &u32, 1, (enum hl_engine_command)77));
	CHECK_NEG(hlthunk_allocate_timestamp_elements(fd, 1, NULL));
	{
		/* A staged part must say it is one. */
		struct hlthunk_cs_in in = {0};
		struct hlthunk_cs_out out;
		CHECK_NEG(hlthunk_staged_command_submission(fd, 1, &in, &out));
		/* Only one signal can be waited for. */
		struct hlthunk_wait_in win = {0};
		struct hlthunk_wait_out wout;
		uint64_t seq = 1;
		struct hlthunk_wait_for_signal_data w = {.signal_seq_arr = &seq,
							 .signal_seq_nr = 2};
		win.num_wait_for_signal = 2;
		win.hlthunk_wait_for_signal = (uint64_t *)&w;
		CHECK_NEG(hlthunk_wait_for_signal(fd, &win, &wout));
		win.num_wait_for_signal = 1;
		CHECK_NEG(hlthunk_wait_for_signal(fd, &win, &wout));
	}
}

static void device_independent(void)
{
	void *t;
	void *v;
	unsigned long k;
	int a = 1, b = 2, n = 0;
	char *ver;

	CHECK(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE) >= 0);
	CHECK(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2) >= 0);
	CHECK_NEG(hlthunk_get_device_count(HLTHUNK_DEVICE_INVALID));
	CHECK_NEG(hlthunk_get_device_count(HLTHUNK_DEVICE_MAX));
	CHECK_NEG(hlthunk_get_device_count((enum hlthunk_device_name)-5));
	CHECK_NEG(hlthunk_open(HLTHUNK_DEVICE_INVALID, NULL));
	CHECK_NEG(hlthunk_open((enum hlthunk_device_name)1000, NULL));
	/* No device has this bus id; hl-thunk returns a negative value. */
	CHECK_NEG(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "ffff:ff:1f.7"));
	CHECK_NEG(hlthunk_open_control(9999, NULL));
	CHECK_NEG(hlthunk_open_control(-1, NULL));
	CHECK_NEG(hlthunk_open_control_by_name(HLTHUNK_DEVICE_INVALID, NULL));
	CHECK_NEG(hlthunk_open_control_by_name(HLTHUNK_DEVICE_GOYA, "ffff:ff:1f.7"));
	CHECK_NEG(hlthunk_open_control_by_bus_id(NULL));
	CHECK_NEG(hlthunk_open_control_by_bus_id("ffff:ff:1f.7"));
	CHECK_NEG(hlthunk_open_by_module_id(123456));
	CHECK_NEG(hlthunk_open_control_by_module_id(123456));
	CHECK_NEG(hlthunk_get_device_index_from_pci_bus_id(NULL));
	CHECK_NEG(hlthunk_get_device_index_from_pci_bus_id("ffff:ff:1f.7"));

	ver = hlthunk_get_version();
	CHECK(ver && strstr(ver, "libhlthunk"));
	hlthunk_free(ver);
	v = hlthunk_malloc(64);
	CHECK(v && !((char *)v)[0] && !((char *)v)[63]);
	hlthunk_free(v);
	hlthunk_free(NULL);

	/* The map: libdrm's drmHash conventions, which hl-thunk's were. */
	t = hlthunk_hash_create();
	CHECK(t != NULL);
	CHECK(hlthunk_hash_insert(t, 5, &a) == 0);
	CHECK(hlthunk_hash_insert(t, 5, &b) == 1);
	CHECK(hlthunk_hash_insert(t, 6, &b) == 0);
	CHECK(hlthunk_hash_lookup(t, 5, &v) == 0 && v == &a);
	CHECK(hlthunk_hash_lookup(t, 7, &v) == 1);
	for (int r = hlthunk_hash_first(t, &k, &v); r == 1;
	     r = hlthunk_hash_next(t, &k, &v))
		n++;
	CHECK(n == 2);
	CHECK(hlthunk_hash_delete(t, 5) == 0);
	CHECK(hlthunk_hash_delete(t, 5) == 1);
	CHECK(hlthunk_hash_lookup(NULL, 5, &v) == -1);
	CHECK(hlthunk_hash_destroy(t) == 0);

	/* No profiling layer: hl-thunk's answer. */
	CHECK(hlthunk_profiler_start(0) == -1);
	CHECK(hlthunk_profiler_stop(0) == -1);
	CHECK(hlthunk_profiler_get_trace(0, NULL, NULL, NULL) == -1);
	hlthunk_profiler_destroy();
}

int main(void)
{
	int null_fd = open("/dev/null", O_RDWR);
	int closed_fd = dup(null_fd);
	int fds[] = {closed_fd, null_fd, -1};
	int before;

	close(closed_fd);
	before = open_fds();
	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		calls_on(fds[i]);
	bad_arguments(null_fd);
	device_independent();
	CHECK(open_fds() == before);

	CHECK_NEG(hlthunk_close(closed_fd));
	CHECK(hlthunk_close(null_fd) == 0);

	if (failures) {
		fprintf(stderr, "abi_conformance: %d check(s) failed\n", failures);
		return 1;
	}
	printf("abi_conformance: every hl-thunk call keeps its failure conventions\n");
	return 0;
}
