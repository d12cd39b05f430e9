// SPDX-License-Identifier: MIT
// hl-ipc demo.
//
// Process A (device 0) and process B (device 1) each own one device.  Each
// fills a source buffer in its device memory with its own byte pattern and
// registers a destination buffer; they swap the region cookies over a unix
// socket.  Then, for each size, A moves its buffer into B's device twice:
//   channel:    one hlthunk_ipc_channel_copy, device to device;
//   staged DMA: A's DMA engine copies device -> pinned host memory, B's DMA
//               engine copies host -> device (what runtimes do today);
// and, when UCX's gaudi_ipc transport is there, twice through it: on its
// channel path and on its staged path.  B checks every byte after each;
// B also copies back through its own channel and A checks.  A prints
// what each path achieved.
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "hlthunk.h"
#include "ipc_state.h"
#include "mapping.h"
#include "peer_msg.h"
#include "peer_pair.h"
#include "peer_side.h"
#include "size_list.h"
#include "staged_transfer.h"
#include "sysfs.h"

namespace hlipc {

namespace {

struct Options {
	std::vector<uint64_t> sizes{4096, 65536, 1 << 20, 8 << 20};
	bool ucx = true;
};

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
		.count();
}

struct Row {
	uint64_t size;
	int reps;
	double channel_s, staged_s;
	double ucx_s, ucx_staged_s;  // the UCX rows; 0: none
	// /dev/hl_ipc copies during the UCX channel-path row: 0 when the
	// transport moved the device memory by its staged path instead.
	uint64_t ucx_ipc_copies;
	// The staged path's parts, each measured alone, per transfer.
	double dma_a_s, handover_s, dma_b_s;
};

void check(const Side &a, const char *what, int32_t status, uint64_t size)
{
	if (status < 0)
		die(a, what, status);
	if (status > 0) {
		fprintf(stderr, "hl-ipc demo: %s: byte %d of %s is wrong\n", what,
			status - 1, size_label(size).c_str());
		_exit(1);
	}
}

// /dev/hl_ipc's counters, to tell which engine and path moved the bytes.
uint64_t ipc_copies_now()
{
	uint64_t v = 0;
	read_u64("/sys/class/misc/hl_ipc/stats/copies", &v);
	return v;
}

uint64_t dma_bytes_now()
{
	uint64_t v = 0;
	read_u64("/sys/class/misc/hl_ipc/stats/dma_bytes", &v);
	return v;
}

Row measure(Side &a, PeerLink &link, uint64_t size)
{
	Row r{size, size <= 65536 ? 50 : size <= (1 << 20) ? 10 : 3, 0, 0, 0, 0, 0, 0, 0, 0};

	// Each step ends the demo with a message if it fails.
	auto channel_copy = [&] {
		int rc = hlthunk_ipc_channel_copy(a.channel, a.fd, a.peer_ctl,
						  reinterpret_cast<void *>(a.peer_dst_va),
						  reinterpret_cast<void *>(a.src.va()), size);
		if (rc < 0)
			die(a, "copying through the channel", rc);
	};
	auto dma_to_host = [&] {
		int rc = a.dma.copy(a.host_va, a.src.va(), size);
		if (rc < 0)
			die(a, "DMA device -> host", rc);
	};
	auto verify_in_b = [&](const char *what) {
		check(a, what, request(link, kVerify, size, a.index + 1).status, size);
	};
	auto staged = [&] {
		check(a, "the staged DMA path", staged_transfer({a.dma, a.host_va}, a.src.va(), link, size), size);
	};
	auto clear_in_b = [&] {
		check(a, "clearing B's buffer", request(link, kClear, size).status, size);
	};
	// Seconds one() takes, the median of r.reps transfers: a transfer
	// that a wake-up of an idle vCPU or the host delayed does not move
	// it.
	auto per_transfer = [&](const auto &one) {
		std::vector<double> t;
		for (int i = 0; i < r.reps; i++) {
			auto t0 = std::chrono::steady_clock::now();
			one();
			t.push_back(seconds_since(t0));
		}
		std::sort(t.begin(), t.end());
		return t[t.size() / 2];
	};

	// One untimed transfer each way first: the first channel copy of a
	// buffer also exports and registers it (cached afterwards).
	if (a.channel)
		channel_copy();
	staged();
	clear_in_b();

	// Channel: one copy moves A's buffer into B's device memory.
	if (a.channel) {
		r.channel_s = per_transfer(channel_copy);
		verify_in_b("checking B's buffer after the channel copies");
		clear_in_b();
	}

	// Staged DMA: A device -> host, then B host -> device (pipelined).
	r.staged_s = per_transfer(staged);
	verify_in_b("checking B's buffer after the staged DMA");

	// Its parts one at a time: A's DMA, the hand-over (a message to B and
	// its answer), B's DMA (timed in B).
	r.dma_a_s = per_transfer(dma_to_host);
	r.handover_s = per_transfer(
		[&] { check(a, "a message to B", request(link, kPing).status, size); });
	int rc = request(link, kTimeH2D, size, r.reps).status;
	if (rc < 0)
		die(a, "DMA host -> device in B", rc);
	r.dma_b_s = rc * 1e-9;

	// UCX: the same buffers through the gaudi_ipc transport
	// (uct_ep_put_zcopy), on its channel path, then on its staged path,
	// one untimed transfer first.  B's part of the staged path is done
	// by B's transport (UCX's async thread) while B waits for requests.
	auto ucx_row = [&](UcxSide &u, const char *what) {
		clear_in_b();
		auto put = [&] {
			if (!u.put(a.src.va(), size, a.peer_dst_addr))
				die(a, what, -EIO);
		};
		put();
		double s = per_transfer(put);
		verify_in_b("checking B's buffer after the UCX puts");
		return s;
	};
	if (a.ucx) {
		const uint64_t copies = ipc_copies_now();
		r.ucx_s = ucx_row(*a.ucx, "putting through UCX (gaudi_ipc, channels)");
		r.ucx_ipc_copies = ipc_copies_now() - copies;
		r.ucx_staged_s = ucx_row(*a.ucx_staged,
					 "putting through UCX (gaudi_ipc, staged path)");
	}

	// And back: B's channel copies B's buffer into A's device memory.
	if (a.channel) {
		check(a, "clearing A's buffer", clear_device(a, a.dst.va(), size), size);
		check(a, "B copying back through its channel",
		      request(link, kCopyBack, size).status, size);
		check(a, "checking A's buffer after B's copy back",
		      verify_device(a, a.dst.va(), size, 2), size);
	}
	return r;
}

// Which engine of /dev/hl_ipc moved the channel's bytes: the DMA engine's
// counter grew while the demo ran, or it did not.
struct EngineSeen {
	uint64_t dma_bytes_before = 0, dma_bytes_after = 0;
	std::string dma_engine;  // its driver and device
};

std::string engine_used(const EngineSeen &e)
{
	if (e.dma_bytes_after == e.dma_bytes_before)
		return "the CPU (both devices' memory has a kernel mapping)";
	return "the DMA engine " + e.dma_engine + " (device memory without a CPU mapping)";
}

void print_table(const Side &a, const Peer &b, const std::vector<Row> &rows,
		 const std::string &no_ucx, const EngineSeen &engine)
{
	const bool ucx = a.ucx != nullptr;
	printf("\n");
	printf("Two processes, each owning one emulated Gaudi2 device, moved device\n");
	printf("buffers to each other:\n");
	printf("  process A (pid %d) owns device %d (PCI %s)\n", (int)getpid(),
	       a.index, a.bus.c_str());
	printf("  process B (pid %d) owns device %d (PCI %s)\n", (int)b.pid,
	       b.index, b.bus.c_str());
	printf("They registered their buffers with /dev/hl_ipc and swapped the\n");
	printf("region cookies over a unix socket.  Ways to move A's buffer into\n");
	printf("B's device memory:\n");
	printf("  channel     one copy, device to device (hlthunk_ipc_channel_copy)\n");
	if (a.channel)
		printf("              by %s\n", engine_used(engine).c_str());
	else
		printf("              none here: %s\n", a.no_channel.c_str());
	printf("  staged DMA  A's DMA engine copies device -> pinned host memory, then\n");
	printf("              B's DMA engine copies host -> device (LIN_DMA command\n");
	printf("              submissions; what runtimes do without channels)\n");
	const bool ucx_staged_only =
		ucx && std::all_of(rows.begin(), rows.end(),
				   [](const Row &r) { return r.ucx_ipc_copies == 0; });
	if (ucx) {
		printf("  UCX         uct_ep_put_zcopy of UCX's gaudi_ipc transport (the UCT\n");
		printf("              bridge; B registered its buffer with the transport\n");
		printf("              and gave A the remote key), on its channel path\n");
		if (ucx_staged_only)
			printf("              (no channel reaches device memory here: the\n"
			       "              transport moved it by its staged path)\n");
		printf("  UCX staged  the same on the transport's staged path (its DMA\n");
		printf("              fallback, UCX_GAUDI_IPC_CHANNELS=n)\n");
	}
	printf("\n");
	printf("  %8s  %14s  %14s  %6s", "size", "channel", "staged DMA", "ch/st");
	if (ucx)
		printf("  %14s  %6s  %14s  %6s", "UCX", "UCX/ch", "UCX staged", "UCX/st");
	printf("\n");
	auto mbs = [](uint64_t size, double s) { return size / s / 1e6; };
	for (auto &r : rows) {
		double ch = mbs(r.size, r.channel_s), st = mbs(r.size, r.staged_s);
		if (a.channel)
			printf("  %8s  %9.1f MB/s  %9.1f MB/s  %5.2fx", size_label(r.size).c_str(),
			       ch, st, ch / st);
		else
			printf("  %8s  %14s  %9.1f MB/s  %6s", size_label(r.size).c_str(), "-", st,
			       "-");
		if (ucx) {
			double u = mbs(r.size, r.ucx_s), us = mbs(r.size, r.ucx_staged_s);
			if (a.channel)
				printf("  %9.1f MB/s  %5.2fx  %9.1f MB/s  %5.2fx", u, u / ch, us,
				       us / st);
			else
				printf("  %9.1f MB/s  %6s  %9.1f MB/s  %5.2fx", u, "-", us, us / st);
		}
		printf("\n");
	}
	printf("\n");
	if (a.channel) {
		printf("Checked: every byte, in B after each path and in A after B copied its\n");
		printf("own buffer back through its channel.  MB/s of the median transfer;\n");
	} else {
		printf("Checked: every byte, in B after each path.  MB/s of the median\n");
		printf("transfer;\n");
	}
	printf("transfers per path:");
	for (size_t i = 0; i < rows.size(); i++)
		printf("%s %d at %s", i ? "," : "", rows[i].reps, size_label(rows[i].size).c_str());
	printf(".\n");
	printf("ch/st = channel bandwidth / staged DMA bandwidth (above 1: the channel\n");
	printf("is faster).\n");
	if (ucx)
		printf("UCX/ch, UCX/st = the transport's bandwidth on its channel path and on\n"
		       "its staged path over the path it stands for here (near 1: it costs\n"
		       "little on top).\n");
	else
		printf("No UCX row: %s.\n", no_ucx.c_str());
	printf("\n");
	printf("The staged path, part by part (us per transfer, each part measured\n");
	printf("alone in the same run):\n\n");
	printf("  %8s  %10s  %10s  %10s  %10s  %10s\n", "size", "staged DMA", "A's DMA",
	       "hand-over", "B's DMA", "sum");
	for (auto &r : rows)
		printf("  %8s  %10.1f  %10.1f  %10.1f  %10.1f  %10.1f\n",
		       size_label(r.size).c_str(), r.staged_s * 1e6, r.dma_a_s * 1e6,
		       r.handover_s * 1e6, r.dma_b_s * 1e6,
		       (r.dma_a_s + r.handover_s + r.dma_b_s) * 1e6);
	printf("\n");
	printf("A's DMA and B's DMA: one command submission with its wait, in each\n");
	printf("process; hand-over: one message to B and its answer, through shared\n");
	printf("memory (the waiting side spins up to 200 us, then sleeps on a futex).\n");
	printf("Up to %" PRIu64 " KiB a staged transfer is these three in a row, so it\n",
	       kStagedPiece >> 10);
	printf("should cost about their sum; beyond, it is pipelined (pieces of that size\n");
	printf("through two staging slots, A's DMA of one piece while B's DMA of the one\n");
	printf("before), so it should cost less.\n\n");
	printf("Reading the numbers: the devices are emulated and both paths copy with\n");
	printf("the CPU, so the MB/s are not Gaudi numbers.  Small sizes show the cost\n");
	printf("per transfer: one call for the channel, two command submissions and a\n");
	printf("hand-over between the processes for the staged path.  At large sizes\n");
	printf("the copy routine dominates, and under QEMU without KVM different\n");
	printf("kernel copy routines run at very different speeds, so either path may\n");
	printf("win there (see Documentation/libhlthunk.md, \"The demo\").\n");
}

// The UCX rows' set-up: A opens the transport twice (channels, staged
// path), B opens it once and registers its destination buffer.  Without
// it (no UCX, no transport installed) the demo goes on without the rows
// and says why.
std::string setup_ucx(Side &a, PeerLink &link, int sock)
{
	auto ucx = std::make_unique<UcxSide>();
	auto staged = std::make_unique<UcxSide>();
	if (!ucx->open())
		return "UCX: " + ucx->why();
	if (!staged->open(true))
		return "UCX: " + staged->why();
	if (request(link, kUcxSetup).status != 0) {
		recv_ucx_info(sock);
		return "UCX: process B could not open the gaudi_ipc transport";
	}
	UcxInfo info = recv_ucx_info(sock);
	std::vector<uint8_t> addr(info.data, info.data + info.addr_len);
	std::vector<uint8_t> rkey(info.data + info.addr_len,
				  info.data + info.addr_len + info.rkey_len);
	for (auto *u : {ucx.get(), staged.get()})
		if (!u->connect(addr, rkey) || !u->register_source(a.src.va(), a.src.size()))
			return "UCX: connecting to process B through gaudi_ipc failed";
	a.peer_dst_addr = info.dst_addr;
	a.ucx = std::move(ucx);
	a.ucx_staged = std::move(staged);
	return "";
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc demo [--sizes LIST] [--no-ucx]\n"
		"\n"
		"Runs two processes, A and B, each owning one device (the first two\n"
		"devices found; load 'habanalabs_sim num_devices=2' and\n"
		"habanalabs_ipc).  Each fills device memory, they swap region cookies\n"
		"over a unix socket, and A moves its buffer into B's device through a\n"
		"channel, through the staged DMA path and, when UCX's gaudi_ipc\n"
		"transport (uct-bridge) is installed, through UCX on each of the\n"
		"transport's two paths.  Every byte is checked, and a table compares\n"
		"the paths.\n"
		"\n"
		"options:\n"
		"  --no-ucx      leave out the UCX rows (the same buffers moved by UCX's\n"
		"                gaudi_ipc transport, when it is installed)\n"
		"  --sizes LIST  transfer sizes in bytes, with optional K or M suffix:\n"
		"                multiples of 4K up to 256M (default 4K,64K,1M,8M)\n"
		"  -h, --help    this text\n");
}

}  // namespace

int demo_main(int argc, char **argv)
{
	Options opt;
	bool help = false;
	std::string sizes;
	OptionParser opts("demo");
	opts.flag("help", 'h', &help);
	opts.value("sizes", 0, &sizes);
	bool no_ucx = false;
	opts.flag("no-ucx", 0, &no_ucx);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		usage(stdout);
		return kExitOk;
	}
	if (!args.empty())
		return usage_error("demo", "unexpected argument '" + args[0] + "'");
	if (!sizes.empty() &&
	    (!parse_size_list(sizes, 256ull << 20, &opt.sizes) ||
	     std::any_of(opt.sizes.begin(), opt.sizes.end(), [](uint64_t s) { return s % 4096; })))
		return usage_error("demo", "bad --sizes '" + sizes +
						   "': multiples of 4K up to 256M, e.g. 4K,1M");

	uint64_t max_size = 0;
	for (auto s : opt.sizes)
		max_size = std::max(max_size, s);
	Pair pair;
	if (start_pair("hl-ipc demo", max_size, &pair))
		return 1;
	std::string why_no_ucx = "left out (--no-ucx)";
	if (!no_ucx)
		why_no_ucx = setup_ucx(*pair.a, pair.link, pair.sock);
	EngineSeen engine;
	DmaEngine e;
	if (dma_engine(read_ipc_state(), &e))
		engine.dma_engine = e.driver + " on " + e.device;
	engine.dma_bytes_before = dma_bytes_now();
	std::vector<Row> rows;
	for (auto s : opt.sizes)
		rows.push_back(measure(*pair.a, pair.link, s));
	engine.dma_bytes_after = dma_bytes_now();
	if (finish_pair(&pair))
		return 1;
	print_table(*pair.a, pair.b, rows, why_no_ucx, engine);
	return 0;
}

}  // namespace hlipc
