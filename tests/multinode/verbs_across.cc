// SPDX-License-Identifier: MIT
// multinode_verbs: device memory of one host written and read by a process
// on another host, over an RC QP of soft-RoCE, both ends registered with
// hlthunk_verbs_reg_device_memory().
//
//   multinode_verbs initiator --peer ADDR   (host A: posts every RDMA)
//   multinode_verbs target --addr ADDR      (host B: serves A's requests)
//
// A drives; B answers requests over a TCP connection on the link (QP
// numbers, registrations, checks).  Every byte is checked with the
// device's own DMA engine, never through the NIC or a CPU mapping.  After
// the data and bad-input cases, B forks a victim that A streams 16 MiB
// writes to and that is killed in the middle: A must get an error, not a
// hang, and B checks that the victim's death released everything.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "device_side.h"
#include "hlthunk.h"
#include "hlthunk_verbs.h"
#include "oob_link.h"
#include "rc_qp.h"
#include "sim_counters.h"

namespace mntest {
namespace {

constexpr uint16_t kPort = 18515;       // the data and bad-input cases
constexpr uint16_t kVictimPort = 18516; // the peer killed mid-transfer
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kMargin = 8192;      // room around the largest transfer
constexpr uint64_t kAlloc = 16 * kMiB + 2 * kMargin;
constexpr uint64_t kSmallAlloc = 64 * 1024;
constexpr uint32_t kBgSeed = 0xb0b0;     // what B's memory holds untouched
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ;

int failures = 0;

#define CHECK(cond, ...)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			printf("verbs-across: FAIL: " __VA_ARGS__);      \
			printf("  (%s:%d: %s)\n", __FILE__, __LINE__, #cond); \
			failures++;                                      \
		}                                                        \
	} while (0)

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("verbs-across: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

[[noreturn]] void die(const std::string &what)
{
	printf("verbs-across: FAIL: %s\n", what.c_str());
	fflush(stdout);
	exit(1);
}

int wait_ms(int ms) { return ms * timeout_factor(); }

// A work completion's status, or a -errno of posting or waiting.
const char *status_str(int st)
{
	return st >= 0 ? ibv_wc_status_str(static_cast<ibv_wc_status>(st)) : strerror(-st);
}

// --- the requests A sends and B's replies --------------------------------
enum Op : uint32_t {
	kQpNew = 1, // connect a new QP of B's to A's (qp)
	kReg,       // register [off, off + len) of buffer buf
	kDereg,     // end buf's registration
	kCheck,     // every byte of buf: [off, off + len) has seed's pattern
	kFill,      // write seed's pattern to [off, off + len) of buf
	kTryUnmap,  // unmap and free buf while it is registered
	kFree,      // deregister, unmap and free buf (1 only)
	kQpClose,   // destroy B's QP
	kDie,       // the victim: be killed now
	kBye,
};

struct Request {
	uint32_t op;
	uint32_t buf;  // 0: the large buffer, 1: a small one of its own
	uint64_t off;
	uint64_t len;
	uint32_t seed;
	uint32_t pad;
	QpInfo qp;
};

struct Reply {
	int32_t status;  // 0 or -errno
	int32_t path;    // hlthunk_verbs_path of a registration
	int32_t dmabuf_error;
	uint32_t rkey;
	uint64_t iova;
	int64_t bad;     // kCheck: first wrong offset, -1 if none
	int64_t unmap_rc, free_rc;
	QpInfo qp;
	char what[160];
};

std::string path_desc(int path, int dmabuf_error)
{
	std::string s = hlthunk_verbs_path_name(path);
	if (dmabuf_error)
		s += std::string(" (ibv_reg_dmabuf_mr: ") + strerror(-dmabuf_error) + ")";
	return s;
}

// What the target's device holds: its memory counters and its contexts.
std::map<std::string, long> device_counters()
{
	auto all = hltest::sim_counters();
	auto m = hltest::sim_memory_counters(all);
	m["contexts"] = all["contexts"];
	return m;
}

// --- B: the target -------------------------------------------------------
class Target {
public:
	int run(const std::string &addr, uint16_t port, bool victim);

private:
	struct Buf {
		hlipc::DeviceBuffer mem;
		hlthunk_verbs_mr *mr = nullptr;
		uint64_t alloc = 0;
		// The memory holds kBgSeed's pattern everywhere but in
		// [dirty_lo, dirty_hi): what the NIC may have written (a
		// registered range) or this side filled.
		uint64_t dirty_lo = 0, dirty_hi = 0;
	};
	int restore(Buf *b);
	int sync(Buf *b, int direction);
	Reply handle(const Request &rq);
	int create_buf(Buf *b, uint64_t size);
	void dereg(Buf *b);

	VerbsPort port_;
	DeviceSide dev_;
	RcQp qp_;
	Buf bufs_[2];
};

int Target::create_buf(Buf *b, uint64_t size)
{
	int rc = b->mem.create(dev_.fd(), size);
	if (rc)
		return rc;
	b->alloc = size;
	b->dirty_lo = b->dirty_hi = 0;
	return dev_.write_pattern(b->mem.va(), size, kBgSeed);
}

int Target::restore(Buf *b)
{
	uint64_t lo = b->dirty_lo, hi = b->dirty_hi;
	b->dirty_lo = b->dirty_hi = 0;
	return hi > lo ? dev_.write_pattern(b->mem.va() + lo, hi - lo, kBgSeed, lo) : 0;
}

// A staged registration (a Gaudi host without peer to peer) is a copy of
// the device memory in host memory: what the NIC wrote reaches the device
// memory, and what the device holds reaches the NIC, when B syncs it.  For
// the other paths the call has nothing to do.
int Target::sync(Buf *b, int direction)
{
	if (!b->mr)
		return 0;
	return hlthunk_verbs_mr_sync(b->mr, hlthunk_verbs_mr_iova(b->mr),
				     hlthunk_verbs_mr_length(b->mr), direction);
}

void Target::dereg(Buf *b)
{
	// What A wrote reaches the device memory before the stage goes.
	if (sync(b, HLTHUNK_VERBS_SYNC_FOR_DEVICE))
		die(std::string("syncing before deregistering: ") +
		    hlthunk_verbs_last_error());
	if (b->mr && hlthunk_verbs_dereg_mr(b->mr))
		die(std::string("deregistering: ") + hlthunk_verbs_last_error());
	b->mr = nullptr;
}

Reply Target::handle(const Request &rq)
{
	Reply r;
	memset(&r, 0, sizeof(r));
	r.bad = -1;
	// Anything A sends is checked before use.
	if (rq.buf > 1) {
		r.status = -EINVAL;
		return r;
	}
	Buf &b = bufs_[rq.buf];
	bool range_ok = b.alloc && rq.off <= b.alloc && rq.len <= b.alloc - rq.off;
	std::string why;
	switch (rq.op) {
	case kQpNew:
		r.status = qp_.create(port_, &why);
		if (!r.status)
			r.status = qp_.connect(rq.qp, &why);
		r.qp = qp_.info();
		break;
	case kReg:
		if (rq.buf == 1 && !b.alloc)
			r.status = create_buf(&b, kSmallAlloc);
		range_ok = rq.off <= b.alloc && rq.len <= b.alloc - rq.off;
		if (r.status || !range_ok) {
			r.status = r.status ? r.status : -ERANGE;
			break;
		}
		dereg(&b);
		// Every case starts from the background.
		r.status = restore(&b);
		if (r.status)
			break;
		b.dirty_lo = rq.off;
		b.dirty_hi = rq.off + rq.len;
		r.status = hlthunk_verbs_reg_device_memory(
			port_.pd(), dev_.fd(), b.mem.va() + rq.off, rq.len,
			kAccess, HLTHUNK_VERBS_REG_ALLOW_STAGED, &b.mr);
		if (r.status) {
			snprintf(r.what, sizeof(r.what), "%s", hlthunk_verbs_last_error());
			break;
		}
		r.path = hlthunk_verbs_mr_path(b.mr);
		r.dmabuf_error = hlthunk_verbs_mr_dmabuf_error(b.mr);
		r.rkey = hlthunk_verbs_mr_ibv(b.mr)->rkey;
		r.iova = hlthunk_verbs_mr_iova(b.mr);
		break;
	case kDereg:
		dereg(&b);
		break;
	case kCheck:
	case kFill:
		if (!range_ok) {
			r.status = -ERANGE;
			break;
		}
		if (rq.op == kFill) {
			// Back to the background first, so that the whole
			// buffer has one known content.
			uint64_t lo = b.dirty_lo, hi = b.dirty_hi;
			r.status = restore(&b);
			if (!r.status)
				r.status = dev_.write_pattern(b.mem.va() + rq.off,
							      rq.len, rq.seed);
			// For A's reads.
			if (!r.status)
				r.status = sync(&b, HLTHUNK_VERBS_SYNC_FOR_NIC);
			b.dirty_lo = std::min(lo, rq.off);
			b.dirty_hi = std::max(hi, rq.off + rq.len);
			break;
		}
		// What A wrote, into the device memory.
		r.status = sync(&b, HLTHUNK_VERBS_SYNC_FOR_DEVICE);
		if (r.status) {
			snprintf(r.what, sizeof(r.what), "%s", hlthunk_verbs_last_error());
			break;
		}
		// Every byte of the allocation: the range, and the
		// background before and after it.
		r.bad = dev_.check_pattern(b.mem.va(), rq.off, kBgSeed);
		if (r.bad == -1) {
			r.bad = dev_.check_pattern(b.mem.va() + rq.off, rq.len, rq.seed);
			if (r.bad >= 0)
				r.bad += static_cast<int64_t>(rq.off);
		}
		if (r.bad == -1) {
			uint64_t end = rq.off + rq.len;
			r.bad = dev_.check_pattern(b.mem.va() + end, b.alloc - end,
						   kBgSeed, end);
			if (r.bad >= 0)
				r.bad += static_cast<int64_t>(end);
		}
		break;
	case kTryUnmap:
		// The registration holds the exported memory: as on the real
		// driver, it stays mapped, and so cannot be freed.
		r.unmap_rc = hlthunk_memory_unmap(dev_.fd(), b.mem.va());
		r.free_rc = b.mem.try_reset();
		break;
	case kFree:
		if (rq.buf != 1) {
			r.status = -EINVAL;
			break;
		}
		dereg(&b);
		r.status = b.mem.try_reset();
		b.alloc = 0;
		break;
	case kQpClose:
		qp_.destroy();
		break;
	case kDie:
		// Killed with its QP connected, its memory registered and
		// A's writes arriving.
		fflush(stdout);
		kill(getpid(), SIGKILL);
		break;
	default:
		r.status = -EINVAL;
	}
	if (r.status && !r.what[0])
		snprintf(r.what, sizeof(r.what), "%s", why.empty() ? strerror(-r.status) : why.c_str());
	return r;
}

int Target::run(const std::string &addr, uint16_t port, bool victim)
{
	std::string why;
	const char *rdev = getenv("HL_RDMA_DEV");
	if (port_.open(rdev ? rdev : "rxe_link", addr, &why))
		die(why);
	if (dev_.open(kAlloc, &why))
		die(why);
	if (create_buf(&bufs_[0], kAlloc))
		die("allocating and filling 16 MiB of device memory");
	OobListener l;
	OobLink link;
	if (l.listen_on(addr, port, &why) ||
	    l.accept_one(&link, wait_ms(300000), &why))
		die(why);
	if (!victim)
		say("target: device %s, verbs %s, serving on %s:%u",
		    dev_.bus_id().c_str(), ibv_get_device_name(port_.ctx()->device),
		    addr.c_str(), port);
	for (;;) {
		Request rq;
		int rc = link.recv_pod(&rq, wait_ms(300000));
		if (rc)
			die(std::string("waiting for the initiator: ") + strerror(-rc));
		if (rq.op == kBye)
			break;
		Reply r = handle(rq);
		if (link.send_pod(r))
			die("answering the initiator");
	}
	for (Buf &b : bufs_)
		dereg(&b);
	return 0;
}

// --- A: the initiator ----------------------------------------------------
class Initiator {
public:
	int run(const std::string &self, const std::string &peer,
		const std::string &expect_path);

private:
	Reply ask(uint32_t op, uint32_t buf = 0, uint64_t off = 0, uint64_t len = 0,
		  uint32_t seed = 0);
	void new_qp();
	void sizes();
	void out_of_range();
	void stale_rkey();
	void mr_outlives_memory();
	void closed_qp();
	void killed_peer(const std::string &peer);
	// A's registration may be staged: its device memory reaches the
	// stage before the NIC reads it, and the stage the device memory
	// after the NIC wrote it.
	void for_nic(uint64_t off, uint64_t len);
	void for_device(uint64_t off, uint64_t len);
	uint64_t va() const { return mem_.va(); }
	uint32_t lkey() const { return hlthunk_verbs_mr_ibv(mr_)->lkey; }
	void *local(uint64_t off) const { return reinterpret_cast<void *>(va() + off); }

	VerbsPort port_;
	DeviceSide dev_;
	hlipc::DeviceBuffer mem_;
	hlthunk_verbs_mr *mr_ = nullptr;
	OobLink link_;
	RcQp qp_;
	std::string expect_path_;
	int peer_path_ = 0;
};

Reply Initiator::ask(uint32_t op, uint32_t buf, uint64_t off, uint64_t len,
		     uint32_t seed)
{
	Request rq;
	memset(&rq, 0, sizeof(rq));
	rq.op = op;
	rq.buf = buf;
	rq.off = off;
	rq.len = len;
	rq.seed = seed;
	if (op == kQpNew)
		rq.qp = qp_.info();
	Reply r;
	if (link_.send_pod(rq) || link_.recv_pod(&r, wait_ms(300000)))
		die("the target stopped answering");
	r.what[sizeof(r.what) - 1] = 0;
	return r;
}

void Initiator::for_nic(uint64_t off, uint64_t len)
{
	if (hlthunk_verbs_mr_sync(mr_, va() + off, len, HLTHUNK_VERBS_SYNC_FOR_NIC))
		die(std::string("syncing A's memory for the NIC: ") + hlthunk_verbs_last_error());
}

void Initiator::for_device(uint64_t off, uint64_t len)
{
	if (hlthunk_verbs_mr_sync(mr_, va() + off, len, HLTHUNK_VERBS_SYNC_FOR_DEVICE))
		die(std::string("syncing A's memory for the device: ") +
		    hlthunk_verbs_last_error());
}

void Initiator::new_qp()
{
	std::string why;
	if (qp_.create(port_, &why))
		die(why);
	Reply r = ask(kQpNew);
	if (r.status)
		die(std::string("the target's QP: ") + r.what);
	if (qp_.connect(r.qp, &why))
		die(why);
}

void Initiator::sizes()
{
	static const uint64_t sizes[] = {1, 2, 63, 4095, 4096, 4097, 65539,
					 kMiB, 4 * kMiB + 5, 16 * kMiB};
	uint32_t i = 0;
	for (uint64_t s : sizes) {
		i++;
		uint64_t off_a = kMargin - (i * 97) % 4096;
		uint64_t off_b = kMargin - (i * 131) % 4096 - 1;
		uint32_t seed_w = 0x1000 + i, seed_r = 0x2000 + i, seed_g = 0x3000 + i;
		if (dev_.write_pattern(va() + off_a, s, seed_w))
			die("DMA to A's device memory");
		for_nic(off_a, s);
		Reply reg = ask(kReg, 0, off_b, s);
		if (reg.status)
			die(std::string("B's registration: ") + reg.what);
		if (i == 1) {
			peer_path_ = reg.path;
			say("path: host B (node 1): %s", path_desc(reg.path, reg.dmabuf_error).c_str());
			CHECK(expect_path_.empty() ||
				      expect_path_ == hlthunk_verbs_path_name(reg.path),
			      "host B registered by %s, expected %s\n",
			      hlthunk_verbs_path_name(reg.path), expect_path_.c_str());
		}
		int64_t t0 = now_ms();
		int st = qp_.write(local(off_a), lkey(), s, reg.iova, reg.rkey, wait_ms(60000));
		int64_t t_w = now_ms() - t0;
		CHECK(st == IBV_WC_SUCCESS, "%" PRIu64 " B: RDMA WRITE A -> B: %s\n", s,
		      status_str(st));
		Reply chk = ask(kCheck, 0, off_b, s, seed_w);
		CHECK(chk.status == 0 && chk.bad == -1,
		      "%" PRIu64 " B: B's memory after the write: first wrong byte at %" PRId64
		      " (of the allocation; the range is [%" PRIu64 ", +%" PRIu64 "))\n",
		      s, chk.bad, off_b, s);

		// Read back bytes B itself wrote, into A's range, whose
		// surroundings hold another pattern that must stay.
		Reply fill = ask(kFill, 0, off_b, s, seed_r);
		CHECK(fill.status == 0, "B's fill: %s\n", fill.what);
		uint64_t g0 = off_a - 4096, glen = s + 8192;
		if (dev_.write_pattern(va() + g0, glen, seed_g, g0))
			die("DMA to A's device memory");
		t0 = now_ms();
		st = qp_.read(local(off_a), lkey(), s, reg.iova, reg.rkey, wait_ms(60000));
		int64_t t_r = now_ms() - t0;
		CHECK(st == IBV_WC_SUCCESS, "%" PRIu64 " B: RDMA READ B -> A: %s\n", s,
		      status_str(st));
		for_device(off_a, s);
		int64_t bad = dev_.check_pattern(va() + off_a, s, seed_r);
		CHECK(bad == -1, "%" PRIu64 " B: A's memory after the read: byte %" PRId64
				 " of the range is wrong\n", s, bad);
		bad = dev_.check_pattern(va() + g0, 4096, seed_g, g0);
		int64_t bad2 = dev_.check_pattern(va() + off_a + s, 4096, seed_g, off_a + s);
		CHECK(bad == -1 && bad2 == -1,
		      "%" PRIu64 " B: the read wrote outside A's range (%" PRId64 ", %" PRId64 ")\n",
		      s, bad, bad2);
		say("%8" PRIu64 " B: A -> B write %" PRId64 " ms, B -> A read %" PRId64
		    " ms; every byte of B's allocation and A's range and 4 KiB around it checked",
		    s, t_w, t_r);
	}
}

void Initiator::out_of_range()
{
	// One byte past either end of B's registration.
	Reply reg = ask(kReg, 0, kMargin, 4097);
	if (reg.status)
		die(std::string("B's registration: ") + reg.what);
	Reply fill = ask(kFill, 0, kMargin, 4097, 0x4444);
	CHECK(fill.status == 0, "B's fill: %s\n", fill.what);
	for (int end = 0; end < 2; end++) {
		uint64_t raddr = end ? reg.iova + 4097 : reg.iova - 1;
		int st = qp_.write(local(kMargin), lkey(), 1, raddr, reg.rkey, wait_ms(60000));
		CHECK(st == IBV_WC_REM_ACCESS_ERR,
		      "a write one byte %s B's registration: %s, expected a remote access error\n",
		      end ? "past" : "before",
		      status_str(st));
		new_qp();  // the error left the QP in the error state
	}
	Reply chk = ask(kCheck, 0, kMargin, 4097, 0x4444);
	CHECK(chk.status == 0 && chk.bad == -1,
	      "B's memory changed after refused writes (byte %" PRId64 ")\n", chk.bad);
	say("out of range: a write one byte before and one past B's registration: remote access error, B's memory unchanged");
}

void Initiator::stale_rkey()
{
	Reply reg = ask(kReg, 0, kMargin, 65536);
	if (reg.status)
		die(std::string("B's registration: ") + reg.what);
	if (dev_.write_pattern(va() + kMargin, 65536, 0x5555))
		die("DMA to A's device memory");
	for_nic(kMargin, 65536);
	int st = qp_.write(local(kMargin), lkey(), 65536, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_SUCCESS, "a write with a live rkey: %d\n", st);
	Reply d = ask(kDereg);
	CHECK(d.status == 0, "B's deregistration: %s\n", d.what);
	if (dev_.write_pattern(va() + kMargin, 65536, 0x6666))
		die("DMA to A's device memory");
	for_nic(kMargin, 65536);
	st = qp_.write(local(kMargin), lkey(), 65536, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_REM_ACCESS_ERR,
	      "a write with the rkey of a deregistered region: %s, expected a remote access error\n",
	      status_str(st));
	new_qp();
	Reply chk = ask(kCheck, 0, kMargin, 65536, 0x5555);
	CHECK(chk.status == 0 && chk.bad == -1,
	      "the refused write changed B's memory (byte %" PRId64 ")\n", chk.bad);
	st = qp_.read(local(kMargin), lkey(), 65536, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_REM_ACCESS_ERR,
	      "a read with the rkey of a deregistered region: %s, expected a remote access error\n",
	      status_str(st));
	new_qp();
	for_device(kMargin, 65536);
	int64_t bad = dev_.check_pattern(va() + kMargin, 65536, 0x6666);
	CHECK(bad == -1, "the refused read changed A's memory (byte %" PRId64 ")\n", bad);
	say("stale rkey: write and read with the rkey of a deregistered region: remote access "
	    "error, neither side's memory changed");
}

void Initiator::mr_outlives_memory()
{
	Reply reg = ask(kReg, 1, 0, kSmallAlloc);
	if (reg.status)
		die(std::string("B's registration of its small buffer: ") + reg.what);
	// B gives its memory up while the region is registered: the unmap
	// and the free are refused and the memory stays, reachable.
	Reply u = ask(kTryUnmap, 1);
	CHECK(u.unmap_rc == -EINVAL,
	      "B unmapped registered device memory (%" PRId64 "), expected -EINVAL\n", u.unmap_rc);
	CHECK(u.free_rc != 0, "B freed registered device memory\n");
	if (dev_.write_pattern(va() + kMargin, kSmallAlloc, 0x7777))
		die("DMA to A's device memory");
	for_nic(kMargin, kSmallAlloc);
	int st = qp_.write(local(kMargin), lkey(), kSmallAlloc, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_SUCCESS, "a write to registered memory B tried to free: %s\n",
	      status_str(st));
	Reply chk = ask(kCheck, 1, 0, kSmallAlloc, 0x7777);
	CHECK(chk.status == 0 && chk.bad == -1,
	      "the memory B tried to free did not get A's bytes (byte %" PRId64 ")\n", chk.bad);
	// Now B ends the registration and frees the memory: the rkey is gone.
	Reply f = ask(kFree, 1);
	CHECK(f.status == 0, "B's free after deregistration: %s\n", f.what);
	st = qp_.write(local(kMargin), lkey(), kSmallAlloc, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_REM_ACCESS_ERR,
	      "a write to freed device memory: %s, expected a remote access error\n",
	      status_str(st));
	new_qp();
	say("MR outliving its memory: B's unmap refused (-EINVAL) while registered, A's write "
	    "lands; after deregistration and free, A's write gets a remote access error");
}

void Initiator::closed_qp()
{
	Reply reg = ask(kReg, 0, kMargin, 4096);
	if (reg.status)
		die(std::string("B's registration: ") + reg.what);
	ask(kQpClose);
	int64_t t0 = now_ms();
	int st = qp_.write(local(kMargin), lkey(), 4096, reg.iova, reg.rkey, wait_ms(120000));
	CHECK(st != IBV_WC_SUCCESS && st != -ETIMEDOUT,
	      "a write to a QP B closed: %s, expected an error completion\n",
	      status_str(st));
	say("closed QP: a write to the QP B destroyed: %s after %" PRId64 " ms",
	    status_str(st),
	    now_ms() - t0);
	// A later request on the failed QP is flushed at once.
	st = qp_.write(local(kMargin), lkey(), 4096, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_WR_FLUSH_ERR, "a write on the failed QP: %d, expected a flush\n", st);
	new_qp();
	st = qp_.write(local(kMargin), lkey(), 4096, reg.iova, reg.rkey, wait_ms(60000));
	CHECK(st == IBV_WC_SUCCESS, "a write on a new QP after the closed one: %d\n", st);
}

void Initiator::killed_peer(const std::string &peer)
{
	link_.close();
	std::string why;
	if (link_.connect_to(peer, kVictimPort, wait_ms(120000), &why))
		die("the victim: " + why);
	new_qp();
	Reply reg = ask(kReg, 0, kMargin, 16 * kMiB);
	if (reg.status)
		die(std::string("the victim's registration: ") + reg.what);
	const int n = 8;
	for (int i = 0; i < n; i++)
		if (qp_.post(IBV_WR_RDMA_WRITE, local(kMargin), lkey(), 16 * kMiB,
			     reg.iova, reg.rkey, 100 + i))
			die("posting a write");
	Request rq;
	memset(&rq, 0, sizeof(rq));
	rq.op = kDie;
	link_.send_pod(rq);
	int64_t t0 = now_ms();
	auto c = qp_.wait(n, wait_ms(120000));
	int64_t t = now_ms() - t0;
	int ok = 0, err = 0;
	ibv_wc_status first = IBV_WC_SUCCESS;
	for (auto &x : c) {
		if (x.status == IBV_WC_SUCCESS) {
			ok++;
		} else {
			if (!err)
				first = x.status;
			err++;
		}
	}
	CHECK(static_cast<int>(c.size()) == n,
	      "only %zu of %d writes completed within the timeout: the survivor hangs\n",
	      c.size(), n);
	CHECK(err > 0, "all %d writes to a killed peer succeeded\n", n);
	std::vector<uint8_t> m;
	int rc = link_.recv(&m, wait_ms(60000));
	CHECK(rc == -ECONNRESET, "the killed peer's TCP connection: %s\n", strerror(-rc));
	say("killed peer: 8 x 16 MiB writes in flight when the target was killed: %d done, "
	    "%d failed (first: %s), all completed %" PRId64 " ms after the kill",
	    ok, err, ibv_wc_status_str(first), t);
}

int Initiator::run(const std::string &self, const std::string &peer,
		   const std::string &expect_path)
{
	expect_path_ = expect_path;
	std::string why;
	const char *rdev = getenv("HL_RDMA_DEV");
	if (port_.open(rdev ? rdev : "rxe_link", self, &why))
		die(why);
	if (dev_.open(kAlloc, &why))
		die(why);
	if (mem_.create(dev_.fd(), kAlloc))
		die("allocating 16 MiB of device memory");
	if (hlthunk_verbs_reg_device_memory(port_.pd(), dev_.fd(), mem_.va(), kAlloc,
					    kAccess, HLTHUNK_VERBS_REG_ALLOW_STAGED, &mr_))
		die(std::string("registering A's device memory: ") + hlthunk_verbs_last_error());
	say("path: host A (node 0): %s",
	    path_desc(hlthunk_verbs_mr_path(mr_), hlthunk_verbs_mr_dmabuf_error(mr_)).c_str());
	CHECK(expect_path_.empty() ||
		      expect_path_ == hlthunk_verbs_path_name(hlthunk_verbs_mr_path(mr_)),
	      "host A registered by %s, expected %s\n",
	      hlthunk_verbs_path_name(hlthunk_verbs_mr_path(mr_)), expect_path_.c_str());
	if (link_.connect_to(peer, kPort, wait_ms(300000), &why))
		die("the target: " + why);
	say("initiator: device %s, verbs %s, target %s", dev_.bus_id().c_str(),
	    ibv_get_device_name(port_.ctx()->device), peer.c_str());
	new_qp();
	sizes();
	out_of_range();
	stale_rkey();
	mr_outlives_memory();
	closed_qp();
	Request bye;
	memset(&bye, 0, sizeof(bye));
	bye.op = kBye;
	link_.send_pod(bye);
	killed_peer(peer);
	qp_.destroy();
	if (hlthunk_verbs_dereg_mr(mr_))
		die(std::string("deregistering: ") + hlthunk_verbs_last_error());
	return 0;
}

void usage()
{
	printf("usage: multinode_verbs initiator --self ADDR --peer ADDR [--expect-path PATH]\n"
	       "       multinode_verbs target --self ADDR\n"
	       "Device memory across two hosts over RDMA (see Documentation/multi-node.md).\n"
	       "The verbs device is $HL_RDMA_DEV (default rxe_link); PATH is dmabuf or\n"
	       "cpu-mapping, the registration path both hosts must take.\n");
}

}  // namespace
}  // namespace mntest

int main(int argc, char **argv)
{
	using namespace mntest;
	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage();
		return argc < 2 ? 2 : 0;
	}
	std::string role = argv[1], self, peer, expect;
	for (int i = 2; i + 1 < argc; i += 2) {
		std::string o = argv[i];
		if (o == "--self")
			self = argv[i + 1];
		else if (o == "--peer")
			peer = argv[i + 1];
		else if (o == "--expect-path")
			expect = argv[i + 1];
		else {
			usage();
			return 2;
		}
	}
	if (self.empty() || (role == "initiator" && peer.empty()) ||
	    (role != "initiator" && role != "target")) {
		usage();
		return 2;
	}
	if (role == "initiator") {
		Initiator().run(self, peer, expect);
	} else {
		auto before = device_counters();
		{
			Target t;
			t.run(self, kPort, false);
		}
		// The victim: a process of its own, killed by A's request
		// while A's writes arrive.
		pid_t pid = fork();
		if (pid == 0) {
			Target v;
			v.run(self, kVictimPort, true);
			_exit(0);  // not reached: A asks it to die
		}
		int ws = 0;
		if (pid < 0 || waitpid(pid, &ws, 0) != pid)
			die("forking the victim");
		CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL,
		      "the victim was not killed (status 0x%x)\n", ws);
		// Releases after a process exit are deferred.
		bool back = hltest::sim_counters_return_to(before, wait_ms(10000));
		CHECK(back, "after the victim's death the device's counters are %s, before %s\n",
		      hltest::counters_str(device_counters()).c_str(),
		      hltest::counters_str(before).c_str());
		say("killed peer: the target died of SIGKILL in mid-transfer; its device memory, "
		    "mappings, dma-bufs and context were all released");
	}
	if (failures) {
		printf("verbs-across: %d check(s) failed\n", failures);
		return 1;
	}
	say("all passed");
	return 0;
}
