// SPDX-License-Identifier: MIT
// What goes wrong, and that it goes wrong cleanly: corrupt, stale and
// foreign remote keys, memory deregistered or freed under a key, local
// memory unregistered or outside its handle, read-only memory, another user's memory, a
// peer killed mid-transfer, an initiator killed while it holds staging
// slots, a device context full of the program's own command submissions,
// and no habanalabs_ipc module at all.  Each ends in an error
// status (never a crash or a hang).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "bridge_fixture.h"
#include "hlthunk.h"
#include "habanalabs_extra.h"
#include "rkey_format.h"

namespace uct_test {
namespace {

using Bytes = std::vector<uint8_t>;

// A packed key with one field changed and the checksum made right again:
// a well-formed key that says something else.
Bytes repack(Bytes k, void (*change)(gaudi_ipc::PackedRkey &))
{
	gaudi_ipc::PackedRkey p;
	memcpy(&p, k.data(), sizeof(p));
	change(p);
	p.check = gaudi_ipc::rkey_checksum(&p, offsetof(gaudi_ipc::PackedRkey, check));
	memcpy(k.data(), &p, sizeof(p));
	return k;
}

// A put of len bytes from a fresh host buffer: its final status.
ucs_status_t put_host(Path path, uint64_t raddr, uct_rkey_t rkey, uint64_t len)
{
	auto &env = BridgeEnv::get();
	Buffer local(Buffer::Host, len);
	Registration reg(local.addr(), len);
	if (reg.status() != UCS_OK)
		return reg.status();
	return zcopy(env.iface(path), env.ep(path), false, local, 0, reg.memh(), raddr,
		     rkey, len);
}

TEST_F(Bridge, CorruptRemoteKeys)
{
	RemoteBuffer r = env().remote(0, 4096);
	ASSERT_EQ(r.rkey.size(), sizeof(gaudi_ipc::PackedRkey));
	{
		RemoteKey ok(r.rkey);
		EXPECT_EQ(ok.status(), UCS_OK);
	}
	for (size_t byte : {size_t{0}, size_t{9}, size_t{30}, r.rkey.size() - 1}) {
		Bytes k = r.rkey;
		k[byte] ^= 0x41;
		RemoteKey bad(k);
		EXPECT_EQ(bad.status(), UCS_ERR_INVALID_PARAM) << "byte " << byte;
	}
	Bytes zeros(r.rkey.size(), 0);
	EXPECT_EQ(RemoteKey(zeros).status(), UCS_ERR_INVALID_PARAM);
	// Well-formed but impossible.
	EXPECT_EQ(RemoteKey(repack(r.rkey, [](gaudi_ipc::PackedRkey &p) { p.version = 9; }))
			  .status(),
		  UCS_ERR_INVALID_PARAM);
	EXPECT_EQ(RemoteKey(repack(r.rkey,
				   [](gaudi_ipc::PackedRkey &p) { p.flags |= 0x100; }))
			  .status(),
		  UCS_ERR_INVALID_PARAM);
	EXPECT_EQ(RemoteKey(repack(r.rkey, [](gaudi_ipc::PackedRkey &p) { p.length = 0; }))
			  .status(),
		  UCS_ERR_INVALID_PARAM);
	EXPECT_EQ(RemoteKey(repack(r.rkey,
				   [](gaudi_ipc::PackedRkey &p) { p.addr = ~0ull - 10; }))
			  .status(),
		  UCS_ERR_INVALID_PARAM);
	env().peer().call(kFree, r.id);
}

TEST_F(Bridge, KeysAndAddressesOfAnotherNode)
{
	RemoteBuffer r = env().remote(0, 4096);
	ASSERT_NE(r.id, 0u);
	EXPECT_EQ(RemoteKey(repack(r.rkey,
				   [](gaudi_ipc::PackedRkey &p) { p.boot_id[3] ^= 1; }))
			  .status(),
		  UCS_ERR_UNREACHABLE);
	EXPECT_EQ(RemoteKey(repack(r.rkey, [](gaudi_ipc::PackedRkey &p) { p.pid_ns++; }))
			  .status(),
		  UCS_ERR_UNREACHABLE);
	// An interface address of another boot is unreachable, and no
	// endpoint connects to it.
	Iface &i = env().iface(Path::Channel);
	Bytes a = env().peer().address();
	EXPECT_TRUE(uct_iface_is_reachable(
		i.iface(), reinterpret_cast<const uct_device_addr_t *>(a.data()),
		reinterpret_cast<const uct_iface_addr_t *>(a.data() + i.attr().device_addr_len)));
	a[0] ^= 0xff;
	EXPECT_FALSE(uct_iface_is_reachable(
		i.iface(), reinterpret_cast<const uct_device_addr_t *>(a.data()),
		reinterpret_cast<const uct_iface_addr_t *>(a.data() + i.attr().device_addr_len)));
	uct_ep_h ep = nullptr;
	EXPECT_EQ(i.connect(a, &ep), UCS_ERR_UNREACHABLE);
	env().peer().call(kFree, r.id);
}

// The owner deregisters: a key unpacked before fails at the transfer, one
// unpacked after has only the staged path (its cookie is revoked), which
// fails at the owner (its key is gone).
TEST_F(Bridge, KeyOfDeregisteredMemory)
{
	PeerMsg a = env().peer().call(kAlloc, 0, 65536);
	ASSERT_EQ(a.status, 0);
	PeerMsg g = env().peer().call(kReg, a.a, 0, 0, 65536);
	ASSERT_EQ(g.status, 0);
	Bytes packed(g.blob, g.blob + g.blob_len);
	RemoteKey before(packed);
	ASSERT_EQ(before.status(), UCS_OK);
	ASSERT_EQ(put_host(Path::Channel, a.b, before.rkey(), 4096), UCS_OK);
	ASSERT_EQ(env().peer().call(kDereg, g.a).status, 0);
	for (Path path : {Path::Channel, Path::Staged})
		EXPECT_EQ(put_host(path, a.b, before.rkey(), 4096), UCS_ERR_INVALID_ADDR)
			<< path_name(path);
	RemoteKey after(packed);
	ASSERT_EQ(after.status(), UCS_OK);  // the staged path could still reach the owner
	EXPECT_EQ(put_host(Path::Channel, a.b, after.rkey(), 4096), UCS_ERR_UNREACHABLE);
	EXPECT_EQ(put_host(Path::Staged, a.b, after.rkey(), 4096), UCS_ERR_INVALID_ADDR);
	// The endpoints still work.
	RemoteBuffer r = env().remote(0, 4096);
	RemoteKey ok(r.rkey);
	for (Path path : {Path::Channel, Path::Staged})
		EXPECT_EQ(put_host(path, r.addr, ok.rkey(), 4096), UCS_OK);
	env().peer().call(kFree, a.a);
	env().peer().call(kFree, r.id);
}

// The owner deregisters device memory and frees it: a key that still
// names it reaches nothing.  (While it is registered the driver refuses to
// unmap it: the registration holds an export of it.)
TEST_F(Bridge, KeyOfFreedDeviceMemory)
{
	PeerMsg a = env().peer().call(kAlloc, 1, 65536);
	ASSERT_EQ(a.status, 0);
	PeerMsg g = env().peer().call(kReg, a.a, 0, 0, 65536);
	ASSERT_EQ(g.status, 0);
	RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
	ASSERT_EQ(rk.status(), UCS_OK);
	ASSERT_EQ(put_host(Path::Channel, a.b, rk.rkey(), 65536), UCS_OK);
	ASSERT_EQ(put_host(Path::Staged, a.b, rk.rkey(), 65536), UCS_OK);
	ASSERT_EQ(env().peer().call(kDereg, g.a).status, 0);
	ASSERT_EQ(env().peer().call(kFree, a.a).status, 0);
	for (Path path : {Path::Channel, Path::Staged})
		EXPECT_EQ(put_host(path, a.b, rk.rkey(), 65536), UCS_ERR_INVALID_ADDR)
			<< path_name(path);
}

TEST_F(Bridge, RangesOutsideTheirRegistration)
{
	RemoteBuffer r = env().remote(1, 8192);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, 16384);
	Registration reg(local.addr(), 8192);
	ASSERT_EQ(reg.status(), UCS_OK);
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.memh = reg.memh();
		iov.count = 1;
		Completion c;
		// Local memory never registered.
		iov.buffer = local.ptr();
		iov.length = 64;
		iov.memh = UCT_MEM_HANDLE_NULL;
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), &c.comp),
			  UCS_ERR_INVALID_PARAM);
		iov.memh = reg.memh();
		// Local memory past its handle.
		iov.buffer = local.ptr(4096);
		iov.length = 8192;
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), &c.comp),
			  UCS_ERR_INVALID_PARAM);
		// Remote memory past its key, before it, wrapping.
		iov.buffer = local.ptr();
		iov.length = 4096;
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, r.addr + 4097, rk.rkey(), &c.comp),
			  UCS_ERR_INVALID_PARAM);
		EXPECT_EQ(uct_ep_get_zcopy(ep, &iov, 1, r.addr - 1, rk.rkey(), &c.comp),
			  UCS_ERR_INVALID_PARAM);
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, ~0ull - 100, rk.rkey(), &c.comp),
			  UCS_ERR_INVALID_PARAM);
		EXPECT_EQ(uct_ep_put_short(ep, local.ptr(), 64, r.addr + 8190, rk.rkey()),
			  UCS_ERR_INVALID_PARAM);
		// Nothing to move is done at once.
		iov.length = 0;
		EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), &c.comp), UCS_OK);
		EXPECT_FALSE(c.done);
		EXPECT_EQ(i.flush(ep), UCS_OK);
	}
	env().peer().call(kFree, r.id);
}

TEST_F(Bridge, ReadOnlyRemoteMemory)
{
	PeerMsg a = env().peer().call(kAlloc, 0, 8192);
	ASSERT_EQ(a.status, 0);
	ASSERT_EQ(env().peer().call(kFill, a.a, 5, 0, 8192, 0).status, 0);
	PeerMsg g = env().peer().call(kReg, a.a, UCT_MD_MEM_ACCESS_REMOTE_GET, 0, 8192);
	ASSERT_EQ(g.status, 0);
	RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, 8192);
	Registration reg(local.addr(), 8192);
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		EXPECT_EQ(zcopy(env().iface(path), env().ep(path), false, local, 0, reg.memh(),
				a.b, rk.rkey(), 8192),
			  UCS_ERR_REJECTED);
		memset(local.cpu(), 0, 8192);
		EXPECT_EQ(zcopy(env().iface(path), env().ep(path), true, local, 0, reg.memh(),
				a.b, rk.rkey(), 8192),
			  UCS_OK);
		EXPECT_EQ(check(local.cpu(), 8192, 5, 0), -1);
	}
	EXPECT_EQ(env().peer().call(kCheck, a.a, 5, 0, 8192, 0).a, 0u);
	env().peer().call(kFree, a.a);
}

// Memory of a process of another user: its cookie is refused by the
// kernel and its mailbox by the staged path, so its key is unreachable.
TEST_F(Bridge, KeyOfAnotherUser)
{
	struct stat st;
	ASSERT_EQ(stat("/dev/hl_ipc", &st), 0);
	// Let user nobody register with /dev/hl_ipc too: the refusal must come
	// from the cookie's owner check, not from the node's permissions.
	ASSERT_EQ(chmod("/dev/hl_ipc", 0666), 0);
	{
		Peer nobody(-1, true);
		ASSERT_TRUE(nobody.ok());
		PeerMsg a = nobody.call(kAlloc, 0, 4096);
		ASSERT_EQ(a.status, 0);
		PeerMsg g = nobody.call(kReg, a.a, 0, 0, 4096);
		ASSERT_EQ(g.status, 0);
		gaudi_ipc::PackedRkey p;
		memcpy(&p, g.blob, sizeof(p));
		EXPECT_TRUE(p.flags & gaudi_ipc::kRkeyCookie) << "nobody got no cookie";
		struct hlthunk_ipc_region_info info;
		EXPECT_LT(hlthunk_ipc_query_cookie(p.cookie, &info), 0);
		RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
		EXPECT_EQ(rk.status(), UCS_ERR_UNREACHABLE);
	}
	chmod("/dev/hl_ipc", st.st_mode & 07777);
}

// A peer killed while transfers to it are in flight: every operation
// completes (with an error for those the peer could not finish), the
// endpoint reports the failure, and later operations fail at once.
TEST_F(Bridge, PeerKilledMidTransfer)
{
	for (const char *mode : {"segments", "async", "staged"}) {
		SCOPED_TRACE(mode);
		const Path path = mode[0] == 's' && mode[1] == 't' ? Path::Staged : Path::Channel;
		Peer victim(kSparePeerDevice);
		ASSERT_TRUE(victim.ok());
		constexpr uint64_t kLen = 8ull << 20;
		constexpr int kOps = 8;
		PeerMsg a = victim.call(kAlloc, 1, kOps * kLen);
		ASSERT_EQ(a.status, 0);
		PeerMsg g = victim.call(kReg, a.a, 0, 0, kOps * kLen);
		ASSERT_EQ(g.status, 0);
		RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
		ASSERT_EQ(rk.status(), UCS_OK);
		Iface i({{"CHANNELS", path == Path::Channel ? "y" : "n"},
			 {"ASYNC_COPIES", mode[0] == 'a' ? "y" : "n"},
			 {"SYNC_COPY_MAX", "0"},
			 {"PEER_TIMEOUT", "20s"}});
		ASSERT_EQ(i.open_status(), UCS_OK);
		uct_ep_h ep;
		ASSERT_EQ(i.connect(victim.address(), &ep), UCS_OK);
		Buffer local(Buffer::Host, kOps * kLen);
		Registration reg(local.addr(), local.size());
		ASSERT_EQ(reg.status(), UCS_OK);
		// The staged path: the victim's DMA engine takes 300 ms per
		// piece, so it surely dies with pieces not done.
		if (path == Path::Staged)
			set_cs_delay(300);
		std::vector<Completion> c(kOps);
		int started = 0;
		const Deadline admitted(30);
		for (int k = 0; k < kOps; k++) {
			uct_iov_t iov;
			memset(&iov, 0, sizeof(iov));
			iov.buffer = local.ptr(k * kLen);
			iov.length = kLen;
			iov.memh = reg.memh();
			iov.count = 1;
			ucs_status_t st = uct_ep_put_zcopy(ep, &iov, 1, a.b + k * kLen, rk.rkey(),
							   &c[k].comp);
			// The staged path starts nothing before the victim has
			// admitted this process (its async thread, slow on a busy
			// host): the first operation waits for that.
			while (k == 0 && st == UCS_ERR_NO_RESOURCE && !admitted.passed()) {
				i.progress();
				st = uct_ep_put_zcopy(ep, &iov, 1, a.b, rk.rkey(), &c[k].comp);
			}
			if (st == UCS_INPROGRESS)
				started++;
			else
				c[k].done = true;  // NO_RESOURCE (staged slots): not started
		}
		ASSERT_GT(started, 0);
		usleep(100 * 1000);
		victim.kill_now();
		int failed = 0;
		for (auto &x : c) {
			ASSERT_TRUE(i.wait(&x.done, 60)) << "an operation never completed";
			if (x.status != UCS_OK) {
				failed++;
				EXPECT_TRUE(x.status == UCS_ERR_CONNECTION_RESET ||
					    x.status == UCS_ERR_INVALID_ADDR)
					<< ucs_status_string(x.status);
			}
		}
		set_cs_delay(0);
		if (path == Path::Staged) {
			EXPECT_GT(failed, 0);
		}
		// The endpoint knows: a new operation fails at once.
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = local.ptr();
		iov.length = 4096;
		iov.memh = reg.memh();
		iov.count = 1;
		Completion late;
		ucs_status_t st = uct_ep_put_zcopy(ep, &iov, 1, a.b, rk.rkey(), &late.comp);
		if (st == UCS_INPROGRESS) {
			ASSERT_TRUE(i.wait(&late.done, 60));
			st = late.status;
		}
		EXPECT_NE(st, UCS_OK);
		uct_ep_destroy(ep);
	}
}

// The program fills its device context with command submissions (64 in
// flight, the driver's limit: the 65th gets EAGAIN, which libhlthunk
// restarts as hl-thunk does).  The staged path submits on the same context
// (a duplicate of the program's fd), so its submission waits for a free
// slot, and the data then arrives.
TEST_F(Bridge, StagedPathWaitsForAFullDeviceContext)
{
	constexpr uint64_t kLen = 300000;
	RemoteBuffer r = env().remote(0, 1 << 20);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Device, 1 << 20, env().dev());
	Buffer scratch(Buffer::Device, 8192, env().dev());
	ASSERT_TRUE(local.ok() && scratch.ok());
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);
	// One LIN_DMA packet inside the scratch buffer, submitted 64 times;
	// its CB is host memory mapped into the device, as Gaudi2 requires.
	const int fd = env().dev();
	void *cbv = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(cbv, MAP_FAILED);
	uint64_t cb = hlthunk_host_memory_map(fd, cbv, 0, 4096);
	ASSERT_NE(cb, 0u);
	struct gaudi2_packet_lin_dma pkt;
	memset(&pkt, 0, sizeof(pkt));
	pkt.tsize = 64;
	pkt.ctl = (GAUDI2_PACKET_LIN_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
		  GAUDI2_PKT_CTL_EB_MASK | GAUDI2_PKT_CTL_MB_MASK;
	pkt.src_addr = scratch.addr();
	pkt.dst_addr = scratch.addr() + 4096;
	memcpy(cbv, &pkt, sizeof(pkt));
	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb;
	chunk.queue_index = GAUDI2_QUEUE_ID_PDMA_0_0;
	chunk.cb_size = sizeof(pkt);
	chunk.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	struct hlthunk_cs_in in;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	std::vector<uint64_t> seqs;
	struct hl_info_cs_counters before, after;
	ASSERT_EQ(hlthunk_get_cs_counters_info(fd, &before), 0);
	// Each CS waits 3 s before it runs (one queue per device), so the
	// context stays full until the delay is lifted.  It is lifted once the
	// context has refused a submission (the transport's: nothing else
	// submits), so that refusal happens whatever the scheduling; or after
	// 60 s, when the test fails.
	set_cs_delay(3000);
	for (int i = 0; i < 64; i++) {
		struct hlthunk_cs_out out;
		memset(&out, 0, sizeof(out));
		ASSERT_EQ(hlthunk_command_submission(fd, &in, &out), 0) << i;
		seqs.push_back(out.seq);
	}
	std::thread lift([&] {
		for (int i = 0; i < 6000; i++) {
			struct hl_info_cs_counters now;
			if (hlthunk_get_cs_counters_info(fd, &now) == 0 &&
			    now.ctx_max_cs_in_flight_drop_cnt > before.ctx_max_cs_in_flight_drop_cnt)
				break;
			usleep(10 * 1000);
		}
		set_cs_delay(0);
	});
	check_transfer(Path::Staged, false, local, reg.memh(), r, rk, 3, 5, kLen, 91);
	lift.join();
	ASSERT_EQ(hlthunk_get_cs_counters_info(fd, &after), 0);
	// The transport's submission found the context full.
	EXPECT_GT(after.ctx_max_cs_in_flight_drop_cnt, before.ctx_max_cs_in_flight_drop_cnt);
	for (uint64_t seq : seqs) {
		uint32_t status = 0;
		EXPECT_EQ(hlthunk_wait_for_cs(fd, seq, 30ull * 1000 * 1000, &status), 0);
	}
	EXPECT_EQ(hlthunk_memory_unmap(fd, cb), 0);
	munmap(cbv, 4096);
	env().peer().call(kFree, r.id);
}

// habanalabs_ipc queues at most max_pending asynchronous copies per
// channel (EAGAIN beyond, which libhlthunk restarts): with a queue of one,
// many large operations queued on the kernel's channel at once all arrive.
TEST_F(Bridge, FullKernelCopyQueue)
{
	// Set to 1 for the test, restored however it ends.
	struct MaxPending {
		const char *param = "/sys/module/habanalabs_ipc/parameters/max_pending";
		std::string saved;
		MaxPending() { std::ifstream(param) >> saved; }
		~MaxPending()
		{
			if (!saved.empty())
				std::ofstream(param) << saved;
		}
	} max_pending;
	ASSERT_FALSE(max_pending.saved.empty());
	constexpr uint64_t kLen = 1 << 20;
	constexpr int kOps = 8;
	RemoteBuffer r = env().remote(1, kOps * kLen);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Iface i({{"CHANNELS", "y"}, {"ASYNC_COPIES", "y"}, {"SYNC_COPY_MAX", "0"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	uct_ep_h ep;
	ASSERT_EQ(i.connect(env().peer().address(), &ep), UCS_OK);
	Buffer local(Buffer::Host, kOps * kLen);
	ASSERT_TRUE(local.ok());
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);
	fill(local.cpu(), local.size(), 71, 0);
	std::ofstream(max_pending.param) << 1;
	std::vector<Completion> c(kOps);
	for (int k = 0; k < kOps; k++) {
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = local.ptr(k * kLen);
		iov.length = kLen;
		iov.memh = reg.memh();
		iov.count = 1;
		ucs_status_t st = uct_ep_put_zcopy(ep, &iov, 1, r.addr + k * kLen, rk.rkey(),
						   &c[k].comp);
		ASSERT_EQ(st, UCS_INPROGRESS) << ucs_status_string(st);
	}
	for (auto &x : c) {
		ASSERT_TRUE(i.wait(&x.done, 60)) << "an operation never completed";
		EXPECT_EQ(x.status, UCS_OK) << ucs_status_string(x.status);
	}
	EXPECT_EQ(env().peer().call(kCheck, r.id, 71, 0, kOps * kLen, 0).a, 0u);
	uct_ep_destroy(ep);
	env().peer().call(kFree, r.id);
}

// An initiator killed while it holds the only staging slot of this
// process's interface: the slot is freed, and the next peer's transfer
// goes through.
TEST_F(Bridge, KilledInitiatorGivesItsSlotsBack)
{
	Iface target({{"CHANNELS", "n"}, {"STAGING_SLOTS", "1"}});
	ASSERT_EQ(target.open_status(), UCS_OK);
	Buffer local(Buffer::Host, 1 << 20);
	Registration reg(local.addr(), local.size());
	ASSERT_EQ(reg.status(), UCS_OK);
	{
		Peer victim(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
		ASSERT_TRUE(victim.ok());
		ASSERT_EQ(victim.call(kConnect, 0, 0, 0, 0, 0, target.address()).status, 0);
		PeerMsg a = victim.call(kAlloc, 1, 1 << 20);
		ASSERT_EQ(a.status, 0);
		// Its DMA into our staging slot takes 2 s: killed in the middle.
		set_cs_delay(2000);
		ASSERT_TRUE(victim.post(kXfer, 0, a.a, 0, 1 << 20, local.addr(), reg.packed()));
		usleep(500 * 1000);
		victim.kill_now();
		set_cs_delay(0);
	}
	Peer next(kSparePeerDevice, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(next.ok());
	ASSERT_EQ(next.call(kConnect, 0, 0, 0, 0, 0, target.address()).status, 0);
	PeerMsg a = next.call(kAlloc, 0, 1 << 20);
	ASSERT_EQ(a.status, 0);
	ASSERT_EQ(next.call(kFill, a.a, 44, 0, 1 << 20, 0).status, 0);
	PeerMsg x = next.call(kXfer, 0, a.a, 0, 1 << 20, local.addr(), reg.packed());
	EXPECT_EQ(x.status, UCS_OK) << ucs_status_string((ucs_status_t)x.status);
	EXPECT_EQ(check(local.cpu(), 1 << 20, 44, 0), -1);
}

// Staging memory a device cannot pin, because the process that maps it
// runs without CAP_IPC_LOCK within a small RLIMIT_MEMLOCK: a transfer
// that needs it fails with NO_MEMORY, on the initiator's side and on the
// owner's, nothing is written, and what needs no pinning (host memory at
// that end) still goes through the same interfaces and slots.
TEST_F(Bridge, StagingBeyondMemlock)
{
	// Two slots of 512 KiB at each end: a slot the failed transfers kept
	// would stall the ones after them.
	constexpr uint64_t kLen = 1 << 20, kMemlock = 512 << 10;
	Iface target({{"CHANNELS", "n"}, {"STAGING_SLOTS", "2"}, {"STAGING_SIZE", "512k"}});
	ASSERT_EQ(target.open_status(), UCS_OK);
	Peer low(kSparePeerDevice, false,
		 {"UCX_GAUDI_IPC_CHANNELS=n", "UCX_GAUDI_IPC_STAGING_SLOTS=2",
		  "UCX_GAUDI_IPC_STAGING_SIZE=512k"},
		 kMemlock);
	ASSERT_TRUE(low.ok());

	// The initiator's side: the peer's device memory into our host memory
	// through our staging memory, which the peer cannot pin.
	Buffer host(Buffer::Host, kLen);
	Registration host_reg(host.addr(), host.size());
	ASSERT_EQ(host_reg.status(), UCS_OK);
	memset(host.cpu(), 0, kLen);
	ASSERT_EQ(low.call(kConnect, 0, 0, 0, 0, 0, target.address()).status, 0);
	PeerMsg dev_mem = low.call(kAlloc, 1, kLen);
	ASSERT_EQ(dev_mem.status, 0);
	ASSERT_EQ(low.call(kFill, dev_mem.a, 46, 0, kLen, 0).status, 0);
	PeerMsg x = low.call(kXfer, 0, dev_mem.a, 0, kLen, host.addr(), host_reg.packed());
	EXPECT_EQ(x.status, UCS_ERR_NO_MEMORY) << ucs_status_string((ucs_status_t)x.status);
	EXPECT_EQ(check_zero(host.cpu(), kLen), -1);
	PeerMsg host_mem = low.call(kAlloc, 0, kLen);
	ASSERT_EQ(host_mem.status, 0);
	ASSERT_EQ(low.call(kFill, host_mem.a, 47, 0, kLen, 0).status, 0);
	x = low.call(kXfer, 0, host_mem.a, 0, kLen, host.addr(), host_reg.packed());
	EXPECT_EQ(x.status, UCS_OK) << ucs_status_string((ucs_status_t)x.status);
	EXPECT_EQ(check(host.cpu(), kLen, 47, 0), -1);

	// The owner's side: our device memory into the peer's device memory
	// through the peer's staging memory, which its own device cannot pin.
	uct_ep_h ep;
	ASSERT_EQ(target.connect(low.address(), &ep), UCS_OK);
	Buffer dev(Buffer::Device, kLen, env().dev());
	Registration dev_reg(dev.addr(), dev.size());
	ASSERT_EQ(dev_reg.status(), UCS_OK);
	fill(dev.cpu(), kLen, 48, 0);
	ASSERT_EQ(low.call(kZero, dev_mem.a).status, 0);
	auto put_to = [&](const PeerMsg &mem) {
		PeerMsg g = low.call(kReg, mem.a, 0, 0, kLen);
		if (g.status)
			return UCS_ERR_IO_ERROR;
		RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
		if (rk.status() != UCS_OK)
			return rk.status();
		return zcopy(target, ep, false, dev, 0, dev_reg.memh(), mem.b, rk.rkey(), kLen);
	};
	EXPECT_EQ(put_to(dev_mem), UCS_ERR_NO_MEMORY);
	EXPECT_EQ(low.call(kCheckZero, dev_mem.a, 0, 0, kLen).a, 0u);
	EXPECT_EQ(put_to(host_mem), UCS_OK);
	EXPECT_EQ(low.call(kCheck, host_mem.a, 48, 0, kLen, 0).a, 0u);
	uct_ep_destroy(ep);
}

// Device memory registered with an export of it (the channel path's
// region) cannot be unmapped until it is deregistered: the driver refuses
// while it is exported.  The staged path relies on it and does not ask
// libhlthunk again, at each use, where such memory is mapped.
TEST_F(Bridge, ExportedRegistrationKeepsDeviceMemoryMapped)
{
	constexpr uint64_t kLen = 65536;
	RemoteBuffer r = env().remote(1, kLen);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	hlipc::DeviceBuffer mem;  // no CPU view: no export of its own
	ASSERT_EQ(mem.create(env().dev(), kLen), 0);
	{
		Registration reg(mem.va(), kLen);
		ASSERT_EQ(reg.status(), UCS_OK);
		gaudi_ipc::PackedRkey p;
		memcpy(&p, reg.packed().data(), sizeof(p));
		ASSERT_TRUE(p.flags & gaudi_ipc::kRkeyCookie);
		for (bool get : {false, true})
			EXPECT_EQ(zcopy(env().iface(Path::Staged), env().ep(Path::Staged), get,
					mem.va(), reg.memh(), r.addr, rk.rkey(), kLen),
				  UCS_OK);
		EXPECT_NE(hlthunk_memory_unmap(env().dev(), mem.va()), 0);
		EXPECT_EQ(zcopy(env().iface(Path::Staged), env().ep(Path::Staged), false,
				mem.va(), reg.memh(), r.addr, rk.rkey(), kLen),
			  UCS_OK);
	}
	EXPECT_EQ(hlthunk_memory_unmap(env().dev(), mem.va()), 0);
	env().peer().call(kFree, r.id);
}

// Without habanalabs_ipc (run with --gtest_filter=NoModule.*): channels
// cannot be required, and everything goes through the staged path.
TEST(NoModule, StagedPathCarriesEverything)
{
	ASSERT_NE(access("/dev/hl_ipc", F_OK), 0) << "run this without habanalabs_ipc";
	{
		Iface need(Config{{"CHANNELS", "y"}});
		EXPECT_EQ(need.open_status(), UCS_ERR_NO_DEVICE);
	}
	int dev = open_device(kOwnDevice);
	ASSERT_GE(dev, 0) << hlthunk_ipc_last_error();
	{
		Iface i;  // CHANNELS=try
		ASSERT_EQ(i.open_status(), UCS_OK);
		Peer peer(kPeerDevice);
		ASSERT_TRUE(peer.ok());
		uct_ep_h ep;
		ASSERT_EQ(i.connect(peer.address(), &ep), UCS_OK);
		for (int rkind = 0; rkind < 2; rkind++)
			for (auto lkind : {Buffer::Host, Buffer::Device}) {
				SCOPED_TRACE(std::string(rkind ? "remote device" : "remote host") +
					     (lkind == Buffer::Host ? ", local host" : ", local device"));
				const uint64_t len = (1 << 20) + 3;
				PeerMsg a = peer.call(kAlloc, rkind, len + 8);
				ASSERT_EQ(a.status, 0);
				PeerMsg g = peer.call(kReg, a.a, 0, 0, len + 8);
				ASSERT_EQ(g.status, 0);
				gaudi_ipc::PackedRkey p;
				memcpy(&p, g.blob, sizeof(p));
				EXPECT_FALSE(p.flags & gaudi_ipc::kRkeyCookie);
				RemoteKey rk(Bytes(g.blob, g.blob + g.blob_len));
				ASSERT_EQ(rk.status(), UCS_OK);
				Buffer local(lkind, len + 8, dev);
				Registration reg(local.addr(), local.size());
				ASSERT_EQ(reg.status(), UCS_OK);
				fill(local.cpu() + 1, len, 61, 0);
				ASSERT_EQ(zcopy(i, ep, false, local, 1, reg.memh(), a.b + 5, rk.rkey(),
						len),
					  UCS_OK);
				EXPECT_EQ(peer.call(kCheck, a.a, 61, 5, len, 0).a, 0u);
				memset(local.cpu(), 0, local.size());
				ASSERT_EQ(zcopy(i, ep, true, local, 2, reg.memh(), a.b + 5, rk.rkey(),
						len),
					  UCS_OK);
				EXPECT_EQ(check(local.cpu() + 2, len, 61, 0), -1);
				peer.call(kFree, a.a);
			}
		uct_ep_destroy(ep);
	}
	hlthunk_close(dev);
}

// Without an export behind its registration, device memory can be unmapped
// under it (a program's mistake): the staged path looks it up at each use
// and refuses it, rather than letting the device move whatever that
// address holds by then.
TEST(NoModule, UnmappedRegisteredDeviceMemoryIsRefused)
{
	ASSERT_NE(access("/dev/hl_ipc", F_OK), 0) << "run this without habanalabs_ipc";
	constexpr uint64_t kLen = 65536;
	int dev = open_device(kOwnDevice);
	ASSERT_GE(dev, 0) << hlthunk_ipc_last_error();
	{
		Iface i(Config{{"CHANNELS", "n"}});
		ASSERT_EQ(i.open_status(), UCS_OK);
		Peer peer(kPeerDevice);
		ASSERT_TRUE(peer.ok());
		uct_ep_h ep;
		ASSERT_EQ(i.connect(peer.address(), &ep), UCS_OK);
		RemoteBuffer r = remote_buffer(peer, 1, kLen);
		ASSERT_NE(r.id, 0u);
		RemoteKey rk(r.rkey);
		ASSERT_EQ(rk.status(), UCS_OK);
		hlipc::DeviceBuffer mem;
		ASSERT_EQ(mem.create(dev, kLen), 0);
		const uint64_t va = mem.va();
		Registration reg(va, kLen);
		ASSERT_EQ(reg.status(), UCS_OK);
		for (bool get : {false, true})
			EXPECT_EQ(zcopy(i, ep, get, va, reg.memh(), r.addr, rk.rkey(), kLen), UCS_OK);
		ASSERT_EQ(peer.call(kFill, r.id, 71, 0, kLen, 0).status, 0);
		mem.reset();  // unmapped and freed while still registered
		for (bool get : {false, true})
			EXPECT_EQ(zcopy(i, ep, get, va, reg.memh(), r.addr, rk.rkey(), kLen),
				  UCS_ERR_INVALID_ADDR);
		EXPECT_EQ(peer.call(kCheck, r.id, 71, 0, kLen, 0).a, 0u);
		peer.call(kFree, r.id);
		uct_ep_destroy(ep);
	}
	hlthunk_close(dev);
}

}  // namespace
}  // namespace uct_test
