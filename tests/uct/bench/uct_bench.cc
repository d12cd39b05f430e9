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
//   demo    the staged path of `hl-ipc demo`, the same code
//           (hlipc::staged_transfer()): A's DMA engine copies into shared
//           pinned host memory, B's DMA engine copies it out, handed over
//           through shared memory (each side spins briefly, then sleeps),
//           pipelined in 512 KiB pieces beyond one piece
//
// and the latency of one 8-byte put.  The paths take turns, transfer by
// transfer, and each transfer is timed alone: the fastest of a path's
// transfers is its cost with the least disturbance from whatever else the
// host runs (a shared host makes QEMU's timing noisy).  All sizes are
// measured --runs times over; the table gives the median over the runs,
// and the ratios between paths, taken within each run, with their spread
// (single runs scatter by about 5% under TCG).  Timing is printed, never
// asserted.  Every path's data is checked once per size.
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <utility>
#include <string>
#include <vector>

#include "clocks.h"
#include "hlthunk.h"
#include "peer.h"
#include "rkey_format.h"
#include "size_list.h"
#include "spread.h"
#include "staged_transfer.h"
#include "uct_env.h"

using namespace uct_test;
using hltest::Spread;
using hltest::spread;

namespace {

struct Options {
	std::vector<uint64_t> sizes{8, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
	double scale = 1;  // times the default number of transfers per size
	int runs = 3;      // every size measured this many times over
	bool latency_only = false;
	std::string json;
};

double now()
{
	return std::chrono::duration<double>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

// When the transfer being timed began: a path that notes where its time
// goes reads this instead of the clock, so that every path is timed with
// the same clock reads (under TCG a read can cost microseconds).
double g_timed_start = 0;

// Seconds one call of f took.
double timed(const std::function<bool()> &f)
{
	const double t0 = now();
	g_timed_start = t0;
	if (!f()) {
		fprintf(stderr, "uct_bench: a transfer failed\n");
		exit(1);
	}
	return now() - t0;
}

// The fastest and the median of a path's timed transfers.
struct Stat {
	double best, median;
};
Stat summarize(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return Stat{v.front(), v[v.size() / 2]};
}

// Transfers per path for a size: enough to find an undisturbed one,
// bounded in time under TCG.
int reps_for(uint64_t size, double scale)
{
	int n = size <= 4096 ? 2000 : size <= 65536 ? 400 : size <= (1 << 20) ? 60
		: size <= (16 << 20) ? 15 : 5;
	return std::max(3, static_cast<int>(n * scale));
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: uct_bench [--sizes LIST] [--scale X] [--json FILE]\n"
		"\n"
		"Measures, in the VM with 'habanalabs_sim num_devices=2' and\n"
		"habanalabs_ipc loaded, device-to-device transfers between two\n"
		"processes: the raw channel copy, the gaudi_ipc transport's channel\n"
		"path and staged path, and the hand-written staged path of hl-ipc\n"
		"demo, plus 8-byte latency.  Prints a table (and JSON with --json).\n"
		"\n"
		"  --sizes LIST       bytes, K/M suffixes (default 8,4K,64K,1M,4M,16M,64M)\n"
		"  --scale X          X times the default number of transfers per size\n"
		"                     (default 1: 2000 small .. 5 at 64 MiB per path)\n"
		"  --runs N           measure every size N times over (default 3); the\n"
		"                     table gives medians, ratios with their spread\n"
		"  --latency-only     only the 8-byte latency (for valgrind --tool=callgrind)\n"
		"  --json FILE        also write the results as JSON\n"
		"  -h, --help         this text\n");
}

// One size in one run: seconds per transfer of each path.
struct Row {
	uint64_t size;
	int reps;
	Stat chan, bridge, staged, demo;
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
	set_peer_program(argv[0]);
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
			if (!hlipc::parse_size_list(value(), 256ull << 20, &opt.sizes)) {
				fprintf(stderr, "uct_bench: bad --sizes (e.g. 8,4K,1M)\n");
				return 2;
			}
		} else if (a == "--scale") {
			opt.scale = atof(value());
			if (!(opt.scale > 0)) {
				fprintf(stderr, "uct_bench: bad --scale\n");
				return 2;
			}
		} else if (a == "--runs") {
			opt.runs = atoi(value());
			if (opt.runs < 1) {
				fprintf(stderr, "uct_bench: bad --runs\n");
				return 2;
			}
		} else if (a == "--latency-only") {
			opt.latency_only = true;
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
		(int)b.pid(), hlipc::size_label(buf_size).c_str());

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

	// The demo's staged path: pinned host memory shared with B, and a
	// hand-over page.
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
	hlipc::PeerLink link;
	m = b.call(kLink);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)b.pid(), (int)m.a);
	int link_fd = m.status ? -1 : open(path, O_RDWR | O_CLOEXEC);
	if (link_fd < 0 || !link.attach(link_fd))
		fail("B's hand-over page");
	close(link_fd);
	link.watch(b.sock());
	// While the demo row is measured, B answers on the link, as the
	// demo's B does; its UCX async thread still serves the transport.
	struct DemoServing {
		Peer &b;
		hlipc::PeerLink &link;
		DemoServing(Peer &b_, hlipc::PeerLink &l, uint64_t dst) : b(b_), link(l)
		{
			if (!b.post(kServeStaged, dst))
				fail("B serving the demo's staged path");
		}
		~DemoServing()
		{
			hlipc::Msg quit{};
			quit.type = hlipc::kQuit;
			link.post(quit);
			if (b.reply().status)
				fail("B serving the demo's staged path");
		}
	};

	// Waiting for a completion spins on progress until nothing has
	// happened for a while, then arms the interface and sleeps on its
	// event fd, as UCP's wakeup mode lets a program do: the same spin,
	// then sleep as the demo's hand-over (hlipc::PeerLink), so that the
	// two staged paths wait alike.  Spinning for good would take the CPU
	// that B's serving needs on the VM's two vCPUs.
	int evfd_ch = -1, evfd_st = -1;
	if (uct_iface_event_fd_get(ich.iface(), &evfd_ch) != UCS_OK ||
	    uct_iface_event_fd_get(ist.iface(), &evfd_st) != UCS_OK) {
		fprintf(stderr, "uct_bench: no event fd\n");
		return 1;
	}
	// Where a staged transfer's time goes, per size of the run being
	// measured: the put_zcopy call (A's DMA into staging, the post, the
	// rings), the wait for B, and whether A went to sleep meanwhile.  The
	// call's end is the one clock read this adds to the transfer: the
	// demo's hand-over reads the clock once too, when it starts waiting.
	struct Phases {
		std::vector<double> call, wait;
		int slept = 0;
	};
	Phases *phases = nullptr;
	auto put = [&](const Iface &i, uct_ep_h ep, uint64_t len) {
		const bool noted = phases && &i == &ist;
		bool slept = false;
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
		const double t1 = noted ? now() : 0;
		if (st == UCS_INPROGRESS) {
			int fd = &i == &ich ? evfd_ch : evfd_st;
			const double spin = hlipc::PeerLink::kSpinNs * 1e-9;
			// The clock is read every 64 idle turns, as the demo's
			// hand-over does (under TCG a read can cost as much as a
			// turn of progress), and never on the way out: the spin
			// window starts, or starts again after progress did
			// something, at the next read.
			double spin_end = noted ? t1 + spin : 0;
			for (unsigned turn = 1; !c.done; turn++) {
				if (i.progress()) {
					spin_end = 0;
					continue;
				}
				if (turn % hlipc::kSpinTurnsPerClockRead)
					continue;
				const double t = now();
				if (spin_end == 0)
					spin_end = t + spin;
				if (t < spin_end)
					continue;
				if (uct_iface_event_arm(i.iface(), UCT_EVENT_SEND_COMP) == UCS_OK) {
					slept = true;
					struct pollfd p = {fd, POLLIN, 0};
					if (poll(&p, 1, 10000) == 0) {
						fprintf(stderr, "uct_bench: no completion in 10 s\n");
						return false;
					}
				}
			}
			st = c.status;
		}
		if (noted) {
			// The wait is the rest of the transfer's time (below).
			phases->call.push_back(t1 - g_timed_start);
			phases->slept += slept;
		}
		return st == UCS_OK;
	};
	auto chan = [&](uint64_t len) {
		return hlthunk_ipc_channel_copy(channel, dev, peer_ctl,
						reinterpret_cast<void *>(raw_dst), src.ptr(),
						len) == 0;
	};
	auto demo = [&](uint64_t len) {
		return hlipc::staged_transfer({dma, shm_va}, src.addr(), link, len) == 0;
	};
	auto verify = [&](const char *what, uint64_t len) {
		PeerMsg c = b.call(kCheck, dst_id, 3, 0, len, 0);
		if (c.status || c.a) {
			fprintf(stderr, "uct_bench: %s of %s: byte %" PRIu64 " wrong in B\n", what,
				hlipc::size_label(len).c_str(), c.a - 1);
			exit(1);
		}
		b.call(kZero, dst_id);
	};

	// Each path once per size, data checked; then the timed transfers.
	for (uint64_t s : opt.sizes) {
		if (opt.latency_only)
			break;
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
		{
			DemoServing serving(b, link, dst_id);
			if (!demo(s))
				fail("demo staged path");
		}
		verify("demo staged path", s);
	}

	// The paths take turns, one transfer each, in a rotating order; the
	// whole set of sizes is measured opt.runs times, a ratio taken within
	// each run.
	std::vector<std::vector<Row>> runs;
	std::vector<Phases> staged_phases(opt.sizes.size());
	for (int run = 0; run < opt.runs && !opt.latency_only; run++) {
		std::vector<Row> rows;
		for (uint64_t s : opt.sizes) {
			phases = &staged_phases[rows.size()];
			const int reps = reps_for(s, opt.scale);
			fprintf(stderr, "uct_bench: run %d of %d, %s, %d transfers per path\n",
				run + 1, opt.runs, hlipc::size_label(s).c_str(), reps);
			std::vector<double> t[4];
			const std::function<bool()> fs[4] = {
				[&] { return chan(s); }, [&] { return put(ich, ep_ch, s); },
				[&] { return put(ist, ep_st, s); }, [&] { return demo(s); }};
			{
				DemoServing serving(b, link, dst_id);
				for (int i = 0; i < reps; i++)
					for (int k = 0; k < 4; k++) {
						int p = (i + k) % 4;
						t[p].push_back(timed(fs[p]));
						if (p == 2)
							phases->wait.push_back(t[p].back() -
									       phases->call.back());
					}
			}
			rows.push_back(Row{s, reps, summarize(t[0]), summarize(t[1]),
					   summarize(t[2]), summarize(t[3])});
		}
		runs.push_back(rows);
	}
	phases = nullptr;

	// Per size: each path's MB/s (its fastest transfer, the median over
	// the runs) and the ratios between paths (taken in each run).
	struct Summary {
		uint64_t size;
		int reps;
		double chan, bridge, staged, demo;  // MB/s
		Spread br_ch, st_demo, br_st;
	};
	std::vector<Summary> sums;
	for (size_t k = 0; k < opt.sizes.size() && !runs.empty(); k++) {
		auto over = [&](auto f) {
			std::vector<double> v;
			for (auto &rows : runs)
				v.push_back(f(rows[k]));
			return spread(v);
		};
		const uint64_t size = opt.sizes[k];
		auto mbs = [&](double t) { return size / t / 1e6; };
		sums.push_back(Summary{
			size, runs[0][k].reps,
			over([&](const Row &r) { return mbs(r.chan.best); }).med,
			over([&](const Row &r) { return mbs(r.bridge.best); }).med,
			over([&](const Row &r) { return mbs(r.staged.best); }).med,
			over([&](const Row &r) { return mbs(r.demo.best); }).med,
			over([](const Row &r) { return r.chan.best / r.bridge.best; }),
			over([](const Row &r) { return r.demo.best / r.staged.best; }),
			over([](const Row &r) { return r.staged.best / r.bridge.best; })});
	}

	// 8-byte latency: the raw copy, put_zcopy and put_short of the channel
	// path, taking turns.
	unsigned char eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	std::vector<double> lt[3];
	const std::function<bool()> lf[3] = {
		[&] { return chan(8); }, [&] { return put(ich, ep_ch, 8); },
		[&] {
			return uct_ep_put_short(ep_ch, eight, 8, dst_addr, rk.rkey()) == UCS_OK;
		}};
	for (int i = 0; i < reps_for(8, opt.scale) * 2; i++)
		for (int k = 0; k < 3; k++) {
			int p = (i + k) % 3;
			lt[p].push_back(timed(lf[p]));
		}
	const Stat lat_chan = summarize(lt[0]), lat_zcopy = summarize(lt[1]), lat_short = summarize(lt[2]);

	printf("\nDevice buffer of process A (device 0) into process B's (device 1): MB/s\n");
	printf("of each path's fastest transfer, median of %d runs; ratios taken within\n",
	       opt.runs);
	printf("each run, median [lowest-highest]:\n\n");
	printf("  %8s %8s %8s %8s %8s  %-19s %-19s %s\n", "size", "chan", "bridge", "staged",
	       "demo", "br/ch", "st/demo", "br/st");
	auto cell = [](const Spread &x, const char *fmt) {
		char b[48];
		snprintf(b, sizeof(b), fmt, x.med, x.lo, x.hi);
		return std::string(b);
	};
	for (auto &r : sums)
		printf("  %8s %8.1f %8.1f %8.1f %8.1f  %-19s %-19s %s\n", hlipc::size_label(r.size).c_str(),
		       r.chan, r.bridge, r.staged, r.demo,
		       cell(r.br_ch, "%.3f [%.2f-%.2f]").c_str(),
		       cell(r.st_demo, "%.3f [%.2f-%.2f]").c_str(),
		       cell(r.br_st, "%.1fx [%.1f-%.1f]").c_str());
	printf("\n  chan    hlthunk_ipc_channel_copy (the raw channel copy)\n");
	printf("  bridge  uct_ep_put_zcopy, channel path, each transfer completed\n");
	printf("  staged  uct_ep_put_zcopy, staged path (DMA via pinned staging slots)\n");
	printf("  demo    hl-ipc demo's staged path, the same code: DMA, hand-over through\n");
	printf("          shared memory, DMA; pipelined in 512 KiB pieces beyond one\n");
	printf("  br/ch = bridge / chan; st/demo = staged / demo; br/st = the channel\n");
	printf("  path's advantage over the staged path (fastest transfers)\n\n");
	printf("Where a staged transfer's time goes, medians over all runs: the\n");
	printf("put_zcopy call (A's DMA into staging, post, rings), then the wait for\n");
	printf("B (its wake-up and DMA), and how often A went to sleep meanwhile:\n\n");
	for (size_t k = 0; k < staged_phases.size() && !runs.empty(); k++) {
		Phases &ph = staged_phases[k];
		if (ph.call.empty())
			continue;
		printf("  %8s  call %8.1f us  wait %8.1f us  asleep in %3.0f%%\n",
		       hlipc::size_label(opt.sizes[k]).c_str(), summarize(ph.call).median * 1e6,
		       summarize(ph.wait).median * 1e6, 100.0 * ph.slept / ph.call.size());
	}
	printf("\n");
	printf("8-byte put latency, fastest (median) of %zu each: chan %.2f (%.2f) us,\n",
	       lt[0].size(), lat_chan.best * 1e6, lat_chan.median * 1e6);
	printf("  bridge put_zcopy %.2f (%.2f) us = %.3fx (%.3fx), bridge put_short %.2f "
	       "(%.2f) us = %.3fx (%.3fx)\n",
	       lat_zcopy.best * 1e6, lat_zcopy.median * 1e6, lat_zcopy.best / lat_chan.best,
	       lat_zcopy.median / lat_chan.median, lat_short.best * 1e6,
	       lat_short.median * 1e6, lat_short.best / lat_chan.best,
	       lat_short.median / lat_chan.median);

	if (!opt.json.empty()) {
		FILE *f = fopen(opt.json.c_str(), "w");
		if (!f) {
			perror(opt.json.c_str());
			return 1;
		}
		auto us = [](const Stat &x) { return std::make_pair(x.best * 1e6, x.median * 1e6); };
		fprintf(f, "{\n  \"latency_8b_us\": {\"chan\": [%.3f, %.3f], "
			   "\"bridge_put_zcopy\": [%.3f, %.3f], \"bridge_put_short\": [%.3f, %.3f]},\n"
			   "  \"note\": \"latency [fastest, median]; MB/s of each path's fastest "
			   "transfer, median over the runs; ratios within each run, over the runs\",\n"
			   "  \"sizes\": [\n",
			us(lat_chan).first, us(lat_chan).second, us(lat_zcopy).first,
			us(lat_zcopy).second, us(lat_short).first, us(lat_short).second);
		auto js = hltest::spread_json;
		for (size_t i = 0; i < sums.size(); i++) {
			auto &r = sums[i];
			fprintf(f,
				"    {\"size\": %" PRIu64 ", \"transfers\": %d, \"runs\": %d, "
				"\"chan_mbs\": %.2f, \"bridge_mbs\": %.2f, \"staged_mbs\": %.2f, "
				"\"demo_mbs\": %.2f,\n     \"bridge_over_chan\": %s,\n"
				"     \"staged_over_demo\": %s,\n     \"bridge_over_staged\": %s}%s\n",
				r.size, r.reps, opt.runs, r.chan, r.bridge, r.staged, r.demo,
				js(r.br_ch).c_str(), js(r.st_demo).c_str(), js(r.br_st).c_str(),
				i + 1 < sums.size() ? "," : "");
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
