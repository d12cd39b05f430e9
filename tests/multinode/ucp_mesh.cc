// SPDX-License-Identifier: MIT
// multinode_ucp: one job of four processes on two hosts, two per host,
// each owning one emulated Gaudi device, doing UCP put and get between
// every pair.  Run it under hl-ucx (the gaudi_ipc transport in the
// process), one process per rank:
//
//   multinode_ucp --rank R --self ADDR --peer ADDR
//
// rank R runs on host R / 2; ADDR is this host's address on the link and
// the other host's.  Worker addresses and remote keys go over TCP.
//
// Two UCP contexts per process:
//  - the job's, configured by the environment as an operator would
//    (UCX_TLS=rc,gaudi_ipc, UCX_NET_DEVICES=rxe_link:1): host buffers,
//    every pair; UCP must choose gaudi_ipc within a host and a verbs
//    transport between hosts;
//  - one for device memory (gaudi_ipc and tcp, zero-copy from the first
//    byte): device buffers, the pairs within a host.  Debian's UCX 1.13
//    cannot put device memory into the job's context: ucp_mem_map
//    registers a buffer with every memory domain of its memory type, and
//    the verbs domain cannot register device memory (no dma-buf in UCT
//    1.13, no Gaudi memory type in UCS); the program shows that first.
//    Across hosts device memory moves at the verbs level instead
//    (multinode_verbs).
//
// Every byte is checked: the target checks its whole slot after a put
// (device memory with its own DMA engine), the initiator its range and
// the bytes around it after a get.  Then rank 3 is killed: the survivors'
// operations to it must end with an error, and theirs among themselves
// must go on working.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "device_side.h"
#include "mapping.h"
#include "oob_link.h"
#include "ucp_world.h"

namespace mntest {
namespace {

constexpr int kRanks = 4;
constexpr int kVictim = 3;
constexpr uint16_t kPortBase = 18600;
constexpr uint64_t kMiB = 1ull << 20;
// Each process's buffer (host and device alike): slot r is the inbox
// rank r puts into, slot 4 + r what rank r gets from.
constexpr uint64_t kSlot = kMiB + 8192;
constexpr uint64_t kBuf = 2 * kRanks * kSlot;
// Where the initiator puts from and gets into: the transfer at 4 KiB,
// guard bytes around it.
constexpr uint64_t kScratch = kSlot + 8192;
constexpr uint64_t kGuard = 4096;
const uint64_t kSizes[] = {1, 4097, kMiB + 3};

enum Kind : uint32_t { kHost = 0, kDevice = 1 };
const char *kind_name(uint32_t k) { return k == kDevice ? "device" : "host"; }

int failures = 0;

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char line[1024];
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("ucp-mesh: %s\n", line);
	fflush(stdout);
}

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			say("FAIL: " __VA_ARGS__);                         \
			say("  (%s:%d: %s)", __FILE__, __LINE__, #cond);   \
			failures++;                                        \
		}                                                          \
	} while (0)

[[noreturn]] void die(const std::string &what)
{
	say("FAIL: %s", what.c_str());
	exit(1);
}

int wait_ms(int ms) { return ms * timeout_factor(); }

// What a pair exchanges first, then its worker addresses and keys.
struct Hello {
	uint32_t rank;
	uint32_t node;
	uint64_t host_base;
	uint64_t dev_base;
};

// One step of the test, from the initiator to the target, and its answer.
enum StepOp : uint32_t { kCheck = 1, kOffer, kStepDone, kReady, kBye };
struct Step {
	uint32_t op;
	uint32_t kind;
	uint64_t off;
	uint64_t len;
	uint32_t seed;
	uint32_t pad;
};
struct Ack {
	int32_t status;
	int32_t pad;
	int64_t bad;
};

uint32_t seed_of(int from, int to, uint32_t kind, int k, int what)
{
	return static_cast<uint32_t>(((from * 8 + to) * 2 + kind) * 64 + k * 4 + what);
}
uint32_t bg_seed(int rank, uint32_t kind) { return 0xb000 + rank * 2 + kind; }

class Process {
public:
	int run(int rank, const std::string &self, const std::string &peer);

private:
	struct Peer {
		OobLink link;
		Hello hello{};
		bool same_node = false;
		bool dead = false;
		size_t job_ep = 0, dev_ep = 0;
		bool reported[2] = {false, false};
	};

	void setup_memory();
	void show_job_context_refuses_device_memory();
	void connect_mesh();
	void exchange(Peer &p);
	void schedule(const std::vector<int> &ranks, const std::vector<uint64_t> &sizes);
	void initiate(int to, const std::vector<uint64_t> &sizes);
	void serve(int from);
	void kill_victim();
	void survivors_see_the_death();
	void barrier_bye(const std::vector<int> &ranks);
	// Receives one step, progressing both workers while it waits.
	int recv_step(Peer &p, Step *s, int timeout_ms);

	// Memory of this process, and the same for the initiator's scratch.
	uint64_t base(uint32_t kind) const
	{
		return kind == kDevice ? dmem_.va() : reinterpret_cast<uint64_t>(host_.get());
	}
	int fill(uint32_t kind, uint64_t addr, uint64_t len, uint32_t seed, uint64_t pbase);
	int64_t check(uint32_t kind, uint64_t addr, uint64_t len, uint32_t seed, uint64_t pbase);
	UcpWorld &world(uint32_t kind) { return kind == kDevice ? devw_ : job_; }
	size_t ep(const Peer &p, uint32_t kind) const { return kind == kDevice ? p.dev_ep : p.job_ep; }
	void report_lanes(int to, uint32_t kind);

	int rank_ = 0, node_ = 0;
	std::string self_, peer_addr_;
	DeviceSide dev_;
	hlipc::DeviceBuffer dmem_, dscratch_;
	hlipc::Mapping host_, hscratch_;
	UcpWorld job_, devw_;
	UcpMemMap host_map_, hscratch_map_, dmem_map_, dscratch_map_;
	Peer peers_[kRanks];
};

int Process::recv_step(Peer &p, Step *s, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	while (!p.link.readable(0)) {
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		if (!job_.progress() && !devw_.progress())
			p.link.readable(1);
	}
	return p.link.recv_pod(s, wait_ms(60000));
}

int Process::fill(uint32_t kind, uint64_t addr, uint64_t len, uint32_t seed, uint64_t pbase)
{
	if (kind == kDevice)
		return dev_.write_pattern(addr, len, seed, pbase);
	hlipc::fill_pattern(reinterpret_cast<unsigned char *>(addr), len, seed, pbase);
	return 0;
}

int64_t Process::check(uint32_t kind, uint64_t addr, uint64_t len, uint32_t seed, uint64_t pbase)
{
	if (kind == kDevice)
		return dev_.check_pattern(addr, len, seed, pbase);
	return hlipc::check_pattern(reinterpret_cast<const unsigned char *>(addr), len, seed, pbase);
}

void Process::setup_memory()
{
	std::string why;
	if (dev_.open(kSlot + 2 * kGuard, &why))
		die(why);
	if (dmem_.create(dev_.fd(), kBuf) || dscratch_.create(dev_.fd(), kScratch))
		die("allocating device memory");
	host_ = hlipc::Mapping::map(kBuf, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	hscratch_ = hlipc::Mapping::map(kScratch, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!host_.valid() || !hscratch_.valid())
		die("allocating host memory");
	// Every slot starts with this process's background.
	for (uint32_t kind : {kHost, kDevice})
		for (int s = 0; s < 2 * kRanks; s++)
			if (fill(kind, base(kind) + s * kSlot, kSlot, bg_seed(rank_, kind), s * kSlot))
				die("filling the buffers");

	// The job's context: what the environment says (UCX_TLS, ...).
	if (job_.init({}, &why) != UCS_OK)
		die("the job's UCP context: " + why);
	// Device memory: gaudi_ipc for RMA, tcp for UCP's active messages
	// (wire-up), and zero-copy from the first byte: UCP's short and
	// buffered protocols copy the user's buffer with the CPU, which
	// cannot read device memory.
	if (devw_.init({{"TLS", "gaudi_ipc,tcp"}, {"NET_DEVICES", "all"}, {"ZCOPY_THRESH", "0"}},
		       &why) != UCS_OK)
		die("the device context: " + why);
	ucs_status_t st;
	if ((st = host_map_.map(job_.ctx(), host_.get(), kBuf)) != UCS_OK ||
	    (st = hscratch_map_.map(job_.ctx(), hscratch_.get(), kScratch)) != UCS_OK)
		die(std::string("ucp_mem_map of host memory: ") + ucs_status_string(st));
	if ((st = dmem_map_.map(devw_.ctx(), reinterpret_cast<void *>(dmem_.va()), kBuf)) != UCS_OK ||
	    (st = dscratch_map_.map(devw_.ctx(), reinterpret_cast<void *>(dscratch_.va()),
				    kScratch)) != UCS_OK)
		die(std::string("ucp_mem_map of device memory in the device context: ") +
		    ucs_status_string(st));
}

// Whether the CPU has anything mapped at addr in this process.
bool cpu_mapped(uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	unsigned long lo, hi;
	bool found = false;
	char rest[512];
	while (!found && fscanf(f, "%lx-%lx%511[^\n]", &lo, &hi, rest) == 3)
		found = addr >= lo && addr < hi;
	fclose(f);
	return found;
}

void Process::show_job_context_refuses_device_memory()
{
	// ucp_mem_map registers a buffer with every memory domain of its
	// memory type, and UCS has no Gaudi type: the verbs domain gets the
	// device address as if it were host memory, and pins whatever the
	// CPU has at that address.  Nothing there: it fails.  Something
	// there (AddressSanitizer's shadow memory covers the emulator's
	// device addresses at 16 TiB): it "succeeds" with the wrong pages.
	UcpMemMap m;
	ucs_status_t st = m.map(job_.ctx(), reinterpret_cast<void *>(dmem_.va()), kSlot);
	bool mapped = cpu_mapped(dmem_.va());
	say("rank %d: ucp_mem_map of device memory at %#" PRIx64 " in the job's context "
	    "(with a verbs transport): %s; the CPU has %s at that address",
	    rank_, dmem_.va(), ucs_status_string(st), mapped ? "a mapping" : "nothing");
	CHECK(mapped ? st == UCS_OK : st != UCS_OK,
	      "ucp_mem_map of device memory in a context with a verbs transport did not do "
	      "what Documentation/multi-node.md says");
}

void Process::exchange(Peer &p)
{
	Hello h{static_cast<uint32_t>(rank_), static_cast<uint32_t>(node_),
		base(kHost), base(kDevice)};
	if (p.link.send_pod(h) || p.link.send(job_.address()) ||
	    p.link.send(host_map_.rkey()) || p.link.send(devw_.address()) ||
	    p.link.send(dmem_map_.rkey()))
		die("sending the worker addresses");
	std::vector<uint8_t> job_addr, host_rkey, dev_addr, dev_rkey;
	const int t = wait_ms(120000);
	if (p.link.recv_pod(&p.hello, t) || p.link.recv(&job_addr, t) ||
	    p.link.recv(&host_rkey, t) || p.link.recv(&dev_addr, t) ||
	    p.link.recv(&dev_rkey, t))
		die("receiving the worker addresses");
	if (p.hello.rank >= kRanks || p.hello.node != p.hello.rank / 2)
		die("a peer sent an impossible rank");
	p.same_node = static_cast<int>(p.hello.node) == node_;
	if (job_.connect(job_addr, host_rkey, &p.job_ep) != UCS_OK)
		die("ucp_ep_create in the job's context");
	if (p.same_node && devw_.connect(dev_addr, dev_rkey, &p.dev_ep) != UCS_OK)
		die("ucp_ep_create in the device context");
}

void Process::connect_mesh()
{
	std::string why;
	OobListener l;
	if (l.listen_on(self_, static_cast<uint16_t>(kPortBase + rank_), &why))
		die(why);
	// Lower ranks connect to higher ones; a connection says who it is.
	for (int j = rank_ + 1; j < kRanks; j++) {
		const std::string &a = j / 2 == node_ ? self_ : peer_addr_;
		if (peers_[j].link.connect_to(a, static_cast<uint16_t>(kPortBase + j),
					      wait_ms(300000), &why))
			die(why);
		uint32_t me = static_cast<uint32_t>(rank_);
		peers_[j].link.send_pod(me);
	}
	for (int n = 0; n < rank_; n++) {
		OobLink link;
		uint32_t who = kRanks;
		if (l.accept_one(&link, wait_ms(300000), &why))
			die(why);
		if (link.recv_pod(&who, wait_ms(60000)) || who >= static_cast<uint32_t>(rank_) ||
		    peers_[who].link.valid())
			die("a connection from an unexpected rank");
		peers_[who].link = std::move(link);
	}
	for (int j = 0; j < kRanks; j++)
		if (j != rank_)
			exchange(peers_[j]);
}

void Process::report_lanes(int to, uint32_t kind)
{
	Peer &p = peers_[to];
	if (p.reported[kind])
		return;
	p.reported[kind] = true;
	auto lanes = world(kind).lanes(ep(p, kind));
	bool gaudi = false, verbs = false, other = false;
	std::string all;
	for (auto &l : lanes) {
		all += "\n    " + l;
		if (l.find("gaudi_ipc/") != std::string::npos)
			gaudi = true;
		else if (l.find("rc_verbs/") != std::string::npos ||
			 l.find("ud_verbs/") != std::string::npos)
			verbs = true;
		else
			other = true;
	}
	say("rank %d -> rank %d (%s host), %s memory: lanes%s", rank_, to,
	    p.same_node ? "same" : "other", kind_name(kind), all.c_str());
	// gaudi_ipc has no active messages: where it is a lane at all, it
	// is the lane for remote memory access.
	if (p.same_node)
		CHECK(gaudi, "UCP did not choose gaudi_ipc for rank %d -> rank %d within a host", rank_, to);
	else
		CHECK(!gaudi && verbs && !other,
		      "UCP did not choose verbs transports only for rank %d -> rank %d between hosts",
		      rank_, to);
}

void Process::initiate(int to, const std::vector<uint64_t> &sizes)
{
	Peer &p = peers_[to];
	const int T = wait_ms(120000);
	for (uint32_t kind : {kHost, kDevice}) {
		if (kind == kDevice && !p.same_node)
			continue;
		uint64_t scratch = kind == kDevice ? dscratch_.va()
						   : reinterpret_cast<uint64_t>(hscratch_.get());
		int k = 0;
		for (uint64_t s : sizes) {
			k++;
			// Put: the target checks its whole inbox slot.
			uint32_t seed = seed_of(rank_, to, kind, k, 1);
			uint64_t off = (k * 97 + 13) % 4096;
			if (fill(kind, scratch + kGuard, s, seed, 0))
				die("filling the source");
			uint64_t raddr = (kind == kDevice ? p.hello.dev_base : p.hello.host_base) +
					 rank_ * kSlot + off;
			int64_t t0 = now_ms();
			ucs_status_t st = world(kind).put(ep(p, kind),
							  reinterpret_cast<void *>(scratch + kGuard),
							  s, raddr, T);
			int64_t t_put = now_ms() - t0;
			CHECK(st == UCS_OK, "put %" PRIu64 " B of %s memory rank %d -> rank %d: %s", s,
			      kind_name(kind), rank_, to, ucs_status_string(st));
			if (st == UCS_ERR_TIMED_OUT)
				die("a put did not finish");
			report_lanes(to, kind);
			Step rq{kCheck, kind, off, s, seed, 0};
			Ack a{};
			if (p.link.send_pod(rq) || p.link.recv_pod(&a, T))
				die("the target stopped answering");
			CHECK(a.status == 0 && a.bad == -1,
			      "after a put of %" PRIu64 " B of %s memory rank %d -> rank %d the target's "
			      "slot is wrong at byte %" PRId64 " (the range is [%" PRIu64 ", +%" PRIu64 "))",
			      s, kind_name(kind), rank_, to, a.bad, off, s);

			// Get: bytes the target wrote, into a range whose
			// surroundings must stay as they are.
			uint32_t seed2 = seed_of(rank_, to, kind, k, 2);
			uint32_t gseed = seed_of(rank_, to, kind, k, 3);
			uint64_t off2 = (k * 131 + 7) % 4096;
			Step offer{kOffer, kind, off2, s, seed2, 0};
			if (p.link.send_pod(offer) || p.link.recv_pod(&a, T) || a.status)
				die("the target did not offer its bytes");
			if (fill(kind, scratch, s + 2 * kGuard, gseed, 0))
				die("filling the destination");
			raddr = (kind == kDevice ? p.hello.dev_base : p.hello.host_base) +
				(kRanks + rank_) * kSlot + off2;
			t0 = now_ms();
			st = world(kind).get(ep(p, kind), reinterpret_cast<void *>(scratch + kGuard), s,
					     raddr, T);
			int64_t t_get = now_ms() - t0;
			CHECK(st == UCS_OK, "get %" PRIu64 " B of %s memory rank %d <- rank %d: %s", s,
			      kind_name(kind), rank_, to, ucs_status_string(st));
			if (st == UCS_ERR_TIMED_OUT)
				die("a get did not finish");
			int64_t bad = check(kind, scratch + kGuard, s, seed2, 0);
			int64_t g1 = check(kind, scratch, kGuard, gseed, 0);
			int64_t g2 = check(kind, scratch + kGuard + s, kGuard, gseed, kGuard + s);
			CHECK(bad == -1 && g1 == -1 && g2 == -1,
			      "after a get of %" PRIu64 " B of %s memory rank %d <- rank %d: byte %" PRId64
			      " of the range wrong, guards %" PRId64 " %" PRId64,
			      s, kind_name(kind), rank_, to, bad, g1, g2);
			say("rank %d -> rank %d %-6s %8" PRIu64 " B: put %" PRId64 " ms, get %" PRId64
			    " ms, every byte checked", rank_, to, kind_name(kind), s, t_put, t_get);
		}
	}
	Step done{kStepDone, 0, 0, 0, 0, 0};
	p.link.send_pod(done);
}

void Process::serve(int from)
{
	Peer &p = peers_[from];
	for (;;) {
		Step s;
		int rc = recv_step(p, &s, wait_ms(300000));
		if (rc)
			die(std::string("waiting for rank ") + std::to_string(from) + ": " + strerror(-rc));
		if (s.op == kStepDone)
			return;
		Ack a{0, 0, -1};
		// The request comes from another program: check it first.
		if ((s.op != kCheck && s.op != kOffer) || s.kind > kDevice || s.off > kSlot ||
		    s.len > kSlot - s.off) {
			a.status = -EINVAL;
		} else if (s.op == kCheck) {
			uint64_t slot = base(s.kind) + from * kSlot, sb = from * kSlot;
			uint32_t bg = bg_seed(rank_, s.kind);
			a.bad = check(s.kind, slot, s.off, bg, sb);
			if (a.bad == -1) {
				a.bad = check(s.kind, slot + s.off, s.len, s.seed, 0);
				if (a.bad >= 0)
					a.bad += static_cast<int64_t>(s.off);
			}
			uint64_t end = s.off + s.len;
			if (a.bad == -1) {
				a.bad = check(s.kind, slot + end, kSlot - end, bg, sb + end);
				if (a.bad >= 0)
					a.bad += static_cast<int64_t>(end);
			}
			// The slot back to the background for the next put.
			a.status = fill(s.kind, slot + s.off, s.len, bg, sb + s.off);
		} else {
			a.status = fill(s.kind, base(s.kind) + (kRanks + from) * kSlot + s.off, s.len,
					s.seed, 0);
		}
		if (p.link.send_pod(a))
			die("answering rank " + std::to_string(from));
	}
}

void Process::schedule(const std::vector<int> &ranks, const std::vector<uint64_t> &sizes)
{
	// Every ordered pair, in one order all processes follow: a process
	// takes part in its own steps only, and waits on no one else.
	for (int i : ranks)
		for (int j : ranks) {
			if (i == j)
				continue;
			if (i == rank_)
				initiate(j, sizes);
			else if (j == rank_)
				serve(i);
		}
}

void Process::kill_victim()
{
	// Once every survivor is ready, with endpoints to it connected and
	// its memory registered everywhere.
	for (int j = 0; j < kRanks; j++) {
		if (j == rank_)
			continue;
		Step s;
		if (recv_step(peers_[j], &s, wait_ms(300000)) || s.op != kReady)
			die("waiting for the survivors");
	}
	say("rank %d: killed now", rank_);
	kill(getpid(), SIGKILL);
}

void Process::survivors_see_the_death()
{
	Peer &v = peers_[kVictim];
	Step ready{kReady, 0, 0, 0, 0, 0};
	v.link.send_pod(ready);
	// Its end of the TCP connection closes when it dies.
	Step s;
	int rc = recv_step(v, &s, wait_ms(300000));
	if (rc != -ECONNRESET)
		die("the victim did not die");
	v.dead = true;
	for (uint32_t kind : {kHost, kDevice}) {
		if (kind == kDevice && !v.same_node)
			continue;
		uint64_t scratch = kind == kDevice ? dscratch_.va()
						   : reinterpret_cast<uint64_t>(hscratch_.get());
		uint64_t raddr = (kind == kDevice ? v.hello.dev_base : v.hello.host_base) + rank_ * kSlot;
		// A put that reaches the dying process before its memory and
		// queue pairs are torn down may still land: put again until
		// UCX says the peer is gone, for at most the bound below.
		const int64_t t0 = now_ms(), bound = wait_ms(120000);
		ucs_status_t st = UCS_OK;
		int landed = 0;
		while (st == UCS_OK && now_ms() - t0 < bound) {
			st = world(kind).put(ep(v, kind), reinterpret_cast<void *>(scratch), 4096,
					     raddr, static_cast<int>(bound - (now_ms() - t0)) + 1);
			if (st == UCS_OK) {
				landed++;
				usleep(50000);
			}
		}
		int64_t t = now_ms() - t0;
		CHECK(st != UCS_OK && st != UCS_ERR_TIMED_OUT,
		      "puts of %s memory to the killed rank %d: %s after %" PRId64 " ms, expected an error",
		      kind_name(kind), kVictim, ucs_status_string(st), t);
		say("rank %d -> killed rank %d, %s memory: %d put(s) still landed, then a put ended with "
		    "\"%s\" %" PRId64 " ms after the peer's death was seen (error handler: \"%s\")",
		    rank_, kVictim, kind_name(kind), landed, ucs_status_string(st), t,
		    ucs_status_string(world(kind).peer_error(ep(v, kind))));
		if (st == UCS_ERR_TIMED_OUT)
			die("a put to a dead peer hangs");
	}
}

void Process::barrier_bye(const std::vector<int> &ranks)
{
	Step bye{kBye, 0, 0, 0, 0, 0};
	for (int j : ranks)
		if (j != rank_)
			peers_[j].link.send_pod(bye);
	for (int j : ranks) {
		if (j == rank_)
			continue;
		Step s;
		if (recv_step(peers_[j], &s, wait_ms(300000)) || s.op != kBye)
			die("the final barrier");
	}
}

int Process::run(int rank, const std::string &self, const std::string &peer)
{
	rank_ = rank;
	node_ = rank / 2;
	self_ = self;
	peer_addr_ = peer;
	setup_memory();
	say("rank %d: host %d, device %s", rank_, node_, dev_.bus_id().c_str());
	show_job_context_refuses_device_memory();
	connect_mesh();
	std::vector<uint64_t> sizes(std::begin(kSizes), std::end(kSizes));
	schedule({0, 1, 2, 3}, sizes);
	if (rank_ == kVictim) {
		kill_victim();
		return 1;  // not reached
	}
	survivors_see_the_death();
	// The others go on: every pair of survivors, once more.
	schedule({0, 1, 2}, {4097});
	barrier_bye({0, 1, 2});
	job_.close_all();
	devw_.close_all();
	return 0;
}

void usage()
{
	printf("usage: multinode_ucp --rank R --self ADDR --peer ADDR\n"
	       "One of four processes (ranks 0-3; rank R on host R / 2) doing UCP put and get\n"
	       "between every pair; run it under hl-ucx with UCX_TLS naming a verbs transport\n"
	       "and gaudi_ipc (see Documentation/multi-node.md).\n");
}

}  // namespace
}  // namespace mntest

int main(int argc, char **argv)
{
	using namespace mntest;
	setvbuf(stdout, nullptr, _IOLBF, 0);
	int rank = -1;
	std::string self, peer;
	for (int i = 1; i < argc; i++) {
		std::string o = argv[i];
		if ((o == "-h" || o == "--help")) {
			usage();
			return 0;
		}
		if (i + 1 >= argc) {
			usage();
			return 2;
		}
		if (o == "--rank")
			rank = atoi(argv[++i]);
		else if (o == "--self")
			self = argv[++i];
		else if (o == "--peer")
			peer = argv[++i];
		else {
			usage();
			return 2;
		}
	}
	if (rank < 0 || rank >= kRanks || self.empty() || peer.empty()) {
		usage();
		return 2;
	}
	Process().run(rank, self, peer);
	if (failures) {
		say("rank %d: %d check(s) failed", rank, failures);
		return 1;
	}
	say("rank %d: all passed", rank);
	return 0;
}
