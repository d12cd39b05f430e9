// SPDX-License-Identifier: MIT
// Data through the gaudi_ipc transport between two processes, each owning
// an emulated device: every operation, sizes from 1 B to 64 MiB at
// unaligned offsets, host and device memory at both ends, both paths,
// every byte checked (and the bytes around each range).
#include <poll.h>
#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "bridge_fixture.h"
#include "hlthunk.h"

namespace uct_test {
namespace {

constexpr uint64_t kSmallBuf = 2ull << 20;
const uint64_t kSizes[] = {1, 7, 4096, 3 * 4096 + 5, 65536 + 3, (1 << 20) - 1,
			   (1 << 20) + 4095};

TEST_F(Bridge, ZcopyEveryCombination)
{
	for (int rkind = 0; rkind < 2; rkind++) {
		RemoteBuffer r = env().remote(rkind, kSmallBuf);
		ASSERT_NE(r.id, 0u);
		RemoteKey rk(r.rkey);
		ASSERT_EQ(rk.status(), UCS_OK);
		for (auto lkind : {Buffer::Host, Buffer::Device}) {
			Buffer local(lkind, kSmallBuf, env().dev());
			ASSERT_TRUE(local.ok());
			Registration reg(local.addr(), local.size());
			ASSERT_EQ(reg.status(), UCS_OK);
			uint32_t seed = 1;
			for (Path path : {Path::Channel, Path::Staged})
				for (bool get : {false, true})
					for (size_t i = 0; i < sizeof(kSizes) / sizeof(kSizes[0]);
					     i++) {
						uint64_t loff = i % 2 ? 3 : 0;
						uint64_t roff = i % 3 ? 5 : 0;
						check_transfer(path, get, local, reg.memh(), r, rk,
							       loff, roff, kSizes[i], seed++);
						if (HasFatalFailure())
							return;
					}
		}
		env().peer().call(kFree, r.id);
	}
}

// The largest size, once per path: device to device.
TEST_F(Bridge, SixtyFourMiB)
{
	constexpr uint64_t kBig = 64ull << 20;
	RemoteBuffer r = env().remote(1, kBig + 4096);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Device, kBig + 4096, env().dev());
	ASSERT_TRUE(local.ok());
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);
	check_transfer(Path::Channel, false, local, reg.memh(), r, rk, 1, 3, kBig, 77);
	check_transfer(Path::Staged, true, local, reg.memh(), r, rk, 3, 1, kBig, 78);
	env().peer().call(kFree, r.id);
}

namespace {
struct PackArg {
	const unsigned char *src;
	size_t len;
};
size_t pack_cb(void *dest, void *arg)
{
	auto *a = static_cast<PackArg *>(arg);
	memcpy(dest, a->src, a->len);
	return a->len;
}
struct UnpackArg {
	unsigned char *dst;
	size_t len;
	size_t got;
};
void unpack_cb(void *arg, const void *data, size_t len)
{
	auto *a = static_cast<UnpackArg *>(arg);
	memcpy(a->dst, data, len);
	a->got = len;
}
}  // namespace

TEST_F(Bridge, ShortAndBuffered)
{
	for (int rkind = 0; rkind < 2; rkind++) {
		RemoteBuffer r = env().remote(rkind, 65536);
		ASSERT_NE(r.id, 0u);
		RemoteKey rk(r.rkey);
		ASSERT_EQ(rk.status(), UCS_OK);
		for (Path path : {Path::Channel, Path::Staged}) {
			SCOPED_TRACE(std::string(path_name(path)) +
				     (rkind ? " device" : " host"));
			Iface &i = env().iface(path);
			uct_ep_h ep = env().ep(path);
			const size_t max_short = i.attr().cap.put.max_short;
			const size_t max_bcopy = i.attr().cap.put.max_bcopy;
			ASSERT_GE(max_short, 8u);
			ASSERT_GE(max_bcopy, 4096u);
			std::vector<unsigned char> src(max_bcopy), dst(max_bcopy);
			uint32_t seed = 100;
			for (size_t len : {size_t{1}, size_t{8}, max_short}) {
				ASSERT_EQ(env().peer().call(kZero, r.id).status, 0);
				fill(src.data(), len, seed, 0);
				ucs_status_t st;
				while ((st = uct_ep_put_short(ep, src.data(),
							      static_cast<unsigned>(len),
							      r.addr + 11, rk.rkey())) ==
				       UCS_ERR_NO_RESOURCE)
					i.progress();
				ASSERT_EQ(st, UCS_OK);
				ASSERT_EQ(i.flush(ep), UCS_OK);
				EXPECT_EQ(env().peer().call(kCheck, r.id, seed, 11, len, 0).a, 0u)
					<< "put_short " << len;
				seed++;
			}
			for (size_t len : {size_t{1000}, max_bcopy}) {
				ASSERT_EQ(env().peer().call(kZero, r.id).status, 0);
				fill(src.data(), len, seed, 0);
				PackArg a{src.data(), len};
				ssize_t n;
				while ((n = uct_ep_put_bcopy(ep, pack_cb, &a, r.addr + 13,
							     rk.rkey())) == UCS_ERR_NO_RESOURCE)
					i.progress();
				ASSERT_EQ(n, static_cast<ssize_t>(len));
				ASSERT_EQ(i.flush(ep), UCS_OK);
				EXPECT_EQ(env().peer().call(kCheck, r.id, seed, 13, len, 0).a, 0u)
					<< "put_bcopy " << len;
				seed++;
			}
			for (size_t len : {size_t{5}, max_bcopy}) {
				ASSERT_EQ(env().peer().call(kFill, r.id, seed, 17, len, 0).status, 0);
				memset(dst.data(), 0, dst.size());
				UnpackArg a{dst.data(), len, 0};
				Completion c;
				ucs_status_t st;
				while ((st = uct_ep_get_bcopy(ep, unpack_cb, &a, len, r.addr + 17,
							      rk.rkey(), &c.comp)) ==
				       UCS_ERR_NO_RESOURCE)
					i.progress();
				if (st == UCS_INPROGRESS) {
					ASSERT_TRUE(i.wait(&c.done));
					st = c.status;
				}
				ASSERT_EQ(st, UCS_OK);
				EXPECT_EQ(a.got, len);
				EXPECT_EQ(check(dst.data(), len, seed, 0), -1) << "get_bcopy " << len;
				seed++;
			}
		}
		env().peer().call(kFree, r.id);
	}
}

// One operation over several pieces of local memory, host and device.
TEST_F(Bridge, IovOfHostAndDevicePieces)
{
	RemoteBuffer r = env().remote(1, 1 << 20);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer h(Buffer::Host, 8192), d(Buffer::Device, 1 << 20, env().dev());
	ASSERT_TRUE(h.ok() && d.ok());
	Registration hr(h.addr(), h.size()), dr(d.addr(), d.size());
	ASSERT_EQ(hr.status(), UCS_OK);
	ASSERT_EQ(dr.status(), UCS_OK);
	struct Piece {
		Buffer *b;
		uct_mem_h m;
		uint64_t off, len;
	} pieces[] = {{&h, hr.memh(), 5, 1000}, {&d, dr.memh(), 7, 600000}, {&h, hr.memh(), 3000, 3}};
	const uint64_t total = 601003;  // several staging slots of the peer
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		uct_iov_t iov[3];
		uint64_t at = 0;
		for (int k = 0; k < 3; k++) {
			memset(&iov[k], 0, sizeof(iov[k]));
			iov[k].buffer = pieces[k].b->ptr(pieces[k].off);
			iov[k].length = pieces[k].len;
			iov[k].memh = pieces[k].m;
			iov[k].count = 1;
			fill(pieces[k].b->cpu() + pieces[k].off, pieces[k].len, 9, at);
			at += pieces[k].len;
		}
		ASSERT_EQ(env().peer().call(kZero, r.id).status, 0);
		Completion c;
		ucs_status_t st = uct_ep_put_zcopy(ep, iov, 3, r.addr + 21, rk.rkey(), &c.comp);
		if (st == UCS_INPROGRESS) {
			ASSERT_TRUE(i.wait(&c.done));
			st = c.status;
		}
		ASSERT_EQ(st, UCS_OK);
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, 9, 21, total, 0).a, 0u);
		// And back, into the same pieces.
		for (auto &p : pieces)
			memset(p.b->cpu() + p.off, 0, p.len);
		c.reset();
		st = uct_ep_get_zcopy(ep, iov, 3, r.addr + 21, rk.rkey(), &c.comp);
		if (st == UCS_INPROGRESS) {
			ASSERT_TRUE(i.wait(&c.done));
			st = c.status;
		}
		ASSERT_EQ(st, UCS_OK);
		at = 0;
		for (auto &p : pieces) {
			EXPECT_EQ(check(p.b->cpu() + p.off, p.len, 9, at), -1);
			at += p.len;
		}
	}
	env().peer().call(kFree, r.id);
}

// The peer moves data into and out of this process: this process serves
// the staged path from UCX's async thread while it waits on the socket
// (it calls no progress meanwhile).
TEST_F(Bridge, PeerInitiatedBothPaths)
{
	for (const char *mode : {"y", "n"}) {
		SCOPED_TRACE(std::string("peer with UCX_GAUDI_IPC_CHANNELS=") + mode);
		Peer p(kSparePeerDevice, false, {std::string("UCX_GAUDI_IPC_CHANNELS=") + mode});
		ASSERT_TRUE(p.ok());
		Iface mine;  // offers channels and a mailbox
		ASSERT_EQ(p.call(kConnect, 0, 0, 0, 0, 0, mine.address()).status, 0);
		PeerMsg a = p.call(kAlloc, 1, 1 << 20);
		ASSERT_EQ(a.status, 0);
		for (auto lkind : {Buffer::Host, Buffer::Device}) {
			Buffer local(lkind, 1 << 20, env().dev());
			ASSERT_TRUE(local.ok());
			Registration reg(local.addr(), local.size());
			ASSERT_EQ(reg.status(), UCS_OK);
			const uint64_t len = 300000;
			// Peer puts its device memory into ours.
			ASSERT_EQ(p.call(kFill, a.a, 31, 10, len, 0).status, 0);
			memset(local.cpu(), 0, local.size());
			PeerMsg x = p.call(kXfer, 0, a.a, 10, len, local.addr() + 99, reg.packed());
			ASSERT_EQ(x.status, UCS_OK) << ucs_status_string((ucs_status_t)x.status);
			EXPECT_EQ(check(local.cpu() + 99, len, 31, 0), -1);
			EXPECT_EQ(check_zero(local.cpu(), 99), -1);
			// Peer gets ours into its device memory.
			fill(local.cpu() + 1, len, 32, 0);
			ASSERT_EQ(p.call(kZero, a.a).status, 0);
			x = p.call(kXfer, 1, a.a, 20, len, local.addr() + 1, reg.packed());
			ASSERT_EQ(x.status, UCS_OK) << ucs_status_string((ucs_status_t)x.status);
			EXPECT_EQ(p.call(kCheck, a.a, 32, 20, len, 0).a, 0u);
		}
	}
}

// Threads, each with its own worker and interface and several endpoints
// to the peer, move into disjoint parts of one peer buffer at once.
TEST_F(Bridge, ThreadsAndManyEndpoints)
{
	constexpr int kThreads = 4, kEps = 4, kIters = 3;
	constexpr uint64_t kPiece = 96 * 1024 + 17;
	const uint64_t size = kThreads * kEps * kPiece;
	// Whole pages: a device key of a range that ends inside a page has no
	// cookie (it would grant the rest of the page), and half the threads
	// use channels only.
	RemoteBuffer r = env().remote(1, (size + 4095) & ~uint64_t{4095});
	ASSERT_NE(r.id, 0u);
	std::atomic<int> failures{0};
	std::vector<std::thread> threads;
	for (int t = 0; t < kThreads; t++) {
		threads.emplace_back([&, t] {
			Iface i({{"CHANNELS", t % 2 ? "n" : "y"}, {"MAX_INFLIGHT", "4"}});
			if (i.open_status() != UCS_OK) {
				failures++;
				return;
			}
			RemoteKey rk(r.rkey);
			Buffer local(t % 2 ? Buffer::Host : Buffer::Device, kEps * kPiece,
				     env().dev());
			Registration reg(local.addr(), local.size());
			if (rk.status() != UCS_OK || !local.ok() || reg.status() != UCS_OK) {
				failures++;
				return;
			}
			std::vector<uct_ep_h> eps(kEps);
			for (auto &ep : eps)
				if (i.connect(env().peer().address(), &ep) != UCS_OK) {
					failures++;
					return;
				}
			for (int k = 0; k < kEps; k++)
				fill(local.cpu() + k * kPiece, kPiece, 500 + t * kEps + k, 0);
			for (int it = 0; it < kIters; it++) {
				// All endpoints in flight at once, then wait for all.
				std::vector<Completion> c(kEps);
				for (int k = 0; k < kEps; k++) {
					uct_iov_t iov;
					memset(&iov, 0, sizeof(iov));
					iov.buffer = local.ptr(k * kPiece);
					iov.length = kPiece;
					iov.memh = reg.memh();
					iov.count = 1;
					uint64_t raddr = r.addr + (t * kEps + k) * kPiece;
					ucs_status_t st;
					while ((st = uct_ep_put_zcopy(eps[k], &iov, 1, raddr, rk.rkey(),
								      &c[k].comp)) ==
					       UCS_ERR_NO_RESOURCE)
						i.progress();
					if (st == UCS_OK)
						c[k].done = true;
					else if (st != UCS_INPROGRESS)
						failures++;
				}
				for (auto &x : c)
					if (!i.wait(&x.done) || x.status != UCS_OK)
						failures++;
			}
			for (auto ep : eps) {
				if (i.flush(ep) != UCS_OK)
					failures++;
				uct_ep_destroy(ep);
			}
		});
	}
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(failures.load(), 0);
	for (int t = 0; t < kThreads; t++)
		for (int k = 0; k < kEps; k++)
			EXPECT_EQ(env().peer().call(kCheck, r.id, 500 + t * kEps + k,
						    (t * kEps + k) * kPiece, kPiece, 0).a,
				  0u)
				<< "thread " << t << " endpoint " << k;
	env().peer().call(kFree, r.id);
}

namespace {
struct Pending {
	uct_pending_req_t req;
	uct_ep_h ep;
	uct_iov_t iov;
	uint64_t raddr;
	uct_rkey_t rkey;
	Completion *comp;
	bool sent = false;
};
ucs_status_t pending_cb(uct_pending_req_t *self)
{
	auto *p = reinterpret_cast<Pending *>(self);
	ucs_status_t st = uct_ep_put_zcopy(p->ep, &p->iov, 1, p->raddr, p->rkey, &p->comp->comp);
	if (st == UCS_ERR_NO_RESOURCE)
		return st;
	if (st == UCS_OK)
		p->comp->done = true;
	p->sent = true;
	return UCS_OK;
}
}  // namespace

// Flush with a completion, a fence between overlapping puts, and the
// pending queue when the interface is at MAX_INFLIGHT.
TEST_F(Bridge, FlushFenceAndPending)
{
	constexpr uint64_t kLen = 256 * 1024;
	RemoteBuffer r = env().remote(1, 16 * kLen);
	ASSERT_NE(r.id, 0u);
	for (const char *mode : {"y", "async", "n"}) {
		SCOPED_TRACE(std::string("mode ") + mode);
		Iface i({{"CHANNELS", mode[0] == 'n' ? "n" : "y"},
			 {"ASYNC_COPIES", mode[0] == 'a' ? "y" : "n"},
			 {"MAX_INFLIGHT", "2"},
			 {"SYNC_COPY_MAX", "0"},
			 {"SEG_SIZE", "64k"}});
		ASSERT_EQ(i.open_status(), UCS_OK);
		uct_ep_h ep;
		ASSERT_EQ(i.connect(env().peer().address(), &ep), UCS_OK);
		RemoteKey rk(r.rkey);
		ASSERT_EQ(rk.status(), UCS_OK);
		Buffer local(Buffer::Device, 16 * kLen, env().dev());
		ASSERT_TRUE(local.ok());
		Registration reg(local.addr(), local.size());
		ASSERT_EQ(reg.status(), UCS_OK);
		for (int k = 0; k < 16; k++)
			fill(local.cpu() + k * kLen, kLen, 700 + k, 0);
		ASSERT_EQ(env().peer().call(kZero, r.id).status, 0);
		// 16 puts through an interface that keeps 2 in flight.
		std::vector<Completion> comps(16);
		std::vector<Pending> pend(16);
		int queued = 0;
		for (int k = 0; k < 16; k++) {
			Pending &p = pend[k];
			p.ep = ep;
			memset(&p.iov, 0, sizeof(p.iov));
			p.iov.buffer = local.ptr(k * kLen);
			p.iov.length = kLen;
			p.iov.memh = reg.memh();
			p.iov.count = 1;
			p.raddr = r.addr + k * kLen;
			p.rkey = rk.rkey();
			p.comp = &comps[k];
			p.req.func = pending_cb;
			ucs_status_t st = uct_ep_put_zcopy(ep, &p.iov, 1, p.raddr, p.rkey,
							   &comps[k].comp);
			if (st == UCS_ERR_NO_RESOURCE) {
				ASSERT_EQ(uct_ep_pending_add(ep, &p.req, 0), UCS_OK);
				queued++;
			} else {
				ASSERT_TRUE(st == UCS_OK || st == UCS_INPROGRESS)
					<< ucs_status_string(st);
				if (st == UCS_OK)
					comps[k].done = true;
				p.sent = true;
			}
		}
		EXPECT_GT(queued, 0) << "MAX_INFLIGHT=2 let 16 operations start";
		// Flush with a completion: called once everything before it is done.
		Completion fc;
		ucs_status_t st;
		while ((st = uct_ep_flush(ep, 0, &fc.comp)) == UCS_ERR_NO_RESOURCE)
			i.progress();
		if (st == UCS_INPROGRESS) {
			ASSERT_TRUE(i.wait(&fc.done));
		}
		for (int k = 0; k < 16; k++) {
			EXPECT_TRUE(pend[k].sent) << k;
			EXPECT_TRUE(comps[k].done) << k;
			EXPECT_EQ(comps[k].status, UCS_OK) << k;
		}
		for (int k = 0; k < 16; k++)
			EXPECT_EQ(env().peer().call(kCheck, r.id, 700 + k, k * kLen, kLen, 0).a, 0u)
				<< k;
		// Fence: the second put lands after the first on the same bytes.
		Completion c1, c2;
		uct_iov_t a = pend[0].iov, b = pend[1].iov;
		st = uct_ep_put_zcopy(ep, &a, 1, r.addr, rk.rkey(), &c1.comp);
		ASSERT_TRUE(st == UCS_OK || st == UCS_INPROGRESS);
		ASSERT_EQ(uct_ep_fence(ep, 0), UCS_OK);
		while ((st = uct_ep_put_zcopy(ep, &b, 1, r.addr, rk.rkey(), &c2.comp)) ==
		       UCS_ERR_NO_RESOURCE)
			i.progress();
		ASSERT_TRUE(st == UCS_OK || st == UCS_INPROGRESS);
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, 701, 0, kLen, 0).a, 0u);
		uct_ep_destroy(ep);
	}
	env().peer().call(kFree, r.id);
}

// The interface's event fd wakes a sleeping caller when an operation
// completes: copies queued on the kernel's channel (the /dev/hl_ipc fd),
// copies progress does in segments (arm says busy until they are done),
// and the staged path (the owner's ring on the line it shares with us).
TEST_F(Bridge, EventFdWakesOnCompletion)
{
	RemoteBuffer r = env().remote(1, 4 << 20);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	Buffer local(Buffer::Host, 4 << 20);
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);
	const Config configs[] = {{{"CHANNELS", "y"}, {"ASYNC_COPIES", "y"}},
				  {{"CHANNELS", "y"}, {"ASYNC_COPIES", "n"}},
				  {{"CHANNELS", "n"}}};
	for (const Config &cfg : configs) {
		SCOPED_TRACE(cfg[0].second + (cfg.size() > 1 ? " " + cfg[1].second : ""));
		Iface i(cfg);
		ASSERT_EQ(i.open_status(), UCS_OK);
		uct_ep_h ep;
		ASSERT_EQ(i.connect(env().peer().address(), &ep), UCS_OK);
		int fd = -1;
		ASSERT_EQ(uct_iface_event_fd_get(i.iface(), &fd), UCS_OK);
		fill(local.cpu(), 4 << 20, 81, 0);
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = local.ptr();
		iov.length = 4 << 20;
		iov.memh = reg.memh();
		iov.count = 1;
		Completion c;
		// The staged path's first operation may find the peer not yet
		// admitting us (its async thread is slow to run on a busy host).
		ucs_status_t st;
		Deadline end(60);
		while ((st = uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), &c.comp)) ==
			       UCS_ERR_NO_RESOURCE &&
		       !end.passed())
			i.progress();
		ASSERT_EQ(st, UCS_INPROGRESS);
		int slept = 0;
		while (!c.done && !end.passed()) {
			st = uct_iface_event_arm(i.iface(), UCT_EVENT_SEND_COMP);
			if (st == UCS_OK) {
				struct pollfd p = {fd, POLLIN, 0};
				ASSERT_GE(poll(&p, 1, 10000), 0);
				slept++;
			} else {
				ASSERT_EQ(st, UCS_ERR_BUSY);
			}
			i.progress();
		}
		EXPECT_TRUE(c.done);
		EXPECT_EQ(c.status, UCS_OK);
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, 81, 0, 4 << 20, 0).a, 0u);
		uct_ep_destroy(ep);
	}
	env().peer().call(kFree, r.id);
}

}  // namespace
}  // namespace uct_test
