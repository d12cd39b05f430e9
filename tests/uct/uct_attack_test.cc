// SPDX-License-Identifier: MIT
// The transport against a hostile peer.  Each test plays one of the
// attacks a review of the transport carried out with small programs (the
// test process, or a peer it starts, doing what any process of that user
// can do), and checks that it neither crashes nor hangs an interface,
// nor reaches memory beyond what a remote key was granted:
//
//   rewriting the shared mailbox's header and geometry, truncating it,
//   a remote key that claims another owner's uid, device keys widened or
//   made writable by hand and used straight through libhlthunk, keys
//   used after deregistration, deregistration while a piece is served,
//   processes whose staging slot sizes differ, an owner that dies or
//   stops while its initiator sleeps or waits for a piece it serves, an
//   endpoint destroyed from its own completion, a flood of rings from
//   another user, and a DMA that outlives its timeout.
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "bridge_fixture.h"
#include "hlthunk.h"
#include "hostile.h"

namespace uct_test {
namespace {

using Bytes = std::vector<uint8_t>;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0)
{
	return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

// A put or get of len bytes between local+loff and raddr on the test's
// staged interface, waited for: its status.
ucs_status_t staged_xfer(bool get, Buffer &local, uint64_t loff, uct_mem_h memh,
			 uint64_t raddr, const RemoteKey &rk, uint64_t len)
{
	auto &env = BridgeEnv::get();
	return zcopy(env.iface(Path::Staged), env.ep(Path::Staged), get, local, loff, memh, raddr,
		     rk.rkey(), len);
}

// Waits on an interface as a program that sleeps does: arm, and poll its
// event fd; progress whenever it says there is work.  Returns when *done
// or after `seconds`; *ran_out (if given) says whether a poll ever ended
// by its own timeout rather than by the event fd.
bool sleep_until(const Iface &i, const volatile bool *done, double seconds,
		 bool *ran_out = nullptr)
{
	int fd = -1;
	if (uct_iface_event_fd_get(i.iface(), &fd) != UCS_OK)
		return false;
	const auto t0 = Clock::now();
	while (!*done && seconds_since(t0) < seconds) {
		if (i.progress())
			continue;
		if (uct_iface_event_arm(i.iface(), UCT_EVENT_SEND_COMP | UCT_EVENT_RECV) != UCS_OK)
			continue;
		const double left = seconds - seconds_since(t0);
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, left > 0 ? static_cast<int>(left * 1000) + 1 : 0) == 0 && ran_out)
			*ran_out = true;
	}
	return *done;
}

// A peer rewrites every word of the mailbox's header with hostile values
// (a huge slot count, an offset that moves staging onto memory the owner
// never registered, a linger time of ages) and truncates the segment; the
// owner must neither crash, nor spin, nor move memory it never
// registered, and honest transfers must still work.
TEST_F(Hostile, MailboxHeaderRewrittenAndTruncated)
{
	Peer &owner = env().peer();
	Segment seg;
	ASSERT_TRUE(open_mailbox_of(owner.pid(), &seg));
	// The owner's secret: host memory it never registered.
	constexpr uint64_t kLen = 8192;
	PeerMsg secret = owner.call(kAlloc, 0, 65536);
	ASSERT_EQ(secret.status, 0);
	ASSERT_EQ(owner.call(kFill, secret.a, 81, 0, 65536, 0).status, 0);
	RemoteBuffer r = env().remote(0, 65536);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, 4 * kLen);
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);

	// The honest initiator (this process) has attached to the mailbox.
	fill(local.cpu(), kLen, 199, 0);
	ASSERT_EQ(staged_xfer(false, local, 0, reg.memh(), r.addr, rk, kLen), UCS_OK);
	std::vector<unsigned char> saved(seg.map.bytes(), seg.map.bytes() + 64);
	const uint64_t onto_secret = secret.b - seg.owner_base;
	int round = 0;
	for (uint64_t off = 0; off < 64; off += 8) {
		for (uint64_t v : {uint64_t{~0ull}, uint64_t{0x10000000}, onto_secret, uint64_t{0}}) {
			SCOPED_TRACE("header word at " + std::to_string(off) + " = " +
				     std::to_string(v));
			memcpy(seg.map.bytes() + off, &v, sizeof(v));
			const uint32_t seed = 200 + round++;
			fill(local.cpu(), kLen, seed, 0);
			EXPECT_EQ(staged_xfer(false, local, 0, reg.memh(), r.addr, rk, kLen), UCS_OK);
			EXPECT_EQ(staged_xfer(true, local, 2 * kLen, reg.memh(), r.addr, rk, kLen),
				  UCS_OK);
			memcpy(seg.map.bytes(), saved.data(), saved.size());
			ASSERT_TRUE(alive(owner.pid())) << "the owner died";
			EXPECT_EQ(owner.call(kCheck, r.id, seed, 0, kLen, 0).a, 0u);
			EXPECT_EQ(check(local.cpu() + 2 * kLen, kLen, seed, 0), -1);
			EXPECT_EQ(owner.call(kCheck, secret.a, 81, 0, 65536, 0).a, 0u)
				<< "memory the owner never registered was written";
		}
	}
	// Truncated (or grown) under the owner's and our mappings: refused.
	EXPECT_NE(ftruncate(seg.fd.get(), 0), 0);
	EXPECT_NE(ftruncate(seg.fd.get(), static_cast<off_t>(seg.size * 2)), 0);
	fill(local.cpu(), kLen, 77, 0);
	EXPECT_EQ(staged_xfer(false, local, 0, reg.memh(), r.addr, rk, kLen), UCS_OK);
	ASSERT_TRUE(alive(owner.pid())) << "the owner died";
	EXPECT_EQ(owner.call(kCheck, r.id, 77, 0, kLen, 0).a, 0u);
	owner.call(kFree, r.id);
	owner.call(kFree, secret.a);
}

// A process of another user says, in its remote key, that it runs as
// root; a root process must not believe it: nothing reaches its memory.
TEST_F(Hostile, ForgedIdentityInAKey)
{
	Peer nobody(-1, true, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(nobody.ok());
	PeerMsg a = nobody.call(kAlloc, 0, 4096);
	ASSERT_EQ(a.status, 0);
	ASSERT_EQ(nobody.call(kFill, a.a, 7, 0, 4096, 0).status, 0);
	PeerMsg g = nobody.call(kReg, a.a, 0, 0, 4096);
	ASSERT_EQ(g.status, 0);
	// The key's bytes 60..63: where keys once carried their owner's uid.
	Bytes forged = repack(Bytes(g.blob, g.blob + g.blob_len),
			      [](gaudi_ipc::PackedRkey &p) { p.reserved0 = 0; });
	Iface i(Config{{"CHANNELS", "n"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	uct_ep_h ep = nullptr;
	ASSERT_EQ(i.connect(nobody.address(), &ep), UCS_OK);
	RemoteKey rk(forged);
	if (rk.status() == UCS_OK) {
		Buffer local(Buffer::Host, 4096);
		Registration reg(local.addr(), 4096);
		fill(local.cpu(), 4096, 8, 0);
		EXPECT_NE(zcopy(i, ep, false, local, 0, reg.memh(), a.b, rk.rkey(), 4096), UCS_OK);
		EXPECT_NE(zcopy(i, ep, true, local, 0, reg.memh(), a.b, rk.rkey(), 4096), UCS_OK);
	}
	EXPECT_EQ(nobody.call(kCheck, a.a, 7, 0, 4096, 0).a, 0u) << "root wrote nobody's memory";
	uct_ep_destroy(ep);
}

// What an attacker does with a key without the transport: imports the
// cookie with libhlthunk and copies through it, past the registered range
// and into memory registered for reading only.  The owner's memory is on
// device dev_index, or on the host (-1).
struct DirectAccess {
	int ctl = -1;              // the owner's device, control node (-1: the host)
	bool ok = false;
	hlipc::Mapping host;       // our side of the copies
	uint64_t host_cookie = 0;
	uint32_t to_dev = 0, from_dev = 0;
	explicit DirectAccess(int dev_index)
	{
		if (dev_index >= 0 && (ctl = hlthunk_open_control(-1, sim_bus(dev_index).c_str())) < 0)
			return;
		const uint32_t dev_host = dev_index >= 0 ? 0 : HLTHUNK_IPC_CHANNEL_SRC_HOST |
								       HLTHUNK_IPC_CHANNEL_DST_HOST;
		host = hlipc::Mapping::map(1 << 20, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ok = host.valid() &&
		     hlthunk_ipc_register_host(host.bytes(), 1 << 20,
					       HLTHUNK_IPC_ACCESS_READ | HLTHUNK_IPC_ACCESS_WRITE,
					       &host_cookie) == 0 &&
		     hlthunk_ipc_channel_create_ex(-1, ctl, HLTHUNK_IPC_CHANNEL_SRC_HOST | dev_host,
						   &to_dev) == 0 &&
		     hlthunk_ipc_channel_create_ex(ctl, -1, HLTHUNK_IPC_CHANNEL_DST_HOST | dev_host,
						   &from_dev) == 0;
	}
	~DirectAccess()
	{
		if (to_dev)
			hlthunk_ipc_channel_destroy(to_dev);
		if (from_dev)
			hlthunk_ipc_channel_destroy(from_dev);
		if (host_cookie)
			hlthunk_ipc_deregister(host_cookie);
	}
	int copy(bool into_dev, uint64_t cookie, uint64_t off, uint64_t len)
	{
		struct hlthunk_ipc_copy c;
		memset(&c, 0, sizeof(c));
		c.channel_id = into_dev ? to_dev : from_dev;
		c.src_cookie = into_dev ? host_cookie : cookie;
		c.src_offset = into_dev ? 0 : off;
		c.dst_cookie = into_dev ? cookie : host_cookie;
		c.dst_offset = into_dev ? off : 0;
		c.length = len;
		return hlthunk_ipc_copy(&c);
	}
};

// 4 KiB of a 2 MiB device allocation registered for remote reads: the
// key says read-only; the kernel region behind its cookie is that range,
// read-only, whatever a key says; a key made writable or widened by hand
// reaches nothing more on either path; deregistering revokes it.
TEST_F(Hostile, DeviceKeysGrantExactlyWhatWasRegistered)
{
	Peer &owner = env().peer();
	constexpr uint64_t kAlloc2M = 2 << 20, kAt = 64 << 10, kReg4K = 4096;
	PeerMsg a = owner.call(kAlloc, 1, kAlloc2M);
	ASSERT_EQ(a.status, 0);
	ASSERT_EQ(owner.call(kFill, a.a, 9, 0, kAlloc2M, 0).status, 0);
	PeerMsg g = owner.call(kReg, a.a, UCT_MD_MEM_ACCESS_REMOTE_GET, kAt, kReg4K);
	ASSERT_EQ(g.status, 0);
	const Bytes key(g.blob, g.blob + g.blob_len);
	gaudi_ipc::PackedRkey p;
	memcpy(&p, key.data(), sizeof(p));
	EXPECT_FALSE(p.flags & gaudi_ipc::kRkeyWritable) << "a read-only registration";
	ASSERT_TRUE(p.flags & gaudi_ipc::kRkeyCookie);

	// The kernel's word on the cookie.
	struct hlthunk_ipc_region_info info;
	ASSERT_EQ(hlthunk_ipc_query_cookie(p.cookie, &info), 0);
	EXPECT_LE(info.size, kReg4K) << "the region is larger than the registration";
	EXPECT_FALSE(info.access & HLTHUNK_IPC_ACCESS_WRITE) << "the region is writable";
	DirectAccess direct(kPeerDevice);
	ASSERT_TRUE(direct.ok) << hlthunk_ipc_last_error();
	EXPECT_LT(direct.copy(true, p.cookie, p.cookie_offset, 4096), 0) << "wrote through a read-only cookie";
	EXPECT_LT(direct.copy(false, p.cookie, p.cookie_offset + kReg4K, 4096), 0)
		<< "read past the registered range";
	EXPECT_LT(direct.copy(false, p.cookie, 1 << 20, 4096), 0) << "read past the registered range";

	// Through the transport, on both paths: the honest key, and keys made
	// writable and widened over the whole allocation by hand.
	const Bytes writable = repack(key, [](gaudi_ipc::PackedRkey &k) {
		k.flags |= gaudi_ipc::kRkeyWritable;
	});
	const uint64_t base = a.b;
	const Bytes wide = repack(key, [&](gaudi_ipc::PackedRkey &k) {
		k.flags |= gaudi_ipc::kRkeyWritable;
		k.cookie_offset -= k.addr - base;
		k.addr = base;
		k.length = kAlloc2M;
	});
	Buffer local(Buffer::Host, 8192);
	Registration reg(local.addr(), 8192);
	ASSERT_EQ(reg.status(), UCS_OK);
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		RemoteKey honest(key), w(writable), wd(wide);
		ASSERT_EQ(honest.status(), UCS_OK);
		fill(local.cpu(), 8192, 10, 0);
		EXPECT_NE(zcopy(i, ep, false, local, 0, reg.memh(), base + kAt, honest.rkey(), 4096),
			  UCS_OK);
		if (w.status() == UCS_OK) {
			EXPECT_NE(zcopy(i, ep, false, local, 0, reg.memh(), base + kAt, w.rkey(), 4096),
				  UCS_OK);
		}
		if (wd.status() == UCS_OK) {
			EXPECT_NE(zcopy(i, ep, false, local, 0, reg.memh(), base, wd.rkey(), 4096),
				  UCS_OK);
			memset(local.cpu(), 0, 8192);
			if (zcopy(i, ep, true, local, 0, reg.memh(), base + (1 << 20), wd.rkey(),
				  4096) == UCS_OK) {
				EXPECT_NE(check(local.cpu(), 4096, 9, 1 << 20), -1)
					<< "read memory outside the registration";
			}
		}
		// What was registered can be read.
		memset(local.cpu(), 0, 8192);
		EXPECT_EQ(zcopy(i, ep, true, local, 0, reg.memh(), base + kAt, honest.rkey(), 4096),
			  UCS_OK);
		EXPECT_EQ(check(local.cpu(), 4096, 9, kAt), -1);
	}
	EXPECT_EQ(owner.call(kCheck, a.a, 9, 0, kAlloc2M, 0).a, 0u) << "the allocation was written";

	// Deregistered: the cookie is revoked, the key reaches nothing.
	RemoteKey before(key);
	ASSERT_EQ(owner.call(kDereg, g.a).status, 0);
	EXPECT_LT(hlthunk_ipc_query_cookie(p.cookie, &info), 0);
	EXPECT_LT(direct.copy(false, p.cookie, p.cookie_offset, 4096), 0) << "read after deregistration";
	for (Path path : {Path::Channel, Path::Staged})
		EXPECT_NE(zcopy(env().iface(path), env().ep(path), true, local, 0, reg.memh(),
				base + kAt, before.rkey(), 4096),
			  UCS_OK)
			<< path_name(path);
	owner.call(kFree, a.a);
}

// 200 bytes in the middle of a page registered for remote reads, and
// then for reads and writes, in device memory and in host memory (UCX
// users register malloc'd buffers that share their pages with other
// data): a key widened by hand to the whole page reaches nothing more, on
// either path, nor straight through libhlthunk with the key's cookie.
TEST_F(Hostile, KeysGrantExactlyTheRegisteredBytes)
{
	Peer &owner = env().peer();
	constexpr uint64_t kPage = 4096, kAt = 2 * kPage + 1000, kLen = 200;
	Buffer local(Buffer::Host, kPage);
	Registration reg(local.addr(), kPage);
	ASSERT_EQ(reg.status(), UCS_OK);
	for (int kind : {1, 0}) {
		SCOPED_TRACE(kind ? "device memory" : "host memory");
		PeerMsg a = owner.call(kAlloc, static_cast<uint64_t>(kind), 4 * kPage);
		ASSERT_EQ(a.status, 0);
		ASSERT_EQ(owner.call(kFill, a.a, 41, 0, 4 * kPage, 0).status, 0);
		const uint64_t page = a.b + kAt / kPage * kPage;
		for (bool writable : {false, true}) {
			SCOPED_TRACE(writable ? "readable and writable" : "readable");
			PeerMsg g = owner.call(kReg, a.a,
					       UCT_MD_MEM_ACCESS_REMOTE_GET |
						       (writable ? UCT_MD_MEM_ACCESS_REMOTE_PUT : 0),
					       kAt, kLen);
			ASSERT_EQ(g.status, 0);
			const Bytes key(g.blob, g.blob + g.blob_len);
			gaudi_ipc::PackedRkey p;
			memcpy(&p, key.data(), sizeof(p));
			const Bytes wide = repack(key, [&](gaudi_ipc::PackedRkey &k) {
				k.cookie_offset -= k.addr - page;
				k.addr = page;
				k.length = kPage;
			});
			// Device memory is exported in whole pages: a key of 200 bytes
			// of it carries no cookie (only the staged path reaches them).
			if (kind) {
				EXPECT_FALSE(p.flags & gaudi_ipc::kRkeyCookie)
					<< "the key's cookie grants the whole page";
			}
			if (p.flags & gaudi_ipc::kRkeyCookie) {
				DirectAccess direct(kind ? kPeerDevice : -1);
				ASSERT_TRUE(direct.ok) << hlthunk_ipc_last_error();
				const uint64_t before = kAt % kPage;
				EXPECT_LT(direct.copy(false, p.cookie, p.cookie_offset - before, kPage), 0)
					<< "read the page around the registration";
				EXPECT_LT(direct.copy(false, p.cookie, p.cookie_offset + kLen, 1), 0)
					<< "read the byte after the registration";
				EXPECT_LT(direct.copy(true, p.cookie, p.cookie_offset - before, kPage), 0)
					<< "wrote the page around the registration";
			}
			for (Path path : {Path::Channel, Path::Staged}) {
				SCOPED_TRACE(path_name(path));
				Iface &i = env().iface(path);
				uct_ep_h ep = env().ep(path);
				RemoteKey honest(key), wd(wide);
				ASSERT_EQ(honest.status(), UCS_OK);
				if (wd.status() == UCS_OK) {
					memset(local.cpu(), 0, kPage);
					EXPECT_NE(zcopy(i, ep, true, local, 0, reg.memh(), page, wd.rkey(),
							kPage),
						  UCS_OK)
						<< "read the page around the registration";
					fill(local.cpu(), kPage, 42, 0);
					EXPECT_NE(zcopy(i, ep, false, local, 0, reg.memh(), page, wd.rkey(),
							kPage),
						  UCS_OK)
						<< "wrote the page around the registration";
				}
				memset(local.cpu(), 0, kPage);
				const ucs_status_t st = zcopy(i, ep, true, local, 0, reg.memh(),
							      a.b + kAt, honest.rkey(), kLen);
				if (!(p.flags & gaudi_ipc::kRkeyCookie) && path == Path::Channel) {
					EXPECT_EQ(st, UCS_ERR_UNREACHABLE);  // channels only
				} else {
					EXPECT_EQ(st, UCS_OK);
					EXPECT_EQ(check(local.cpu(), kLen, 41, kAt), -1);
				}
			}
			ASSERT_EQ(owner.call(kDereg, g.a).status, 0);
			EXPECT_EQ(owner.call(kCheck, a.a, 41, 0, 4 * kPage, 0).a, 0u)
				<< "the owner's memory was written";
		}
		owner.call(kFree, a.a);
	}
}

// Host memory registered for local writes and remote reads: LOCAL_WRITE
// is no licence for peers to write; a key made writable by hand does not
// make it so on either path.
TEST_F(Hostile, ReadOnlyKeyWritten)
{
	Peer &owner = env().peer();
	PeerMsg a = owner.call(kAlloc, 0, 8192);
	ASSERT_EQ(a.status, 0);
	ASSERT_EQ(owner.call(kFill, a.a, 5, 0, 8192, 0).status, 0);
	PeerMsg g = owner.call(kReg, a.a,
			       UCT_MD_MEM_ACCESS_LOCAL_WRITE | UCT_MD_MEM_ACCESS_REMOTE_GET, 0,
			       8192);
	ASSERT_EQ(g.status, 0);
	const Bytes key(g.blob, g.blob + g.blob_len);
	gaudi_ipc::PackedRkey p;
	memcpy(&p, key.data(), sizeof(p));
	EXPECT_FALSE(p.flags & gaudi_ipc::kRkeyWritable) << "LOCAL_WRITE made it remotely writable";
	struct hlthunk_ipc_region_info info;
	if (hlthunk_ipc_query_cookie(p.cookie, &info) == 0) {
		EXPECT_FALSE(info.access & HLTHUNK_IPC_ACCESS_WRITE);
	}
	RemoteKey w(repack(key, [](gaudi_ipc::PackedRkey &k) { k.flags |= gaudi_ipc::kRkeyWritable; }));
	ASSERT_EQ(w.status(), UCS_OK);
	Buffer local(Buffer::Host, 8192);
	Registration reg(local.addr(), 8192);
	fill(local.cpu(), 8192, 6, 0);
	for (Path path : {Path::Channel, Path::Staged})
		EXPECT_NE(zcopy(env().iface(path), env().ep(path), false, local, 0, reg.memh(), a.b,
				w.rkey(), 8192),
			  UCS_OK)
			<< path_name(path);
	EXPECT_EQ(owner.call(kCheck, a.a, 5, 0, 8192, 0).a, 0u) << "read-only memory was written";
	owner.call(kFree, a.a);
}

// This process deregisters its device memory while a peer's staged put
// into it is being served, piece by piece: once uct_md_mem_dereg returns,
// nothing of the put lands any more, and the peer learns its put failed.
TEST_F(Hostile, DeregistrationWaitsForPiecesInService)
{
	// 32 pieces of 512 KiB at 100 ms each: the deregistration below lands
	// within the put even when this thread is not scheduled for seconds
	// (a debug kernel under emulation).
	constexpr uint64_t kLen = 16 << 20;
	Iface &owner = env().iface(Path::Staged);
	Buffer mem(Buffer::Device, kLen, env().dev());
	ASSERT_TRUE(mem.ok());
	memset(mem.cpu(), 0, kLen);
	Registration reg(mem.addr(), kLen);
	ASSERT_EQ(reg.status(), UCS_OK);
	Peer peer(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(peer.ok());
	ASSERT_EQ(peer.call(kConnect, 0, 0, 0, 0, 0, owner.address()).status, 0);
	PeerMsg src = peer.call(kAlloc, 0, kLen);
	ASSERT_EQ(src.status, 0);
	ASSERT_EQ(peer.call(kFill, src.a, 33, 0, kLen, 0).status, 0);
	// Each piece this process serves takes 100 ms of its DMA engine.
	set_cs_delay(100);
	ASSERT_TRUE(peer.post(kXfer, 0, src.a, 0, kLen, mem.addr(), reg.packed()));
	// Deregistered while the second piece is in service: the first has
	// landed, and the second, posted as the first landed (the peer's own
	// DMA into staging takes 100 ms too), is half way through its DMA.
	const Deadline d(30);
	while (check(mem.cpu(), 4096, 33, 0) != -1 && !d.passed())
		usleep(1000);
	ASSERT_EQ(check(mem.cpu(), 4096, 33, 0), -1) << "the put never started";
	usleep(50 * 1000);
	ASSERT_NE(check(mem.cpu() + kLen - 4096, 4096, 33, kLen - 4096), -1)
		<< "the whole put landed before the deregistration: this thread was not "
		   "scheduled for its duration";
	reg.dereg();
	// From here on the memory is the program's again.
	fill(mem.cpu(), kLen, 34, 0);
	PeerMsg x = peer.reply();
	set_cs_delay(0);
	EXPECT_NE(x.status, UCS_OK) << "the peer was told its put succeeded";
	EXPECT_EQ(check(mem.cpu(), kLen, 34, 0), -1) << "written after deregistration";
}

// Processes with different settings: an initiator whose buffered
// operations are 64 KiB, an owner with one 4 KiB staging slot.  They work,
// and nothing is written past the slot.
TEST_F(Hostile, MismatchedSlotSizes)
{
	Peer owner(kSparePeerDevice, false,
		   {"UCX_GAUDI_IPC_CHANNELS=n", "UCX_GAUDI_IPC_STAGING_SIZE=4k",
		    "UCX_GAUDI_IPC_STAGING_SLOTS=1", "UCX_GAUDI_IPC_BCOPY_SIZE=256"});
	ASSERT_TRUE(owner.ok());
	constexpr uint64_t kLen = 64 << 10;
	PeerMsg a = owner.call(kAlloc, 0, kLen);
	ASSERT_EQ(a.status, 0);
	PeerMsg g = owner.call(kReg, a.a, 0, 0, kLen);
	ASSERT_EQ(g.status, 0);
	RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
	ASSERT_EQ(rk.status(), UCS_OK);
	Iface i(Config{{"CHANNELS", "n"}, {"BCOPY_SIZE", "64k"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	ASSERT_EQ(i.attr().cap.put.max_bcopy, kLen);
	uct_ep_h ep;
	ASSERT_EQ(i.connect(owner.address(), &ep), UCS_OK);
	auto pack = [](void *dest, void *) -> size_t {
		fill(static_cast<unsigned char *>(dest), kLen, 55, 0);
		return kLen;
	};
	ssize_t n;
	const Deadline d(30);
	while ((n = uct_ep_put_bcopy(ep, pack, nullptr, a.b, rk.rkey())) == UCS_ERR_NO_RESOURCE &&
	       !d.passed())
		i.progress();
	EXPECT_EQ(n, static_cast<ssize_t>(kLen)) << ucs_status_string(static_cast<ucs_status_t>(n));
	EXPECT_EQ(i.flush(ep), UCS_OK);
	EXPECT_EQ(owner.call(kCheck, a.a, 55, 0, kLen, 0).a, 0u);
	std::vector<unsigned char> got(kLen);
	auto unpack = [](void *arg, const void *data, size_t len) {
		memcpy(arg, data, len);
	};
	Completion c;
	ucs_status_t st;
	while ((st = uct_ep_get_bcopy(ep, unpack, got.data(), kLen, a.b, rk.rkey(), &c.comp)) ==
		       UCS_ERR_NO_RESOURCE &&
	       !d.passed())
		i.progress();
	if (st == UCS_INPROGRESS)
		st = i.wait(&c.done) ? c.status : UCS_ERR_TIMED_OUT;
	EXPECT_EQ(st, UCS_OK);
	EXPECT_EQ(check(got.data(), kLen, 55, 0), -1);
	EXPECT_TRUE(alive(owner.pid()));
	uct_ep_destroy(ep);
}

// An owner killed while this process sleeps on its interface's event fd
// with a piece out: the death wakes the sleeper at once, and the transfer
// fails with CONNECTION_RESET.
TEST_F(Hostile, DeadOwnerWakesItsSleepers)
{
	Peer victim(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(victim.ok());
	PeerMsg a = victim.call(kAlloc, 1, 1 << 20);
	ASSERT_EQ(a.status, 0);
	PeerMsg g = victim.call(kReg, a.a, 0, 0, 1 << 20);
	ASSERT_EQ(g.status, 0);
	RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
	Iface i(Config{{"CHANNELS", "n"}, {"PEER_TIMEOUT", "60s"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	uct_ep_h ep;
	ASSERT_EQ(i.connect(victim.address(), &ep), UCS_OK);
	Buffer local(Buffer::Host, 1 << 20);
	Registration reg(local.addr(), local.size());
	// The victim's DMA takes 2 s a piece: its pieces are out when it dies.
	set_cs_delay(2000);
	uct_iov_t iov = {local.ptr(), 1 << 20, reg.memh(), 0, 1};
	Completion c;
	ucs_status_t st;
	while ((st = uct_ep_put_zcopy(ep, &iov, 1, a.b, rk.rkey(), &c.comp)) == UCS_ERR_NO_RESOURCE)
		i.progress();
	ASSERT_EQ(st, UCS_INPROGRESS);
	Clock::time_point killed;
	std::thread killer([&] {
		usleep(500 * 1000);
		killed = Clock::now();
		victim.kill_now();
	});
	const bool done = sleep_until(i, &c.done, 20);
	killer.join();
	EXPECT_TRUE(done);
	EXPECT_LT(seconds_since(killed), 3.0) << "the sleeper slept through the owner's death";
	EXPECT_EQ(c.status, UCS_ERR_CONNECTION_RESET) << ucs_status_string(c.status);
	uct_ep_destroy(ep);
}

// An owner stopped (SIGSTOP) while it serves a piece: the initiator,
// asleep, is woken by its interface (the event fd's timer at
// PEER_TIMEOUT, not the test's own poll timeout) and the transfer fails;
// once the owner runs again its one slot comes back and the next transfer
// goes through.  What woke the sleeper is checked, not how long it
// slept: on a loaded host the whole guest runs several times slower now
// and then (a wall-clock limit once measured that, not the transport).
TEST_F(Hostile, StoppedOwnerServingTimesOut)
{
	Peer victim(kSparePeerDevice, false,
		    {"UCX_GAUDI_IPC_CHANNELS=n", "UCX_GAUDI_IPC_STAGING_SLOTS=1"});
	ASSERT_TRUE(victim.ok());
	PeerMsg a = victim.call(kAlloc, 1, 65536);
	ASSERT_EQ(a.status, 0);
	PeerMsg g = victim.call(kReg, a.a, 0, 0, 65536);
	ASSERT_EQ(g.status, 0);
	RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
	Iface i(Config{{"CHANNELS", "n"}, {"PEER_TIMEOUT", "2s"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	uct_ep_h ep;
	ASSERT_EQ(i.connect(victim.address(), &ep), UCS_OK);
	Buffer local(Buffer::Host, 65536);
	Registration reg(local.addr(), local.size());
	fill(local.cpu(), 65536, 66, 0);
	set_cs_delay(1500);
	uct_iov_t iov = {local.ptr(), 65536, reg.memh(), 0, 1};
	Completion c;
	ucs_status_t st;
	while ((st = uct_ep_put_zcopy(ep, &iov, 1, a.b, rk.rkey(), &c.comp)) == UCS_ERR_NO_RESOURCE)
		i.progress();
	ASSERT_EQ(st, UCS_INPROGRESS);
	usleep(500 * 1000);  // the victim takes the piece and waits on its DMA
	ASSERT_EQ(kill(victim.pid(), SIGSTOP), 0);
	const auto t0 = Clock::now();
	bool ran_out = false;
	const bool done = sleep_until(i, &c.done, 15, &ran_out);
	const double waited = seconds_since(t0);
	kill(victim.pid(), SIGCONT);
	set_cs_delay(0);
	ASSERT_TRUE(done) << "a piece the owner serves never times out";
	EXPECT_FALSE(ran_out) << "the sleeper was not woken by its interface (slept "
			      << waited << " s)";
	EXPECT_EQ(c.status, UCS_ERR_TIMED_OUT) << ucs_status_string(c.status);
	EXPECT_EQ(zcopy(i, ep, false, local, 0, reg.memh(), a.b, rk.rkey(), 65536), UCS_OK)
		<< "the owner's one slot never came back";
	EXPECT_EQ(victim.call(kCheck, a.a, 66, 0, 65536, 0).a, 0u);
	uct_ep_destroy(ep);
}

// A completion that destroys its endpoint, while the interface walks its
// peers and their pieces (the endpoint is its peer's last user, so the
// peer goes with it, and another peer is walked after it); and flush with
// CANCEL, whose completions do the same.
struct Destroyer {
	uct_completion_t comp;
	uct_ep_h *ep;
	bool done = false;
	ucs_status_t status = UCS_OK;
	static void cb(uct_completion_t *self)
	{
		auto *d = reinterpret_cast<Destroyer *>(self);
		d->done = true;
		d->status = self->status;
		if (*d->ep) {
			uct_ep_destroy(*d->ep);
			*d->ep = nullptr;
		}
	}
	explicit Destroyer(uct_ep_h *e) : ep(e)
	{
		comp.func = cb;
		comp.count = 1;
		comp.status = UCS_OK;
	}
};

TEST_F(Hostile, EndpointDestroyedInItsCompletion)
{
	constexpr uint64_t kLen = 1 << 20;
	Peer second(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(second.ok());
	RemoteBuffer r = env().remote(0, 4 * kLen);
	ASSERT_NE(r.id, 0u);
	PeerMsg a2 = second.call(kAlloc, 0, 4 * kLen);
	ASSERT_EQ(a2.status, 0);
	PeerMsg g2 = second.call(kReg, a2.a, 0, 0, 4 * kLen);
	ASSERT_EQ(g2.status, 0);
	RemoteKey rk(r.rkey), rk2(Bytes(g2.blob, g2.blob + g2.blob_len));
	ASSERT_EQ(rk2.status(), UCS_OK);
	Iface i(Config{{"CHANNELS", "n"}, {"STAGING_DEPTH", "1"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	Buffer local(Buffer::Host, 4 * kLen);
	Registration reg(local.addr(), local.size());
	for (bool cancel : {false, true}) {
		SCOPED_TRACE(cancel ? "flush with cancel" : "progress");
		uct_ep_h doomed = nullptr, other = nullptr;
		ASSERT_EQ(i.connect(env().peer().address(), &doomed), UCS_OK);
		ASSERT_EQ(i.connect(second.address(), &other), UCS_OK);
		std::vector<std::unique_ptr<Destroyer>> ds;
		std::vector<Completion> oc(2);
		const Deadline d(60);
		auto put = [&](uct_ep_h ep, uint64_t raddr, const RemoteKey &key, int k,
			       uct_completion_t *comp) {
			uct_iov_t iov = {local.ptr(k * kLen), kLen, reg.memh(), 0, 1};
			ucs_status_t st;
			while ((st = uct_ep_put_zcopy(ep, &iov, 1, raddr + k * kLen, key.rkey(),
						      comp)) == UCS_ERR_NO_RESOURCE &&
			       !d.passed())
				i.progress();
			return st;
		};
		for (int k = 0; k < 2; k++)
			ASSERT_EQ(put(other, a2.b, rk2, k, &oc[k].comp), UCS_INPROGRESS);
		// Its one operation: the peer has no other user when it completes.
		ds.push_back(std::make_unique<Destroyer>(&doomed));
		ASSERT_EQ(put(doomed, r.addr, rk, 0, &ds.back()->comp), UCS_INPROGRESS);
		if (cancel)
			(void)uct_ep_flush(doomed, UCT_FLUSH_FLAG_CANCEL, nullptr);
		for (auto &x : ds)
			ASSERT_TRUE(i.wait(&x->done, 60));
		for (auto &x : oc) {
			ASSERT_TRUE(i.wait(&x.done, 60));
			EXPECT_EQ(x.status, UCS_OK);
		}
		EXPECT_EQ(doomed, nullptr);
		EXPECT_EQ(i.flush(other), UCS_OK);
		uct_ep_destroy(other);
	}
	env().peer().call(kFree, r.id);
}

// A user who is not the owner's rings every socket of the transport it
// can see, as fast as it can: the owner must not even notice (the threads
// that serve its peers use no more CPU than when idle), and it still
// serves its peers.
TEST_F(Hostile, DoorbellFloodByAnotherUser)
{
	Peer &owner = env().peer();
	const std::vector<std::string> names = unix_sockets("hl-gaudi-ipc");
	ASSERT_FALSE(names.empty()) << "the interfaces' sockets should be visible";
	constexpr double kSeconds = 1.5;
	uint64_t t0 = helper_cpu_ticks(owner.pid());
	usleep(static_cast<useconds_t>(kSeconds * 1e6));
	const uint64_t idle = helper_cpu_ticks(owner.pid()) - t0;
	int pfd[2];
	ASSERT_EQ(pipe(pfd), 0);
	t0 = helper_cpu_ticks(owner.pid());
	pid_t c = fork();
	if (c == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(1);
		uint64_t n = flood_sockets(names, kSeconds);
		(void)!write(pfd[1], &n, sizeof(n));
		_exit(0);
	}
	int status = 0;
	waitpid(c, &status, 0);
	const uint64_t flooded = helper_cpu_ticks(owner.pid()) - t0;
	uint64_t through = 0;
	(void)!read(pfd[0], &through, sizeof(through));
	close(pfd[0]);
	close(pfd[1]);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	const long hz = sysconf(_SC_CLK_TCK);
	printf("owner's serving threads: %llu ticks idle, %llu flooded (%ld a second)\n",
	       static_cast<unsigned long long>(idle), static_cast<unsigned long long>(flooded), hz);
	EXPECT_EQ(through, 0u) << "another user's rings got through";
	EXPECT_LE(flooded, idle + static_cast<uint64_t>(hz / 5))
		<< "the flood cost the owner " << flooded << " ticks, idle " << idle;
	RemoteBuffer r = env().remote(0, 8192);
	RemoteKey rk(r.rkey);
	Buffer local(Buffer::Host, 8192);
	Registration reg(local.addr(), 8192);
	EXPECT_EQ(staged_xfer(false, local, 0, reg.memh(), r.addr, rk, 8192), UCS_OK);
	owner.call(kFree, r.id);
}

// The owner's DMA of a get piece outlives DMA_TIMEOUT: the piece fails,
// but its staging slot is not handed out again while the submission still
// writes into it, so the next transfer through that slot is intact.
TEST_F(Hostile, DmaTimeoutNeverReusesASlotInUse)
{
	Iface owner(Config{{"CHANNELS", "n"}, {"STAGING_SLOTS", "1"}, {"DMA_TIMEOUT", "0.1s"}});
	ASSERT_EQ(owner.open_status(), UCS_OK);
	constexpr uint64_t kLen = 65536;
	Buffer dev(Buffer::Device, kLen, env().dev());
	Buffer host(Buffer::Host, kLen);
	ASSERT_TRUE(dev.ok() && host.ok());
	fill(dev.cpu(), kLen, 31, 0);
	fill(host.cpu(), kLen, 32, 0);
	Registration dreg(dev.addr(), kLen), hreg(host.addr(), kLen);
	ASSERT_EQ(dreg.status(), UCS_OK);
	Peer p(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(p.ok());
	ASSERT_EQ(p.call(kConnect, 0, 0, 0, 0, 0, owner.address()).status, 0);
	PeerMsg x = p.call(kAlloc, 1, kLen);
	ASSERT_EQ(x.status, 0);
	set_cs_delay(400);
	PeerMsg first = p.call(kXfer, 1, x.a, 0, kLen, dev.addr(), dreg.packed());
	EXPECT_EQ(first.status, UCS_ERR_TIMED_OUT)
		<< ucs_status_string(static_cast<ucs_status_t>(first.status));
	PeerMsg second = p.call(kXfer, 1, x.a, 0, kLen, host.addr(), hreg.packed());
	set_cs_delay(0);
	EXPECT_EQ(second.status, UCS_OK)
		<< ucs_status_string(static_cast<ucs_status_t>(second.status));
	EXPECT_EQ(p.call(kCheck, x.a, 32, 0, kLen, 0).a, 0u)
		<< "the late DMA of the first get wrote into the second's slot";
}

}  // namespace
}  // namespace uct_test
