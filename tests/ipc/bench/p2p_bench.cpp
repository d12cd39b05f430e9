// SPDX-License-Identifier: GPL-2.0
// Peer-to-peer benchmark, run inside a guest with two Gaudi-host devices
// and the stand-in DMA engine behind one PCIe switch, on a kernel that
// allows peer to peer (tests/ipc/bench/run-p2p-bench.sh).  For each size
// it measures, device 0's memory into device 1's:
//   chan - a synchronous channel copy between the two devices' dma-bufs,
//          registered with /dev/hl_ipc (the module's DMA engine path)
//   raw  - the same bytes copied by the same engine through its dmaengine
//          interface alone, as any client would, on a channel of its own
//          (hl_ipc_testdma's probe, /sys/kernel/debug/hl_ipc_testdma/raw)
// The two take turns round by round, so that a slow spell of the host
// falls on both; each round's ratio is taken within the round.  Checks the
// bytes once per size, prints a table and writes JSON; asserts nothing
// about timing.
//
// usage: p2p_bench [--sizes 65536,...] [--rounds N] [--min-time SEC] [--json FILE]
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_ipc.h"
#include "habanalabs_ipc.h"
#include "sim_device_memory.h"
#include "spread.h"

namespace {

using clk = std::chrono::steady_clock;
using hltest::SimDeviceMemory;
using hltest::Spread;
using hltest::spread;

const char *const kProbe = "/sys/kernel/debug/hl_ipc_testdma/raw";

void die(const char *what, int err)
{
	fprintf(stderr, "p2p_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

using hlbench::xioctl;

uint64_t reg_dmabuf(int ctx, int dmabuf, int dev)
{
	hl_ipc_region_register r{};
	r.type = HL_IPC_REGION_DMABUF;
	r.flags = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
	r.fd = dmabuf;
	r.dev_fd = dev;
	int ret = xioctl(ctx, HL_IPC_IOCTL_REGION_REGISTER, &r);
	if (ret)
		die("registering device memory (is peer to peer allowed? see hl-ipc status)", ret);
	return r.cookie;
}

uint64_t reg_user(int ctx, void *p, uint64_t len)
{
	uint64_t cookie = 0;
	int ret = hlbench::reg_user(ctx, p, len, &cookie);
	if (ret)
		die("registering host memory", ret);
	return cookie;
}

uint32_t channel(int ctx, int src_fd, int dst_fd)
{
	uint32_t id = 0;
	int ret = hlbench::create_channel(ctx, src_fd, dst_fd, &id);
	if (ret)
		die("creating a channel", ret);
	return id;
}

int copy(int ctx, uint32_t ch, uint64_t src, uint64_t dst, uint64_t len)
{
	hl_ipc_copy c{};
	c.channel_id = ch;
	c.src_cookie = src;
	c.dst_cookie = dst;
	c.length = len;
	return xioctl(ctx, HL_IPC_IOCTL_COPY, &c);
}

unsigned char pattern(uint64_t i)
{
	return static_cast<unsigned char>((i * 2654435761u) >> 13);
}

// Seconds per copy of n copies through the probe.
double raw_copies(int src, int dst, uint64_t size, uint64_t n)
{
	int fd = open(kProbe, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(kProbe, -errno);
	char cmd[96];
	int len = snprintf(cmd, sizeof(cmd), "%d %d %llu %llu", src, dst,
			   static_cast<unsigned long long>(size), static_cast<unsigned long long>(n));
	if (write(fd, cmd, len) != len)
		die("the engine's raw copy", -errno);
	char out[32] = {};
	if (pread(fd, out, sizeof(out) - 1, 0) <= 0)
		die("reading the probe", -errno);
	close(fd);
	return strtoull(out, nullptr, 10) * 1e-9 / n;
}

struct Options {
	std::vector<uint64_t> sizes{64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
	int rounds = 5;
	double min_time = 0.2;
	std::string json;
};

Options parse(int argc, char **argv)
{
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
		if (a == "--sizes" && v) {
			o.sizes.clear();
			for (char *p = argv[++i]; *p;) {
				char *end;
				o.sizes.push_back(strtoull(p, &end, 0));
				p = *end ? end + 1 : end;
			}
		} else if (a == "--rounds" && v) {
			o.rounds = std::max(1, atoi(argv[++i]));
		} else if (a == "--min-time" && v) {
			o.min_time = atof(argv[++i]);
		} else if (a == "--json" && v) {
			o.json = argv[++i];
		} else {
			fprintf(stderr, "usage: p2p_bench [--sizes 65536,...] [--rounds N] "
					"[--min-time SEC] [--json FILE]\n");
			exit(a == "--help" || a == "-h" ? 0 : 2);
		}
	}
	return o;
}

struct Row {
	uint64_t size;
	std::vector<double> chan_s, raw_s, ratio;  // per round
};

}  // namespace

int main(int argc, char **argv)
{
	Options o = parse(argc, argv);
	const uint64_t max = *std::max_element(o.sizes.begin(), o.sizes.end());
	SimDeviceMemory d0(0, max), d1(1, max);
	if (d0.err() || d1.err())
		die("allocating device memory on /dev/hlsim0 and /dev/hlsim1",
		    d0.err() ? d0.err() : d1.err());
	int ctx = open("/dev/hl_ipc", O_RDWR | O_CLOEXEC);
	if (ctx < 0)
		die("/dev/hl_ipc", -errno);
	const uint64_t k0 = reg_dmabuf(ctx, d0.dmabuf(), d0.dev());
	const uint64_t k1 = reg_dmabuf(ctx, d1.dmabuf(), d1.dev());
	void *m = mmap(nullptr, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap", -errno);
	auto *host = static_cast<unsigned char *>(m);
	for (uint64_t i = 0; i < max; i++)
		host[i] = pattern(i);
	const uint64_t kh = reg_user(ctx, host, max);
	const uint32_t up = channel(ctx, HL_IPC_FD_HOST, d0.dev());
	const uint32_t ch = channel(ctx, d0.dev(), d1.dev());
	const uint32_t down = channel(ctx, d1.dev(), HL_IPC_FD_HOST);
	int ret = copy(ctx, up, kh, k0, max);
	if (ret)
		die("filling device 0", ret);

	std::vector<Row> rows;
	for (uint64_t s : o.sizes)
		rows.push_back({s, {}, {}, {}});
	// Copies per figure, from one calibration copy each, so that a figure
	// takes about min_time.
	std::vector<uint64_t> reps;
	for (auto &r : rows) {
		auto t0 = clk::now();
		if ((ret = copy(ctx, ch, k0, k1, r.size)))
			die("a channel copy", ret);
		double one = std::chrono::duration<double>(clk::now() - t0).count();
		reps.push_back(std::max<uint64_t>(3, static_cast<uint64_t>(o.min_time / one)));
		// Every byte, once per size: device 1 back to host memory.
		memset(host, 0, r.size);
		if ((ret = copy(ctx, down, k1, kh, r.size)))
			die("reading device 1 back", ret);
		for (uint64_t i = 0; i < r.size; i++)
			if (host[i] != pattern(i)) {
				fprintf(stderr, "p2p_bench: byte %llu of %llu is wrong after the "
						"channel copy\n", static_cast<unsigned long long>(i),
					static_cast<unsigned long long>(r.size));
				return 1;
			}
		for (uint64_t i = 0; i < r.size; i++)
			host[i] = pattern(i);
	}
	for (int round = 0; round < o.rounds; round++) {
		fprintf(stderr, "p2p_bench: round %d of %d\n", round + 1, o.rounds);
		for (size_t i = 0; i < rows.size(); i++) {
			Row &r = rows[i];
			auto t0 = clk::now();
			for (uint64_t k = 0; k < reps[i]; k++)
				if ((ret = copy(ctx, ch, k0, k1, r.size)))
					die("a channel copy", ret);
			double c = std::chrono::duration<double>(clk::now() - t0).count() / reps[i];
			double w = raw_copies(d0.dmabuf(), d1.dmabuf(), r.size, reps[i]);
			r.chan_s.push_back(c);
			r.raw_s.push_back(w);
			r.ratio.push_back(w / c);
		}
	}

	printf("\nDevice 0 -> device 1 (peer to peer, through the stand-in engine), "
	       "%d rounds:\n\n", o.rounds);
	printf("  %8s  %12s  %12s  %22s\n", "size", "channel MB/s", "raw MB/s",
	       "channel / raw [lo-hi]");
	for (auto &r : rows) {
		Spread c = spread(r.chan_s), w = spread(r.raw_s), q = spread(r.ratio);
		printf("  %7lluK  %12.1f  %12.1f  %8.2f [%.2f-%.2f]\n",
		       static_cast<unsigned long long>(r.size >> 10), r.size / c.med / 1e6,
		       r.size / w.med / 1e6, q.med, q.lo, q.hi);
	}
	printf("\nchannel / raw: the engine's raw copy time over the channel's, per round\n"
	       "(1.00: the channel adds nothing to the engine's own copy).\n");
	if (!o.json.empty()) {
		FILE *f = fopen(o.json.c_str(), "w");
		if (!f)
			die(o.json.c_str(), -errno);
		fprintf(f, "{\"rounds\":%d,\"sizes\":[", o.rounds);
		for (size_t i = 0; i < rows.size(); i++) {
			Spread c = spread(rows[i].chan_s), w = spread(rows[i].raw_s),
			       q = spread(rows[i].ratio);
			fprintf(f, "%s{\"size\":%llu,\"channel_s\":%s,\"raw_s\":%s,\"ratio\":%s}",
				i ? "," : "", static_cast<unsigned long long>(rows[i].size),
				hltest::spread_json(c).c_str(), hltest::spread_json(w).c_str(),
				hltest::spread_json(q).c_str());
		}
		fprintf(f, "]}\n");
		fclose(f);
	}
	close(ctx);
	munmap(m, max);
	return 0;
}
