// SPDX-License-Identifier: MIT
// The staged path's peers: admission to them, the pieces they finish,
// and the bounds on waiting for them.
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "admission.h"
#include "clocks.h"
#include "staged_path.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// How often the peers of pieces in flight are looked at (their lines,
// their processes, the timeouts) by a caller of progress.
constexpr uint64_t kPeerCheckNs = 50000000;
// A piece posted that long ago and not yet taken is rung for again: the
// owner's word that it is awake is only a hint (any peer can write it).
constexpr uint64_t kRingAgainNs = 10000000;
// A full mailbox is rung for at most this often.
constexpr uint64_t kFullRingNs = 50000000;
// The first look for the welcome waits this long: the owner's async
// thread admits at once, and an operation that finds the peer ready
// need not go round UCX's pending queue.
constexpr int kWelcomeWaitMs = 20;

}  // namespace

StagedLink *StagedPath::link_of(Route &r, ucs_status_t *status)
{
	auto *link = static_cast<StagedLink *>(r.links[index()].get());
	if (link && link->peer->link == StagedPeer::Link::Ready) {
		*status = UCS_OK;
		return link;
	}
	std::shared_ptr<StagedPeer> p = peer(r.peer, r.nonce, status);
	if (!p) {
		if (*status == UCS_ERR_CONNECTION_RESET)
			peer_failed(r.peer, *status);
		return nullptr;
	}
	if (!link) {
		auto made = std::make_unique<StagedLink>();
		link = made.get();
		r.links[index()] = std::move(made);
	}
	link->peer = std::move(p);
	return link;
}

std::shared_ptr<StagedPeer> StagedPath::peer(const ProcessId &owner, uint64_t nonce,
					     ucs_status_t *status)
{
	std::shared_ptr<StagedPeer> p;
	auto it = peers_.find(nonce);
	if (it != peers_.end()) {
		if (it->second->owner.pid != owner.pid || it->second->owner.start != owner.start) {
			*status = UCS_ERR_INVALID_PARAM;  // two processes said the same nonce
			return nullptr;
		}
		p = it->second;
		if (p->link == StagedPeer::Link::Connecting)
			take_welcome(*p);
	} else {
		p = std::make_shared<StagedPeer>();
		p->owner = owner;
		p->nonce = nonce;
		ucs_status_t st = connect(*p);
		if (st == UCS_ERR_NO_RESOURCE && !p->line.valid()) {
			*status = st;  // its door is crowded: try again later
			return nullptr;
		}
		peers_.emplace(nonce, p);
	}
	switch (p->link) {
	case StagedPeer::Link::Ready:
		*status = UCS_OK;
		return p;
	case StagedPeer::Link::Connecting:
		*status = UCS_ERR_NO_RESOURCE;
		return nullptr;
	default:
		*status = p->failure;
		return nullptr;
	}
}

ucs_status_t StagedPath::connect(StagedPeer &p)
{
	int rc = connect_owner(p.owner, p.nonce, &p.line, &p.process);
	if (rc == -EAGAIN)
		return UCS_ERR_NO_RESOURCE;
	if (rc < 0) {
		const bool alive = process_alive(p.owner);
		p.link = StagedPeer::Link::Failed;
		p.failure = rc == -EACCES ? UCS_ERR_REJECTED
			    : !alive      ? UCS_ERR_CONNECTION_RESET
					  : UCS_ERR_UNREACHABLE;
		ucs_error("gaudi_ipc: cannot reach the staged path of pid %u: %s", p.owner.pid,
			  rc == -EACCES ? "it runs as another user (the staged path joins "
					  "processes of one user only)"
			  : !alive ? "it has exited"
			  : rc == -ECONNREFUSED
				  ? "it offers no staged path to this process (closed, or it "
				    "runs as another user)"
				  : strerror(-rc));
		return p.failure;
	}
	(void)events_.watch(p.line.get());
	(void)events_.watch(p.process.fd());
	p.deadline = hlipc::coarse_ns() + set_.peer_timeout_ns;
	struct pollfd pf = {p.line.get(), POLLIN, 0};
	(void)poll(&pf, 1, kWelcomeWaitMs);
	take_welcome(p);
	return UCS_OK;
}

void StagedPath::take_welcome(StagedPeer &p)
{
	Welcome w;
	hl::UniqueFd memfd;
	int rc = recv_welcome(p.line.get(), &w, &memfd);
	if (rc == -EAGAIN) {
		if (hlipc::coarse_ns() > p.deadline) {
			ucs_error("gaudi_ipc: pid %u did not admit this process to its staged "
				  "path within UCX_GAUDI_IPC_PEER_TIMEOUT", p.owner.pid);
			fail_peer(p, UCS_ERR_TIMED_OUT);
		}
		return;
	}
	if (rc == 0 && w.nonce != p.nonce)
		rc = -EPROTO;
	// An offer beyond this process's own limit is refused before it is
	// mapped (whatever it offers, this process pins only what its pieces
	// use: staging_windows.h).
	const uint64_t max = set_.peer_staging_max;
	if (rc == 0 && w.slot_size && (w.slot_size > max || w.slots > max / w.slot_size)) {
		ucs_error("gaudi_ipc: pid %u offers %u staging slots of %" PRIu64 " KiB, more "
			  "than this process accepts (UCX_GAUDI_IPC_PEER_STAGING_MAX, %" PRIu64
			  " KiB in all): raise it here, or lower UCX_GAUDI_IPC_STAGING_SLOTS or "
			  "UCX_GAUDI_IPC_STAGING_SIZE there",
			  p.owner.pid, w.slots, w.slot_size >> 10, max >> 10);
		fail_peer(p, UCS_ERR_EXCEEDS_LIMIT);
		return;
	}
	if (rc == 0)
		rc = p.mb.attach(std::move(memfd), w.slots, w.slot_size, w.lane);
	if (rc < 0) {
		const bool gone = rc == -ECONNRESET;
		ucs_error("gaudi_ipc: pid %u %s", p.owner.pid,
			  gone ? "turned this process away from its staged path (it admits a "
				 "bounded number of interfaces per process), or exited"
			       : "sent a staging mailbox this process cannot use (not a "
				 "sealed shmem memfd of this user of the size it said)");
		fail_peer(p, gone && !p.process.alive() ? UCS_ERR_CONNECTION_RESET
			  : gone ? UCS_ERR_UNREACHABLE : UCS_ERR_IO_ERROR);
		return;
	}
	p.windows = std::make_unique<StagingWindows>(plan_.budget(), p.mb.staging_base(),
						     p.mb.geometry().slot_size);
	p.link = StagedPeer::Link::Ready;
}

void StagedPath::fail_peer(StagedPeer &p, ucs_status_t status)
{
	if (p.link == StagedPeer::Link::Failed)
		return;
	p.link = StagedPeer::Link::Failed;
	p.failure = status;
	// Its slots are left as they are: they die with our mapping, or the
	// owner frees them when our line closes.
	auto chunks = std::move(p.chunks);
	p.chunks.clear();
	p.abandoned.clear();
	for (auto &c : chunks)
		ops_.part_done(c.op, status);
	if (p.line.valid())
		events_.unwatch(p.line.get());
	if (p.process.valid())
		events_.unwatch(p.process.fd());
	p.line.reset();
	peer_failed(p.owner, status);
}

void StagedPath::release_peer(uint64_t nonce)
{
	auto it = peers_.find(nonce);
	if (it == peers_.end() || it->second.use_count() != 1 || !it->second->chunks.empty())
		return;
	StagedPeer &p = *it->second;
	if (p.line.valid())
		events_.unwatch(p.line.get());
	if (p.process.valid())
		events_.unwatch(p.process.fd());
	peers_.erase(it);
}

void StagedPath::unbind(Route &r)
{
	if (!r.links[index()])
		return;
	r.links[index()].reset();
	release_peer(r.nonce);
}

void StagedPath::ring(StagedPeer &p)
{
	// A line that is gone is noticed by the next look at the peer.
	(void)ring_line(p.line.get());
}

int StagedPath::claim(StagedPeer &p)
{
	// The lowest free slot: going round would walk all of the staging
	// memory; lowest first keeps the memory in use small (see
	// Documentation/uct-bridge.md, "The two paths").
	int i = p.mb.claim();
	if (i >= 0)
		return i;
	// All taken: ring the owner (it frees the slots of initiators that
	// left when it looks), at most every 50 ms.
	const uint64_t now = hlipc::coarse_ns();
	if (now - p.last_full_ring > kFullRingNs) {
		p.last_full_ring = now;
		ring(p);
	}
	return -1;
}

unsigned StagedPath::reap(StagedPeer &p, uint64_t now)
{
	if (p.link == StagedPeer::Link::Connecting)
		take_welcome(p);
	if (p.link != StagedPeer::Link::Ready || p.idle())
		return 0;
	// Every finished piece; the data of gets goes to local device memory
	// in one command submission per device.
	finished_.clear();
	for (auto it = p.chunks.begin(); it != p.chunks.end();) {
		const PieceState s = p.mb.look(it->slot);
		if (s.kind == PieceState::Done || s.kind == PieceState::Lost) {
			finished_.push_back(Finished{*it, s, s.status, false});
			it = p.chunks.erase(it);
		} else {
			++it;
		}
	}
	bool planned = false;
	for (Finished &f : finished_) {
		if (f.rc == 0 && f.chunk.op->get) {
			f.rc = plan_.add(*f.chunk.op, p, f.chunk.slot, f.chunk.pos, f.chunk.len, false);
			if (f.rc == -ENOSPC) {
				// The pieces planned already pin all this process
				// allows: this one waits, done in its slot, for the
				// next round.
				f.rc = 0;
				f.later = true;
				continue;
			}
			planned = planned || f.rc == 0;
		}
	}
	const int plan_rc = planned ? plan_.run() : (plan_.clear(), 0);
	for (Finished &f : finished_) {
		const StagedPeer::Chunk &c = f.chunk;
		if (f.later) {
			p.chunks.push_back(c);
			continue;
		}
		const char *where = "at the peer";
		if (f.state.kind == PieceState::Lost)
			where = "in the peer's mailbox (its slot was changed under it)";
		else if (f.rc == 0 && c.op->get && plan_rc < 0 &&
			 !(c.op->unpack && c.op->bounce.empty()))
			f.rc = plan_rc, where = "here";
		// A slot someone else changed is not ours to free.
		if (f.state.kind == PieceState::Done)
			p.mb.release(c.slot);
		ucs_status_t st = UCS_OK;
		if (f.rc < 0) {
			st = status_from_errno(f.rc);
			ucs_error("gaudi_ipc: staged %s of %" PRIu64 " bytes (offset %" PRIu64
				  ") failed %s: %s",
				  c.op->get ? "get" : "put", c.len, c.pos, where, staged_message(f.rc));
		}
		ops_.part_done(c.op, st);
	}
	// Pieces given up on while served: their slots are ours again once
	// the owner ends them.
	for (auto it = p.abandoned.begin(); it != p.abandoned.end();) {
		const PieceState s = p.mb.look(*it);
		if (s.kind == PieceState::Done)
			p.mb.release(*it);
		if (s.kind == PieceState::Done || s.kind == PieceState::Lost)
			it = p.abandoned.erase(it);
		else
			++it;
	}
	check_peer(p, now);
	return static_cast<unsigned>(finished_.size());
}

void StagedPath::check_peer(StagedPeer &p, uint64_t now)
{
	if (p.link != StagedPeer::Link::Ready || p.idle() || now - p.last_check < kPeerCheckNs)
		return;
	p.last_check = now;
	// The kernel's word: the owner's line hung up, or its process exited.
	if (drain_line(p.line.get()) == LineState::Gone || !p.process.alive()) {
		ucs_diag("gaudi_ipc: peer pid %u exited with staged transfers in flight",
			 p.owner.pid);
		fail_peer(p, UCS_ERR_CONNECTION_RESET);
		return;
	}
	// A live peer that does not serve: pieces it has not taken are taken
	// back after the timeout, pieces it does not finish are given up
	// (their slots are freed when it ends them).
	for (auto it = p.chunks.begin(); it != p.chunks.end();) {
		const uint64_t age = now - it->posted;
		if (age <= set_.peer_timeout_ns) {
			if (age > kRingAgainNs &&
			    p.mb.look(it->slot).kind == PieceState::Waiting)
				ring(p);
			++it;
			continue;
		}
		const StagedPeer::Chunk c = *it;
		it = p.chunks.erase(it);
		if (p.mb.unpost(c.slot)) {
			p.mb.release(c.slot);
			ucs_error("gaudi_ipc: peer pid %u did not take a staged piece within "
				  "UCX_GAUDI_IPC_PEER_TIMEOUT", p.owner.pid);
		} else {
			p.abandoned.push_back(c.slot);
			ucs_error("gaudi_ipc: peer pid %u did not finish a staged piece within "
				  "UCX_GAUDI_IPC_PEER_TIMEOUT (stopped or hung)", p.owner.pid);
		}
		ops_.part_done(c.op, UCS_ERR_TIMED_OUT);
	}
}

}  // namespace gaudi_ipc
