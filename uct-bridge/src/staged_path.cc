// SPDX-License-Identifier: MIT
// The initiator's half of the staged path: opening a peer's mailbox,
// cutting an operation into chunks of at most a staging slot, moving the
// local side of each chunk (CPU for host memory, this process's DMA engine
// for device memory) and posting it to the peer.
#include <cerrno>
#include <cstring>

#include "device_index.h"
#include "iface.h"
#include "node_identity.h"
#include "status.h"

namespace gaudi_ipc {

std::shared_ptr<PeerMailbox> Iface::attach_peer(const ProcessId &owner, int fd,
						uint64_t nonce, ucs_status_t *status)
{
	auto it = peers_.find(nonce);
	if (it != peers_.end()) {
		if (it->second->owner.pid == owner.pid && it->second->owner.start == owner.start) {
			*status = it->second->dead ? UCS_ERR_CONNECTION_RESET : UCS_OK;
			return it->second;
		}
		*status = UCS_ERR_INVALID_PARAM;
		return nullptr;
	}
	auto peer = std::make_shared<PeerMailbox>();
	peer->owner = owner;
	peer->nonce = nonce;
	int rc = peer->mb.attach(owner, fd, nonce);
	if (rc < 0) {
		*status = rc == -ESRCH ? UCS_ERR_CONNECTION_RESET : status_from_errno(rc);
		ucs_error("gaudi_ipc: cannot open the staging mailbox of pid %u: %s%s",
			  owner.pid, strerror(-rc),
			  rc == -EACCES ? " (it belongs to another user: run both "
					  "processes as the same user)"
					: "");
		return nullptr;
	}
	// Rung for every transfer it sleeps through: a connected line.
	(void)peer->bell.connect(owner.pid, nonce, Bell::Request);
	peers_.emplace(nonce, peer);
	*status = UCS_OK;
	return peer;
}

void Iface::ring_owner(const PeerMailbox &peer)
{
	// Without a line (no fd was left for it at attach, say), or with one
	// that failed: the process's shared sender, which needs no new fd.
	if (!peer.bell.connected() || !peer.bell.ring())
		Doorbell::ring(peer.owner.pid, peer.nonce, Bell::Request);
}

void Iface::release_peer(uint64_t nonce)
{
	auto it = peers_.find(nonce);
	if (it != peers_.end() && it->second.use_count() == 1 && it->second->chunks.empty())
		peers_.erase(it);
}

int Iface::claim_slot(PeerMailbox &peer)
{
	// The lowest free slot: going round would walk all of the staging
	// memory; lowest first keeps the memory in use small (see
	// Documentation/uct-bridge.md, "The two paths", for the measurement).
	int i = peer.mb.claim(0);
	if (i < 0) {
		nudge(peer);
		return -1;
	}
	Slot &s = peer.mb.slot(static_cast<uint32_t>(i));
	s.initiator_start = this_process().start;
	s.initiator_pid.store(this_process().pid, std::memory_order_release);
	return i;
}

void Iface::nudge(PeerMailbox &peer)
{
	// All slots taken: ring the owner, which frees the slots of initiators
	// that died when it looks (it may call no progress otherwise).  At
	// most every 50 ms: a caller that retries in a loop must not flood it.
	uint64_t now = ucs_get_time();
	if (now - peer.last_full_ring > ucs_time_from_msec(50)) {
		peer.last_full_ring = now;
		ring_owner(peer);
	}
}

void Iface::release_slot(PeerMailbox &peer, uint32_t slot)
{
	Slot &s = peer.mb.slot(slot);
	s.initiator_pid.store(0, std::memory_order_relaxed);
	s.state.store(kSlotFree, std::memory_order_release);
}

void Iface::post_slot(PeerMailbox &peer, uint32_t slot, Op *op, uint32_t sop,
		      uint64_t key, uint64_t remote_off, uint64_t pos, uint64_t len)
{
	Slot &s = peer.mb.slot(slot);
	s.op = sop;
	s.key = key;
	s.offset = remote_off;
	s.length = len;
	s.initiator_nonce = nonce_;
	s.status.store(0, std::memory_order_relaxed);
	s.ring.store(0, std::memory_order_relaxed);
	peer.chunks.push_back(PeerMailbox::Chunk{slot, op, pos, len, ucs_get_time()});
	op->parts++;
	s.state.store(kSlotPosted, std::memory_order_release);
	if (!peer.mb.owner_awake())
		ring_owner(peer);
}

void Iface::announce(PeerMailbox &peer, uint64_t len)
{
	// Filling a put piece of this size takes long enough for the owner's
	// wake-up to overlap it: ring now, so that it is awake when the piece
	// is posted (mailbox.h).  From 64 KiB on this was measured to
	// pay; below, an early ring is a choice not made, as it may cost the
	// owner a second wake-up for one piece.
	constexpr uint64_t kAnnounceMin = 64 << 10;
	if (len >= kAnnounceMin && peer.mb.linger_ns() > 0 && !peer.mb.owner_awake())
		ring_owner(peer);
}

uint64_t Iface::piece_size(const Op &op, const PeerMailbox &peer)
{
	// A slot per piece; but an operation of less than two slots is cut in
	// halves (of at least kMinHalf), so that the owner moves the first
	// half while we move the second: one piece would leave one of the two
	// DMA engines idle all the time.
	constexpr uint64_t kMinHalf = 512 << 10;
	const uint64_t slot = peer.mb.slot_size();
	if (op.total >= 2 * slot)
		return slot;
	const uint64_t half = (op.total / 2 + 4095) & ~uint64_t{4095};
	return half >= kMinHalf ? std::min(half, slot) : slot;
}

ucs_status_t Iface::post_staged(Op *op)
{
	PeerMailbox &peer = *op->peer;
	if (peer.dead)
		return UCS_ERR_CONNECTION_RESET;
	// One piece at a time, each posted (and rung) as soon as our side of
	// it is in staging: the owner moves piece k while we move piece k+1.
	// At most staging_depth pieces are out: the next waits in the backlog
	// for one of them to be done, and takes its slot (the lowest free).
	const uint64_t piece = piece_size(*op, peer);
	while (op->posted < op->total) {
		if (op->parts >= set_.staging_depth)
			return UCS_INPROGRESS;
		int slot = claim_slot(peer);
		if (slot < 0)
			return UCS_INPROGRESS;
		const uint32_t i = static_cast<uint32_t>(slot);
		const uint64_t at = op->posted;
		const uint64_t len = std::min(piece, op->total - at);
		if (!op->get) {
			announce(peer, len);
			int rc = plan_local(op, peer, i, at, len, true, &plan_);
			if (rc == 0)
				rc = plan_.run(set_.dma_timeout_us);
			else
				plan_.clear();
			if (rc < 0) {
				release_slot(peer, i);
				ucs_error("gaudi_ipc: staged put: reading local memory: %s",
					  staged_message(rc));
				return status_from_errno(rc);
			}
		}
		post_slot(peer, i, op, op->get ? kSlotGet : kSlotPut, op->key,
			  op->remote_off + at, at, len);
		op->posted = at + len;
	}
	return UCS_OK;
}

void Iface::DmaPlan::add(DeviceDma *dma, const DmaCopy &c)
{
	for (Engine &e : engines) {
		if (e.dma == dma) {
			e.copies.push_back(c);
			return;
		}
	}
	engines.push_back(Engine{dma, {c}});
}

void Iface::DmaPlan::clear()
{
	for (Engine &e : engines)
		e.copies.clear();
}

int Iface::DmaPlan::run(uint64_t timeout_us)
{
	// Emptied either way, keeping what it allocated for the next plan.
	int ret = 0;
	for (Engine &e : engines) {
		if (ret == 0 && !e.copies.empty())
			ret = e.dma->engine.copy(e.copies, timeout_us);
		e.copies.clear();
	}
	return ret;
}

int Iface::plan_local(Op *op, PeerMailbox &peer, uint32_t slot, uint64_t pos,
		      uint64_t len, bool to_staging, DmaPlan *plan)
{
	unsigned char *staging = peer.mb.staging(slot);
	if (op->unpack) {
		// get_bcopy: the caller's callback takes the data.
		op->unpack(op->unpack_arg, staging, len);
		return 0;
	}
	const uint64_t slot_off = static_cast<uint64_t>(slot) * peer.mb.slot_size();
	uint64_t at = 0;  // start of the current piece within the operation
	uint64_t inner = 0;
	for (Piece &p : op->pieces) {
		if (inner == len)
			break;
		if (at + p.len <= pos) {
			at += p.len;
			continue;
		}
		uint64_t off = pos + inner - at;  // into this piece
		uint64_t n = std::min(p.len - off, len - inner);
		if (p.dev == kHostDevice) {
			auto *mem = reinterpret_cast<unsigned char *>(p.addr + off);
			if (to_staging)
				memcpy(staging + inner, mem, n);
			else
				memcpy(mem, staging + inner, n);
		} else {
			// Once per operation: the memory must stay mapped while
			// the operation runs (UCT's rule for zero-copy memory).
			if (!p.dma) {
				int rc = local_dma_.get(p.dev, p.addr, p.len, &p.dma);
				if (rc == 0)
					rc = peer.staging.va(p.dev, *p.dma, peer.mb.staging_base(),
							     peer.mb.staging_bytes(), &p.staging_va);
				if (rc < 0) {
					p.dma = nullptr;
					return rc;
				}
			}
			const uint64_t sva = p.staging_va + slot_off + inner;
			plan->add(p.dma, to_staging ? DmaCopy{sva, p.addr + off, n}
						    : DmaCopy{p.addr + off, sva, n});
		}
		inner += n;
		at += p.len;
	}
	return 0;
}

}  // namespace gaudi_ipc
