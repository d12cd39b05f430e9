// SPDX-License-Identifier: GPL-2.0
// habanalabs_ipc benchmark, run inside the VM.  In one run and for each
// size it measures, from this process into a peer process's memory:
//   chan   - sync channel copy between two registered user regions
//   pvw    - process_vm_writev of the same bytes (UCX's cma transport)
//   memcpy - userspace memcpy between two buffers of this process
//   ceil   - the copy engine's routine in the kernel, one copy per system
//            call between the same source and destination memory, mapped
//            as regions are (hl_ipc_ceiling.ko), when loaded
// plus the null ioctl (floor of per-operation overhead) and the scaling
// of two channels on two threads over one.  The figures of one size take
// turns round by round (take_turns()), so a ratio compares figures that
// the host disturbed alike.  Prints a table and writes JSON.  It asserts
// nothing about timing.
//
// usage: ipc_bench [--sizes 8,4096,...] [--json FILE] [--min-time SEC]
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <sys/ioctl.h>
#include <thread>
#include <vector>

#include "bench_ipc.h"
#include "habanalabs_ipc.h"
#include "spread.h"

namespace {

using clk = std::chrono::steady_clock;
using hltest::Spread;
using hltest::spread;

double min_time = 0.25;  // seconds per measurement

// Sizes up to this are also compared with the null ioctl.
constexpr size_t kNopSizeMax = 64;

using hlbench::xioctl;

void die(const char *what, int err)
{
	fprintf(stderr, "ipc_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

uint64_t reg_user(int ctx, void *p, uint64_t len)
{
	uint64_t cookie = 0;
	int ret = hlbench::reg_user(ctx, p, len, &cookie);
	if (ret)
		die("register", ret);
	return cookie;
}

uint32_t channel(int ctx)
{
	uint32_t id = 0;
	int ret = hlbench::create_channel(ctx, HL_IPC_FD_HOST, HL_IPC_FD_HOST, &id);
	if (ret)
		die("channel", ret);
	return id;
}

// process_vm_writev's buffers are kept out of transparent huge pages: on
// 6.12 with THP a copy into a 64 MiB peer buffer fell to about a tenth
// of its speed after the first run, so the comparison gives it the
// small pages it is fastest with.
uint8_t *map(size_t n, bool small_pages = false, bool shared = false)
{
	void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	if (small_pages && madvise(p, n, MADV_NOHUGEPAGE))
		die("madvise", errno);
	memset(p, 0x11, n);  // resident
	return static_cast<uint8_t *>(p);
}

// A figure measured in rounds: an operation repeated n times per round,
// n calibrated so that a round lasts about a fifth of min_time (at least
// 3).  run(n) returns the seconds n operations took.
struct Rounds {
	std::function<double(long)> run;
	long n = 0;
	double best = 1e30;  // seconds per operation, best round so far

	explicit Rounds(std::function<double(long)> r) : run(std::move(r))
	{
		// Warm up, then double the count until a batch is long enough
		// to estimate one operation.
		run(1);
		double el = 0;
		long k = 1;
		while ((el = run(k)) < min_time / 50)
			k *= 2;
		n = std::max(3L, static_cast<long>(min_time / 5 / (el / k)));
	}
	void round() { best = std::min(best, run(n) / static_cast<double>(n)); }
};

// The seconds n calls of op take.
template <typename F> std::function<double(long)> looped(F op)
{
	return [op](long n) {
		auto t0 = clk::now();
		for (long i = 0; i < n; i++)
			op();
		return std::chrono::duration<double>(clk::now() - t0).count();
	};
}

// Seconds per op: the best of five rounds.  The best round is the one
// least disturbed by other guests on a shared host.
template <typename F> double time_op(F op)
{
	Rounds r(looped(op));
	for (int round = 0; round < 5; round++)
		r.round();
	return r.best;
}

// Several figures measured together: five rounds, in each of which every
// figure takes one round in turn, so that a slow spell of the host hits
// them alike and a ratio between two of them compares like with like.
void take_turns(std::vector<Rounds *> figs)
{
	for (int round = 0; round < 5; round++)
		for (Rounds *f : figs)
			f->round();
}

struct Peer {
	pid_t pid = -1;
	// The peer's registered buffer, the channel copies' destination:
	// memory the two processes share, so that the ceiling probe, which
	// maps memory of the process that calls it, copies into the very
	// pages the channel does (where the pages lie changed the speed of
	// a copy into them by 10-15% here).
	uint8_t *addr = nullptr;
	uint8_t *plain = nullptr;  // a peer buffer that is not registered
	uint64_t cookie = 0;       // cookie of addr
};

// The peer registers the shared buffer, maps another, reports them, and
// waits.
Peer start_peer(size_t size, int *ctl)
{
	int up[2], down[2];
	if (pipe(up) || pipe(down))
		die("pipe", errno);
	Peer p;
	p.addr = map(size, false, true);
	p.pid = fork();
	if (p.pid == 0) {
		int ctx = open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (ctx < 0)
			die("open peer", errno);
		uint8_t *plain = map(size, true);
		uint64_t c = reg_user(ctx, p.addr, size);
		if (write(up[1], &plain, sizeof(plain)) != sizeof(plain) ||
		    write(up[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		char x;
		if (read(down[0], &x, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(up[0], &p.plain, sizeof(p.plain)) != sizeof(p.plain) ||
	    read(up[0], &p.cookie, sizeof(p.cookie)) != sizeof(p.cookie))
		die("peer", EIO);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	*ctl = down[1];
	return p;
}

void stop_peer(Peer &p, int ctl)
{
	char x = 0;
	if (write(ctl, &x, 1) < 0)
		perror("stop peer");
	close(ctl);
	waitpid(p.pid, nullptr, 0);
}

// The in-kernel ceiling probe: copies of size bytes from src to dst,
// which it maps as habanalabs_ipc maps user regions, maplen bytes each
// (the regions' whole length: copying the first megabyte of a 64 MiB
// mapping ran 10-15% slower under TCG than copying a 1 MiB mapping), for
// as long as the file stays open.  Each copy is its own system call, as
// each channel copy is.  -1 when the probe is not loaded.
int open_ceiling()
{
	return open("/sys/kernel/debug/hl_ipc_ceiling/run", O_RDWR | O_CLOEXEC);
}

// Seconds n copies took, as the probe timed them, through its file fd.
std::function<double(long)> ceiling(int fd, size_t size, unsigned chunk, const void *src,
				    void *dst, size_t maplen)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "%zu 1 %u %lx %lx %zu", size, chunk,
		 reinterpret_cast<unsigned long>(src), reinterpret_cast<unsigned long>(dst), maplen);
	return [fd, c = std::string(cmd)](long n) -> double {
		double ns = 0;
		for (long i = 0; i < n; i++) {
			char buf[32] = {};
			if (pwrite(fd, c.data(), c.size(), 0) != (ssize_t)c.size() ||
			    pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
				die("the ceiling probe", errno);
			ns += atof(buf);
		}
		return ns / 1e9;
	};
}

// One run's figures for one size, seconds per op (ceil -1 when absent).
struct Sample {
	double chan, pvw, mcpy, ceil;
	double nop;  // the null ioctl in the same turns (small sizes), else 0
};

// A figure over the runs, computed from each run's samples by f.
template <typename F> Spread over_runs(size_t runs, F f)
{
	std::vector<double> v;
	for (size_t i = 0; i < runs; i++) {
		double x = f(i);
		if (x > 0)
			v.push_back(x);
	}
	return spread(v);
}

std::string range(const Spread &s, int prec = 2)
{
	char b[64];
	snprintf(b, sizeof(b), "%.*f-%.*f", prec, s.lo, prec, s.hi);
	return b;
}

std::string human(size_t n)
{
	if (n >= (1 << 20) && n % (1 << 20) == 0)
		return std::to_string(n >> 20) + "M";
	if (n >= 1024 && n % 1024 == 0)
		return std::to_string(n >> 10) + "K";
	return std::to_string(n);
}

}  // namespace

int main(int argc, char **argv)
{
	std::vector<size_t> sizes = {8,       64,        512,       4096,     32768,
				     262144,  1 << 20,   4 << 20,   16 << 20, 64 << 20};
	std::string json_path;
	size_t runs = 5;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--sizes" && i + 1 < argc) {
			sizes.clear();
			std::string s = argv[++i];
			size_t pos = 0;
			while (pos < s.size()) {
				size_t e = s.find(',', pos);
				sizes.push_back(std::stoull(s.substr(pos, e - pos)));
				pos = e == std::string::npos ? s.size() : e + 1;
			}
		} else if (a == "--json" && i + 1 < argc) {
			json_path = argv[++i];
		} else if (a == "--min-time" && i + 1 < argc) {
			min_time = atof(argv[++i]);
		} else if (a == "--runs" && i + 1 < argc) {
			runs = std::max(1, atoi(argv[++i]));
		} else {
			fprintf(stderr, "usage: ipc_bench [--sizes N,...] [--runs N] [--json FILE] "
					"[--min-time SEC]\n");
			return a == "--help" ? 0 : 2;
		}
	}
	size_t maxsz = *std::max_element(sizes.begin(), sizes.end());

	int ctx = open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (ctx < 0)
		die("open " HL_IPC_DEVICE_PATH, errno);
	hl_ipc_info inf{};
	if (xioctl(ctx, HL_IPC_IOCTL_INFO, &inf))
		die("info", errno);
	uint32_t ch = channel(ctx);
	uint8_t *src = map(maxsz);
	uint8_t *dst = map(maxsz);
	// process_vm_writev's source: neither registered nor in huge pages.
	uint8_t *plain = map(maxsz, true);
	uint64_t src_cookie = reg_user(ctx, src, maxsz);
	int ctl;
	Peer peer = start_peer(maxsz, &ctl);

	// Scaling: the same total work on one channel, then split over two
	// channels driven by two threads.
	size_t ssz = std::min<size_t>(maxsz, 16 << 20);
	uint32_t ch2 = channel(ctx);
	uint64_t dst_cookie = reg_user(ctx, dst, maxsz);
	auto one_chan = [&](uint32_t id, uint64_t s, uint64_t d, size_t off) {
		hl_ipc_copy c{};
		c.channel_id = id;
		c.src_cookie = s;
		c.dst_cookie = d;
		c.src_offset = c.dst_offset = off;
		c.length = ssz / 2;
		if (ioctl(ctx, HL_IPC_IOCTL_COPY, &c))
			die("copy", errno);
	};
	// Each of n threads loops k operations on its own half; the thread
	// start is outside the timed part.  Returns aggregate bytes/s.
	auto scale = [&](int n, long k, auto op) -> double {
		std::atomic<int> ready{0};
		std::atomic<bool> go{false};
		std::vector<std::thread> th;
		for (int t = 0; t < n; t++)
			th.emplace_back([&, t] {
				ready++;
				while (!go.load())
					;
				for (long i = 0; i < k; i++)
					op(t);
			});
		while (ready.load() < n)
			std::this_thread::yield();
		auto t0 = clk::now();
		go = true;
		for (auto &x : th)
			x.join();
		double el = std::chrono::duration<double>(clk::now() - t0).count();
		return n * k * (ssz / 2) / el;
	};
	auto chan_op = [&](int t) {
		one_chan(t ? ch2 : ch, src_cookie, t ? dst_cookie : peer.cookie, t ? ssz / 2 : 0);
	};
	auto mem_op = [&](int t) {
		memcpy(dst + t * (ssz / 2), src + t * (ssz / 2), ssz / 2);
		asm volatile("" : : "r"(dst) : "memory");
	};
	// Enough operations for about min_time on one thread.
	long kc = std::max(4.0, min_time / (time_op([&] { chan_op(0); })));
	long km = std::max(4.0, min_time / (time_op([&] { mem_op(0); })));

	// The runs: each measures everything once, so every ratio can be
	// taken between figures measured close together.
	std::vector<double> nop(runs);
	std::vector<std::vector<Sample>> samples(runs);
	std::vector<double> t1(runs), t2(runs), m1(runs), m2(runs);
	const int probe = open_ceiling();
	for (size_t run = 0; run < runs; run++) {
		nop[run] = time_op([&] { ioctl(ctx, HL_IPC_IOCTL_NOP, 0); });
		for (size_t sz : sizes) {
			Sample r{0, 0, 0, -1, 0};
			hl_ipc_copy c{};
			c.channel_id = ch;
			c.src_cookie = src_cookie;
			c.dst_cookie = peer.cookie;
			c.length = sz;
			Rounds chan(looped([&] {
				if (ioctl(ctx, HL_IPC_IOCTL_COPY, &c))
					die("copy", errno);
			}));
			// Into ordinary (unregistered) memory, as UCX's cma would.
			iovec l{plain, sz}, rv{peer.plain, sz};
			Rounds pvw(looped([&] {
				if (process_vm_writev(peer.pid, &l, 1, &rv, 1, 0) != (ssize_t)sz)
					die("process_vm_writev", errno);
			}));
			Rounds mcpy(looped([&] {
				memcpy(dst, src, sz);
				asm volatile("" : : "r"(dst) : "memory");
			}));
			std::vector<Rounds *> figs{&chan, &pvw, &mcpy};
			// A small copy is judged against the null ioctl: in the
			// same turns.
			std::optional<Rounds> null_ioctl;
			if (sz <= kNopSizeMax) {
				null_ioctl.emplace(looped([&] { ioctl(ctx, HL_IPC_IOCTL_NOP, 0); }));
				figs.push_back(&*null_ioctl);
			}
			std::optional<Rounds> ceil;
			if (probe >= 0) {
				ceil.emplace(ceiling(probe, sz, inf.chunk_size, src, peer.addr, maxsz));
				figs.push_back(&*ceil);
			}
			take_turns(figs);
			r.chan = chan.best;
			r.pvw = pvw.best;
			r.mcpy = mcpy.best;
			if (ceil)
				r.ceil = ceil->best;
			if (null_ioctl)
				r.nop = null_ioctl->best;
			samples[run].push_back(r);
		}
		t1[run] = scale(1, kc, chan_op);
		t2[run] = scale(2, kc, chan_op);
		m1[run] = scale(1, km, mem_op);
		m2[run] = scale(2, km, mem_op);
		fprintf(stderr, "ipc_bench: run %zu of %zu done\n", run + 1, runs);
	}
	if (probe >= 0)
		close(probe);
	stop_peer(peer, ctl);

	// Medians over the runs; a ratio is taken in each run first.
	auto bw = [](size_t n, double s) { return s > 0 ? n / s / 1e9 : 0.0; };
	struct Row {
		size_t size;
		Spread chan, pvw, mcpy, ceil, chan_pvw, chan_ceil, chan_nop;
	};
	std::vector<Row> rows;
	for (size_t k = 0; k < sizes.size(); k++) {
		auto fig = [&](double Sample::*m) {
			return over_runs(runs, [&](size_t i) { return samples[i][k].*m; });
		};
		auto ratio = [&](double Sample::*m) {
			return over_runs(runs, [&](size_t i) {
				const Sample &x = samples[i][k];
				return x.*m > 0 ? x.*m / x.chan : -1;
			});
		};
		Row r{sizes[k], fig(&Sample::chan), fig(&Sample::pvw), fig(&Sample::mcpy),
		      fig(&Sample::ceil), ratio(&Sample::pvw), ratio(&Sample::ceil), {}};
		r.chan_nop = over_runs(runs, [&](size_t i) {
			const Sample &x = samples[i][k];
			return x.nop > 0 ? x.chan / x.nop : -1;
		});
		rows.push_back(r);
	}
	Spread snop = spread(nop);
	Spread sc = over_runs(runs, [&](size_t i) { return t2[i] / t1[i]; });
	Spread sm = over_runs(runs, [&](size_t i) { return m2[i] / m1[i]; });
	Spread sc1 = spread(t1), sc2 = spread(t2), sm1 = spread(m1), sm2 = spread(m2);

	printf("habanalabs_ipc benchmark (GB/s = 1e9 B/s; latency in us per op)\n");
	printf("median of %zu runs; a ratio is taken within each run, [min-max] over the runs\n",
	       runs);
	printf("null ioctl: %.2f us [%s]; chunk size %u\n", snop.med * 1e6,
	       range({0, snop.lo * 1e6, snop.hi * 1e6}).c_str(), inf.chunk_size);
	printf("%8s | %7s %7s %7s %7s | %9s %9s %9s | %15s %15s %16s\n", "size", "chan", "pvw",
	       "memcpy", "ceil", "chan us", "pvw us", "memcpy us", "chan/pvw", "chan/ceil",
	       "chan/null ioctl");
	auto col = [](const Spread &s) {
		char b[48];
		if (s.med <= 0)
			return std::string("-");
		snprintf(b, sizeof(b), "%.2f [%s]", s.med, range(s).c_str());
		return std::string(b);
	};
	for (auto &r : rows) {
		printf("%8s | %7.3f %7.3f %7.3f %7.3f | %9.2f %9.2f %9.2f | %15s %15s %16s\n",
		       human(r.size).c_str(), bw(r.size, r.chan.med), bw(r.size, r.pvw.med),
		       bw(r.size, r.mcpy.med), bw(r.size, r.ceil.med), r.chan.med * 1e6,
		       r.pvw.med * 1e6, r.mcpy.med * 1e6, col(r.chan_pvw).c_str(),
		       col(r.chan_ceil).c_str(), r.size <= kNopSizeMax ? col(r.chan_nop).c_str() : "");
	}
	printf("scaling (%s per channel op): 1 channel %.3f GB/s, 2 channels %.3f GB/s, "
	       "x%.2f [%s]\n",
	       human(ssz / 2).c_str(), sc1.med / 1e9, sc2.med / 1e9, sc.med, range(sc).c_str());
	printf("scaling of userspace memcpy, same split: 1 thread %.3f GB/s, 2 threads %.3f "
	       "GB/s, x%.2f [%s]\n",
	       sm1.med / 1e9, sm2.med / 1e9, sm.med, range(sm).c_str());

	if (!json_path.empty()) {
		FILE *f = fopen(json_path.c_str(), "w");
		if (!f)
			die("json", errno);
		auto js = hltest::spread_json;
		fprintf(f, "{\n  \"runs\": %zu,\n  \"null_ioctl_us\": %.4f,\n  \"chunk_size\": %u,\n",
			runs, snop.med * 1e6, inf.chunk_size);
		fprintf(f, "  \"scaling\": {\"bytes_per_op\": %zu, \"one_channel_gbps\": %.4f, "
			   "\"two_channels_gbps\": %.4f, \"ratio\": %.4f, \"ratio_spread\": %s},\n",
			ssz / 2, sc1.med / 1e9, sc2.med / 1e9, sc.med, js(sc).c_str());
		fprintf(f, "  \"memcpy_scaling\": {\"one_thread_gbps\": %.4f, "
			   "\"two_threads_gbps\": %.4f, \"ratio\": %.4f, \"ratio_spread\": %s},\n",
			sm1.med / 1e9, sm2.med / 1e9, sm.med, js(sm).c_str());
		fprintf(f, "  \"rows\": [\n");
		for (size_t i = 0; i < rows.size(); i++) {
			auto &r = rows[i];
			fprintf(f, "    {\"size\": %zu, \"chan_us\": %.4f, \"pvw_us\": %.4f, "
				   "\"memcpy_us\": %.4f, \"ceil_us\": %.4f, \"chan_gbps\": %.4f, "
				   "\"pvw_gbps\": %.4f, \"memcpy_gbps\": %.4f, \"ceil_gbps\": %.4f,\n"
				   "     \"chan_over_pvw\": %s,\n     \"chan_over_ceil\": %s,\n"
				   "     \"chan_over_null_ioctl\": %s}%s\n",
				r.size, r.chan.med * 1e6, r.pvw.med * 1e6, r.mcpy.med * 1e6,
				r.ceil.med > 0 ? r.ceil.med * 1e6 : -1.0, bw(r.size, r.chan.med),
				bw(r.size, r.pvw.med), bw(r.size, r.mcpy.med),
				r.ceil.med > 0 ? bw(r.size, r.ceil.med) : -1.0,
				js(r.chan_pvw).c_str(), js(r.chan_ceil).c_str(),
				js(r.chan_nop).c_str(), i + 1 < rows.size() ? "," : "");
		}
		fprintf(f, "  ]\n}\n");
		fclose(f);
	}
	close(ctx);
	return 0;
}
