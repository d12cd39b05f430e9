// SPDX-License-Identifier: MIT
// What libhlthunk adds to a copy: hlthunk_ipc_channel_copy on a cached
// channel and registered buffers against the bare HL_IPC_IOCTL_COPY it ends
// in, for 8-byte copies (the copy itself is negligible, so the difference is
// the library's lookups), with the null ioctl as the floor.  Runs in the VM
// with 'habanalabs_sim num_devices=2' and habanalabs_ipc loaded.
//
//   bench_channel_copy [--max-overhead FRACTION] [google benchmark flags]
//   bench_channel_copy --loop N     (N copies each way, for callgrind)
//
// Prints Google Benchmark's table, then the overhead measured with the two
// paths interleaved (min of rounds, which resists noise from the host), and
// fails if --max-overhead is given and exceeded.
#include <sys/ioctl.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"
#include "uapi/habanalabs_ipc.h"

namespace {

struct Setup {
	int d0 = -1, d1 = -1, ipc = -1;
	hlipc::DeviceBuffer a, b;
	uint32_t ch = 0;
	hlthunk_ipc_cookie ca = 0, cb = 0;
	struct hl_ipc_copy raw;

	int init()
	{
		d0 = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
		d1 = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
		if (d0 < 0 || d1 < 0 || a.create(d0, 1 << 20) || b.create(d1, 1 << 20))
			return -1;
		if (hlthunk_ipc_channel_create(d0, d1, &ch) ||
		    hlthunk_ipc_register_device_memory(d0, a.va(), &ca, nullptr, nullptr) ||
		    hlthunk_ipc_register_device_memory(d1, b.va(), &cb, nullptr, nullptr))
			return -1;
		ipc = hlthunk_ipc_get_fd();
		memset(&raw, 0, sizeof(raw));
		raw.channel_id = ch;
		raw.src_cookie = ca;
		raw.dst_cookie = cb;
		raw.length = 8;
		return 0;
	}
	__attribute__((noinline)) int lib_copy()
	{
		return hlthunk_ipc_channel_copy(ch, d0, d1, reinterpret_cast<void *>(b.va()),
						reinterpret_cast<void *>(a.va()), 8);
	}
	__attribute__((noinline)) int raw_copy() { return ioctl(ipc, HL_IPC_IOCTL_COPY, &raw); }
	int nop() { return ioctl(ipc, HL_IPC_IOCTL_NOP); }
};

Setup g;

void BM_NullIoctl(benchmark::State &s)
{
	for (auto _ : s)
		if (g.nop() < 0)
			s.SkipWithError("HL_IPC_IOCTL_NOP failed");
}
void BM_RawCopyIoctl(benchmark::State &s)
{
	for (auto _ : s)
		if (g.raw_copy() < 0)
			s.SkipWithError("HL_IPC_IOCTL_COPY failed");
}
void BM_LibChannelCopy(benchmark::State &s)
{
	for (auto _ : s)
		if (g.lib_copy() < 0)
			s.SkipWithError("hlthunk_ipc_channel_copy failed");
}
BENCHMARK(BM_NullIoctl);
BENCHMARK(BM_RawCopyIoctl);
BENCHMARK(BM_LibChannelCopy);

template <typename F>
double ns_per_op(F f, int n)
{
	auto t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < n; i++)
		f();
	return std::chrono::duration<double, std::nano>(
		       std::chrono::steady_clock::now() - t0).count() / n;
}

}  // namespace

int main(int argc, char **argv)
{
	double max_overhead = -1;
	int loop = 0;
	std::vector<char *> args;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--max-overhead") && i + 1 < argc)
			max_overhead = atof(argv[++i]);
		else if (!strcmp(argv[i], "--loop") && i + 1 < argc)
			loop = atoi(argv[++i]);
		else
			args.push_back(argv[i]);
	}
	int n = static_cast<int>(args.size());
	benchmark::Initialize(&n, args.data());
	if (g.init() < 0) {
		fprintf(stderr, "bench_channel_copy: set-up failed: %s\n",
			hlthunk_ipc_last_error());
		return 1;
	}
	if (loop > 0) {
		// For instruction counts (valgrind --tool=callgrind): just the
		// two paths, loop times each, in functions of their own.
		for (int i = 0; i < loop; i++)
			g.raw_copy();
		for (int i = 0; i < loop; i++)
			g.lib_copy();
		return 0;
	}
	benchmark::RunSpecifiedBenchmarks();

	// Interleaved rounds: the same conditions for both paths.
	std::vector<double> lib, raw, nop;
	for (int r = 0; r < 30; r++) {
		raw.push_back(ns_per_op([] { g.raw_copy(); }, 2000));
		lib.push_back(ns_per_op([] { g.lib_copy(); }, 2000));
		nop.push_back(ns_per_op([] { g.nop(); }, 2000));
	}
	double l = *std::min_element(lib.begin(), lib.end());
	double rw = *std::min_element(raw.begin(), raw.end());
	double np = *std::min_element(nop.begin(), nop.end());
	double overhead = l / rw - 1;
	printf("\n8-byte copy, best of 30 interleaved rounds of 2000:\n");
	printf("  null ioctl (floor)          %8.0f ns\n", np);
	printf("  raw HL_IPC_IOCTL_COPY       %8.0f ns\n", rw);
	printf("  hlthunk_ipc_channel_copy    %8.0f ns\n", l);
	printf("  library overhead            %8.0f ns = %.1f%% of the raw ioctl "
	       "(ratio %.3f)\n", l - rw, 100 * overhead, l / rw);
	if (max_overhead >= 0 && overhead > max_overhead) {
		printf("FAIL: overhead above %.1f%%\n", 100 * max_overhead);
		return 1;
	}
	return 0;
}
