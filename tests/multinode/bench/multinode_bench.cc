// SPDX-License-Identifier: MIT
// multinode_bench: device memory of host A into device memory of host B,
// over soft-RoCE, against host memory over the same link, side by side:
//
//   device   A's device memory -> B's, both registered with
//            hlthunk_verbs_reg_device_memory(HLTHUNK_VERBS_REG_ALLOW_STAGED).
//            Where the NIC reaches device memory (a dma-buf memory region,
//            or on soft-RoCE over RAM-backed devices a CPU mapping), one
//            RDMA WRITE.  On a Gaudi host without peer to peer (run-vm
//            --gaudi-host) the registrations are staged, and the transfer
//            goes in 1 MiB pieces: A syncs a piece for the NIC (its DMA
//            engine, device -> stage) and writes it, B syncs it for the
//            device (stage -> device) when it lands, so that A's DMA of
//            one piece, the link's transfer of the next and B's DMA of
//            the one before overlap
//   host     host -> host RDMA WRITE of the same bytes over the same link
//   dma      A's DMA engine device -> host alone (the staged path's first leg)
//   channel  within host A, device 0 -> device 1 by a /dev/hl_ipc channel
//            copy: the intra-host path, for scale (RAM-backed devices only:
//            on a Gaudi host the channel has no engine for device memory)
//
// Every transfer ends when B has the bytes in its device memory (or, for
// host, in its host memory) and has said so (a SEND back to A; the writes
// carry an immediate that wakes B), so every path pays the same
// notification.  The paths take turns transfer by transfer; a path's figure
// in a run is its fastest transfer; ratios are taken within a run and
// reported as the median over the runs with the lowest and highest.
// Before measuring, the device path is checked once: B reads its device
// memory with its own DMA engine.
//
//   multinode_bench initiator --self ADDR --peer ADDR [--runs N]
//                   [--sizes LIST] [--json FILE] [--smoke]
//   multinode_bench target --self ADDR
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"
#include "hl/unique_fd.h"
#include "hlthunk_verbs.h"
#include "mapping.h"
#include "oob_link.h"
#include "rc_qp.h"
#include "spread.h"
#include "staged_dma.h"

namespace mntest {
namespace {

constexpr uint16_t kPort = 18700;
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kPiece = kMiB;  // the staged path's piece
constexpr uint32_t kWindow = 8;    // pieces in flight (B has 16 receives)
constexpr uint32_t kAckEvery = 4;  // B acknowledges every fourth piece and the last
constexpr uint32_t kLastPiece = 1u << 23;  // in a kStaged immediate's arg
constexpr uint32_t kPatternSeed = 0x5eed;
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ;

// What a write's immediate (or a send's) asks of B: op in the top byte,
// a piece index or a size in KiB below.
enum Op : uint32_t {
	kDirect = 1, // data is in B's device memory: acknowledge
	kStaged,     // piece arg (| kLastPiece) is in B's stage: sync it for the
		     // device; acknowledge every kAckEvery-th piece and the last
	kRdma,       // data is in B's host memory: acknowledge
	kClear,      // zero B's device memory (arg KiB), then acknowledge
	kVerify,     // check B's device memory (arg KiB) for A's pattern; the
		     // acknowledgment's arg is 0 if it matches
	kStop,
};
uint32_t imm_of(uint32_t op, uint32_t arg) { return op << 24 | (arg & 0xffffff); }

[[noreturn]] void die(const std::string &what)
{
	fprintf(stderr, "multinode_bench: %s\n", what.c_str());
	exit(1);
}

int wait_ms(int ms) { return ms * timeout_factor(); }

// What both hosts hold: a verbs port and QP to the other host, a device
// with its DMA engine, max bytes of device memory and of pinned host
// memory registered with the NIC (the host memory also mapped for the
// device, to fill and check the device memory).
class Side {
public:
	Side() = default;
	Side(const Side &) = delete;
	Side &operator=(const Side &) = delete;
	~Side();
	void open(const std::string &self, uint64_t max);
	void connect(OobLink &link, bool first);
	// The next completion of a receive, in order, reaping send
	// completions on the way; a new receive is posted in its place.
	Completion next_recv();
	bool staged() const
	{
		return hlthunk_verbs_mr_path(dev_mr) == HLTHUNK_VERBS_PATH_STAGED;
	}
	// Syncs [off, off + len) of the device memory's registration.
	void sync(uint64_t off, uint64_t len, int direction);

	// Destroyed in reverse: the device's memory and DMA engine before
	// the device, everything before the verbs port.
	VerbsPort port;
	hl::UniqueFd dev_fd;
	int fd = -1;
	RcQp qp;
	hlipc::StagedDma dma;
	hlipc::DeviceBuffer dev;
	hlthunk_verbs_mr *dev_mr = nullptr;
	hlipc::Mapping host;
	ibv_mr *host_mr = nullptr;
	uint64_t host_va = 0;  // the host memory's device address
	uint64_t max = 0;
	// The other host's.
	uint64_t peer_dev = 0, peer_host = 0;
	uint32_t peer_dev_rkey = 0, peer_host_rkey = 0;
	uint64_t next_wr = 1;
	std::deque<Completion> recvs;  // received, not yet handled
};

struct KeyMsg {
	QpInfo qp;
	uint64_t dev, host;
	uint32_t dev_rkey, host_rkey;
};

Side::~Side()
{
	qp.destroy();
	if (host_mr)
		ibv_dereg_mr(host_mr);
	if (host_va)
		hlthunk_memory_unmap(fd, host_va);
	hlthunk_verbs_dereg_mr(dev_mr);
}

void Side::open(const std::string &self, uint64_t size)
{
	std::string why;
	max = size;
	const char *rdev = getenv("HL_RDMA_DEV");
	if (port.open(rdev ? rdev : "rxe_link", self, &why))
		die(why);
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd < 0)
		die("no emulated Gaudi device (habanalabs_sim num_devices=2)");
	dev_fd.reset(fd);
	if (dma.init(fd) || dev.create(fd, max))
		die("the device's DMA engine or memory");
	if (hlthunk_verbs_reg_device_memory(port.pd(), fd, dev.va(), max, kAccess,
					    HLTHUNK_VERBS_REG_ALLOW_STAGED, &dev_mr))
		die(std::string("registering device memory: ") + hlthunk_verbs_last_error());
	host = hlipc::Mapping::map(max, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!host.valid())
		die("host memory");
	host_mr = ibv_reg_mr(port.pd(), host.get(), max, kAccess);
	host_va = hlthunk_host_memory_map(fd, host.get(), 0, max);
	if (!host_mr || !host_va)
		die("registering host memory with the NIC and the device");
	if (qp.create(port, &why))
		die(why);
}

void Side::connect(OobLink &link, bool first)
{
	KeyMsg mine{qp.info(), dev.va(), reinterpret_cast<uint64_t>(host.get()),
		    hlthunk_verbs_mr_ibv(dev_mr)->rkey, host_mr->rkey};
	KeyMsg theirs;
	std::string why;
	if (first) {
		if (link.send_pod(mine) || link.recv_pod(&theirs, wait_ms(120000)))
			die("exchanging keys");
	} else {
		if (link.recv_pod(&theirs, wait_ms(120000)) || link.send_pod(mine))
			die("exchanging keys");
	}
	// A retransmission timer of 4.096 us x 2^16 (268 ms): with the 67 ms
	// of the tests, a TCG guest that the host holds back acknowledges
	// late, and the sender sends whole writes again for nothing (seen as
	// soft-RoCE's duplicate_request counter).
	if (qp.connect(theirs.qp, &why, 16))
		die(why);
	// Receives need a QP out of RESET.
	for (int i = 0; i < RcQp::kDepth; i++)
		if (qp.post_recv(0))
			die("posting receives");
	peer_dev = theirs.dev;
	peer_host = theirs.host;
	peer_dev_rkey = theirs.dev_rkey;
	peer_host_rkey = theirs.host_rkey;
	// Both QPs are ready to receive before anyone writes.
	uint8_t ok = 1;
	if (link.send_pod(ok) || link.recv_pod(&ok, wait_ms(120000)))
		die("the other host did not connect");
}

void Side::sync(uint64_t off, uint64_t len, int direction)
{
	if (off > max || len > max - off ||
	    hlthunk_verbs_mr_sync(dev_mr, dev.va() + off, len, direction))
		die(std::string("syncing the device memory's stage: ") +
		    hlthunk_verbs_last_error());
}

Completion Side::next_recv()
{
	while (recvs.empty()) {
		auto c = qp.wait(1, wait_ms(120000));
		if (c.empty())
			die("no completion within the timeout");
		for (auto &x : c) {
			if (x.status != IBV_WC_SUCCESS)
				die(std::string("a work request failed: ") +
				    ibv_wc_status_str(x.status));
			// Several may come at once (the staged path has two
			// pieces out): keep them in order.
			if (x.opcode & IBV_WC_RECV) {
				recvs.push_back(x);
				if (qp.post_recv(0))
					die("posting a receive");
			}
		}
	}
	Completion r = recvs.front();
	recvs.pop_front();
	return r;
}

// --- B -------------------------------------------------------------------
void target(const std::string &self, uint64_t max)
{
	Side s;
	s.open(self, max);
	OobListener l;
	OobLink link;
	std::string why;
	if (l.listen_on(self, kPort, &why) || l.accept_one(&link, wait_ms(300000), &why))
		die(why);
	s.connect(link, false);
	for (;;) {
		Completion c = s.next_recv();
		uint32_t op = c.imm >> 24, arg = c.imm & 0xffffff, reply = c.imm;
		if (op == kStop)
			break;
		if (op == kStaged) {
			// Piece arg landed in the stage: into the device.
			uint32_t piece = arg & ~kLastPiece;
			if (c.byte_len > kPiece)
				die("a piece larger than a piece");
			s.sync(uint64_t(piece) * kPiece, c.byte_len,
			       HLTHUNK_VERBS_SYNC_FOR_DEVICE);
			// Acknowledgments cost the link's CPUs too: one for
			// several pieces, saying up to which one.
			if (!(arg & kLastPiece) && (piece + 1) % kAckEvery)
				continue;
			reply = imm_of(kStaged, piece);
		} else if (op == kClear || op == kVerify) {
			uint64_t len = std::min<uint64_t>(uint64_t(arg) * 1024, max);
			if (op == kClear) {
				memset(s.host.bytes(), 0, len);
				if (s.dma.copy(s.dev.va(), s.host_va, len))
					die("clearing device memory");
				if (s.staged())
					s.sync(0, len, HLTHUNK_VERBS_SYNC_FOR_NIC);
			} else {
				memset(s.host.bytes(), 0, len);
				if (s.dma.copy(s.host_va, s.dev.va(), len))
					die("reading device memory");
				reply = imm_of(kVerify, hlipc::check_pattern(s.host.bytes(), len,
									    kPatternSeed) == -1 ? 0 : 1);
			}
		}
		if (s.qp.post(IBV_WR_SEND_WITH_IMM, nullptr, 0, 0, 0, 0, s.next_wr++, reply))
			die("acknowledging");
	}
}

// --- A -------------------------------------------------------------------
class Initiator {
public:
	int run(const std::string &self, const std::string &peer, int runs,
		std::vector<uint64_t> sizes, const std::string &json, bool smoke);

private:
	double device(uint64_t len);
	double host(uint64_t len);
	double dma(uint64_t len);
	double channel(uint64_t len);
	uint32_t ask(uint32_t op, uint32_t arg);
	void write_imm(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		       uint32_t rkey, uint32_t imm);
	void verify(const char *name, uint64_t len, double (Initiator::*path)(uint64_t));

	Side s_;
	hl::UniqueFd fd1_owner_;  // device 1 of host A, for the channel
	int fd1_ = -1;
	hlipc::DeviceBuffer dev1_;
	uint32_t channel_ = 0;
};

void Initiator::write_imm(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
			  uint32_t rkey, uint32_t imm)
{
	if (s_.qp.post(IBV_WR_RDMA_WRITE_WITH_IMM, local, lkey, len, raddr, rkey,
		       s_.next_wr++, imm))
		die("posting a write");
}

uint32_t Initiator::ask(uint32_t op, uint32_t arg)
{
	if (s_.qp.post(IBV_WR_SEND_WITH_IMM, nullptr, 0, 0, 0, 0, s_.next_wr++, imm_of(op, arg)))
		die("posting a request");
	return s_.next_recv().imm & 0xffffff;
}

double Initiator::device(uint64_t len)
{
	int64_t t0 = now_us();
	const uint32_t lkey = hlthunk_verbs_mr_ibv(s_.dev_mr)->lkey;
	if (!s_.staged()) {
		write_imm(reinterpret_cast<void *>(s_.dev.va()), lkey, len, s_.peer_dev,
			  s_.peer_dev_rkey, imm_of(kDirect, 0));
		s_.next_recv();
		return double(now_us() - t0);
	}
	// Both registrations are staged: piece k + 1 leaves A's device while
	// piece k crosses the link and B moves piece k - 1 into its device.
	const uint32_t n = uint32_t((len + kPiece - 1) / kPiece);
	uint32_t next = 0, acked = 0;
	while (acked < n) {
		while (next < n && next - acked < kWindow) {
			uint64_t off = uint64_t(next) * kPiece;
			uint64_t piece = std::min(kPiece, len - off);
			s_.sync(off, piece, HLTHUNK_VERBS_SYNC_FOR_NIC);
			uint32_t arg = next + 1 == n ? next | kLastPiece : next;
			write_imm(reinterpret_cast<void *>(s_.dev.va() + off), lkey, piece,
				  s_.peer_dev + off, s_.peer_dev_rkey, imm_of(kStaged, arg));
			next++;
		}
		// Every piece up to the acknowledged one is in B's device.
		uint32_t upto = s_.next_recv().imm & 0xffffff;
		if (upto < acked || upto >= next)
			die("an acknowledgment of a piece not in flight");
		acked = upto + 1;
	}
	return double(now_us() - t0);
}

double Initiator::host(uint64_t len)
{
	int64_t t0 = now_us();
	write_imm(s_.host.get(), s_.host_mr->lkey, len, s_.peer_host, s_.peer_host_rkey,
		  imm_of(kRdma, 0));
	s_.next_recv();
	return double(now_us() - t0);
}

double Initiator::dma(uint64_t len)
{
	int64_t t0 = now_us();
	if (s_.dma.copy(s_.host_va, s_.dev.va(), len))
		die("DMA");
	return double(now_us() - t0);
}

double Initiator::channel(uint64_t len)
{
	int64_t t0 = now_us();
	int rc = hlthunk_ipc_channel_copy(channel_, s_.fd, fd1_, reinterpret_cast<void *>(dev1_.va()),
					  reinterpret_cast<void *>(s_.dev.va()), len);
	if (rc)
		die(std::string("channel copy: ") + strerror(-rc));
	return double(now_us() - t0);
}

void Initiator::verify(const char *name, uint64_t len, double (Initiator::*path)(uint64_t))
{
	uint32_t kib = uint32_t(len / 1024);
	ask(kClear, kib);
	(this->*path)(len);
	if (ask(kVerify, kib) != 0)
		die(std::string("the ") + name + " path did not deliver A's bytes to B's device memory");
	printf("checked: %s path, %" PRIu64 " bytes in B's device memory\n", name, len);
}

int Initiator::run(const std::string &self, const std::string &peer, int runs,
		   std::vector<uint64_t> sizes, const std::string &json, bool smoke)
{
	uint64_t max = *std::max_element(sizes.begin(), sizes.end());
	s_.open(self, max);
	OobLink link;
	std::string why;
	if (link.connect_to(peer, kPort, wait_ms(300000), &why))
		die(why);
	s_.connect(link, true);
	// A's device memory holds a pattern B can check.
	hlipc::fill_pattern(s_.host.bytes(), max, kPatternSeed);
	if (s_.dma.copy(s_.dev.va(), s_.host_va, max))
		die("filling device memory");
	// The channel, for scale, where the kernel has an engine for this
	// device memory (RAM-backed devices: the CPU).
	std::string no_channel;
	fd1_ = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd1_ >= 0)
		fd1_owner_.reset(fd1_);
	if (fd1_ < 0 || dev1_.create(fd1_, max))
		die("a second device (habanalabs_sim num_devices=2, or run-vm --gaudi-host 2)");
	int crc = hlthunk_ipc_channel_create(s_.fd, fd1_, &channel_);
	if (!crc)
		crc = hlthunk_ipc_channel_copy(channel_, s_.fd, fd1_,
					       reinterpret_cast<void *>(dev1_.va()),
					       reinterpret_cast<void *>(s_.dev.va()),
					       sizes.front());
	if (crc)
		no_channel = strerror(-crc);
	printf("multinode_bench: verbs device %s, device memory registered by %s; %d run(s), "
	       "%d transfer(s) per path and size in each\n",
	       ibv_get_device_name(s_.port.ctx()->device),
	       hlthunk_verbs_path_name(hlthunk_verbs_mr_path(s_.dev_mr)), runs, smoke ? 1 : 3);
	if (!no_channel.empty())
		printf("multinode_bench: no channel column: a channel copy of this device memory "
		       "fails here (%s)\n", no_channel.c_str());
	verify("device", max, &Initiator::device);

	const char *names[] = {"device", "host", "dma", "channel"};
	double (Initiator::*paths[])(uint64_t) = {&Initiator::device, &Initiator::host,
						  &Initiator::dma, &Initiator::channel};
	const int np = no_channel.empty() ? 4 : 3;
	// Each path once before measuring: the first transfers warm caches.
	for (int p = 0; p < np; p++)
		(this->*paths[p])(sizes.front());
	// Per size and path: the fastest transfer of each run (us).
	std::map<uint64_t, std::vector<std::vector<double>>> best;
	const int reps = smoke ? 1 : 3;
	for (int r = 0; r < runs; r++) {
		for (uint64_t len : sizes) {
			std::vector<double> b(np, 1e18);
			// Each repetition starts with another path.
			for (int k = 0; k < reps; k++)
				for (int i = 0; i < np; i++) {
					int p = (i + k + r) % np;
					b[p] = std::min(b[p], (this->*paths[p])(len));
				}
			auto &v = best[len];
			v.resize(np);
			for (int p = 0; p < np; p++)
				v[p].push_back(b[p]);
		}
	}
	// B stops without answering.
	if (s_.qp.post(IBV_WR_SEND_WITH_IMM, nullptr, 0, 0, 0, 0, s_.next_wr++, imm_of(kStop, 0)))
		die("stopping the target");
	s_.qp.wait(1, wait_ms(60000));
	if (channel_)
		hlthunk_ipc_channel_destroy(channel_);

	// device vs host: host time / device time, the device path's speed
	// as a share of host memory's over the same link.
	FILE *js = json.empty() ? nullptr : fopen(json.c_str(), "w");
	if (js)
		fprintf(js, "{\"runs\": %d, \"piece\": %" PRIu64 ", \"registration\": \"%s\", "
			"\"sizes\": [", runs, kPiece,
			hlthunk_verbs_path_name(hlthunk_verbs_mr_path(s_.dev_mr)));
	printf("%10s %10s %10s %10s %10s  %-22s %-22s\n", "bytes", "device", "host", "dma",
	       "channel", "device vs host speed", "channel/device time");
	printf("%10s %10s %10s %10s %10s\n", "", "MB/s", "MB/s", "MB/s", "MB/s");
	bool first = true;
	for (uint64_t len : sizes) {
		auto &v = best[len];
		std::vector<double> r_dh, r_dc;
		for (int r = 0; r < runs; r++) {
			r_dh.push_back(v[1][r] / v[0][r]);
			if (np == 4)
				r_dc.push_back(v[0][r] / v[3][r]);
		}
		hltest::Spread dh = hltest::spread(r_dh);
		printf("%10" PRIu64, len);
		for (int p = 0; p < 4; p++) {
			if (p < np)
				printf(" %10.1f", double(len) / hltest::spread(v[p]).med);
			else
				printf(" %10s", "-");
		}
		printf("  %5.2f [%4.2f-%4.2f]     ", dh.med, dh.lo, dh.hi);
		if (np == 4) {
			hltest::Spread dc = hltest::spread(r_dc);
			printf("  %5.1f [%4.1f-%4.1f]", dc.med, dc.lo, dc.hi);
		}
		printf("\n");
		if (js) {
			fprintf(js, "%s\n  {\"bytes\": %" PRIu64, first ? "" : ",", len);
			for (int p = 0; p < np; p++)
				fprintf(js, ", \"%s_us\": %s", names[p],
					hltest::spread_json(hltest::spread(v[p])).c_str());
			fprintf(js, ", \"device_vs_host\": %s", hltest::spread_json(dh).c_str());
			if (np == 4)
				fprintf(js, ", \"channel_over_device\": %s",
					hltest::spread_json(hltest::spread(r_dc)).c_str());
			fprintf(js, "}");
		}
		first = false;
	}
	if (js) {
		fprintf(js, "\n]}\n");
		fclose(js);
	}
	return 0;
}

std::vector<uint64_t> parse_sizes(const char *s)
{
	std::vector<uint64_t> v;
	for (const char *p = s; *p;) {
		char *end;
		uint64_t n = strtoull(p, &end, 10);
		if (*end == 'k' || *end == 'K')
			n <<= 10, end++;
		else if (*end == 'm' || *end == 'M')
			n <<= 20, end++;
		if (end == p || n == 0 || n > 64 * kMiB || n % 1024)
			die(std::string("sizes are multiples of 1 KiB up to 64 MiB: ") + s);
		v.push_back(n);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			die(std::string("bad size list: ") + s);
	}
	return v;
}

}  // namespace
}  // namespace mntest

int main(int argc, char **argv)
{
	using namespace mntest;
	setvbuf(stdout, nullptr, _IOLBF, 0);
	const char *usage =
		"usage: multinode_bench initiator --self ADDR --peer ADDR [--runs N] [--sizes LIST]\n"
		"                       [--json FILE] [--smoke]\n"
		"       multinode_bench target --self ADDR [--sizes LIST]\n"
		"Device memory of one host into another's (one RDMA WRITE, or staged through host\n"
		"memory where the NIC cannot reach it) against host memory over the same link, and\n"
		"the intra-host channel for scale; see\n"
		"Documentation/performance.md.  LIST: sizes such as 64k,1m,16m (the largest must\n"
		"be the same on both hosts); default 64k,1m,4m,16m, 3 runs.\n";
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	std::string role = argv[1], self, peer, json;
	int runs = 3;
	bool smoke = false;
	std::vector<uint64_t> sizes = {64 * 1024, kMiB, 4 * kMiB, 16 * kMiB};
	for (int i = 2; i < argc; i++) {
		std::string o = argv[i];
		if (o == "--smoke") {
			smoke = true;
			continue;
		}
		if (i + 1 >= argc) {
			fputs(usage, stderr);
			return 2;
		}
		const char *v = argv[++i];
		if (o == "--self")
			self = v;
		else if (o == "--peer")
			peer = v;
		else if (o == "--runs")
			runs = atoi(v);
		else if (o == "--sizes")
			sizes = parse_sizes(v);
		else if (o == "--json")
			json = v;
		else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (self.empty() || runs < 1 || (role == "initiator" && peer.empty()) ||
	    (role != "initiator" && role != "target")) {
		fputs(usage, stderr);
		return 2;
	}
	if (role == "target") {
		target(self, *std::max_element(sizes.begin(), sizes.end()));
		return 0;
	}
	return Initiator().run(self, peer, runs, sizes, json, smoke);
}
