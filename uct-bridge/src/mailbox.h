// SPDX-License-Identifier: MIT
// The staged path's mailbox: a shared-memory segment (a memfd) that an
// interface offers its peers, holding request slots and, per slot, a piece
// of pinned host staging memory.  A peer opens it through
// /proc/<owner pid>/fd/<fd> (same user only: the kernel checks), claims a
// free slot, fills it (for a put: with the data), posts it; the owner
// serves it (its DMA engine copies between the staging memory and its
// device memory) and marks it done; the peer takes the result (for a get:
// the data) and frees the slot.
//
//   FREE --peer claims--> CLAIMED --peer posts--> POSTED
//   POSTED --owner takes--> SERVING --owner ends--> DONE --peer frees--> FREE
//
// Each step is one atomic store (or compare-and-swap) of the slot's state
// with release/acquire ordering, so the fields and data written before it
// are seen by the other side.  A peer that dies leaves its slots behind;
// the owner frees slots whose initiator no longer runs.  An owner that
// dies is noticed by peers (its start time) and their transfers fail.
//
// Waking the owner: a peer rings the owner's request doorbell when it
// posts, and, for a put piece that takes a while to fill, already when it
// claims, so that the owner wakes while the peer fills the slot.  An owner
// so woken says so in `owner_awake` while it serves and then spins: while
// slots are claimed, for up to `linger_ns` after it last served one, else
// for a short spin time of its own; a peer that sees it awake does not
// ring.  The owner clears the flag and then looks for posted slots once
// more, a peer posts and then reads the flag, both with full fences
// between: at least one of them sees the other's store, so no post is
// left unserved.
//
// Waking the peer: an initiator that is about to sleep until a piece is
// done (its interface armed) says so in the piece's slot (`ring`); the
// owner rings its completion doorbell only for such slots.  An initiator
// that polls is not rung: a ring costs the owner a system call per piece.
// The owner marks a slot done and then reads `ring`, the initiator sets
// `ring` and then reads the state, both with full fences between, so a
// sleeping initiator is rung or sees the piece done.
#pragma once

#include <atomic>
#include <cstdint>

#include "node_identity.h"
#include "hl/unique_fd.h"
#include "mapping.h"

namespace gaudi_ipc {

enum SlotState : uint32_t {
	kSlotFree = 0,
	kSlotClaimed,
	kSlotPosted,
	kSlotServing,
	kSlotDone,
};

enum SlotOp : uint32_t {
	kSlotPut = 1,  // staging -> owner's memory
	kSlotGet = 2,  // owner's memory -> staging
};

constexpr uint32_t kMailboxMagic = 0x424d4947;  // "GIMB"
constexpr uint32_t kMailboxVersion = 3;

struct MailboxHeader {
	uint32_t magic;
	uint32_t version;
	uint32_t slots;
	uint32_t owner_pid;
	uint64_t owner_start;
	uint64_t nonce;           // names this mailbox (with the pid)
	uint64_t slot_size;       // staging bytes per slot
	uint64_t slots_offset;    // where the slot array starts
	uint64_t staging_offset;  // where slot 0's staging memory starts
	uint64_t total_size;
	uint64_t linger_ns;       // how long the owner waits awake for claimed slots
	std::atomic<uint32_t> owner_awake;
};

struct alignas(64) Slot {
	std::atomic<uint32_t> state;
	uint32_t op;                 // SlotOp
	uint64_t key;                // the owner's registry key
	uint64_t offset;             // into that registration
	uint64_t length;             // bytes, at most slot_size
	std::atomic<int32_t> status; // 0 or -errno, valid in DONE
	// Who claimed it: 0 while a claimer has not yet said so (written
	// after the start time, cleared before the slot is freed).
	std::atomic<uint32_t> initiator_pid;
	uint64_t initiator_start;
	uint64_t initiator_nonce;    // the initiator's completion doorbell
	// The initiator sleeps until this slot is done: ring it.  Cleared
	// when the slot is posted.
	std::atomic<uint32_t> ring;
};
static_assert(sizeof(Slot) == 64, "a slot is one cache line");
static_assert(std::atomic<uint32_t>::is_always_lock_free,
	      "slot states are shared between processes");

class Mailbox {
public:
	Mailbox() = default;
	Mailbox(Mailbox &&) = default;
	Mailbox &operator=(Mailbox &&) = default;

	// The owner's side: a new segment of `slots` slots of slot_size bytes
	// (rounded up to pages), whose owner waits awake up to linger_ns for
	// claimed slots (0: never).  0 or -errno.
	int create(uint32_t slots, uint64_t slot_size, uint64_t nonce, uint64_t linger_ns);
	// A peer's side: the owner's segment, checked against who it should
	// be.  0 or -errno (-ESRCH: no such process, -EACCES: another user's,
	// -EPROTO: not the expected mailbox).
	int attach(const ProcessId &owner, int owner_fd, uint64_t nonce);

	bool valid() const { return map_.valid(); }
	int fd() const { return fd_.get(); }
	const MailboxHeader &header() const
	{
		return *reinterpret_cast<const MailboxHeader *>(map_.bytes());
	}
	uint32_t slots() const { return header().slots; }
	uint64_t slot_size() const { return header().slot_size; }
	Slot &slot(uint32_t i) const
	{
		return reinterpret_cast<Slot *>(map_.bytes() + header().slots_offset)[i];
	}
	unsigned char *staging(uint32_t i) const
	{
		return map_.bytes() + header().staging_offset + i * header().slot_size;
	}
	// All of the staging memory, for mapping it on a device.
	unsigned char *staging_base() const { return staging(0); }
	uint64_t staging_bytes() const { return header().slots * header().slot_size; }

	// Claims a free slot, searching from `hint`; its index, or -1 if all
	// are taken.
	int claim(uint32_t hint) const;

	// The owner says whether it is awake (spinning on the slots); the
	// store is followed by a full fence.
	void set_owner_awake(bool awake) const;
	// A peer, after posting: whether the owner is awake and needs no
	// ring (a full fence before the load).
	bool owner_awake() const;

	// An initiator about to sleep: asks for a ring when slot i is done;
	// false if it is done already (then there will be no ring).
	bool want_ring(uint32_t i) const;
	// The owner, after marking slot i done: whether its initiator asked
	// for a ring.
	bool ring_wanted(uint32_t i) const;
	uint64_t linger_ns() const { return header().linger_ns; }

private:
	hl::UniqueFd fd_;
	hlipc::Mapping map_;
};

}  // namespace gaudi_ipc
