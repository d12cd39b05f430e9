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
	peers_.emplace(nonce, peer);
	*status = UCS_OK;
	return peer;
}

void Iface::release_peer(uint64_t nonce)
{
	auto it = peers_.find(nonce);
	if (it != peers_.end() && it->second.use_count() == 1 && it->second->chunks.empty())
		peers_.erase(it);
}

int Iface::claim_slot(PeerMailbox &peer)
{
	int i = peer.mb.claim(peer.hint);
	if (i < 0) {
		nudge(peer);
		return -1;
	}
	Slot &s = peer.mb.slot(static_cast<uint32_t>(i));
	s.initiator_start = this_process().start;
	s.initiator_pid.store(this_process().pid, std::memory_order_release);
	peer.hint = static_cast<uint32_t>(i) + 1;
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
		Doorbell::ring(peer.owner.pid, peer.nonce, Bell::Request);
	}
}

void Iface::release_slot(PeerMailbox &peer, uint32_t slot)
{
	Slot &s = peer.mb.slot(slot);
	s.initiator_pid.store(0, std::memory_order_relaxed);
	s.state.store(kSlotFree, std::memory_order_release);
}

void Iface::post_slot(PeerMailbox &peer, uint32_t slot, Op *op, uint32_t sop,
		      uint64_t key, uint64_t remote_off, uint64_t pos, uint64_t len,
		      bool ring)
{
	Slot &s = peer.mb.slot(slot);
	s.op = sop;
	s.key = key;
	s.offset = remote_off;
	s.length = len;
	s.initiator_nonce = nonce_;
	s.status.store(0, std::memory_order_relaxed);
	peer.chunks.push_back(PeerMailbox::Chunk{slot, op, pos, len, ucs_get_time()});
	op->parts++;
	s.state.store(kSlotPosted, std::memory_order_release);
	if (ring)
		Doorbell::ring(peer.owner.pid, peer.nonce, Bell::Request);
}

ucs_status_t Iface::post_staged(Op *op)
{
	PeerMailbox &peer = *op->peer;
	if (peer.dead)
		return UCS_ERR_CONNECTION_RESET;
	// Up to half the peer's slots per round, so the peer serves one half
	// while we fill the other; each round is one DMA command submission
	// per local device, and one ring.
	const uint32_t batch = std::max(1u, peer.mb.slots() / 2);
	while (op->posted < op->total) {
		uint32_t slots[64];
		uint64_t lens[64];
		uint32_t n = 0;
		uint64_t pos = op->posted;
		while (n < std::min(batch, 64u) && pos < op->total) {
			int slot = claim_slot(peer);
			if (slot < 0)
				break;
			slots[n] = static_cast<uint32_t>(slot);
			lens[n] = std::min<uint64_t>(peer.mb.slot_size(), op->total - pos);
			pos += lens[n++];
		}
		if (n == 0)
			return UCS_INPROGRESS;
		if (!op->get) {
			DmaPlan plan;
			int rc = 0;
			for (uint32_t k = 0; k < n && rc == 0; k++)
				rc = plan_local(op, peer, slots[k],
						op->posted + k * peer.mb.slot_size(), lens[k], true,
						&plan);
			if (rc == 0)
				rc = plan.run(set_.dma_timeout_us);
			if (rc < 0) {
				for (uint32_t k = 0; k < n; k++)
					release_slot(peer, slots[k]);
				ucs_error("gaudi_ipc: staged put: reading local memory: %s",
					  staged_message(rc));
				return status_from_errno(rc);
			}
		}
		for (uint32_t k = 0; k < n; k++) {
			uint64_t at = op->posted + k * peer.mb.slot_size();
			post_slot(peer, slots[k], op, op->get ? kSlotGet : kSlotPut, op->key,
				  op->remote_off + at, at, lens[k], false);
		}
		Doorbell::ring(peer.owner.pid, peer.nonce, Bell::Request);
		op->posted = pos;
	}
	return UCS_OK;
}

int Iface::DmaPlan::run(uint64_t timeout_us)
{
	for (auto &kv : copies) {
		int rc = engines[kv.first]->engine.copy(kv.second, timeout_us);
		if (rc < 0)
			return rc;
	}
	copies.clear();
	return 0;
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
	uint64_t at = 0;  // start of the current piece within the operation
	uint64_t inner = 0;
	for (const Piece &p : op->pieces) {
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
			DeviceDma *dd = nullptr;
			int rc = local_dma_.get(p.dev, p.addr + off, n, &dd);
			if (rc < 0)
				return rc;
			uint64_t base = 0;
			rc = peer.staging.va(p.dev, *dd, peer.mb.staging_base(),
					     peer.mb.staging_bytes(), &base);
			if (rc < 0)
				return rc;
			const uint64_t sva = base + static_cast<uint64_t>(slot) * peer.mb.slot_size() +
					     inner;
			plan->copies[p.dev].push_back(to_staging ? DmaCopy{sva, p.addr + off, n}
								 : DmaCopy{p.addr + off, sva, n});
			plan->engines[p.dev] = dd;
		}
		inner += n;
		at += p.len;
	}
	return 0;
}

}  // namespace gaudi_ipc
