// SPDX-License-Identifier: MIT
// The staged path's operations, its progress, and its owner side.
#include "staged_path.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "addresses.h"
#include "admission.h"
#include "clocks.h"
#include "memh.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// A sleeper's timer is set this much past the next deadline, so that the
// coarse clock, a tick behind at worst, is past it when progress looks.
constexpr uint64_t kTimerSlackNs = 10000000;

}  // namespace

StagedPath::StagedPath(InFlight &ops, EventSet &events, const Settings &s, uint64_t nonce)
	: Path("staged", kStagedPath), ops_(ops), events_(events), set_(s), nonce_(nonce),
	  plan_(s.dma_timeout_us, s.peer_pin_max)
{
}

StagedPath::~StagedPath()
{
	// UCX's async thread stops serving our mailbox before anything else
	// goes.
	serving_.reset();
}

ucs_status_t StagedPath::init()
{
	if (!set_.serve)
		return UCS_OK;
	auto serving = std::make_unique<Serving>();
	std::string why;
	ucs_status_t st = serving->start(
		StagingServer::Settings{set_.slots, set_.slot_size, set_.dma_timeout_us,
					set_.linger_ns, set_.spin_ns},
		nonce_, &why);
	if (st == UCS_ERR_UNREACHABLE) {
		// No safe place to be found at: this interface serves no peer
		// (its address says so), and UCX goes on with the other
		// transports; the interface still moves data it initiates.
		static std::atomic<bool> said{false};
		if (!said.exchange(true))
			ucs_warn("gaudi_ipc: the staged path does not serve peers of this "
				 "process: %s; transfers towards it need channels or another "
				 "transport", why.c_str());
		else
			ucs_debug("gaudi_ipc: interface %p serves no peer: %s", this, why.c_str());
		return UCS_OK;
	}
	if (st != UCS_OK)
		return st;
	serving_ = std::move(serving);
	return UCS_OK;
}

bool StagedPath::reaches(Route &r, const RemoteKey &rk, const Local &)
{
	return set_.initiate && rk.staged_ok && (r.offers & kAddrMailbox) &&
	       rk.f.owner.pid == r.peer.pid && rk.f.owner.start == r.peer.start;
}

const char *StagedPath::why_not(const Route &r, const RemoteKey &rk, const Local &) const
{
	if (!set_.initiate)
		return "the staged path is off here";
	if (rk.f.owner.pid != r.peer.pid || rk.f.owner.start != r.peer.start)
		return "the remote key belongs to another process than the endpoint's";
	if (!(r.offers & kAddrMailbox))
		return "the peer offers no staged path";
	return "the remote key has no staging key, or its owner does not run as this user";
}

void StagedPath::finishing(Op &o)
{
	// A buffered get larger than a slot: its data, whole, before the
	// completion.
	auto &op = static_cast<StagedOp &>(o);
	if (op.unpack && !op.bounce.empty() && op.status == UCS_OK && !op.abandoned)
		op.unpack(op.unpack_arg, op.bounce.data(), op.total);
}

StagedOp *StagedPath::start(Route &r, uct_completion_t *comp, const Target &t)
{
	StagedOp *op = pool_.take();
	op->home = this;
	op->key = t.rk->f.stage_key;
	op->remote_off = t.offset();
	ops_.begin(op, r, comp);
	return op;
}

void StagedPath::post(StagedPeer &p, uint32_t slot, StagedOp *op, SlotOp sop, uint64_t pos,
		      uint64_t len)
{
	p.mb.post(slot, sop, op->key, op->remote_off + pos, len);
	p.chunks.push_back(StagedPeer::Chunk{slot, op, pos, len, hlipc::coarse_ns()});
	op->parts++;
	if (!p.mb.owner_awake())
		ring(p);
}

void StagedPath::launch(StagedOp *op)
{
	const ucs_status_t st = backlog_.empty() ? post_pieces(op) : UCS_INPROGRESS;
	if (st == UCS_INPROGRESS) {
		backlog_.push_back(op);
		return;
	}
	InFlight::fail(op, st);
	ops_.started(op);
}

ucs_status_t StagedPath::put_short(Route &r, const Target &t, const void *buffer,
				   unsigned length)
{
	ucs_status_t st;
	StagedLink *link = link_of(r, &st);
	if (!link)
		return st;
	StagedPeer &p = *link->peer;
	if (!backlog_.empty())
		return UCS_ERR_NO_RESOURCE;  // after the operations waiting for slots
	int slot = claim(p);
	if (slot < 0)
		return UCS_ERR_NO_RESOURCE;
	// At most 256 bytes: every slot holds a page at least.
	memcpy(p.mb.staging(static_cast<uint32_t>(slot)), buffer, length);
	StagedOp *op = start(r, nullptr, t);
	post(p, static_cast<uint32_t>(slot), op, SlotOp::Put, 0, length);
	ops_.started(op);
	return UCS_OK;
}

ucs_status_t StagedPath::get_short(Route &, const Target &, void *, unsigned)
{
	// A staged get completes when the peer's serving thread has copied,
	// which may be this process's own async thread, held by the caller:
	// it cannot complete inside the call.  The interface does not offer
	// get_short while this path is on.
	ucs_error("gaudi_ipc: get_short needs the channel path alone "
		  "(UCX_GAUDI_IPC_CHANNELS=y); use get_bcopy or get_zcopy");
	return UCS_ERR_UNSUPPORTED;
}

ssize_t StagedPath::put_bcopy(Route &r, const Target &t, uct_pack_callback_t pack, void *arg)
{
	ucs_status_t st;
	StagedLink *link = link_of(r, &st);
	if (!link)
		return st;
	StagedPeer &p = *link->peer;
	if (set_.bcopy_size + kPackRoom <= p.mb.geometry().slot_size) {
		// The packer writes at most max_bcopy (our BCOPY_SIZE), which
		// fits the peer's slot with the room for an overrun: straight
		// into it, after the operations waiting for slots.
		if (!backlog_.empty())
			return UCS_ERR_NO_RESOURCE;
		int slot = claim(p);
		if (slot < 0)
			return UCS_ERR_NO_RESOURCE;
		const auto i = static_cast<uint32_t>(slot);
		const size_t len = pack(p.mb.staging(i), arg);
		st = check_packed(len, set_.bcopy_size, t);
		if (st != UCS_OK || len == 0) {
			p.mb.release(i);
			return st;
		}
		StagedOp *op = start(r, nullptr, t);
		post(p, i, op, SlotOp::Put, 0, len);
		ops_.started(op);
		return static_cast<ssize_t>(len);
	}
	// The peer's slots are smaller than a buffered put of ours may be:
	// the data goes into the operation's own buffer first, and from it
	// in pieces, as a zero-copy put of host memory would.
	if (!p.mb.any_free())
		return UCS_ERR_NO_RESOURCE;
	StagedOp *op = start(r, nullptr, t);
	op->bounce.resize(set_.bcopy_size + kPackRoom);
	const size_t len = pack(op->bounce.data(), arg);
	st = check_packed(len, set_.bcopy_size, t);
	if (st != UCS_OK || len == 0) {
		ops_.discard(op);
		return st;
	}
	op->bounce.resize(len);
	op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(op->bounce.data()), len,
				   kHostDevice});
	op->total = len;
	op->peer = link->peer;
	launch(op);
	return static_cast<ssize_t>(len);
}

ucs_status_t StagedPath::get_bcopy(Route &r, const Target &t, uct_unpack_callback_t unpack,
				   void *arg, size_t length, uct_completion_t *comp)
{
	ucs_status_t st;
	StagedLink *link = link_of(r, &st);
	if (!link)
		return st;
	StagedPeer &p = *link->peer;
	const bool one_slot = length <= p.mb.geometry().slot_size;
	int slot = -1;
	if (one_slot) {
		if (!backlog_.empty() || (slot = claim(p)) < 0)
			return UCS_ERR_NO_RESOURCE;
	} else if (!p.mb.any_free()) {
		return UCS_ERR_NO_RESOURCE;
	}
	StagedOp *op = start(r, comp, t);
	op->get = true;
	op->total = length;
	op->unpack = unpack;
	op->unpack_arg = arg;
	op->peer = link->peer;
	if (one_slot) {
		// Unpacked straight from the slot when it is done.
		op->posted = length;
		post(p, static_cast<uint32_t>(slot), op, SlotOp::Get, 0, length);
		ops_.started(op);
		return UCS_INPROGRESS;
	}
	// Larger than the peer's slot: gathered in a buffer of the
	// operation's own, unpacked once all of it is there.
	op->bounce.resize(length);
	op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(op->bounce.data()), length,
				   kHostDevice});
	launch(op);
	return UCS_INPROGRESS;
}

ucs_status_t StagedPath::zcopy(Route &r, const Target &t, const Local &local, uint64_t,
			       uct_completion_t *comp)
{
	ucs_status_t st;
	StagedLink *link = link_of(r, &st);
	if (!link)
		return st;
	StagedPeer &p = *link->peer;
	// Back-pressure: with no slot free right now, UCX queues the request.
	if (!p.mb.any_free()) {
		(void)claim(p);  // rings a full owner, now and then
		return UCS_ERR_NO_RESOURCE;
	}
	StagedOp *op = start(r, comp, t);
	op->get = local.get;
	op->peer = link->peer;
	for (size_t i = 0; i < local.iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&local.iov[i]);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(local.iov[i].memh);
		op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(local.iov[i].buffer), len,
					   m->device ? m->dev : kHostDevice, m->exported()});
		op->total += len;
	}
	st = backlog_.empty() ? post_pieces(op) : UCS_INPROGRESS;
	if (UCS_STATUS_IS_ERR(st) && op->parts == 0) {
		ops_.discard(op);
		return st;
	}
	if (st == UCS_INPROGRESS) {
		backlog_.push_back(op);
		return UCS_INPROGRESS;
	}
	InFlight::fail(op, st);
	ops_.started(op);
	return UCS_INPROGRESS;
}

uint64_t StagedPath::piece_size(const StagedOp &op, const StagedPeer &p) const
{
	// A slot per piece; but an operation of less than two slots is cut in
	// halves (of at least kMinHalf), so that the owner moves the first
	// half while we move the second: one piece would leave one of the two
	// DMA engines idle all the time.
	constexpr uint64_t kMinHalf = 512 << 10;
	// A slot, but no more than this process pins of its peers' staging.
	const uint64_t slot = std::min(p.mb.geometry().slot_size, plan_.pin_max());
	if (op.total >= 2 * slot)
		return slot;
	const uint64_t half = (op.total / 2 + 4095) & ~uint64_t{4095};
	return half >= kMinHalf ? std::min(half, slot) : slot;
}

ucs_status_t StagedPath::post_pieces(StagedOp *op)
{
	StagedPeer &p = *op->peer;
	if (p.link != StagedPeer::Link::Ready)
		return p.failure != UCS_OK ? p.failure : UCS_ERR_CONNECTION_RESET;
	// One piece at a time, each posted (and rung) as soon as our side of
	// it is in staging: the owner moves piece k while we move piece k+1.
	// At most `depth` pieces are out: the next waits in the backlog for
	// one of them to be done, and takes its slot (the lowest free).
	const uint64_t piece = piece_size(*op, p);
	while (op->posted < op->total) {
		if (op->parts >= set_.depth)
			return UCS_INPROGRESS;
		int slot = claim(p);
		if (slot < 0)
			return UCS_INPROGRESS;
		const auto i = static_cast<uint32_t>(slot);
		const uint64_t at = op->posted;
		const uint64_t len = std::min(piece, op->total - at);
		if (!op->get) {
			// Filling a put piece of 64 KiB or more takes long
			// enough for the owner's wake-up to overlap it: ring now,
			// so that it is awake when the piece is posted (it
			// lingers for claimed slots).  Below, an early ring may
			// cost the owner a second wake-up for one piece.
			constexpr uint64_t kAnnounceMin = 64 << 10;
			if (len >= kAnnounceMin && !p.mb.owner_awake())
				ring(p);
			int rc = plan_.add(*op, p, i, at, len, true);
			rc = rc == 0 ? plan_.run() : (plan_.clear(), rc);
			if (rc < 0) {
				p.mb.release(i);
				ucs_error("gaudi_ipc: staged put: reading local memory: %s",
					  staged_message(rc));
				return status_from_errno(rc);
			}
		}
		post(p, i, op, op->get ? SlotOp::Get : SlotOp::Put, at, len);
		op->posted = at + len;
	}
	return UCS_OK;
}

unsigned StagedPath::continue_backlog()
{
	unsigned n = 0;
	while (!backlog_.empty()) {
		StagedOp *op = backlog_.front();
		const uint64_t before = op->posted;
		ucs_status_t st = post_pieces(op);
		n += op->posted != before;
		if (st == UCS_INPROGRESS)
			break;  // no free slot: the rest waits, in order
		backlog_.pop_front();
		InFlight::fail(op, st);
		ops_.started(op);
	}
	return n;
}

unsigned StagedPath::progress()
{
	unsigned n = serving_ ? serving_->serve() : 0;
	const uint64_t now = hlipc::coarse_ns();
	// No callback runs in here (completions are queued), so no peer comes
	// or goes while they are walked.
	for (auto &kv : peers_)
		n += reap(*kv.second, now);
	n += continue_backlog();
	return n;
}

bool StagedPath::has_work(bool want_rings)
{
	if (!backlog_.empty())
		return true;
	const uint64_t now = hlipc::coarse_ns();
	uint64_t next = UINT64_MAX;  // the next deadline
	for (auto &kv : peers_) {
		StagedPeer &p = *kv.second;
		if (p.link == StagedPeer::Link::Connecting) {
			struct pollfd pf = {p.line.get(), POLLIN, 0};
			if (poll(&pf, 1, 0) == 1 || now > p.deadline)
				return true;
			next = std::min(next, p.deadline);
			continue;
		}
		if (p.link != StagedPeer::Link::Ready || p.idle())
			continue;
		if (want_rings && (drain_line(p.line.get()) == LineState::Gone || !p.process.alive()))
			return true;
		for (auto &c : p.chunks) {
			const PieceState s = p.mb.look(c.slot);
			if (s.kind == PieceState::Done || s.kind == PieceState::Lost ||
			    (want_rings && !p.mb.want_ring(c.slot)) ||
			    now - c.posted > set_.peer_timeout_ns)
				return true;
			next = std::min(next, c.posted + set_.peer_timeout_ns);
		}
		for (uint32_t slot : p.abandoned)
			if (p.mb.look(slot).kind != PieceState::Serving)
				return true;
	}
	if (serving_ && serving_->has_posted())
		return true;
	if (want_rings) {
		// A sleeper wakes at the next deadline at the latest.
		events_.arm_timer(next == UINT64_MAX ? 0
						     : next - std::min(next, now) + kTimerSlackNs);
	}
	return false;
}

void StagedPath::cancel(const Route &r)
{
	for (auto it = backlog_.begin(); it != backlog_.end();) {
		StagedOp *op = *it;
		if (op->route != &r) {
			++it;
			continue;
		}
		it = backlog_.erase(it);
		InFlight::fail(op, UCS_ERR_CANCELED);
		ops_.started(op);
	}
}

bool StagedPath::drain()
{
	for (StagedOp *op : backlog_) {
		InFlight::fail(op, UCS_ERR_CANCELED);
		ops_.started(op);
	}
	backlog_.clear();
	progress();
	for (auto &kv : peers_)
		if (!kv.second->chunks.empty())
			return true;
	return false;
}

}  // namespace gaudi_ipc
