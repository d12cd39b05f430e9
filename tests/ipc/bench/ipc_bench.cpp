// SPDX-License-Identifier: GPL-2.0
// habanalabs_ipc benchmark, run inside the VM.  In one run and for each
// size it measures, from this process into a peer process's memory:
//   chan   - sync channel copy between two registered user regions
//   pvw    - process_vm_writev of the same bytes (UCX's cma transport)
//   memcpy - userspace memcpy between two buffers of this process
//   ceil   - the copy engine's routine in the kernel between two resident
//            vmalloc buffers (hl_ipc_ceiling.ko), when loaded
// plus the null ioctl (floor of per-operation overhead) and the scaling
// of two channels on two threads over one.  Prints a table and writes
// JSON.  It asserts nothing about timing.
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
#include <string>
#include <sys/ioctl.h>
#include <thread>
#include <vector>

#include "habanalabs_ipc.h"

namespace {

using clk = std::chrono::steady_clock;

double min_time = 0.25;  // seconds per measurement

int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

void die(const char *what, int err)
{
	fprintf(stderr, "ipc_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

uint64_t reg_user(int ctx, void *p, uint64_t len)
{
	hl_ipc_region_register r{};
	r.type = HL_IPC_REGION_USER;
	r.flags = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE | HL_IPC_REGION_DEV_HOST;
	r.fd = -1;
	r.dev_fd = HL_IPC_FD_HOST;
	r.addr = reinterpret_cast<uintptr_t>(p);
	r.length = len;
	int ret = xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r);
	if (ret)
		die("register", ret);
	return r.cookie;
}

uint32_t channel(int ctx)
{
	hl_ipc_channel_create c{};
	c.src_fd = c.dst_fd = HL_IPC_FD_HOST;
	c.flags = HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST;
	int ret = xioctl(ctx, HL_IPC_IOCTL_CHANNEL_CREATE, &c);
	if (ret)
		die("channel", ret);
	return c.channel_id;
}

uint8_t *map(size_t n)
{
	void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	memset(p, 0x11, n);  // resident
	return static_cast<uint8_t *>(p);
}

// Seconds per op: the best of five rounds, each repeating op for a fifth
// of min_time (at least 3 times).  The best round is the one least
// disturbed by other guests on a shared host.
template <typename F> double time_op(F op)
{
	op();  // warm-up
	double best = 1e30;
	for (int round = 0; round < 5; round++) {
		long n = 0, batch = 1;
		double el = 0;
		auto t0 = clk::now();
		do {
			for (long i = 0; i < batch; i++)
				op();
			n += batch;
			el = std::chrono::duration<double>(clk::now() - t0).count();
			if (el < min_time / 50)
				batch *= 2;
		} while (el < min_time / 5 || n < 3);
		best = std::min(best, el / static_cast<double>(n));
	}
	return best;
}

struct Peer {
	pid_t pid = -1;
	uint8_t *addr = nullptr;   // the peer's registered buffer
	uint8_t *plain = nullptr;  // a peer buffer that is not registered
	uint64_t cookie = 0;       // cookie of addr
};

// The peer maps and registers a buffer, reports it, and waits.
Peer start_peer(size_t size, int *ctl)
{
	int up[2], down[2];
	if (pipe(up) || pipe(down))
		die("pipe", errno);
	Peer p;
	p.pid = fork();
	if (p.pid == 0) {
		int ctx = open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
		if (ctx < 0)
			die("open peer", errno);
		uint8_t *buf = map(size);
		uint8_t *plain = map(size);
		uint64_t c = reg_user(ctx, buf, size);
		if (write(up[1], &buf, sizeof(buf)) != sizeof(buf) ||
		    write(up[1], &plain, sizeof(plain)) != sizeof(plain) ||
		    write(up[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		char x;
		if (read(down[0], &x, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(up[0], &p.addr, sizeof(p.addr)) != sizeof(p.addr) ||
	    read(up[0], &p.plain, sizeof(p.plain)) != sizeof(p.plain) ||
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

// ns for iters copies of size bytes by the in-kernel ceiling probe, or -1.
double ceiling(size_t size, unsigned chunk)
{
	const char *path = "/sys/kernel/debug/hl_ipc_ceiling/run";
	if (access(path, W_OK))
		return -1;
	// Calibrate: one run, then enough iterations for min_time.
	auto run = [&](unsigned long iters) -> double {
		int fd = open(path, O_RDWR);
		if (fd < 0)
			return -1;
		std::string cmd = std::to_string(size) + " " + std::to_string(iters) + " " +
				  std::to_string(chunk);
		char buf[32] = {};
		double ns = -1;
		if (write(fd, cmd.data(), cmd.size()) == (ssize_t)cmd.size() &&
		    pread(fd, buf, sizeof(buf) - 1, 0) > 0)
			ns = atof(buf);
		close(fd);
		return ns;
	};
	double one = run(1);
	if (one <= 0)
		return -1;
	unsigned long iters = std::max(3.0, min_time / 5 * 1e9 / one);
	double best = 1e30;
	for (int round = 0; round < 5; round++)
		best = std::min(best, run(iters) / static_cast<double>(iters) / 1e9);
	return best;
}

struct Row {
	size_t size;
	double chan, pvw, mcpy, ceil;  // seconds per op
};

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
		} else {
			fprintf(stderr, "usage: ipc_bench [--sizes N,...] [--json FILE] [--min-time SEC]\n");
			return 2;
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
	uint64_t src_cookie = reg_user(ctx, src, maxsz);
	int ctl;
	Peer peer = start_peer(maxsz, &ctl);

	double nop = time_op([&] { ioctl(ctx, HL_IPC_IOCTL_NOP, 0); });

	std::vector<Row> rows;
	for (size_t sz : sizes) {
		Row r{sz, 0, 0, 0, -1};
		hl_ipc_copy c{};
		c.channel_id = ch;
		c.src_cookie = src_cookie;
		c.dst_cookie = peer.cookie;
		c.length = sz;
		r.chan = time_op([&] {
			if (ioctl(ctx, HL_IPC_IOCTL_COPY, &c))
				die("copy", errno);
		});
		// Into ordinary (unregistered) memory, as UCX's cma would.
		iovec l{dst, sz}, rv{peer.plain, sz};
		r.pvw = time_op([&] {
			if (process_vm_writev(peer.pid, &l, 1, &rv, 1, 0) != (ssize_t)sz)
				die("process_vm_writev", errno);
		});
		r.mcpy = time_op([&] {
			memcpy(dst, src, sz);
			asm volatile("" : : "r"(dst) : "memory");
		});
		r.ceil = ceiling(sz, inf.chunk_size);
		rows.push_back(r);
		fprintf(stderr, "ipc_bench: %s done\n", human(sz).c_str());
	}

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
	// Enough operations for about min_time on one thread; best of three.
	long kc = std::max(4.0, min_time / (time_op([&] { chan_op(0); })));
	long km = std::max(4.0, min_time / (time_op([&] { mem_op(0); })));
	double t1 = 0, t2 = 0, m1 = 0, m2 = 0;
	for (int r = 0; r < 3; r++) {
		t1 = std::max(t1, scale(1, kc, chan_op));
		t2 = std::max(t2, scale(2, kc, chan_op));
		m1 = std::max(m1, scale(1, km, mem_op));
		m2 = std::max(m2, scale(2, km, mem_op));
	}
	stop_peer(peer, ctl);

	// Table.
	auto bw = [](size_t n, double s) { return s > 0 ? n / s / 1e9 : 0.0; };
	printf("habanalabs_ipc benchmark (GB/s = 1e9 B/s; latency in us per op)\n");
	printf("null ioctl: %.2f us; chunk size %u\n", nop * 1e6, inf.chunk_size);
	printf("%8s | %9s %9s %9s %9s | %9s %9s %9s | %8s %8s\n", "size", "chan", "pvw",
	       "memcpy", "ceil", "chan us", "pvw us", "memcpy us", "chan/pvw", "chan/ceil");
	for (auto &r : rows) {
		double cb = bw(r.size, r.chan), pb = bw(r.size, r.pvw);
		double ceilb = r.ceil > 0 ? bw(r.size, r.ceil) : 0;
		printf("%8s | %9.3f %9.3f %9.3f %9.3f | %9.2f %9.2f %9.2f | %8.2f %8s\n",
		       human(r.size).c_str(), cb, pb, bw(r.size, r.mcpy), ceilb, r.chan * 1e6,
		       r.pvw * 1e6, r.mcpy * 1e6, cb / pb,
		       ceilb > 0 ? std::to_string(cb / ceilb).substr(0, 5).c_str() : "-");
	}
	printf("scaling (%s per channel op): 1 channel %.3f GB/s, 2 channels %.3f GB/s, x%.2f\n",
	       human(ssz / 2).c_str(), t1 / 1e9, t2 / 1e9, t2 / t1);
	printf("scaling of userspace memcpy, same split: 1 thread %.3f GB/s, 2 threads %.3f GB/s, x%.2f\n",
	       m1 / 1e9, m2 / 1e9, m2 / m1);

	if (!json_path.empty()) {
		FILE *f = fopen(json_path.c_str(), "w");
		if (!f)
			die("json", errno);
		fprintf(f, "{\n  \"null_ioctl_us\": %.4f,\n  \"chunk_size\": %u,\n", nop * 1e6,
			inf.chunk_size);
		fprintf(f, "  \"scaling\": {\"bytes_per_op\": %zu, \"one_channel_gbps\": %.4f, "
			   "\"two_channels_gbps\": %.4f, \"ratio\": %.4f},\n",
			ssz / 2, t1 / 1e9, t2 / 1e9, t2 / t1);
		fprintf(f, "  \"memcpy_scaling\": {\"one_thread_gbps\": %.4f, "
			   "\"two_threads_gbps\": %.4f, \"ratio\": %.4f},\n",
			m1 / 1e9, m2 / 1e9, m2 / m1);
		fprintf(f, "  \"rows\": [\n");
		for (size_t i = 0; i < rows.size(); i++) {
			auto &r = rows[i];
			fprintf(f, "    {\"size\": %zu, \"chan_us\": %.4f, \"pvw_us\": %.4f, "
				   "\"memcpy_us\": %.4f, \"ceil_us\": %.4f, \"chan_gbps\": %.4f, "
				   "\"pvw_gbps\": %.4f, \"memcpy_gbps\": %.4f, \"ceil_gbps\": %.4f}%s\n",
				r.size, r.chan * 1e6, r.pvw * 1e6, r.mcpy * 1e6,
				r.ceil > 0 ? r.ceil * 1e6 : -1.0, bw(r.size, r.chan),
				bw(r.size, r.pvw), bw(r.size, r.mcpy),
				r.ceil > 0 ? bw(r.size, r.ceil) : -1.0,
				i + 1 < rows.size() ? "," : "");
		}
		fprintf(f, "  ]\n}\n");
		fclose(f);
	}
	close(ctx);
	return 0;
}
