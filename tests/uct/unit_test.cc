// SPDX-License-Identifier: MIT
// Host unit tests of the transport's parts that need neither UCX nor a
// device: the remote key format, the staging mailbox between two
// processes, the staging server's waiting for claimed slots, doorbells,
// and process identities.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "addresses.h"
#include "doorbell.h"
#include "mailbox.h"
#include "node_identity.h"
#include "rkey_format.h"
#include "staging_server.h"

using namespace gaudi_ipc;

namespace {

constexpr uint64_t kSecondNs = 1000000000ull;

RkeyFields sample()
{
	RkeyFields f;
	memset(&f, 0, sizeof(f));
	f.flags = kRkeyDevice | kRkeyCookie | kRkeyStaged | kRkeyWritable;
	f.addr = 0x100000001000;
	f.length = 12345;
	f.cookie = 0x1122334455667788;
	f.cookie_offset = 4096;
	f.stage_key = 0xdeadbeefcafe;
	f.owner = this_process();
	f.owner_uid = 1000;
	memcpy(f.boot_id, this_node().boot_id, 16);
	f.pid_ns = this_node().pid_ns;
	strcpy(f.bus, "0000:10:00.0");
	return f;
}

TEST(RkeyFormat, RoundTrip)
{
	PackedRkey k;
	pack_rkey(sample(), &k);
	RkeyFields g;
	ASSERT_EQ(parse_rkey(&k, this_node(), &g), RkeyCheck::Ok);
	RkeyFields f = sample();
	EXPECT_EQ(g.flags, f.flags);
	EXPECT_EQ(g.addr, f.addr);
	EXPECT_EQ(g.length, f.length);
	EXPECT_EQ(g.cookie, f.cookie);
	EXPECT_EQ(g.cookie_offset, f.cookie_offset);
	EXPECT_EQ(g.stage_key, f.stage_key);
	EXPECT_EQ(g.owner.pid, f.owner.pid);
	EXPECT_EQ(g.owner.start, f.owner.start);
	EXPECT_EQ(g.owner_uid, 1000u);
	EXPECT_STREQ(g.bus, "0000:10:00.0");
	EXPECT_TRUE(g.covers(f.addr, f.length));
	EXPECT_TRUE(g.covers(f.addr + f.length - 1, 1));
	EXPECT_FALSE(g.covers(f.addr + f.length, 1));
	EXPECT_FALSE(g.covers(f.addr - 1, 1));
	EXPECT_FALSE(g.covers(f.addr + 1, f.length));
	EXPECT_FALSE(g.covers(f.addr, ~0ull));
}

TEST(RkeyFormat, UnalignedBuffer)
{
	alignas(8) unsigned char buf[sizeof(PackedRkey) + 1];
	PackedRkey k;
	pack_rkey(sample(), &k);
	memcpy(buf + 1, &k, sizeof(k));
	RkeyFields g;
	EXPECT_EQ(parse_rkey(buf + 1, this_node(), &g), RkeyCheck::Ok);
}

TEST(RkeyFormat, EveryDamagedByteIsCaught)
{
	PackedRkey k;
	pack_rkey(sample(), &k);
	for (size_t i = 0; i < sizeof(k); i++) {
		PackedRkey d = k;
		reinterpret_cast<unsigned char *>(&d)[i] ^= 0x10;
		RkeyFields g;
		EXPECT_EQ(parse_rkey(&d, this_node(), &g), RkeyCheck::Corrupt) << "byte " << i;
	}
}

// Fields that are consistent byte-wise but say impossible things.
TEST(RkeyFormat, InconsistentFields)
{
	auto bad = [](void (*change)(PackedRkey &)) {
		PackedRkey k;
		pack_rkey(sample(), &k);
		change(k);
		k.check = rkey_checksum(&k, offsetof(PackedRkey, check));
		RkeyFields g;
		return parse_rkey(&k, this_node(), &g);
	};
	EXPECT_EQ(bad([](PackedRkey &k) { k.magic = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.version = 2; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.flags |= 0x10; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.reserved = 1; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.length = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.addr = ~0ull; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.bus[15] = 'x'; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.bus[0] = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.cookie = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.stage_key = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.owner_pid = 0; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.flags &= ~(kRkeyCookie | kRkeyStaged); }),
		  RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.boot_id[0] ^= 1; }), RkeyCheck::OtherNode);
	EXPECT_EQ(bad([](PackedRkey &k) { k.pid_ns ^= 1; }), RkeyCheck::OtherNode);
	// Host memory: no device named.
	EXPECT_EQ(bad([](PackedRkey &k) {
			  k.flags &= ~kRkeyDevice;
			  memset(k.bus, 0, sizeof(k.bus));
		  }),
		  RkeyCheck::Ok);
}

TEST(Identity, ProcessesAndNodes)
{
	const ProcessId &me = this_process();
	EXPECT_EQ(me.pid, static_cast<uint32_t>(getpid()));
	EXPECT_NE(me.start, 0u);
	EXPECT_TRUE(process_alive(me));
	EXPECT_FALSE(process_alive(ProcessId{me.pid, me.start + 1}));
	EXPECT_FALSE(process_alive(ProcessId{0, me.start}));
	// A forked child is another process (the answer is cached until a
	// fork); one that exited is dead as a zombie, and after it is reaped.
	const ProcessId parent = me;
	pid_t c = fork();
	if (c == 0) {
		const ProcessId &self = this_process();
		_exit(self.pid == static_cast<uint32_t>(getpid()) && self.pid != parent.pid &&
				      self.start != 0
			      ? 0
			      : 1);
	}
	ProcessId child{static_cast<uint32_t>(c), 0};
	for (int i = 0; i < 100 && !child.start; i++)
		child.start = process_start_time(c);
	usleep(100 * 1000);
	EXPECT_FALSE(process_alive(child)) << "a zombie is not alive";
	int st = -1;
	waitpid(c, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the child knows itself";
	EXPECT_EQ(this_process().pid, parent.pid);
	EXPECT_FALSE(process_alive(child));
	EXPECT_TRUE(same_node(this_node(), this_node()));
	NodeId other = this_node();
	other.net_ns++;
	EXPECT_FALSE(same_node(this_node(), other));
	DeviceAddr a = device_addr(this_node()), b = device_addr(other);
	EXPECT_EQ(a.boot, b.boot);
	EXPECT_NE(a.namespaces, b.namespaces);
	EXPECT_NE(random_u64(), random_u64());
}

TEST(Mailbox, LayoutAndClaims)
{
	Mailbox mb;
	ASSERT_EQ(mb.create(4, 5000, 77, 0), 0);
	EXPECT_EQ(mb.slots(), 4u);
	EXPECT_EQ(mb.slot_size(), 8192u);  // whole pages
	EXPECT_EQ(reinterpret_cast<uintptr_t>(mb.staging_base()) % 4096, 0u);
	EXPECT_EQ(mb.staging_bytes(), 4u * 8192);
	for (uint32_t i = 0; i < 4; i++)
		EXPECT_EQ(mb.slot(i).state.load(), kSlotFree);
	int a = mb.claim(0), b = mb.claim(0), c = mb.claim(3), d = mb.claim(0);
	EXPECT_EQ(a, 0);
	EXPECT_EQ(b, 1);
	EXPECT_EQ(c, 3);
	EXPECT_EQ(d, 2);
	EXPECT_EQ(mb.claim(0), -1);
	mb.slot(1).state.store(kSlotFree);
	EXPECT_EQ(mb.claim(2), 1);
	Mailbox bad;
	EXPECT_EQ(bad.create(0, 4096, 1, 0), -EINVAL);
	EXPECT_EQ(bad.create(1, 0, 1, 0), -EINVAL);
	EXPECT_EQ(bad.create(1, 1ull << 40, 1, 0), -EINVAL);
}

// Another process opens the mailbox through /proc/<pid>/fd, sees what the
// owner wrote, and the two hand a slot back and forth.
TEST(Mailbox, SharedWithAnotherProcess)
{
	Mailbox mb;
	ASSERT_EQ(mb.create(2, 4096, 1234, 777), 0);
	memcpy(mb.staging(1), "hello", 6);
	ProcessId me = this_process();
	int fd = mb.fd();
	pid_t c = fork();
	if (c == 0) {
		Mailbox peer;
		if (peer.attach(me, fd, 1234) != 0)
			_exit(1);
		if (peer.slots() != 2 || peer.linger_ns() != 777 ||
		    strcmp(reinterpret_cast<char *>(peer.staging(1)), "hello"))
			_exit(2);
		// Wrong nonce, wrong start time, no such fd: refused.
		Mailbox x;
		if (x.attach(me, fd, 1235) != -EPROTO ||
		    x.attach(ProcessId{me.pid, me.start + 1}, fd, 1234) != -EPROTO ||
		    x.attach(me, 999, 1234) != -ESRCH)
			_exit(3);
		int s = peer.claim(0);
		if (s != 0)
			_exit(4);
		// The owner says it is awake: the peer sees it.
		for (int i = 0; i < 10000 && !peer.owner_awake(); i++)
			usleep(1000);
		if (!peer.owner_awake())
			_exit(7);
		memcpy(peer.staging(0), "world", 6);
		peer.slot(0).state.store(kSlotPosted, std::memory_order_release);
		// Wait for the owner's answer.
		for (int i = 0; i < 10000; i++) {
			if (peer.slot(0).state.load(std::memory_order_acquire) == kSlotDone)
				_exit(peer.slot(0).status.load() == -5 ? 0 : 5);
			usleep(1000);
		}
		_exit(6);
	}
	mb.set_owner_awake(true);
	bool served = false;
	for (int i = 0; i < 10000 && !served; i++) {
		uint32_t expect = kSlotPosted;
		if (mb.slot(0).state.compare_exchange_strong(expect, kSlotServing)) {
			EXPECT_STREQ(reinterpret_cast<char *>(mb.staging(0)), "world");
			mb.slot(0).status.store(-5);
			mb.slot(0).state.store(kSlotDone, std::memory_order_release);
			served = true;
		}
		usleep(1000);
	}
	EXPECT_TRUE(served);
	mb.set_owner_awake(false);
	EXPECT_FALSE(mb.owner_awake());
	int st = 0;
	waitpid(c, &st, 0);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
}

// Woken early by a peer that claimed a slot, the staging server waits
// awake while the slot is filled and serves it in the same call once it is
// posted (here a key it never registered: the slot ends with ENOENT).
TEST(StagingServer, WaitsAwakeForAClaimedSlot)
{
	StagingServer srv;
	ASSERT_EQ(srv.init(2, 4096, 0x5151, 1000000, 30 * kSecondNs, 0), 0);
	const Mailbox &mb = srv.mailbox();
	EXPECT_EQ(mb.linger_ns(), 30 * kSecondNs);
	EXPECT_FALSE(mb.owner_awake());
	EXPECT_EQ(srv.serve_awake(), 0u);  // nothing claimed: back at once
	ASSERT_EQ(mb.claim(0), 0);
	std::atomic<bool> saw_awake{false};
	std::thread peer([&] {
		for (int i = 0; i < 10000 && !mb.owner_awake(); i++)
			usleep(1000);
		saw_awake = mb.owner_awake();
		Slot &s = mb.slot(0);
		s.op = kSlotPut;
		s.key = 0xabcdef;
		s.offset = 0;
		s.length = 16;
		s.state.store(kSlotPosted, std::memory_order_release);
	});
	const auto t0 = std::chrono::steady_clock::now();
	EXPECT_EQ(srv.serve_awake(), 1u);
	const auto waited = std::chrono::steady_clock::now() - t0;
	peer.join();
	EXPECT_TRUE(saw_awake);
	EXPECT_LT(waited, std::chrono::seconds(30));  // served, not timed out
	EXPECT_EQ(mb.slot(0).state.load(), kSlotDone);
	EXPECT_EQ(mb.slot(0).status.load(), -ENOENT);
	EXPECT_FALSE(mb.owner_awake());
	srv.shutdown();
}

// A slot claimed and never posted (its peer died, say) holds the server
// for the linger time at most; with none claimed it waits the spin time
// at most.
TEST(StagingServer, LingerAndSpinAreBounded)
{
	const uint64_t ms50 = 50 * kSecondNs / 1000;
	struct Case {
		uint64_t linger, spin;
		bool claimed;
		uint64_t at_least;
	} cases[] = {
		{0, 0, true, 0},
		{ms50, 0, true, ms50},
		{0, ms50, false, ms50},
		{30 * kSecondNs, ms50, false, ms50},  // nothing claimed: the spin
	};
	for (const Case &c : cases) {
		StagingServer srv;
		ASSERT_EQ(srv.init(2, 4096, 0x6161 + c.linger + c.spin, 1000000, c.linger, c.spin),
			  0);
		if (c.claimed) {
			ASSERT_EQ(srv.mailbox().claim(0), 0);
		}
		const auto t0 = std::chrono::steady_clock::now();
		EXPECT_EQ(srv.serve_awake(), 0u);
		const auto waited = std::chrono::steady_clock::now() - t0;
		EXPECT_GE(waited, std::chrono::nanoseconds(c.at_least));
		EXPECT_LT(waited, std::chrono::seconds(10));
		EXPECT_FALSE(srv.mailbox().owner_awake());
		EXPECT_EQ(srv.mailbox().slot(0).state.load(),
			  c.claimed ? kSlotClaimed : kSlotFree);
		srv.shutdown();
	}
}

// The owner rings an initiator's completion doorbell only for slots whose
// initiator said it sleeps until they are done; asking for a ring on a
// slot that is done already says so instead.
TEST(StagingServer, RingsOnlyInitiatorsThatAsked)
{
	StagingServer srv;
	ASSERT_EQ(srv.init(2, 4096, 0x7171, 1000000, 0, 0), 0);
	const Mailbox &mb = srv.mailbox();
	Doorbell completion;
	ASSERT_EQ(completion.bind(0x7272, Bell::Completion), 0);
	auto post = [&](uint32_t i) {
		ASSERT_EQ(mb.claim(i), static_cast<int>(i));
		Slot &s = mb.slot(i);
		s.op = kSlotPut;
		s.key = 0xabcdef;  // never registered: served with ENOENT
		s.offset = 0;
		s.length = 16;
		s.initiator_start = this_process().start;
		s.initiator_pid.store(this_process().pid);
		s.initiator_nonce = 0x7272;
		s.ring.store(0);
		s.state.store(kSlotPosted, std::memory_order_release);
	};
	auto rung = [&] {
		struct pollfd p = {completion.fd(), POLLIN, 0};
		return poll(&p, 1, 200) == 1 && completion.drain();
	};

	// A polling initiator: served, not rung.
	post(0);
	EXPECT_EQ(srv.serve(), 1u);
	EXPECT_EQ(mb.slot(0).state.load(), kSlotDone);
	EXPECT_FALSE(rung());
	EXPECT_FALSE(mb.want_ring(0));  // done already: no ring will come
	mb.slot(0).state.store(kSlotFree);

	// A sleeping one: rung once for its two slots.
	post(0);
	post(1);
	EXPECT_TRUE(mb.want_ring(0));
	EXPECT_TRUE(mb.want_ring(1));
	EXPECT_EQ(srv.serve(), 2u);
	EXPECT_TRUE(rung());
	EXPECT_EQ(mb.slot(0).status.load(), -ENOENT);
	EXPECT_EQ(mb.slot(1).status.load(), -ENOENT);
	srv.shutdown();
}

TEST(Doorbell, RingsAndDrains)
{
	Doorbell bell;
	ASSERT_EQ(bell.bind(42, Bell::Request), 0);
	Doorbell same;
	EXPECT_EQ(same.bind(42, Bell::Request), -EADDRINUSE);
	Doorbell other;
	EXPECT_EQ(other.bind(42, Bell::Completion), 0);
	EXPECT_FALSE(bell.drain());
	for (int i = 0; i < 3; i++)
		Doorbell::ring(this_process().pid, 42, Bell::Request);
	struct pollfd p = {bell.fd(), POLLIN, 0};
	EXPECT_EQ(poll(&p, 1, 1000), 1);
	EXPECT_TRUE(bell.drain());
	EXPECT_FALSE(bell.drain());
	EXPECT_FALSE(other.drain());
	// Nobody listening: ringing costs nothing and says nothing.
	Doorbell::ring(this_process().pid, 43, Bell::Request);
	// Rings never block, however many.
	for (int i = 0; i < 100000; i++)
		Doorbell::ring(this_process().pid, 42, Bell::Request);
	EXPECT_TRUE(bell.drain());
}

}  // namespace
