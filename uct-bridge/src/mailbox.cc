// SPDX-License-Identifier: MIT
#include "mailbox.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <new>

namespace gaudi_ipc {

namespace {

constexpr uint64_t kControlSize = 64;
constexpr unsigned kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// One load of a field another process may change at any time: the
// compiler may not read it again later (a second read could see another
// value than the one checked).
template <typename T>
T read_once(const T &field)
{
	return __atomic_load_n(&field, __ATOMIC_RELAXED);
}

wire::Control &control(const hlipc::Mapping &m)
{
	return *reinterpret_cast<wire::Control *>(m.bytes());
}

}  // namespace

std::optional<Geometry> Geometry::make(uint32_t slots, uint64_t slot_size)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	if (slots == 0 || slots > 4096 || slot_size == 0 || slot_size > (1ull << 30))
		return std::nullopt;
	Geometry g;
	g.slots = slots;
	g.slot_size = round_up(slot_size, page);
	g.slots_offset = kControlSize;
	g.staging_offset = round_up(g.slots_offset + slots * sizeof(wire::Slot), page);
	g.total = g.staging_offset + slots * g.slot_size;
	return g;
}

int OwnerMailbox::create(uint32_t slots, uint64_t slot_size)
{
	auto g = Geometry::make(slots, slot_size);
	if (!g)
		return -EINVAL;
	hl::UniqueFd fd(memfd_create("hl-gaudi-ipc-mailbox", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (!fd.valid())
		return -errno;
	if (ftruncate(fd.get(), static_cast<off_t>(g->total)) < 0)
		return -errno;
	// Sealed before anyone else sees it: no peer can shrink it under the
	// owner's mapping (SIGBUS) or grow it, and none can add seals.
	if (fcntl(fd.get(), F_ADD_SEALS, kSeals) < 0)
		return -errno;
	hlipc::Mapping map = hlipc::Mapping::map(g->total, PROT_READ | PROT_WRITE, MAP_SHARED,
						 fd.get(), 0);
	if (!map.valid())
		return -errno;
	new (map.bytes()) wire::Control{};
	auto *s = reinterpret_cast<wire::Slot *>(map.bytes() + g->slots_offset);
	for (uint32_t i = 0; i < g->slots; i++)
		new (&s[i]) wire::Slot{};
	g_ = *g;
	fd_ = std::move(fd);
	map_ = std::move(map);
	return 0;
}

std::optional<Request> OwnerMailbox::take(uint32_t i) const
{
	wire::Slot &s = slot(i);
	uint32_t w = s.word.load(std::memory_order_relaxed);
	if (wire::state_of(w) != wire::kPosted ||
	    !s.word.compare_exchange_strong(w, wire::word(wire::kServing, wire::lane_of(w)),
					    std::memory_order_acquire))
		return std::nullopt;
	Request r;
	r.slot = i;
	r.lane = wire::lane_of(w);
	const uint32_t op = read_once(s.op);
	r.key = read_once(s.key);
	r.offset = read_once(s.offset);
	r.length = read_once(s.length);
	r.seq = read_once(s.seq);
	r.op = static_cast<SlotOp>(op);
	r.error = 0;
	if ((op != static_cast<uint32_t>(SlotOp::Put) &&
	     op != static_cast<uint32_t>(SlotOp::Get)) ||
	    r.length == 0 || r.length > g_.slot_size)
		r.error = -EINVAL;
	return r;
}

void OwnerMailbox::finish(const Request &r, int status, bool deliver) const
{
	wire::Slot &s = slot(r.slot);
	s.status.store(status, std::memory_order_relaxed);
	// Only a slot still as the owner took it: one a peer rewrote meanwhile
	// is left to whoever did that.
	uint32_t w = wire::word(wire::kServing, r.lane);
	s.word.compare_exchange_strong(w, deliver ? wire::word(wire::kDone, r.lane) : wire::kFree,
				       std::memory_order_release);
}

bool OwnerMailbox::ring_wanted(uint32_t i) const
{
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return slot(i).ring.load(std::memory_order_seq_cst) != 0;
}

bool OwnerMailbox::has_posted() const
{
	for (uint32_t i = 0; i < g_.slots; i++)
		if (wire::state_of(slot(i).word.load(std::memory_order_relaxed)) == wire::kPosted)
			return true;
	return false;
}

bool OwnerMailbox::any_claimed() const
{
	for (uint32_t i = 0; i < g_.slots; i++)
		if (wire::state_of(slot(i).word.load(std::memory_order_relaxed)) == wire::kClaimed)
			return true;
	return false;
}

unsigned OwnerMailbox::free_lane(uint32_t lane) const
{
	unsigned n = 0;
	for (uint32_t i = 0; i < g_.slots; i++) {
		uint32_t w = slot(i).word.load(std::memory_order_acquire);
		const uint32_t st = wire::state_of(w);
		if (wire::lane_of(w) == lane &&
		    (st == wire::kClaimed || st == wire::kPosted || st == wire::kDone) &&
		    slot(i).word.compare_exchange_strong(w, wire::kFree, std::memory_order_acq_rel))
			n++;
	}
	return n;
}

void OwnerMailbox::set_awake(bool awake) const
{
	control(map_).owner_awake.store(awake ? 1 : 0, std::memory_order_seq_cst);
	std::atomic_thread_fence(std::memory_order_seq_cst);
}

int PeerMailbox::attach(hl::UniqueFd memfd, uint32_t slots, uint64_t slot_size, uint32_t lane)
{
	auto g = Geometry::make(slots, slot_size);
	if (!g || g->slot_size != slot_size || lane == 0 || lane > wire::kMaxLane)
		return -EPROTO;
	// The kernel's word on what the owner sent: a file of this user,
	// sealed at exactly the size of that geometry, so it cannot shrink
	// under our mapping; and shmem (tmpfs), whose pages come back as
	// zeroes whatever the owner does to the file.  On hugetlbfs an owner
	// may punch a page out (the seals allow it) and take the pool's free
	// huge pages: our next touch of the segment would be a SIGBUS.
	struct stat st;
	struct statfs fs;
	if (fstat(memfd.get(), &st) < 0 || fstatfs(memfd.get(), &fs) < 0)
		return -errno;
	const int seals = fcntl(memfd.get(), F_GET_SEALS);
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || seals < 0 ||
	    (static_cast<unsigned>(seals) & kSeals) != kSeals ||
	    static_cast<uint64_t>(st.st_size) != g->total || fs.f_type != TMPFS_MAGIC)
		return -EPROTO;
	hlipc::Mapping map = hlipc::Mapping::map(g->total, PROT_READ | PROT_WRITE, MAP_SHARED,
						 memfd.get(), 0);
	if (!map.valid())
		return -errno;
	g_ = *g;
	lane_ = lane;
	map_ = std::move(map);
	return 0;
}

int PeerMailbox::claim() const
{
	for (uint32_t i = 0; i < g_.slots; i++) {
		uint32_t w = wire::kFree;
		if (slot(i).word.load(std::memory_order_relaxed) == wire::kFree &&
		    slot(i).word.compare_exchange_strong(w, wire::word(wire::kClaimed, lane_),
							 std::memory_order_acquire))
			return static_cast<int>(i);
	}
	return -1;
}

bool PeerMailbox::any_free() const
{
	for (uint32_t i = 0; i < g_.slots; i++)
		if (slot(i).word.load(std::memory_order_relaxed) == wire::kFree)
			return true;
	return false;
}

void PeerMailbox::post(uint32_t i, SlotOp op, uint64_t key, uint64_t offset,
		       uint64_t length)
{
	wire::Slot &s = slot(i);
	s.op = static_cast<uint32_t>(op);
	s.key = key;
	s.offset = offset;
	s.length = length;
	s.seq = ++posts_;
	s.status.store(0, std::memory_order_relaxed);
	s.ring.store(0, std::memory_order_relaxed);
	s.word.store(wire::word(wire::kPosted, lane_), std::memory_order_release);
}

PieceState PeerMailbox::look(uint32_t i) const
{
	const uint32_t w = slot(i).word.load(std::memory_order_acquire);
	if (wire::lane_of(w) != lane_)
		return {PieceState::Lost, -EPROTO};
	switch (wire::state_of(w)) {
	case wire::kPosted:
		return {PieceState::Waiting, 0};
	case wire::kServing:
		return {PieceState::Serving, 0};
	case wire::kDone: {
		int st = slot(i).status.load(std::memory_order_relaxed);
		if (st > 0 || st < -4095)
			st = -EPROTO;
		return {PieceState::Done, st};
	}
	default:
		return {PieceState::Lost, -EPROTO};
	}
}

bool PeerMailbox::unpost(uint32_t i) const
{
	uint32_t w = wire::word(wire::kPosted, lane_);
	return slot(i).word.compare_exchange_strong(w, wire::word(wire::kClaimed, lane_),
						    std::memory_order_acq_rel);
}

void PeerMailbox::release(uint32_t i) const
{
	uint32_t w = slot(i).word.load(std::memory_order_relaxed);
	const uint32_t st = wire::state_of(w);
	if (wire::lane_of(w) == lane_ && (st == wire::kClaimed || st == wire::kDone))
		slot(i).word.compare_exchange_strong(w, wire::kFree, std::memory_order_release);
}

bool PeerMailbox::want_ring(uint32_t i) const
{
	slot(i).ring.store(1, std::memory_order_seq_cst);
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return wire::state_of(slot(i).word.load(std::memory_order_acquire)) != wire::kDone;
}

bool PeerMailbox::owner_awake() const
{
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return control(map_).owner_awake.load(std::memory_order_seq_cst) != 0;
}

}  // namespace gaudi_ipc
