// SPDX-License-Identifier: MIT
// An owner against its initiators: what the peer an initiator moves data
// to or from can hand it at admission.  This process plays the owner with
// the transport's own admission point and its own mailbox; a peer process
// is the initiator, whose survival and pinned memory are checked.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "admission.h"
#include "bridge_fixture.h"
#include "hostile.h"
#include "mailbox.h"
#include "rkey_format.h"

namespace uct_test {
namespace {

using Bytes = std::vector<uint8_t>;

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

// A remote key for the staged path of an owner that is this process.
Bytes forged_staged_key(uint64_t addr, uint64_t length)
{
	gaudi_ipc::RkeyFields f;
	memset(&f, 0, sizeof(f));
	f.flags = gaudi_ipc::kRkeyStaged | gaudi_ipc::kRkeyWritable;
	f.addr = addr;
	f.length = length;
	f.stage_key = 0x5157a9ed;
	f.owner = gaudi_ipc::this_process();
	memcpy(f.boot_id, gaudi_ipc::this_node().boot_id, sizeof(f.boot_id));
	f.pid_ns = gaudi_ipc::this_node().pid_ns;
	gaudi_ipc::PackedRkey k;
	gaudi_ipc::pack_rkey(f, &k);
	const auto *b = reinterpret_cast<const uint8_t *>(&k);
	return Bytes(b, b + sizeof(k));
}

// An owner that admits whoever comes with a welcome for a segment of its
// choosing, and answers every piece posted in slot 0 with success.
class HandMadeOwner {
public:
	HandMadeOwner(int memfd, uint32_t slots, uint64_t slot_size, unsigned char *segment)
		: memfd_(memfd), slots_(slots), slot_size_(slot_size), seg_(segment)
	{
		nonce_ = gaudi_ipc::random_u64();
		ok_ = ap_.listen(nonce_, &why_) == 0;
		if (ok_)
			thread_ = std::thread([this] { run(); });
	}
	~HandMadeOwner()
	{
		stop_ = true;
		if (thread_.joinable())
			thread_.join();
	}
	bool ok() const { return ok_; }
	const std::string &why() const { return why_; }
	Bytes address() const { return forged_address(nonce_); }
	unsigned served() const { return served_; }
	bool admitted() const { return admitted_; }
	// From now on the segment is not touched (it may be taken away).
	void hands_off()
	{
		hands_off_ = true;
		while (thread_.joinable() && !off_)
			usleep(1000);
	}

private:
	void run()
	{
		const auto g = gaudi_ipc::Geometry::make(slots_, slot_size_);
		auto *slot = seg_ ? reinterpret_cast<gaudi_ipc::wire::Slot *>(seg_ + g->slots_offset)
				  : nullptr;
		while (!stop_) {
			struct pollfd p = {ap_.fd(), POLLIN, 0};
			if (poll(&p, 1, 1) == 1) {
				gaudi_ipc::Admitted a;
				if (ap_.accept(&a) == 0) {
					gaudi_ipc::Welcome w = {gaudi_ipc::kWelcomeMagic,
								gaudi_ipc::kWelcomeVersion, 1, slots_,
								slot_size_, nonce_};
					if (gaudi_ipc::send_welcome(a.line.get(), w, memfd_) == 0) {
						lines_.push_back(std::move(a.line));
						admitted_ = true;
					}
				}
			}
			if (hands_off_)
				off_ = true;
			if (!slot || off_)
				continue;
			uint32_t word = slot[0].word.load();
			if (gaudi_ipc::wire::state_of(word) == gaudi_ipc::wire::kPosted) {
				slot[0].status.store(0);
				slot[0].word.store(gaudi_ipc::wire::word(gaudi_ipc::wire::kDone,
									 gaudi_ipc::wire::lane_of(word)));
				served_++;
			}
		}
	}

	int memfd_;
	uint32_t slots_;
	uint64_t slot_size_;
	unsigned char *seg_;
	uint64_t nonce_ = 0;
	gaudi_ipc::AdmissionPoint ap_;
	std::string why_;
	bool ok_ = false;
	std::atomic<bool> stop_{false};
	std::atomic<unsigned> served_{0};
	std::atomic<bool> admitted_{false};
	std::atomic<bool> hands_off_{false}, off_{false};
	std::vector<hl::UniqueFd> lines_;
	std::thread thread_;
};

// An owner sends a mailbox on hugetlbfs, sealed and of the size its
// geometry gives: everything an initiator used to check.  Once it has
// served a piece it punches the huge page out of the file (the seals
// allow that) and takes the pool's only free huge page for itself, so
// the next touch of the segment by anyone who mapped it is a SIGBUS.  The
// initiator must refuse such a mailbox (or survive it): it lives on, and
// its transfers fail with a status.
TEST_F(Hostile, HugetlbMailboxCannotKillTheInitiator)
{
	Sysctl overcommit("vm/nr_overcommit_hugepages", "0");
	Sysctl pool("vm/nr_hugepages", "1");
	ASSERT_TRUE(pool.ok() && overcommit.ok()) << "cannot set up one huge page";
	constexpr uint64_t kHuge = 2 << 20;
	constexpr uint64_t kSlot = kHuge - 4096;  // one slot: the segment is one huge page
	hl::UniqueFd memfd(memfd_create("hl-gaudi-ipc-mailbox",
					MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB));
	ASSERT_TRUE(memfd.valid()) << strerror(errno);
	ASSERT_EQ(ftruncate(memfd.get(), kHuge), 0) << strerror(errno);
	ASSERT_EQ(fcntl(memfd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	hlipc::Mapping seg = hlipc::Mapping::map(kHuge, PROT_READ | PROT_WRITE, MAP_SHARED,
						 memfd.get(), 0);
	ASSERT_TRUE(seg.valid()) << strerror(errno);
	memset(seg.bytes(), 0, 4096);  // the pool's page, in the file
	HandMadeOwner owner(memfd.get(), 1, kSlot, seg.bytes());
	ASSERT_TRUE(owner.ok()) << owner.why();

	Peer init(-1, false, {"UCX_GAUDI_IPC_CHANNELS=n", "UCX_GAUDI_IPC_PEER_TIMEOUT=5s"});
	ASSERT_TRUE(init.ok());
	ASSERT_EQ(init.call(kConnect, 0, 0, 0, 0, 0, owner.address()).status, 0);
	PeerMsg buf = init.call(kAlloc, 0, 4096);
	ASSERT_EQ(buf.status, 0);
	const Bytes key = forged_staged_key(1 << 20, 1 << 20);
	PeerMsg first = init.call(kXfer, 0, buf.a, 0, 4096, 1 << 20, key);
	ASSERT_TRUE(owner.admitted()) << "the initiator never asked to be admitted";
	owner.hands_off();
	hlipc::Mapping taken;
	if (owner.served()) {
		// The initiator took the mailbox: the page goes, and the pool's
		// one free page with it.
		ASSERT_EQ(fallocate(memfd.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
				    kHuge),
			  0)
			<< strerror(errno);
		taken = hlipc::Mapping::map(kHuge, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		ASSERT_TRUE(taken.valid()) << "no huge page left to take: " << strerror(errno);
		memset(taken.bytes(), 1, 4096);
	}
	PeerMsg second = init.call(kXfer, 0, buf.a, 0, 4096, 1 << 20, key);
	EXPECT_TRUE(alive(init.pid())) << "the initiator died";
	EXPECT_NE(second.status, -EPIPE) << "the initiator died";
	EXPECT_EQ(first.status, UCS_ERR_IO_ERROR)
		<< "a hugetlbfs mailbox was taken: "
		<< ucs_status_string(static_cast<ucs_status_t>(first.status));
	EXPECT_EQ(second.status, UCS_ERR_IO_ERROR)
		<< ucs_status_string(static_cast<ucs_status_t>(second.status));
}

// Owners that offer 512 and then 3072 staging slots of 1 MiB, a staging
// area of 512 MiB and 3 GiB: an initiator that put 64 KiB of its device
// memory through such an owner pinned all of it (VmPin 1 GiB; with 3072
// slots it was OOM-killed).  With its own limits the initiator refuses
// such an offer (UCS_ERR_EXCEEDS_LIMIT) and pins nothing; allowed to
// accept it, it pins what the put uses, at most a few MiB.
TEST_F(Hostile, OversizedStagingOfferIsRefusedOrPinnedOnlyWhereUsed)
{
	constexpr uint64_t kLen = 64 << 10;
	for (unsigned slots : {512u, 3072u}) {
		SCOPED_TRACE(std::to_string(slots) + " slots of 1 MiB");
		Peer owner(-1, false,
			   {"UCX_GAUDI_IPC_CHANNELS=n", "UCX_GAUDI_IPC_STAGING_SIZE=1m",
			    "UCX_GAUDI_IPC_STAGING_SLOTS=" + std::to_string(slots)});
		ASSERT_TRUE(owner.ok());
		RemoteBuffer r = remote_buffer(owner, 0, kLen);
		ASSERT_NE(r.id, 0u);
		for (bool accept : {false, true}) {
			SCOPED_TRACE(accept ? "accepted" : "by default");
			std::vector<std::string> env = {"UCX_GAUDI_IPC_CHANNELS=n"};
			if (accept)
				env.push_back("UCX_GAUDI_IPC_PEER_STAGING_MAX=4g");
			Peer init(kSparePeerDevice, false, env);
			ASSERT_TRUE(init.ok());
			ASSERT_EQ(init.call(kConnect, 0, 0, 0, 0, 0, owner.address()).status, 0);
			PeerMsg buf = init.call(kAlloc, 1, kLen);
			ASSERT_EQ(buf.status, 0);
			ASSERT_EQ(init.call(kFill, buf.a, 17 + slots, 0, kLen, 0).status, 0);
			const uint64_t before = vm_pin_kib(init.pid());
			PeerMsg x = init.call(kXfer, 0, buf.a, 0, kLen, r.addr, r.rkey);
			const uint64_t pinned = vm_pin_kib(init.pid()) - before;
			printf("%u slots of 1 MiB, %s: %s, %llu KiB more pinned\n", slots,
			       accept ? "accepted" : "by default",
			       ucs_status_string(static_cast<ucs_status_t>(x.status)),
			       static_cast<unsigned long long>(pinned));
			if (!accept) {
				// (Before the limits, this put pinned the whole offer:
				// stop here rather than try the next, larger one.)
				ASSERT_EQ(x.status, UCS_ERR_EXCEEDS_LIMIT)
					<< ucs_status_string(static_cast<ucs_status_t>(x.status));
				ASSERT_EQ(pinned, 0u);
				continue;
			}
			EXPECT_EQ(x.status, UCS_OK)
				<< ucs_status_string(static_cast<ucs_status_t>(x.status));
			EXPECT_LE(pinned, 4096u) << "the put pinned more than a few MiB";
			EXPECT_EQ(owner.call(kCheck, r.id, 17 + slots, 0, kLen, 0).a, 0u);
		}
	}
}

}  // namespace
}  // namespace uct_test
