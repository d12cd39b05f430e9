// SPDX-License-Identifier: MIT
// Host unit tests of the transport's parts that need neither UCX nor a
// device: the remote key format, process identities and pidfds, the
// admission of initiators, the staging mailbox and what it does with
// hostile fields, the staging server (admitted lanes, waiting for claimed
// slots, rings, the order it moves a lane's pieces in), and the
// registry's pins.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "addresses.h"
#include "admission.h"
#include "issue_window.h"
#include "mailbox.h"
#include "node_identity.h"
#include "process_handle.h"
#include "registry.h"
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
	EXPECT_EQ(bad([](PackedRkey &k) { k.version = 1; }), RkeyCheck::Corrupt);  // uid inside
	EXPECT_EQ(bad([](PackedRkey &k) { k.version = 3; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.flags |= 0x10; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.reserved = 1; }), RkeyCheck::Corrupt);
	EXPECT_EQ(bad([](PackedRkey &k) { k.reserved0 = 1; }), RkeyCheck::Corrupt);
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

TEST(IssueWindow, OldestInFlightWhateverTheOrderOfRetiring)
{
	IssueWindow w;
	EXPECT_TRUE(w.empty());
	EXPECT_EQ(w.oldest(), UINT64_MAX);
	EXPECT_EQ(w.newest(), 0u);
	for (uint64_t n = 1; n <= 1000; n++)
		ASSERT_EQ(w.issue(), n);
	// Every other one retires first: the oldest is still the first.
	for (uint64_t n = 2; n <= 1000; n += 2)
		w.retire(n);
	EXPECT_EQ(w.oldest(), 1u);
	w.retire(1);
	EXPECT_EQ(w.oldest(), 3u);
	// Numbers not in flight, retired again or never issued, change nothing.
	w.retire(1);
	w.retire(2);
	w.retire(0);
	w.retire(5000);
	EXPECT_EQ(w.oldest(), 3u);
	for (uint64_t n = 999; n >= 5; n -= 2)
		w.retire(n);
	EXPECT_EQ(w.oldest(), 3u);
	w.retire(3);
	EXPECT_TRUE(w.empty());
	EXPECT_EQ(w.oldest(), UINT64_MAX);
	EXPECT_EQ(w.newest(), 1000u);
	EXPECT_EQ(w.issue(), 1001u);
	EXPECT_EQ(w.oldest(), 1001u);
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
	// Wait until it is a zombie, without reaping it.
	siginfo_t si = {};
	ASSERT_EQ(waitid(P_PID, static_cast<id_t>(c), &si, WEXITED | WNOWAIT), 0);
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

TEST(ProcessHandle, ProvesAndWatches)
{
	const ProcessId &me = this_process();
	ProcessHandle self;
	ASSERT_EQ(self.open(me.pid, me.start), 0);
	EXPECT_TRUE(self.alive());
	EXPECT_EQ(self.start(), me.start);
	ProcessHandle wrong;
	EXPECT_EQ(wrong.open(me.pid, me.start + 1), -ESRCH);  // a later process with its pid
	EXPECT_EQ(wrong.open(0, 0), -ESRCH);
	int go[2];
	ASSERT_EQ(pipe(go), 0);
	pid_t c = fork();
	if (c == 0) {
		char b;
		(void)!read(go[0], &b, 1);
		_exit(0);
	}
	ProcessHandle child;
	ASSERT_EQ(child.open(static_cast<uint32_t>(c), 0), 0);
	EXPECT_TRUE(child.alive());
	EXPECT_NE(child.start(), 0u);
	// Its exit wakes whoever sleeps on the pidfd, before it is reaped.
	std::thread let_go([&] {
		usleep(100 * 1000);
		(void)!write(go[1], "x", 1);
	});
	struct pollfd p = {child.fd(), POLLIN, 0};
	EXPECT_EQ(poll(&p, 1, 10000), 1);
	let_go.join();
	EXPECT_FALSE(child.alive()) << "a zombie is not alive";
	ProcessHandle zombie;
	EXPECT_EQ(zombie.open(static_cast<uint32_t>(c), child.start()), -ESRCH);
	waitpid(c, nullptr, 0);
	close(go[0]);
	close(go[1]);
}

// An owner's mailbox and an initiator's view of it, on one memfd.
struct TwoViews {
	OwnerMailbox owner;
	PeerMailbox peer;
	explicit TwoViews(uint32_t slots = 4, uint64_t size = 4096, uint32_t lane = 7)
	{
		EXPECT_EQ(owner.create(slots, size), 0);
		EXPECT_EQ(peer.attach(hl::UniqueFd(dup(owner.fd())), slots,
				      owner.geometry().slot_size, lane),
			  0);
		shared = hlipc::Mapping::map(owner.geometry().total, PROT_READ | PROT_WRITE,
					     MAP_SHARED, owner.fd(), 0);
	}
	wire::Slot &raw(uint32_t i)
	{
		// What any peer can write: the shared slot itself.
		return reinterpret_cast<wire::Slot *>(shared.bytes() +
						      owner.geometry().slots_offset)[i];
	}
	hlipc::Mapping shared;
};

TEST(Mailbox, GeometryIsPrivateAndTheSegmentSealed)
{
	OwnerMailbox mb;
	ASSERT_EQ(mb.create(4, 5000), 0);
	const Geometry &g = mb.geometry();
	EXPECT_EQ(g.slots, 4u);
	EXPECT_EQ(g.slot_size, 8192u);  // whole pages
	EXPECT_EQ(g.staging_offset % 4096, 0u);
	EXPECT_EQ(g.total, g.staging_offset + 4 * 8192u);
	// No peer can shrink it under the owner, grow it, or seal it further.
	EXPECT_LT(ftruncate(mb.fd(), 0), 0);
	EXPECT_EQ(errno, EPERM);
	EXPECT_LT(ftruncate(mb.fd(), static_cast<off_t>(g.total * 2)), 0);
	EXPECT_LT(fcntl(mb.fd(), F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	struct stat st;
	ASSERT_EQ(fstat(mb.fd(), &st), 0);
	EXPECT_EQ(static_cast<uint64_t>(st.st_size), g.total);
	// An initiator checks what it is given against the geometry it was
	// told, and the seals.
	PeerMailbox p;
	EXPECT_EQ(p.attach(hl::UniqueFd(dup(mb.fd())), 5, 8192, 1), -EPROTO);
	EXPECT_EQ(p.attach(hl::UniqueFd(dup(mb.fd())), 4, 5000, 1), -EPROTO);
	EXPECT_EQ(p.attach(hl::UniqueFd(dup(mb.fd())), 4, 8192, 0), -EPROTO);
	hl::UniqueFd unsealed(memfd_create("x", MFD_CLOEXEC));
	ASSERT_EQ(ftruncate(unsealed.get(), static_cast<off_t>(g.total)), 0);
	EXPECT_EQ(p.attach(std::move(unsealed), 4, 8192, 1), -EPROTO);
	EXPECT_EQ(p.attach(hl::UniqueFd(dup(mb.fd())), 4, 8192, 1), 0);
	OwnerMailbox bad;
	EXPECT_EQ(bad.create(0, 4096), -EINVAL);
	EXPECT_EQ(bad.create(1, 0), -EINVAL);
	EXPECT_EQ(bad.create(5000, 4096), -EINVAL);
	EXPECT_EQ(bad.create(1, 1ull << 40), -EINVAL);
}

// Only shmem: a sealed memfd of the right size on hugetlbfs is refused
// before it is mapped (an owner could punch its pages out and leave the
// initiator a SIGBUS; Hostile.HugetlbMailboxCannotKillTheInitiator).
TEST(Mailbox, OnlyShmemIsMapped)
{
	auto g = Geometry::make(1, (2 << 20) - 4096);
	ASSERT_TRUE(g);
	ASSERT_EQ(g->total, 2u << 20);
	hl::UniqueFd huge(memfd_create("x", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB));
	if (!huge.valid())
		GTEST_SKIP() << "no hugetlbfs memfds here: " << strerror(errno);
	ASSERT_EQ(ftruncate(huge.get(), static_cast<off_t>(g->total)), 0);
	ASSERT_EQ(fcntl(huge.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	PeerMailbox p;
	EXPECT_EQ(p.attach(std::move(huge), 1, g->slot_size, 1), -EPROTO);
	EXPECT_FALSE(p.valid());
	OwnerMailbox mb;
	ASSERT_EQ(mb.create(1, g->slot_size), 0);
	EXPECT_EQ(p.attach(hl::UniqueFd(dup(mb.fd())), 1, g->slot_size, 1), 0);
}

TEST(Mailbox, ClaimsCarryTheLane)
{
	TwoViews v(4, 4096, 7);
	PeerMailbox other;
	ASSERT_EQ(other.attach(hl::UniqueFd(dup(v.owner.fd())), 4, 4096, 8), 0);
	EXPECT_EQ(v.peer.claim(), 0);
	EXPECT_EQ(other.claim(), 1);
	EXPECT_EQ(v.peer.claim(), 2);
	EXPECT_EQ(wire::lane_of(v.raw(0).word.load()), 7u);
	EXPECT_EQ(wire::lane_of(v.raw(1).word.load()), 8u);
	v.peer.post(2, SlotOp::Put, 1, 0, 16);
	auto r = v.owner.take(2);
	ASSERT_TRUE(r);
	EXPECT_EQ(r->lane, 7u);
	// Lane 7 leaves: its claimed slot is freed, the one being served is
	// not (it ends as FREE), lane 8's stays.
	EXPECT_EQ(v.owner.free_lane(7), 1u);
	EXPECT_EQ(v.raw(0).word.load(), wire::kFree);
	EXPECT_EQ(wire::state_of(v.raw(1).word.load()), wire::kClaimed);
	EXPECT_EQ(wire::state_of(v.raw(2).word.load()), wire::kServing);
	v.owner.finish(*r, 0, false);
	EXPECT_EQ(v.raw(2).word.load(), wire::kFree);
	// A lane cannot free or read another's slot.
	other.release(0);
	v.peer.release(1);
	EXPECT_EQ(wire::lane_of(v.raw(1).word.load()), 8u);
	EXPECT_EQ(v.peer.look(1).kind, PieceState::Lost);
}

// Whatever a peer writes into a slot, the owner reads each field once and
// refuses what cannot be; the initiator refuses an answer that cannot be.
TEST(Mailbox, HostileFieldsAreChecked)
{
	TwoViews v(2, 4096, 3);
	ASSERT_EQ(v.peer.claim(), 0);
	struct Case {
		uint32_t op;
		uint64_t length;
		int error;
	} cases[] = {
		{static_cast<uint32_t>(SlotOp::Put), 16, 0},
		{static_cast<uint32_t>(SlotOp::Get), 4096, 0},
		{0, 16, -EINVAL},
		{77, 16, -EINVAL},
		{static_cast<uint32_t>(SlotOp::Put), 0, -EINVAL},
		{static_cast<uint32_t>(SlotOp::Put), 4097, -EINVAL},
		{static_cast<uint32_t>(SlotOp::Get), ~0ull, -EINVAL},
	};
	for (const Case &c : cases) {
		wire::Slot &s = v.raw(0);
		s.op = c.op;
		s.key = 0x1234;
		s.offset = ~0ull;
		s.length = c.length;
		s.word.store(wire::word(wire::kPosted, 3));
		auto r = v.owner.take(0);
		ASSERT_TRUE(r);
		EXPECT_EQ(r->error, c.error) << c.op << " " << c.length;
		EXPECT_EQ(r->offset, ~0ull);  // checked against the registry later
		v.owner.finish(*r, -ENOENT, true);
		EXPECT_EQ(v.peer.look(0).kind, PieceState::Done);
		EXPECT_EQ(v.peer.look(0).status, -ENOENT);
	}
	// Answers no owner gives: a positive or huge status, a state that is
	// no state, a slot of another lane.
	for (int32_t st : {1, -5000, INT32_MIN}) {
		v.raw(0).status.store(st);
		v.raw(0).word.store(wire::word(wire::kDone, 3));
		EXPECT_EQ(v.peer.look(0).kind, PieceState::Done);
		EXPECT_EQ(v.peer.look(0).status, -EPROTO);
	}
	v.raw(0).word.store(wire::word(77, 3));
	EXPECT_EQ(v.peer.look(0).kind, PieceState::Lost);
	v.raw(0).word.store(wire::word(wire::kDone, 4));
	EXPECT_EQ(v.peer.look(0).kind, PieceState::Lost);
	// A slot taken back before the owner took it.
	v.raw(0).word.store(wire::word(wire::kClaimed, 3));
	v.peer.post(0, SlotOp::Put, 1, 0, 1);
	EXPECT_TRUE(v.peer.unpost(0));
	EXPECT_FALSE(v.owner.take(0));
	v.peer.release(0);
	EXPECT_EQ(v.raw(0).word.load(), wire::kFree);
}

// Each interface listens in a directory it creates, 0700, named by its
// pid and a random nonce, and removes it when it closes.  A name that
// exists already (made by another user, or anything else) is never used;
// a directory left by a process of this user that died is swept.
TEST(Admission, ADirectoryOfItsOwnThatNobodyCouldName)
{
	const uint64_t nonce = random_u64();
	const std::string sock = admission_path(this_process().pid, nonce);
	const std::string dir = sock.substr(0, sock.rfind('/'));
	{
		AdmissionPoint ap;
		std::string why;
		ASSERT_EQ(ap.listen(nonce, &why), 0) << why;
		struct stat st;
		ASSERT_EQ(lstat(dir.c_str(), &st), 0);
		EXPECT_TRUE(S_ISDIR(st.st_mode));
		EXPECT_EQ(st.st_mode & 0777, 0700u);
		EXPECT_EQ(st.st_uid, geteuid());
		ASSERT_EQ(lstat(sock.c_str(), &st), 0);
		EXPECT_TRUE(S_ISSOCK(st.st_mode));
	}
	struct stat st;
	EXPECT_LT(lstat(dir.c_str(), &st), 0) << "left behind when it closed";
	// Made first by someone else, as a directory or as a link: refused,
	// and nothing is created or removed.
	const uint64_t taken = random_u64();
	const std::string sock2 = admission_path(this_process().pid, taken);
	const std::string dir2 = sock2.substr(0, sock2.rfind('/'));
	for (bool link : {false, true}) {
		ASSERT_EQ(link ? symlink("/tmp", dir2.c_str()) : mkdir(dir2.c_str(), 0777), 0);
		AdmissionPoint ap;
		std::string why;
		EXPECT_EQ(ap.listen(taken, &why), -EEXIST);
		EXPECT_NE(why.find(dir2), std::string::npos) << why;
		ASSERT_EQ(lstat(dir2.c_str(), &st), 0);
		EXPECT_EQ(S_ISLNK(st.st_mode), link);
		ASSERT_EQ(link ? unlink(dir2.c_str()) : rmdir(dir2.c_str()), 0);
	}
	// A directory of a process of this user that exited without closing
	// its interface goes when the next process listens.
	pid_t c = fork();
	if (c == 0) {
		AdmissionPoint ap;  // never closed: _exit runs no destructor
		std::string why;
		_exit(ap.listen(nonce, &why) == 0 ? 0 : 1);
	}
	int status = -1;
	waitpid(c, &status, 0);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	const std::string left = admission_path(static_cast<uint32_t>(c), nonce);
	const std::string left_dir = left.substr(0, left.rfind('/'));
	ASSERT_EQ(lstat(left_dir.c_str(), &st), 0);
	c = fork();
	if (c == 0) {
		AdmissionPoint ap;
		std::string why;
		_exit(ap.listen(random_u64(), &why) == 0 ? 0 : 1);
	}
	waitpid(c, &status, 0);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_LT(lstat(left_dir.c_str(), &st), 0) << "the dead process's directory stayed";
}

// An initiator of the same user is admitted, and gets the mailbox with the
// welcome; a process of another user cannot even connect, and leaves no
// trace at the admission point.
TEST(Admission, SameUserAdmittedOthersNeverReachIt)
{
	OwnerMailbox mb;
	ASSERT_EQ(mb.create(2, 4096), 0);
	AdmissionPoint ap;
	std::string why;
	const uint64_t nonce = random_u64();
	ASSERT_EQ(ap.listen(nonce, &why), 0) << why;
	const std::string sock = admission_path(this_process().pid, nonce);
	const char *path = sock.c_str();
	pid_t c = fork();
	if (c == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		struct sockaddr_un sa;
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		memcpy(sa.sun_path, path, std::min(strlen(path) + 1, sizeof(sa.sun_path) - 1));
		int rc = connect(s, reinterpret_cast<sockaddr *>(&sa), sizeof(sa));
		_exit(rc < 0 && errno == EACCES ? 0 : 11);
	}
	int status = -1;
	waitpid(c, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << WEXITSTATUS(status);
	Admitted a;
	EXPECT_EQ(ap.accept(&a), -EAGAIN);  // nobody got in

	hl::UniqueFd line;
	ProcessHandle owner;
	ASSERT_EQ(connect_owner(this_process(), nonce, &line, &owner), 0);
	EXPECT_EQ(owner.pid(), this_process().pid);
	EXPECT_EQ(connect_owner(ProcessId{this_process().pid, this_process().start + 1}, nonce,
				&line, &owner),
		  -ESRCH);
	EXPECT_EQ(connect_owner(this_process(), nonce + 1, &line, &owner), -ECONNREFUSED);
	ASSERT_EQ(connect_owner(this_process(), nonce, &line, &owner), 0);
	// The three that connected (two have hung up since): the last is ours.
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(ap.accept(&a), 0) << i;
	EXPECT_EQ(ap.accept(&a), -EAGAIN);
	EXPECT_EQ(a.process.pid(), this_process().pid);
	Welcome w{kWelcomeMagic, kWelcomeVersion, 5, 2, mb.geometry().slot_size, nonce};
	Welcome got;
	hl::UniqueFd memfd;
	EXPECT_EQ(recv_welcome(line.get(), &got, &memfd), -EAGAIN);
	ASSERT_EQ(send_welcome(a.line.get(), w, mb.fd()), 0);
	ASSERT_EQ(recv_welcome(line.get(), &got, &memfd), 0);
	EXPECT_EQ(got.lane, 5u);
	PeerMailbox p;
	EXPECT_EQ(p.attach(std::move(memfd), got.slots, got.slot_size, got.lane), 0);
	// Rings either way; a hang-up says the other end is gone.
	EXPECT_EQ(drain_line(a.line.get()), LineState::Quiet);
	EXPECT_TRUE(ring_line(line.get()));
	EXPECT_EQ(drain_line(a.line.get()), LineState::Rung);
	for (int i = 0; i < 10000; i++)  // never blocks
		ring_line(line.get());
	EXPECT_EQ(drain_line(a.line.get()), LineState::Rung);
	line.reset();
	EXPECT_EQ(drain_line(a.line.get()), LineState::Gone);
}

TEST(Registry, RemoveWaitsForPiecesInService)
{
	Registry &r = Registry::get();
	StagedRegion reg{};
	reg.length = 10;
	const uint64_t key = r.add(reg);
	Registry::Pin pin;
	ASSERT_EQ(r.pin(key, &pin), 0);
	EXPECT_EQ(pin.region().length, 10u);
	std::atomic<bool> removed{false};
	std::thread t([&] {
		r.remove(key);
		removed = true;
	});
	usleep(200 * 1000);
	EXPECT_FALSE(removed) << "returned while a piece was in service";
	Registry::Pin late;
	EXPECT_EQ(r.pin(key, &late), -ENOENT);  // ending: no new piece
	pin.reset();
	t.join();
	EXPECT_TRUE(removed);
	EXPECT_EQ(r.pin(key, &late), -ENOENT);
}

// A server and one admitted initiator, in this process.
struct ServerAndLane {
	StagingServer srv;
	hl::UniqueFd line;
	PeerMailbox peer;
	int server_line = -1;
	explicit ServerAndLane(uint64_t linger_ns = 0, uint64_t spin_ns = 0)
	{
		std::string why;
		const uint64_t nonce = random_u64();
		EXPECT_EQ(srv.create({2, 4096, 1000000, linger_ns, spin_ns}), 0);
		EXPECT_EQ(srv.listen(nonce, &why), 0) << why;
		ProcessHandle owner;
		EXPECT_EQ(connect_owner(this_process(), nonce, &line, &owner), 0);
		std::vector<int> lines;
		srv.admit(&lines);
		EXPECT_EQ(lines.size(), 1u);
		server_line = lines.empty() ? -1 : lines[0];
		Welcome w;
		hl::UniqueFd memfd;
		EXPECT_EQ(recv_welcome(line.get(), &w, &memfd), 0);
		EXPECT_EQ(peer.attach(std::move(memfd), w.slots, w.slot_size, w.lane), 0);
	}
	~ServerAndLane() { srv.shutdown(); }
	bool rung()
	{
		struct pollfd p = {line.get(), POLLIN, 0};
		return poll(&p, 1, 50) == 1 && drain_line(line.get()) == LineState::Rung;
	}
};

// Served into registered host memory and out of it, checked against the
// registry: unknown keys, ranges beyond the registration, puts into
// read-only memory.  The owner rings only an initiator that asked.
TEST(StagingServer, ServesAdmittedLanes)
{
	ServerAndLane s;
	std::vector<unsigned char> mem(8192, 0);
	StagedRegion rw{reinterpret_cast<uintptr_t>(mem.data()), 8192, false, true, 0, false};
	StagedRegion ro{reinterpret_cast<uintptr_t>(mem.data()), 8192, false, false, 0, false};
	const uint64_t krw = Registry::get().add(rw), kro = Registry::get().add(ro);
	struct Case {
		SlotOp op;
		uint64_t key, offset, length;
		int status;
	} cases[] = {
		{SlotOp::Put, krw, 100, 16, 0},
		{SlotOp::Get, kro, 100, 16, 0},
		{SlotOp::Put, kro, 0, 16, -EROFS},
		{SlotOp::Put, krw ^ 1, 0, 16, -ENOENT},
		{SlotOp::Get, krw, 8190, 16, -ERANGE},
		{SlotOp::Get, krw, ~0ull - 4, 16, -ERANGE},
	};
	for (const Case &c : cases) {
		int i = s.peer.claim();
		ASSERT_EQ(i, 0);
		memset(s.peer.staging(0), 0x5a, 16);
		s.peer.post(0, c.op, c.key, c.offset, c.length);
		EXPECT_EQ(s.srv.serve(), 1u);
		PieceState st = s.peer.look(0);
		EXPECT_EQ(st.kind, PieceState::Done);
		EXPECT_EQ(st.status, c.status) << c.offset;
		EXPECT_FALSE(s.rung()) << "an initiator that polls is not rung";
		s.peer.release(0);
	}
	EXPECT_EQ(mem[100], 0x5a);
	EXPECT_EQ(mem[99], 0);
	// A sleeper is rung, once for its two pieces.
	ASSERT_EQ(s.peer.claim(), 0);
	ASSERT_EQ(s.peer.claim(), 1);
	s.peer.post(0, SlotOp::Get, krw, 0, 8);
	s.peer.post(1, SlotOp::Get, krw, 8, 8);
	EXPECT_TRUE(s.peer.want_ring(0));
	EXPECT_TRUE(s.peer.want_ring(1));
	EXPECT_EQ(s.srv.serve(), 2u);
	EXPECT_TRUE(s.rung());
	EXPECT_FALSE(s.rung());
	EXPECT_FALSE(s.peer.want_ring(0));  // done already: no ring will come
	// The initiator leaves: its slots are freed.
	s.line.reset();
	EXPECT_EQ(s.srv.line_event(s.server_line), LineState::Gone);
	s.srv.drop_lane(s.server_line);
	Registry::get().remove(krw);
	Registry::get().remove(kro);
}

// Drives a server as UCX's async thread does: serve_awake(), and again
// whenever a turn ended with its kick readable.  Returns how many pieces
// it served; *turns counts the calls.
unsigned serve_like_the_async_thread(StagingServer &srv, unsigned *turns = nullptr)
{
	unsigned n = 0, t = 0;
	for (;;) {
		n += srv.serve_awake();
		t++;
		struct pollfd p = {srv.kick_fd(), POLLIN, 0};
		if (poll(&p, 1, 0) != 1)
			break;
		srv.kicked();
	}
	if (turns)
		*turns = t;
	return n;
}

// Woken early by a peer that claimed a slot, the server waits awake while
// the slot is filled and serves it once it is posted; a slot claimed and
// never posted holds it for its linger time at most, and with none
// claimed it waits its spin time at most.  Both are its own settings.
TEST(StagingServer, LingerAndSpinAreItsOwnAndBounded)
{
	const uint64_t ms50 = 50 * kSecondNs / 1000;
	{
		ServerAndLane s(30 * kSecondNs, 0);
		ASSERT_EQ(s.peer.claim(), 0);
		std::thread peer([&] {
			for (int i = 0; i < 10000 && !s.peer.owner_awake(); i++)
				usleep(1000);
			s.peer.post(0, SlotOp::Put, 0xabcdef, 0, 16);
		});
		const auto t0 = std::chrono::steady_clock::now();
		EXPECT_EQ(serve_like_the_async_thread(s.srv), 1u);
		peer.join();
		EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
		EXPECT_EQ(s.peer.look(0).status, -ENOENT);
		EXPECT_FALSE(s.peer.owner_awake());
	}
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
		ServerAndLane s(c.linger, c.spin);
		if (c.claimed) {
			ASSERT_EQ(s.peer.claim(), 0);
		}
		const auto t0 = std::chrono::steady_clock::now();
		EXPECT_EQ(serve_like_the_async_thread(s.srv), 0u);
		const auto waited = std::chrono::steady_clock::now() - t0;
		EXPECT_GE(waited, std::chrono::nanoseconds(c.at_least));
		EXPECT_LT(waited, std::chrono::seconds(10));
		EXPECT_FALSE(s.peer.owner_awake());
	}
}

// However long it may stay awake, one call serves and waits for one turn
// (a few milliseconds) and gives the thread back, its kick readable and
// still awake for the peers (they need not ring); the next call goes on
// where it stopped, so the linger time still counts from the last piece.
// A peer that posts without pause is served turn by turn, never in one
// call.
TEST(StagingServer, ServesInTurns)
{
	const uint64_t ms300 = 300 * kSecondNs / 1000;
	ServerAndLane s(ms300, 0);
	ASSERT_EQ(s.peer.claim(), 0);
	auto t0 = std::chrono::steady_clock::now();
	EXPECT_EQ(s.srv.serve_awake(), 0u);
	EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
	struct pollfd p = {s.srv.kick_fd(), POLLIN, 0};
	EXPECT_EQ(poll(&p, 1, 0), 1) << "a turn ended with work left, and no kick";
	EXPECT_TRUE(s.peer.owner_awake());
	s.srv.kicked();
	unsigned turns = 0;
	serve_like_the_async_thread(s.srv, &turns);
	EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::nanoseconds(ms300));
	EXPECT_GT(turns, 10u);
	EXPECT_FALSE(s.peer.owner_awake());
	EXPECT_EQ(poll(&p, 1, 0), 0);

	// A lane that posts a piece into slot 1 whenever the last is done.
	std::atomic<bool> stop{false};
	std::atomic<uint64_t> posted{0};
	std::thread flood([&] {
		while (!stop) {
			if (s.peer.look(1).kind == PieceState::Done)
				s.peer.release(1);
			if (s.peer.claim() == 1) {
				s.peer.post(1, SlotOp::Put, 0, 0, 1);
				posted++;
			}
		}
	});
	while (posted < 1)
		usleep(1000);
	t0 = std::chrono::steady_clock::now();
	const unsigned served = s.srv.serve_awake();
	const auto one_call = std::chrono::steady_clock::now() - t0;
	stop = true;
	flood.join();
	EXPECT_GE(served, 1u);
	EXPECT_LT(one_call, std::chrono::milliseconds(100)) << "one call served the flood";
	s.srv.kicked();
}

// The pieces of one initiator are moved in the order it posted them,
// whatever slots they are in: a put posted later into a lower slot does
// not overtake an earlier one, and a get posted after a put reads what
// the put wrote.  (UCX's perf envelope writes its end mark last into the
// place it wrote before, and waits for it.)
TEST(StagingServer, MovesALanesPiecesInTheOrderPosted)
{
	ServerAndLane s;
	uint64_t word = 0;
	StagedRegion reg{reinterpret_cast<uintptr_t>(&word), sizeof(word), false, true, 0, false};
	const uint64_t key = Registry::get().add(reg);
	const uint64_t first = 1, second = 2, third = 3;
	ASSERT_EQ(s.peer.claim(), 0);
	ASSERT_EQ(s.peer.claim(), 1);
	memcpy(s.peer.staging(1), &first, sizeof(first));
	s.peer.post(1, SlotOp::Put, key, 0, 8);
	memcpy(s.peer.staging(0), &second, sizeof(second));
	s.peer.post(0, SlotOp::Put, key, 0, 8);
	EXPECT_EQ(s.srv.serve(), 2u);
	EXPECT_EQ(word, second) << "the put posted first (slot 1) landed last";
	s.peer.release(0);
	s.peer.release(1);
	ASSERT_EQ(s.peer.claim(), 0);
	ASSERT_EQ(s.peer.claim(), 1);
	memcpy(s.peer.staging(1), &third, sizeof(third));
	s.peer.post(1, SlotOp::Put, key, 0, 8);
	memset(s.peer.staging(0), 0, 8);
	s.peer.post(0, SlotOp::Get, key, 0, 8);
	EXPECT_EQ(s.srv.serve(), 2u);
	uint64_t got = 0;
	memcpy(&got, s.peer.staging(0), sizeof(got));
	EXPECT_EQ(got, third) << "the get overtook the put posted before it";
	s.peer.release(0);
	s.peer.release(1);
	Registry::get().remove(key);
}

// The same while the initiator posts as the server looks at the slots (a
// look may pass a slot just before a piece is posted into it, and take a
// later piece in a slot after it): when a piece is done, the memory holds
// it or a later one, never an earlier one.
TEST(StagingServer, NoPieceOvertakesAnEarlierOneWhileItServes)
{
	ServerAndLane s;
	uint64_t word = 0;
	StagedRegion reg{reinterpret_cast<uintptr_t>(&word), sizeof(word), false, true, 0, false};
	const uint64_t key = Registry::get().add(reg);
	std::atomic<bool> stop{false};
	std::thread server([&] {
		while (!stop.load())
			if (s.srv.serve() == 0)
				sched_yield();
	});
	constexpr uint64_t kPieces = 10000;
	uint64_t in_slot[2] = {0, 0};  // the number each slot carries, 0: free
	uint64_t posted = 0, done = 0, overtaken = 0;
	const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
	while (done < kPieces && std::chrono::steady_clock::now() < deadline) {
		for (uint32_t i = 0; i < 2; i++) {
			if (!in_slot[i] || s.peer.look(i).kind != PieceState::Done)
				continue;
			if (__atomic_load_n(&word, __ATOMIC_ACQUIRE) < in_slot[i])
				overtaken++;
			s.peer.release(i);
			in_slot[i] = 0;
			done++;
		}
		const int i = posted < kPieces ? s.peer.claim() : -1;
		if (i < 0) {
			sched_yield();  // the server may share this CPU
			continue;
		}
		posted++;
		memcpy(s.peer.staging(static_cast<uint32_t>(i)), &posted, sizeof(posted));
		s.peer.post(static_cast<uint32_t>(i), SlotOp::Put, key, 0, 8);
		in_slot[i] = posted;
	}
	stop = true;
	server.join();
	EXPECT_EQ(done, kPieces) << "not all served within a minute";
	EXPECT_EQ(overtaken, 0u) << "pieces done while an earlier one was in the memory";
	EXPECT_EQ(word, posted);
	Registry::get().remove(key);
}

}  // namespace
