// SPDX-License-Identifier: MIT
// The staged path's shared memory, and the only code that touches it.
//
// An interface that serves the staged path (the owner) creates a mailbox:
// a memfd of request slots, each with a slot of staging memory, sealed
// against shrinking and growing, which it hands to the initiators it
// admits (admission.h).  Everything in it can be written by any of them
// at any time, so nothing in it is trusted:
//
//  - the geometry (slot count and size, where slots and staging start) is
//    not in it: the owner fixes it at creation, an initiator learns it
//    from the owner's welcome and checks it against the sealed size; each
//    keeps its own copy;
//  - per request, a slot carries only what one piece needs (operation,
//    registration key, offset in the registration, length), which the
//    owner reads once, when it takes the piece, and checks (the key,
//    offset and length again against its registry); the owner's answer
//    (a status) is read once by the initiator and checked too;
//  - no wait or spin of either side is ever taken from it.
//
// A slot's state word holds the state and the lane of the initiator that
// claimed it (the owner knows each lane by its connection, not by
// anything written here), changed by atomic stores and compare-and-swaps
// with release/acquire ordering, so fields written before a state change
// are seen after it:
//
//   FREE --initiator claims--> CLAIMED --initiator posts--> POSTED
//   POSTED --owner takes--> SERVING --owner ends--> DONE --initiator frees--> FREE
//
// The claim and the lane are one store: there is no moment when a claimed
// slot names nobody, or somebody else.  The owner frees the slots of an
// initiator whose lane closed; a piece that ends after its initiator left
// goes back to FREE rather than DONE.
//
// Order: an initiator numbers the pieces it posts (a counter of its own,
// written into the slot with the request), and the owner moves the pieces
// of one lane in that order, whatever slots they are in: puts and gets of
// one initiator land in the order it posted them, as on the channel path
// (UCX's perftest and programs that poll a flag written last rely on it).
// The number orders that lane's own pieces only, so whatever a peer
// writes there reorders nothing but its own.
//
// Waking: an owner that serves says so in a control word (a hint: a peer
// that sees it awake does not ring); the owner clears it and looks for
// posted slots once more, a peer posts and then reads it, both with full
// fences between, so a post is either seen or rung for.  An initiator
// that is about to sleep until a piece is done sets the slot's ring flag;
// the owner marks the slot done and then reads the flag, the initiator
// sets the flag and then reads the state, both with full fences, so a
// sleeper is rung or sees the piece done.  Who is rung is the lane's
// connection, never a process a slot names.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include "hl/unique_fd.h"
#include "mapping.h"

namespace gaudi_ipc {

// The layout, fixed at creation and kept privately by each side.
struct Geometry {
	uint32_t slots = 0;
	uint64_t slot_size = 0;       // staging bytes per slot, whole pages
	uint64_t slots_offset = 0;    // the slot array
	uint64_t staging_offset = 0;  // slot 0's staging memory
	uint64_t total = 0;           // the segment's size

	// The layout of `slots` slots of slot_size bytes (rounded up to
	// pages); nullopt if outside what a mailbox may be (1..4096 slots,
	// 1 byte..1 GiB each).
	static std::optional<Geometry> make(uint32_t slots, uint64_t slot_size);
};

enum class SlotOp : uint32_t {
	Put = 1,  // staging -> the owner's registered memory
	Get = 2,  // the owner's registered memory -> staging
};

// What the shared memory holds.  Only mailbox.cc reads or writes it (and
// tests that play a hostile peer).
namespace wire {

enum State : uint32_t {
	kFree = 0,
	kClaimed = 1,
	kPosted = 2,
	kServing = 3,
	kDone = 4,
};
constexpr uint32_t kStateMask = 0xff;
constexpr uint32_t kLaneShift = 8;
constexpr uint32_t kMaxLane = (1u << 24) - 1;
constexpr uint32_t word(uint32_t state, uint32_t lane) { return state | lane << kLaneShift; }
constexpr uint32_t state_of(uint32_t w) { return w & kStateMask; }
constexpr uint32_t lane_of(uint32_t w) { return w >> kLaneShift; }

struct Control {
	std::atomic<uint32_t> owner_awake;
};

struct alignas(64) Slot {
	std::atomic<uint32_t> word;   // state | lane
	uint32_t op;                  // SlotOp
	uint64_t key;                 // the owner's registry key
	uint64_t offset;              // into that registration
	uint64_t length;              // bytes, at most the slot size
	uint64_t seq;                 // the initiator's count of its posts
	std::atomic<int32_t> status;  // the owner's answer, valid in DONE
	std::atomic<uint32_t> ring;   // the initiator sleeps until DONE
};
static_assert(sizeof(Slot) == 64, "a slot is one cache line");
static_assert(std::atomic<uint32_t>::is_always_lock_free,
	      "slot words are shared between processes");

}  // namespace wire

// A request as the owner took it: read once, checked against the
// geometry (bad ones carry the -errno to answer with).
struct Request {
	uint32_t slot;
	uint32_t lane;
	SlotOp op;
	uint64_t key, offset, length;
	uint64_t seq;  // the lane's order of its pieces (its own word)
	int error;  // 0, or -EINVAL for an impossible operation or length
};

// The owner's view.
class OwnerMailbox {
public:
	// A new sealed segment.  0 or -errno (-EINVAL: impossible geometry).
	int create(uint32_t slots, uint64_t slot_size);
	bool valid() const { return map_.valid(); }
	int fd() const { return fd_.get(); }
	const Geometry &geometry() const { return g_; }
	unsigned char *staging(uint32_t slot) const
	{
		return map_.bytes() + g_.staging_offset + slot * g_.slot_size;
	}
	unsigned char *staging_base() const { return staging(0); }
	uint64_t staging_bytes() const { return g_.slots * g_.slot_size; }

	// Takes slot i if a peer posted it (POSTED -> SERVING) and reads the
	// request in it, once.
	std::optional<Request> take(uint32_t i) const;
	// Ends a piece taken: the answer, then DONE; or FREE when its
	// initiator is gone (delivered false).
	void finish(const Request &r, int status, bool deliver) const;
	// After finish(): whether the piece's initiator sleeps until it is
	// done.
	bool ring_wanted(uint32_t i) const;
	// Hints: some slot posted, some slot claimed (being filled).
	bool has_posted() const;
	bool any_claimed() const;
	// Frees the slots of an initiator that left, but for those being
	// served.  Returns how many.
	unsigned free_lane(uint32_t lane) const;
	// Says whether the owner is awake (spinning on the slots); a full
	// fence follows.
	void set_awake(bool awake) const;

private:
	wire::Slot &slot(uint32_t i) const
	{
		return reinterpret_cast<wire::Slot *>(map_.bytes() + g_.slots_offset)[i];
	}
	Geometry g_;
	hl::UniqueFd fd_;
	hlipc::Mapping map_;
};

// What an initiator sees of a piece it posted.
struct PieceState {
	enum Kind { Waiting, Serving, Done, Lost } kind;
	int status;  // Done: 0 or -errno, checked
};

// An initiator's view of an owner's mailbox.
class PeerMailbox {
public:
	// Maps the segment an owner sent with its welcome, after checking it
	// is a shmem memfd of this user (not hugetlbfs: see mailbox.cc),
	// sealed at the size the owner's geometry gives.  0 or -errno
	// (-EPROTO: not such a segment).
	int attach(hl::UniqueFd memfd, uint32_t slots, uint64_t slot_size, uint32_t lane);
	bool valid() const { return map_.valid(); }
	const Geometry &geometry() const { return g_; }
	unsigned char *staging(uint32_t slot) const
	{
		return map_.bytes() + g_.staging_offset + slot * g_.slot_size;
	}
	unsigned char *staging_base() const { return staging(0); }
	uint64_t staging_bytes() const { return g_.slots * g_.slot_size; }

	// Claims the lowest free slot for this lane; -1 if none is free.
	int claim() const;
	bool any_free() const;
	// Posts a claimed slot, numbered after every piece posted before.
	void post(uint32_t i, SlotOp op, uint64_t key, uint64_t offset, uint64_t length);
	// Where a posted piece is, by the owner's word, read once and checked:
	// a state this initiator cannot be in, or a status no errno, is Lost.
	PieceState look(uint32_t i) const;
	// Takes a posted piece back before the owner took it (POSTED ->
	// CLAIMED); false if the owner has it.
	bool unpost(uint32_t i) const;
	// Gives a slot back (it must be this lane's, not being served).
	void release(uint32_t i) const;
	// About to sleep: asks for a ring when slot i is done; false if it is
	// done already (then no ring comes).
	bool want_ring(uint32_t i) const;
	// After posting: whether the owner says it is awake.
	bool owner_awake() const;

private:
	wire::Slot &slot(uint32_t i) const
	{
		return reinterpret_cast<wire::Slot *>(map_.bytes() + g_.slots_offset)[i];
	}
	Geometry g_;
	uint32_t lane_ = 0;
	uint64_t posts_ = 0;
	hlipc::Mapping map_;
};

}  // namespace gaudi_ipc
