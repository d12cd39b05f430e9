// SPDX-License-Identifier: MIT
// uct_bench: the gaudi_ipc transport against what it builds on, measured
// side by side in one run, in the VM.  Process A (this one, device 0)
// moves a device buffer into process B's device buffer (device 1):
//
//   chan    hlthunk_ipc_channel_copy, one synchronous copy per transfer
//           (the raw channel copy the bridge builds on)
//   bridge  uct_ep_put_zcopy on the channel path (UCX_GAUDI_IPC_CHANNELS=y),
//           each transfer waited for before the next
//   staged  uct_ep_put_zcopy on the staged path (=n): A's DMA engine into
//           B's pinned staging memory, B's DMA engine out of it, in
//           pipelined pieces
//   demo    the staged path as `hl-ipc demo` does it by hand: A's DMA
//           engine copies the whole buffer into shared pinned host memory,
//           a message to B, B's DMA engine copies it out, a reply
//
// and, for small transfers, the latency of one 8-byte put on each.  Every
// figure is the best of several rounds (other guests share the host);
// timing is printed, never asserted.  Every transfer's data is checked
// once per size.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hlthunk.h"
#include "peer.h"
#include "rkey_format.h"
#include "staged_dma.h"
#include "uct_env.h"

using namespace uct_test;

namespace {

struct Options {
	std::vector<uint64_t> sizes{8, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
	int rounds = 3;
	double min_time = 0.3;  // seconds per measurement
	std::string json;
};

double now()
{
	return std::chrono::duration<double>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

// Seconds per transfer: runs f until min_time has passed (at least 3
// times, at most 100000).
double per_op(double min_time, const std::function<bool()> &f)
{
	int n = 0;
	double t0 = now(), t;
	do {
		if (!f())
			return -1;
		n++;
		t = now() - t0;
	} while ((t < min_time || n < 3) && n < 100000);
	return t / n;
}

std::string human(uint64_t s)
{
	char b[32];
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		snprintf(b, sizeof(b), "%" PRIu64 " MiB", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(b, sizeof(b), "%" PRIu64 " KiB", s >> 10);
	else
		snprintf(b, sizeof(b), "%" PRIu64 " B", s);
	return b;
}

bool parse_sizes(const char *s, std::vector<uint64_t> *out)
{
	out->clear();
	while (*s) {
		char *end;
		uint64_t v = strtoull(s, &end, 10);
		if (end == s)
			return false;
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		if (!v || v > (256ull << 20))
			return false;
		out->push_back(v);
		if (*end == ',')
			end++;
		else if (*end)
			return false;
		s = end;
	}
	return !out->empty();
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: uct_bench [--sizes LIST] [--rounds N] [--min-time SECONDS]\n"
		"                 [--json FILE]\n"
		"\n"
		"Measures, in the VM with 'habanalabs_sim num_devices=2' and\n"
		"habanalabs_ipc loaded, device-to-device transfers between two\n"
		"processes: the raw channel copy, the gaudi_ipc transport's channel\n"
		"path and staged path, and the hand-written staged path of hl-ipc\n"
		"demo, plus 8-byte latency.  Prints a table (and JSON with --json).\n"
		"\n"
		"  --sizes LIST       bytes, K/M suffixes (default 8,4K,64K,1M,4M,16M,64M)\n"
		"  --rounds N         best of N rounds (default 3)\n"
		"  --min-time SECONDS per measurement (default 0.3)\n"
		"  --json FILE        also write the results as JSON\n"
		"  -h, --help         this text\n");
}

struct Row {
	uint64_t size;
	double chan, bridge, staged, demo;  // seconds per transfer
};

[[noreturn]] void fail(const char *what)
{
	fprintf(stderr, "uct_bench: %s: %s\n", what, hlthunk_ipc_last_error());
	exit(1);
}

}  // namespace

int main(int argc, char **argv)
{
	if (!load_plugin())
		return 2;
	if (argc == 4 && strcmp(argv[1], "--peer") == 0)
		return peer_main(atoi(argv[2]), atoi(argv[3]));
	Options opt;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&]() -> const char * {
			if (i + 1 >= argc) {
				fprintf(stderr, "uct_bench: %s needs a value\n", a.c_str());
				exit(2);
			}
			return argv[++i];
		};
		if (a == "-h" || a == "--help") {
			usage(stdout);
			return 0;
		} else if (a == "--sizes") {
			if (!parse_sizes(value(), &opt.sizes)) {
				fprintf(stderr, "uct_bench: bad --sizes (e.g. 8,4K,1M)\n");
				return 2;
			}
		} else if (a == "--rounds") {
			opt.rounds = std::max(1, atoi(value()));
		} else if (a == "--min-time") {
			opt.min_time = atof(value());
		} else if (a == "--json") {
			opt.json = value();
		} else {
			fprintf(stderr, "uct_bench: unknown argument '%s' (see --help)\n", a.c_str());
			return 2;
		}
	}
	const uint64_t max = *std::max_element(opt.sizes.begin(), opt.sizes.end());
	const uint64_t buf_size = (std::max<uint64_t>(max, 8) + 4095) & ~4095ull;

	int dev = open_device(0);
	if (dev < 0)
		fail("opening device 0 (load 'habanalabs_sim num_devices=2')");
	int peer_ctl = hlthunk_open_control(-1, sim_bus(1).c_str());
	if (peer_ctl < 0)
		fail("opening device 1's control node");
	Peer b(1);
	if (!b.ok()) {
		fprintf(stderr, "uct_bench: cannot start process B on device 1\n");
		return 1;
	}
	fprintf(stderr, "uct_bench: A pid %d, B pid %d, buffers of %s\n", (int)getpid(),
		(int)b.pid(), human(buf_size).c_str());

	// B's destination, registered through the transport; its remote key
	// also carries the cookie the raw channel copy uses.
	PeerMsg m = b.call(kAlloc, 1, buf_size);
	if (m.status)
		fail("allocating B's buffer");
	const uint64_t dst_id = m.a, dst_addr = m.b;
	m = b.call(kReg, dst_id, 0, 0, buf_size);
	if (m.status)
		fail("registering B's buffer");
	std::vector<uint8_t> packed(m.blob, m.blob + m.blob_len);
	gaudi_ipc::PackedRkey pk;
	memcpy(&pk, packed.data(), sizeof(pk));
	RemoteKey rk(packed);
	if (rk.status() != UCS_OK) {
		fprintf(stderr, "uct_bench: unpacking B's key: %s\n", ucs_status_string(rk.status()));
		return 1;
	}

	// A's source.
	Buffer src(Buffer::Device, buf_size, dev);
	if (!src.ok())
		fail("allocating A's buffer");
	fill(src.cpu(), buf_size, 3, 0);
	Registration reg(src.addr(), buf_size);
	if (reg.status() != UCS_OK) {
		fprintf(stderr, "uct_bench: registering A's buffer: %s\n",
			ucs_status_string(reg.status()));
		return 1;
	}

	// The raw channel: B's cookie imported, a channel A's device -> B's.
	uint64_t imported = 0, isize = 0;
	uint32_t channel = 0;
	if (hlthunk_ipc_import(peer_ctl, pk.cookie, &imported, &isize) < 0)
		fail("importing B's cookie");
	if (hlthunk_ipc_channel_create(dev, peer_ctl, &channel) < 0)
		fail("creating the channel");
	const uint64_t raw_dst = imported + pk.cookie_offset;

	// The transport, both paths.
	Iface ich(Config{{"CHANNELS", "y"}}), ist(Config{{"CHANNELS", "n"}});
	uct_ep_h ep_ch = nullptr, ep_st = nullptr;
	if (ich.open_status() != UCS_OK || ist.open_status() != UCS_OK ||
	    ich.connect(b.address(), &ep_ch) != UCS_OK ||
	    ist.connect(b.address(), &ep_st) != UCS_OK) {
		fprintf(stderr, "uct_bench: opening the transport failed\n");
		return 1;
	}

	// The demo's staged path: pinned host memory shared with B.
	m = b.call(kShm, 0, buf_size);
	if (m.status)
		fail("B's shared staging buffer");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)b.pid(), (int)m.a);
	int shm_fd = open(path, O_RDWR | O_CLOEXEC);
	void *shm = shm_fd < 0 ? MAP_FAILED
			       : mmap(nullptr, buf_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				      shm_fd, 0);
	if (shm == MAP_FAILED)
		fail("mapping B's shared buffer");
	uint64_t shm_va = hlthunk_host_memory_map(dev, shm, 0, buf_size);
	hlipc::StagedDma dma;
	if (!shm_va || dma.init(dev) < 0)
		fail("mapping the shared buffer on device 0");

	auto put = [&](const Iface &i, uct_ep_h ep, uint64_t len) {
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = src.ptr();
		iov.length = len;
		iov.memh = reg.memh();
		iov.count = 1;
		Completion c;
		ucs_status_t st;
		while ((st = uct_ep_put_zcopy(ep, &iov, 1, dst_addr, rk.rkey(), &c.comp)) ==
		       UCS_ERR_NO_RESOURCE)
			i.progress();
		if (st == UCS_INPROGRESS)
			st = i.wait(&c.done) ? c.status : UCS_ERR_TIMED_OUT;
		return st == UCS_OK;
	};
	auto chan = [&](uint64_t len) {
		return hlthunk_ipc_channel_copy(channel, dev, peer_ctl,
						reinterpret_cast<void *>(raw_dst), src.ptr(),
						len) == 0;
	};
	auto demo = [&](uint64_t len) {
		return dma.copy(shm_va, src.addr(), static_cast<uint32_t>(len)) == 0 &&
		       b.call(kDmaH2D, dst_id, 0, 0, len).status == 0;
	};
	auto verify = [&](const char *what, uint64_t len) {
		PeerMsg c = b.call(kCheck, dst_id, 3, 0, len, 0);
		if (c.status || c.a) {
			fprintf(stderr, "uct_bench: %s of %s: byte %" PRIu64 " wrong in B\n", what,
				human(len).c_str(), c.a - 1);
			exit(1);
		}
		b.call(kZero, dst_id);
	};

	// Each path once per size, data checked; then the timed rounds.
	for (uint64_t s : opt.sizes) {
		b.call(kZero, dst_id);
		if (!chan(s))
			fail("channel copy");
		verify("channel copy", s);
		if (!put(ich, ep_ch, s) || ich.flush(ep_ch) != UCS_OK)
			fail("bridge put (channel path)");
		verify("bridge put, channel path", s);
		if (!put(ist, ep_st, s) || ist.flush(ep_st) != UCS_OK)
			fail("bridge put (staged path)");
		verify("bridge put, staged path", s);
		if (!demo(s))
			fail("demo staged path");
		verify("demo staged path", s);
	}

	std::vector<Row> rows;
	for (uint64_t s : opt.sizes)
		rows.push_back(Row{s, 1e9, 1e9, 1e9, 1e9});
	for (int r = 0; r < opt.rounds; r++) {
		fprintf(stderr, "uct_bench: round %d of %d\n", r + 1, opt.rounds);
		for (auto &row : rows) {
			const uint64_t s = row.size;
			row.chan = std::min(row.chan, per_op(opt.min_time, [&] { return chan(s); }));
			row.bridge = std::min(row.bridge, per_op(opt.min_time, [&] {
						      return put(ich, ep_ch, s);
					      }));
			row.staged = std::min(row.staged, per_op(opt.min_time, [&] {
						      return put(ist, ep_st, s);
					      }));
			row.demo = std::min(row.demo, per_op(opt.min_time, [&] { return demo(s); }));
		}
	}

	// 8-byte latency: the raw copy, put_zcopy and put_short of the channel
	// path, interleaved, best of the rounds.
	double lat_chan = 1e9, lat_zcopy = 1e9, lat_short = 1e9;
	unsigned char eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	for (int r = 0; r < std::max(opt.rounds, 5); r++) {
		lat_chan = std::min(lat_chan, per_op(opt.min_time, [&] { return chan(8); }));
		lat_zcopy = std::min(lat_zcopy, per_op(opt.min_time, [&] {
					     return put(ich, ep_ch, 8);
				     }));
		lat_short = std::min(lat_short, per_op(opt.min_time, [&] {
					     return uct_ep_put_short(ep_ch, eight, 8, dst_addr,
								     rk.rkey()) == UCS_OK;
				     }));
	}

	printf("\nDevice buffer of process A (device 0) into process B's (device 1);\n");
	printf("MB/s per path, best of %d rounds:\n\n", opt.rounds);
	printf("  %8s %10s %10s %7s %10s %10s %7s %8s\n", "size", "chan", "bridge",
	       "br/ch", "staged", "demo", "st/demo", "br/st");
	for (auto &r : rows) {
		auto mbs = [&](double t) { return r.size / t / 1e6; };
		printf("  %8s %10.1f %10.1f %7.3f %10.1f %10.1f %7.3f %7.2fx\n",
		       human(r.size).c_str(), mbs(r.chan), mbs(r.bridge), r.chan / r.bridge,
		       mbs(r.staged), mbs(r.demo), r.demo / r.staged, r.staged / r.bridge);
	}
	printf("\n  chan    hlthunk_ipc_channel_copy (the raw channel copy)\n");
	printf("  bridge  uct_ep_put_zcopy, channel path, each transfer completed\n");
	printf("  staged  uct_ep_put_zcopy, staged path (DMA via pinned staging slots)\n");
	printf("  demo    hl-ipc demo's staged path (DMA, message, DMA, reply)\n");
	printf("  br/ch = bridge / chan bandwidth; st/demo = staged / demo;\n");
	printf("  br/st = the channel path's advantage over the staged path\n\n");
	printf("8-byte put latency: chan %.2f us, bridge put_zcopy %.2f us (%.3fx), "
	       "bridge put_short %.2f us (%.3fx)\n",
	       lat_chan * 1e6, lat_zcopy * 1e6, lat_zcopy / lat_chan, lat_short * 1e6,
	       lat_short / lat_chan);

	if (!opt.json.empty()) {
		FILE *f = fopen(opt.json.c_str(), "w");
		if (!f) {
			perror(opt.json.c_str());
			return 1;
		}
		fprintf(f, "{\n  \"rounds\": %d,\n  \"latency_8b_us\": {\"chan\": %.3f, "
			   "\"bridge_put_zcopy\": %.3f, \"bridge_put_short\": %.3f},\n"
			   "  \"sizes\": [\n",
			opt.rounds, lat_chan * 1e6, lat_zcopy * 1e6, lat_short * 1e6);
		for (size_t i = 0; i < rows.size(); i++) {
			auto &r = rows[i];
			fprintf(f,
				"    {\"size\": %" PRIu64 ", \"chan_mbs\": %.2f, \"bridge_mbs\": %.2f, "
				"\"staged_mbs\": %.2f, \"demo_mbs\": %.2f, \"bridge_over_chan\": %.4f, "
				"\"staged_over_demo\": %.4f, \"bridge_over_staged\": %.4f}%s\n",
				r.size, r.size / r.chan / 1e6, r.size / r.bridge / 1e6,
				r.size / r.staged / 1e6, r.size / r.demo / 1e6, r.chan / r.bridge,
				r.demo / r.staged, r.staged / r.bridge,
				i + 1 < rows.size() ? "," : "");
		}
		fprintf(f, "  ]\n}\n");
		fclose(f);
	}

	uct_ep_destroy(ep_ch);
	uct_ep_destroy(ep_st);
	hlthunk_memory_unmap(dev, shm_va);
	munmap(shm, buf_size);
	close(shm_fd);
	hlthunk_ipc_channel_destroy(channel);
	hlthunk_ipc_unimport(peer_ctl, imported);
	return 0;
}
