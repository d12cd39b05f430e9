// SPDX-License-Identifier: MIT
#include "staged_path.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "admission.h"
#include "clocks.h"
#include "device_index.h"
#include "ep.h"
#include "iface.h"
#include "memh.h"
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
// A sleeper's timer is set this much past the next deadline, so that the
// coarse clock, a tick behind at worst, is past it when progress looks.
constexpr uint64_t kTimerSlackNs = 10000000;
// The first look for the welcome waits this long: the owner's async
// thread admits at once, and an operation that finds the peer ready
// need not go round UCX's pending queue.
constexpr int kWelcomeWaitMs = 20;

}  // namespace

StagedPath::StagedPath(Iface &iface, Ops &ops, EventSet &events, const Settings &s,
		       uint64_t nonce)
	: iface_(iface), ops_(ops), events_(events), set_(s), nonce_(nonce)
{
}

StagedPath::~StagedPath()
{
	// The async thread's handlers use the server: gone first, the
	// admission point before the lanes (admitting adds lanes).  Each
	// returns within a turn of serving (staging_server.h).
	if (admission_watched_)
		ucs_async_remove_handler(server_->admission_fd(), 1);
	if (kick_watched_)
		ucs_async_remove_handler(server_->kick_fd(), 1);
	std::vector<int> lanes;
	{
		std::lock_guard<std::mutex> l(watch_mu_);
		lanes.swap(lanes_watched_);
	}
	for (int fd : lanes)
		ucs_async_remove_handler(fd, 1);
	if (server_)
		server_->shutdown();
}

ucs_status_t StagedPath::init()
{
	if (!set_.serve)
		return UCS_OK;
	auto server = std::make_unique<StagingServer>();
	int rc = server->create(StagingServer::Settings{set_.slots, set_.slot_size,
							set_.dma_timeout_us, set_.linger_ns,
							set_.spin_ns});
	if (rc < 0) {
		ucs_error("gaudi_ipc: cannot offer the staged path (%u slots of %" PRIu64
			  " bytes): cannot create the staging mailbox: %s; lower "
			  "UCX_GAUDI_IPC_STAGING_SLOTS or UCX_GAUDI_IPC_STAGING_SIZE, or set "
			  "UCX_GAUDI_IPC_CHANNELS=y",
			  set_.slots, set_.slot_size, strerror(-rc));
		return status_from_errno(rc);
	}
	std::string why;
	if ((rc = server->listen(nonce_, &why)) < 0) {
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
	server_ = std::move(server);
	ucs_status_t st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX,
						      server_->admission_fd(),
						      UCS_EVENT_SET_EVREAD, admission_cb, this,
						      nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch the admission socket: %s",
			  ucs_status_string(st));
		return st;
	}
	admission_watched_ = true;
	st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX, server_->kick_fd(),
					 UCS_EVENT_SET_EVREAD, kick_cb, this, nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch the staging server's kick: %s",
			  ucs_status_string(st));
		return st;
	}
	kick_watched_ = true;
	return UCS_OK;
}

void StagedPath::admission_cb(int, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<StagedPath *>(arg);
	try {
		std::vector<int> lines;
		self->server_->admit(&lines);
		for (int fd : lines)
			self->watch_lane(fd);
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory admitting a peer");
	}
}

void StagedPath::watch_lane(int fd)
{
	std::lock_guard<std::mutex> l(watch_mu_);
	ucs_status_t st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX, fd,
						      UCS_EVENT_SET_EVREAD, line_cb, this,
						      nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch a peer's line: %s", ucs_status_string(st));
		server_->drop_lane(fd);
		return;
	}
	lanes_watched_.push_back(fd);
}

void StagedPath::line_cb(int fd, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<StagedPath *>(arg);
	try {
		if (self->server_->line_event(fd) == LineState::Gone) {
			// Its initiator left: unwatched (from its own handler: no
			// wait), then its slots freed and its line closed; unless
			// the interface is closing, which then does it.
			std::lock_guard<std::mutex> l(self->watch_mu_);
			auto &w = self->lanes_watched_;
			auto it = std::find(w.begin(), w.end(), fd);
			if (it == w.end())
				return;
			w.erase(it);
			ucs_async_remove_handler(fd, 1);
			self->server_->drop_lane(fd);
			return;
		}
		self->server_->serve_awake();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory serving a peer");
	}
}

void StagedPath::kick_cb(int, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<StagedPath *>(arg);
	try {
		self->server_->kicked();
		self->server_->serve_awake();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory serving a peer");
	}
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
	iface_.fail_eps(p.owner, status);
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

void StagedPath::post(StagedPeer &p, uint32_t slot, Op *op, SlotOp sop, uint64_t pos,
		      uint64_t len)
{
	p.mb.post(slot, sop, op->key, op->remote_off + pos, len);
	p.chunks.push_back(StagedPeer::Chunk{slot, op, pos, len, hlipc::coarse_ns()});
	op->parts++;
	if (!p.mb.owner_awake())
		ring(p);
}

ucs_status_t StagedPath::put_short(Ep *ep, StagedPeer &p, const void *buffer,
				   unsigned length, uint64_t key, uint64_t offset)
{
	if (!backlog_.empty())
		return UCS_ERR_NO_RESOURCE;  // after the operations waiting for slots
	int slot = claim(p);
	if (slot < 0)
		return UCS_ERR_NO_RESOURCE;
	// At most 256 bytes: every slot holds a page at least.
	memcpy(p.mb.staging(static_cast<uint32_t>(slot)), buffer, length);
	Op *op = ops_.start(ep, nullptr);
	op->key = key;
	op->remote_off = offset;
	post(p, static_cast<uint32_t>(slot), op, SlotOp::Put, 0, length);
	ops_.started(op);
	return UCS_OK;
}

ssize_t StagedPath::put_bcopy(Ep *ep, StagedPeer &p, uct_pack_callback_t pack_cb, void *arg,
			      uint64_t key, uint64_t offset, uint64_t remote_room)
{
	const uint64_t slot_size = p.mb.geometry().slot_size;
	if (set_.bcopy_size <= slot_size) {
		// The packer writes at most max_bcopy (our BCOPY_SIZE), which
		// fits the peer's slot: straight into it, after the operations
		// waiting for slots.
		if (!backlog_.empty())
			return UCS_ERR_NO_RESOURCE;
		int slot = claim(p);
		if (slot < 0)
			return UCS_ERR_NO_RESOURCE;
		const auto i = static_cast<uint32_t>(slot);
		const size_t len = pack_cb(p.mb.staging(i), arg);
		ucs_status_t st = len > set_.bcopy_size ? UCS_ERR_EXCEEDS_LIMIT
				  : len > remote_room   ? UCS_ERR_INVALID_PARAM
							: UCS_OK;
		if (st != UCS_OK || len == 0) {
			p.mb.release(i);
			return st;
		}
		Op *op = ops_.start(ep, nullptr);
		op->key = key;
		op->remote_off = offset;
		post(p, i, op, SlotOp::Put, 0, len);
		ops_.started(op);
		return static_cast<ssize_t>(len);
	}
	// The peer's slots are smaller than a buffered put of ours may be:
	// the data goes into the operation's own buffer first, and from it
	// in pieces, as a zero-copy put of host memory would.
	if (!p.mb.any_free())
		return UCS_ERR_NO_RESOURCE;
	Op *op = ops_.start(ep, nullptr);
	op->bounce.resize(set_.bcopy_size);
	const size_t len = pack_cb(op->bounce.data(), arg);
	ucs_status_t st = len > set_.bcopy_size ? UCS_ERR_EXCEEDS_LIMIT
			  : len > remote_room   ? UCS_ERR_INVALID_PARAM
						: UCS_OK;
	if (st != UCS_OK || len == 0) {
		ops_.discard(op);
		return st;
	}
	op->bounce.resize(len);
	op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(op->bounce.data()), len,
				   kHostDevice});
	op->total = len;
	op->key = key;
	op->remote_off = offset;
	op->peer = peers_.at(p.nonce);
	st = backlog_.empty() ? post_pieces(op) : UCS_INPROGRESS;
	if (st == UCS_INPROGRESS) {
		backlog_.push_back(op);
	} else {
		Ops::fail(op, st);
		ops_.started(op);
	}
	return static_cast<ssize_t>(len);
}

ucs_status_t StagedPath::get_bcopy(Ep *ep, StagedPeer &p, uct_unpack_callback_t unpack_cb,
				   void *arg, size_t length, uint64_t key, uint64_t offset,
				   uct_completion_t *comp)
{
	const bool one_slot = length <= p.mb.geometry().slot_size;
	int slot = -1;
	if (one_slot) {
		if (!backlog_.empty() || (slot = claim(p)) < 0)
			return UCS_ERR_NO_RESOURCE;
	} else if (!p.mb.any_free()) {
		return UCS_ERR_NO_RESOURCE;
	}
	Op *op = ops_.start(ep, comp);
	op->get = true;
	op->total = length;
	op->key = key;
	op->remote_off = offset;
	op->unpack = unpack_cb;
	op->unpack_arg = arg;
	op->peer = peers_.at(p.nonce);
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
	ucs_status_t st = backlog_.empty() ? post_pieces(op) : UCS_INPROGRESS;
	if (st == UCS_INPROGRESS) {
		backlog_.push_back(op);
	} else {
		Ops::fail(op, st);
		ops_.started(op);
	}
	return UCS_INPROGRESS;
}

ucs_status_t StagedPath::zcopy(Ep *ep, const std::shared_ptr<StagedPeer> &peer, bool get,
			       const uct_iov_t *iov, size_t iovcnt, uint64_t key,
			       uint64_t offset, uct_completion_t *comp)
{
	// Back-pressure: with no slot free right now, UCX queues the request.
	if (!peer->mb.any_free()) {
		(void)claim(*peer);  // rings a full owner, now and then
		return UCS_ERR_NO_RESOURCE;
	}
	Op *op = ops_.start(ep, comp);
	op->get = get;
	op->key = key;
	op->remote_off = offset;
	op->peer = peer;
	for (size_t i = 0; i < iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&iov[i]);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(iov[i].memh);
		op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(iov[i].buffer), len,
					   m->device ? m->dev : kHostDevice, m->exported()});
		op->total += len;
	}
	ucs_status_t st = backlog_.empty() ? post_pieces(op) : UCS_INPROGRESS;
	if (UCS_STATUS_IS_ERR(st) && op->parts == 0) {
		ops_.discard(op);
		return st;
	}
	if (st == UCS_INPROGRESS) {
		backlog_.push_back(op);
		return UCS_INPROGRESS;
	}
	Ops::fail(op, st);
	ops_.started(op);
	return UCS_INPROGRESS;
}

uint64_t StagedPath::piece_size(const Op &op, const StagedPeer &p) const
{
	// A slot per piece; but an operation of less than two slots is cut in
	// halves (of at least kMinHalf), so that the owner moves the first
	// half while we move the second: one piece would leave one of the two
	// DMA engines idle all the time.
	constexpr uint64_t kMinHalf = 512 << 10;
	const uint64_t slot = p.mb.geometry().slot_size;
	if (op.total >= 2 * slot)
		return slot;
	const uint64_t half = (op.total / 2 + 4095) & ~uint64_t{4095};
	return half >= kMinHalf ? std::min(half, slot) : slot;
}

ucs_status_t StagedPath::post_pieces(Op *op)
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
			int rc = plan_local(op, p, i, at, len, true);
			rc = rc == 0 ? run_plan() : (clear_plan(), rc);
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
		Op *op = backlog_.front();
		const uint64_t before = op->posted;
		ucs_status_t st = post_pieces(op);
		n += op->posted != before;
		if (st == UCS_INPROGRESS)
			break;  // no free slot: the rest waits, in order
		backlog_.pop_front();
		Ops::fail(op, st);
		ops_.started(op);
	}
	return n;
}

int StagedPath::plan_local(Op *op, StagedPeer &p, uint32_t slot, uint64_t pos, uint64_t len,
			   bool to_staging)
{
	unsigned char *staging = p.mb.staging(slot);
	if (op->unpack && op->bounce.empty()) {
		// get_bcopy of one slot: the caller's callback takes the data.
		op->unpack(op->unpack_arg, staging, len);
		return 0;
	}
	const uint64_t slot_off = static_cast<uint64_t>(slot) * p.mb.geometry().slot_size;
	uint64_t at = 0;  // start of the current piece within the operation
	uint64_t inner = 0;
	for (Piece &pc : op->pieces) {
		if (inner == len)
			break;
		if (at + pc.len <= pos) {
			at += pc.len;
			continue;
		}
		const uint64_t off = pos + inner - at;  // into this piece
		const uint64_t n = std::min(pc.len - off, len - inner);
		if (pc.dev == kHostDevice) {
			auto *mem = reinterpret_cast<unsigned char *>(pc.addr + off);
			if (to_staging)
				memcpy(staging + inner, mem, n);
			else
				memcpy(mem, staging + inner, n);
		} else {
			// Once per operation: the memory must stay mapped while
			// the operation runs (UCT's rule for zero-copy memory).
			if (!pc.dma) {
				int rc = local_dma_.get(pc.dev, pc.addr, pc.len, pc.exported,
							&pc.dma);
				if (rc == 0)
					rc = p.staging.va(pc.dev, *pc.dma, p.mb.staging_base(),
							  p.mb.staging_bytes(), &pc.staging_va);
				if (rc < 0) {
					pc.dma = nullptr;
					return rc;
				}
			}
			const uint64_t sva = pc.staging_va + slot_off + inner;
			const DmaCopy c = to_staging ? DmaCopy{sva, pc.addr + off, n}
						     : DmaCopy{pc.addr + off, sva, n};
			auto e = std::find_if(plan_.begin(), plan_.end(),
					      [&](const PlanEngine &x) { return x.dma == pc.dma; });
			if (e == plan_.end())
				plan_.push_back(PlanEngine{pc.dma, {c}});
			else
				e->copies.push_back(c);
		}
		inner += n;
		at += pc.len;
	}
	return 0;
}

int StagedPath::run_plan()
{
	// One command submission per device; emptied either way, keeping
	// what it allocated for the next plan.
	int ret = 0;
	for (PlanEngine &e : plan_) {
		if (ret == 0 && !e.copies.empty())
			ret = e.dma->engine.copy(e.copies, set_.dma_timeout_us);
		e.copies.clear();
	}
	return ret;
}

void StagedPath::clear_plan()
{
	for (PlanEngine &e : plan_)
		e.copies.clear();
}

unsigned StagedPath::progress()
{
	unsigned n = server_ ? server_->serve() : 0;
	const uint64_t now = hlipc::coarse_ns();
	// No callback runs in here (completions are queued), so no peer comes
	// or goes while they are walked.
	for (auto &kv : peers_)
		n += reap(*kv.second, now);
	n += continue_backlog();
	return n;
}

unsigned StagedPath::reap(StagedPeer &p, uint64_t now)
{
	if (p.link == StagedPeer::Link::Connecting)
		take_welcome(p);
	if (p.link != StagedPeer::Link::Ready || (p.chunks.empty() && p.abandoned.empty()))
		return 0;
	// Every finished piece; the data of gets goes to local device memory
	// in one command submission per device.
	finished_.clear();
	for (auto it = p.chunks.begin(); it != p.chunks.end();) {
		const PieceState s = p.mb.look(it->slot);
		if (s.kind == PieceState::Done || s.kind == PieceState::Lost) {
			finished_.push_back(Finished{*it, s, s.status});
			it = p.chunks.erase(it);
		} else {
			++it;
		}
	}
	bool planned = false;
	for (Finished &f : finished_) {
		if (f.rc == 0 && f.chunk.op->get) {
			f.rc = plan_local(f.chunk.op, p, f.chunk.slot, f.chunk.pos, f.chunk.len,
					  false);
			planned = planned || f.rc == 0;
		}
	}
	const int plan_rc = planned ? run_plan() : (clear_plan(), 0);
	for (Finished &f : finished_) {
		const StagedPeer::Chunk &c = f.chunk;
		const char *where = "at the peer";
		if (f.state.kind == PieceState::Lost)
			where = "in the peer's mailbox (its slot was changed under it)";
		else if (f.rc == 0 && c.op->get && plan_rc < 0 && !(c.op->unpack && c.op->bounce.empty()))
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
	if (p.link != StagedPeer::Link::Ready || (p.chunks.empty() && p.abandoned.empty()) ||
	    now - p.last_check < kPeerCheckNs)
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
		if (p.link != StagedPeer::Link::Ready || (p.chunks.empty() && p.abandoned.empty()))
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
	if (server_ && server_->has_posted())
		return true;
	if (want_rings) {
		// A sleeper wakes at the next deadline at the latest.
		events_.arm_timer(next == UINT64_MAX ? 0
						     : next - std::min(next, now) + kTimerSlackNs);
	}
	return false;
}

void StagedPath::cancel(Ep *ep)
{
	for (auto it = backlog_.begin(); it != backlog_.end();) {
		Op *op = *it;
		if (op->ep != ep) {
			++it;
			continue;
		}
		it = backlog_.erase(it);
		Ops::fail(op, UCS_ERR_CANCELED);
		ops_.started(op);
	}
}

bool StagedPath::drain()
{
	for (Op *op : backlog_) {
		Ops::fail(op, UCS_ERR_CANCELED);
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
