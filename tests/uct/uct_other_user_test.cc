// SPDX-License-Identifier: MIT
// Another user against a user's transport: whatever another user creates
// in shared directories before the user's processes start, their
// interfaces open, admit each other and move data.
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "bridge_fixture.h"
#include "hostile.h"

namespace uct_test {
namespace {

// A user with no other business on the guest.
constexpr unsigned kVictim = 4242;
constexpr unsigned kNobody = 65534;

// Two processes of the victim, host memory, the staged path (the one
// that listens), put and get; every byte checked.
void victim_moves_data()
{
	Peer owner(-1, false, {"UCX_GAUDI_IPC_CHANNELS=n"}, 0, kVictim);
	ASSERT_TRUE(owner.ok()) << "the victim's interface did not open";
	Peer initiator(-1, false, {"UCX_GAUDI_IPC_CHANNELS=n"}, 0, kVictim);
	ASSERT_TRUE(initiator.ok()) << "the victim's interface did not open";
	constexpr uint64_t kLen = 65536;
	RemoteBuffer r = remote_buffer(owner, 0, kLen);
	ASSERT_NE(r.id, 0u);
	ASSERT_EQ(initiator.call(kConnect, 0, 0, 0, 0, 0, owner.address()).status, 0);
	PeerMsg mine = initiator.call(kAlloc, 0, kLen);
	ASSERT_EQ(mine.status, 0);
	ASSERT_EQ(initiator.call(kFill, mine.a, 21, 0, kLen, 0).status, 0);
	PeerMsg put = initiator.call(kXfer, 0, mine.a, 0, kLen, r.addr, r.rkey);
	EXPECT_EQ(put.status, UCS_OK) << ucs_status_string(static_cast<ucs_status_t>(put.status));
	EXPECT_EQ(owner.call(kCheck, r.id, 21, 0, kLen, 0).a, 0u);
	ASSERT_EQ(owner.call(kFill, r.id, 22, 0, kLen, 0).status, 0);
	PeerMsg get = initiator.call(kXfer, 1, mine.a, 0, kLen, r.addr, r.rkey);
	EXPECT_EQ(get.status, UCS_OK) << ucs_status_string(static_cast<ucs_status_t>(get.status));
	EXPECT_EQ(initiator.call(kCheck, mine.a, 22, 0, kLen, 0).a, 0u);
}

// The names in /tmp another user can predict for a user's transport:
// earlier versions kept the sockets of all of a user's interfaces in
// /tmp/hl-gaudi-ipc-<uid>, which another user could make first, as a
// directory of its own (the sticky bit on /tmp then keeps the victim from
// removing it) or as a symlink.  Made first here as a directory; that an
// interface never uses a name it did not create, link or not, is
// Admission.ADirectoryOfItsOwnThatNobodyCouldName.
TEST_F(Hostile, SquattedNamesDoNotDenyAnotherUser)
{
	Squat squat(kNobody, {"/tmp/hl-gaudi-ipc-" + std::to_string(kVictim)}, false);
	ASSERT_TRUE(squat.ok()) << "nobody could not create the names";
	victim_moves_data();
}

}  // namespace
}  // namespace uct_test
