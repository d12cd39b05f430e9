// SPDX-License-Identifier: MIT
// What UCX's own gtest (tools/ucx-gtest.sh) showed of the transport, kept
// here so that CI sees it: a put_short longer than max_short is refused
// and writes nothing; an empty operation does not look at the remote key
// (UCX passes UCT_INVALID_RKEY with empty buffers), and a non-empty one
// with that key is refused; ep_check reports a peer process that died;
// puts land in the order they were issued (the perf envelope's end mark).
#include <cstring>
#include <vector>

#include "bridge_fixture.h"

namespace uct_test {
namespace {

struct Packed {
	const unsigned char *src;
	size_t len;
};
size_t pack(void *dest, void *arg)
{
	auto *a = static_cast<Packed *>(arg);
	memcpy(dest, a->src, a->len);
	return a->len;
}
void unpack(void *arg, const void *, size_t len) { *static_cast<size_t *>(arg) = len; }

}  // namespace

TEST_F(Bridge, PutShortAboveItsMaximumIsRefused)
{
	constexpr uint64_t kLen = 1 << 20;
	RemoteBuffer r = env().remote(0, kLen);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		const size_t max_short = i.attr().cap.put.max_short;
		const size_t max_bcopy = i.attr().cap.put.max_bcopy;
		ASSERT_EQ(env().peer().call(kFill, r.id, 71, 0, kLen, 0).status, 0);
		// Just above the limit, beyond the bounce and staging buffers,
		// and far beyond: all inside the registration, so only the
		// length can refuse them.
		std::vector<unsigned char> src(kLen - 64, 0xa5);
		for (size_t len : {max_short + 1, max_bcopy + 1, src.size()}) {
			ucs_status_t st = retry(i, [&] {
				return uct_ep_put_short(ep, src.data(), static_cast<unsigned>(len),
							r.addr + 64, rk.rkey());
			});
			EXPECT_EQ(st, UCS_ERR_INVALID_PARAM) << "put_short of " << len << " bytes";
		}
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, 71, 0, kLen, 0).a, 0u)
			<< "a refused put_short wrote into the peer's memory";
		// The limit itself still moves data: the endpoint is fine.
		ASSERT_EQ(retry(i, [&] {
				  return uct_ep_put_short(ep, src.data(),
							  static_cast<unsigned>(max_short),
							  r.addr + 64, rk.rkey());
			  }),
			  UCS_OK);
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, 71, 0, 64, 0).a, 0u);
	}
	env().peer().call(kFree, r.id);
}

TEST_F(Bridge, EmptyOperationsDoNotReadTheRemoteKey)
{
	RemoteBuffer r = env().remote(0, 65536);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	unsigned char buf[64] = {};
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		// What UCX does with empty buffers: no key, address 0.
		EXPECT_EQ(retry(i, [&] { return uct_ep_put_short(ep, buf, 0, 0, UCT_INVALID_RKEY); }),
			  UCS_OK);
		Packed none{buf, 0};
		EXPECT_EQ(retry(i, [&] {
				  return uct_ep_put_bcopy(ep, pack, &none, 0, UCT_INVALID_RKEY);
			  }),
			  0);
		size_t got = 99;
		EXPECT_EQ(retry(i, [&] {
				  return uct_ep_get_bcopy(ep, unpack, &got, 0, 0, UCT_INVALID_RKEY,
							  nullptr);
			  }),
			  UCS_OK);
		EXPECT_EQ(got, 99u) << "nothing to unpack";
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = buf;
		iov.count = 1;
		EXPECT_EQ(retry(i, [&] {
				  return uct_ep_put_zcopy(ep, &iov, 1, 0, UCT_INVALID_RKEY, nullptr);
			  }),
			  UCS_OK);
		// Data with no key is a mistake, and said to be one.
		Packed some{buf, 8};
		EXPECT_EQ(uct_ep_put_short(ep, buf, 8, 0, UCT_INVALID_RKEY), UCS_ERR_INVALID_PARAM);
		EXPECT_EQ(uct_ep_put_bcopy(ep, pack, &some, 0, UCT_INVALID_RKEY),
			  UCS_ERR_INVALID_PARAM);
		EXPECT_EQ(uct_ep_get_bcopy(ep, unpack, &got, 8, 0, UCT_INVALID_RKEY, nullptr),
			  UCS_ERR_INVALID_PARAM);
		Buffer local(Buffer::Host, 4096);
		Registration lreg(local.addr(), local.size());
		ASSERT_EQ(lreg.status(), UCS_OK);
		iov.buffer = local.ptr();
		iov.length = 8;
		iov.memh = lreg.memh();
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, 0, UCT_INVALID_RKEY, nullptr),
			  UCS_ERR_INVALID_PARAM);
		// The endpoint still works.
		ASSERT_EQ(retry(i, [&] { return uct_ep_put_short(ep, buf, 8, r.addr, rk.rkey()); }),
			  UCS_OK);
		ASSERT_EQ(i.flush(ep), UCS_OK);
	}
	env().peer().call(kFree, r.id);
}

// UCX's test_uct_peer_failure_keepalive.killed fakes a death inside one
// process; this is the real thing: the peer process is killed, and
// uct_ep_check, with no operation in between, marks the endpoint failed.
TEST_F(Bridge, EpCheckReportsADeadPeer)
{
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Peer victim(kSparePeerDevice);
		ASSERT_TRUE(victim.ok());
		PeerMsg a = victim.call(kAlloc, 0, 65536);
		ASSERT_EQ(a.status, 0);
		PeerMsg g = victim.call(kReg, a.a, 0, 0, 65536);
		ASSERT_EQ(g.status, 0);
		RemoteKey rk(std::vector<uint8_t>(g.blob, g.blob + g.blob_len));
		ASSERT_EQ(rk.status(), UCS_OK);
		Iface i(Config{{"CHANNELS", path == Path::Channel ? "y" : "n"}});
		ASSERT_EQ(i.open_status(), UCS_OK);
		uct_ep_h ep;
		ASSERT_EQ(i.connect(victim.address(), &ep), UCS_OK);
		unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
		EXPECT_EQ(uct_ep_check(ep, 0, nullptr), UCS_OK);
		i.progress();
		ASSERT_EQ(retry(i, [&] { return uct_ep_put_short(ep, buf, 8, a.b, rk.rkey()); }),
			  UCS_OK) << "a live peer";
		ASSERT_EQ(i.flush(ep), UCS_OK);
		victim.kill_now();
		EXPECT_EQ(uct_ep_check(ep, 0, nullptr), UCS_OK);
		i.progress();
		// Only ep_check says ENDPOINT_TIMEOUT; a transfer that met the
		// dead peer would have failed otherwise.
		EXPECT_EQ(uct_ep_put_short(ep, buf, 8, a.b, rk.rkey()), UCS_ERR_ENDPOINT_TIMEOUT);
		uct_ep_destroy(ep);
	}
}

// UCX's perf envelope ("put bcopy bw") puts the same bytes over and over
// without waiting, then an end mark into the same place, and its target
// polls for the mark: a put that overtakes a later one hides the mark
// for ever (on the staged path the owner served the slots of one look in
// slot order, so a put in a lower slot, newer, went before an older one
// in a higher slot).  Then an operation issued while an earlier one
// waits for staging slots: it lands after it, not between its pieces.
TEST_F(Bridge, PutsLandInTheOrderIssued)
{
	constexpr uint64_t kLen = 2048, kBig = 1 << 20;
	constexpr int kPuts = 300;
	RemoteBuffer r = env().remote(0, kBig);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, kBig);
	ASSERT_TRUE(local.ok());
	Registration lreg(local.addr(), local.size());
	ASSERT_EQ(lreg.status(), UCS_OK);
	std::vector<unsigned char> src(kLen);
	uint32_t seed = 500;
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		for (int k = 0; k <= kPuts; k++) {
			// The puts, then the mark: the same place, other bytes.
			const uint32_t s = k < kPuts ? seed : seed + 1;
			if (k == 0 || k == kPuts)
				fill(src.data(), kLen, s, 0);
			Packed a{src.data(), kLen};
			ASSERT_EQ(retry(i, [&] {
					  return uct_ep_put_bcopy(ep, pack, &a, r.addr + 64, rk.rkey());
				  }),
				  static_cast<ssize_t>(kLen));
			if (k % 16 == 0)
				i.progress();  // as the perf test does
		}
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, seed + 1, 64, kLen, 0).a, 0u)
			<< "an earlier put overwrote the last one";
		seed += 2;
		if (path != Path::Staged)
			continue;
		// A put of several staging slots (the peer's are 256 KiB) with
		// its last pieces waiting for the first ones, then a short put
		// into its last piece: the short one lands last.  (On the channel
		// path the zero-copy put, 1 MiB, is copied inside the call.)
		fill(local.cpu(), kBig, seed, 0);
		fill(src.data(), 8, seed + 1, 0);
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = local.ptr();
		iov.length = kBig;
		iov.memh = lreg.memh();
		iov.count = 1;
		Completion c;
		ucs_status_t st = retry(i, [&] {
			return uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), &c.comp);
		});
		ASSERT_TRUE(st == UCS_OK || st == UCS_INPROGRESS) << ucs_status_string(st);
		ASSERT_EQ(retry(i, [&] {
				  return uct_ep_put_short(ep, src.data(), 8, r.addr + kBig - 8,
							  rk.rkey());
			  }),
			  UCS_OK);
		if (st == UCS_INPROGRESS) {
			ASSERT_TRUE(i.wait(&c.done));
		}
		ASSERT_EQ(c.status, UCS_OK);
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, seed, 0, kBig - 8, 0).a, 0u);
		EXPECT_EQ(env().peer().call(kCheck, r.id, seed + 1, kBig - 8, 8, 0).a, 0u)
			<< "the zero-copy put's last piece overwrote the short put issued after it";
		seed += 2;
	}
	env().peer().call(kFree, r.id);
}

}  // namespace uct_test
