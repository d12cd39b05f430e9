// SPDX-License-Identifier: MIT
// The interface's progress: operations and their completion, copies that
// finished on channels, staged chunks that peers served, requests to serve
// in the interface's own mailbox, and pending requests to retry.
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "ep.h"
#include "hlthunk.h"
#include "iface.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// How often peers of staged chunks in flight are checked for being alive.
constexpr double kPeerCheckSeconds = 0.05;

}  // namespace

Op *Iface::new_op(Ep *ep, uct_completion_t *comp)
{
	ops_.emplace_back();
	Op *op = &ops_.back();
	op->self = std::prev(ops_.end());
	op->ep = ep;
	op->comp = comp;
	op->index = ep->issue();
	inflight_++;
	return op;
}

void Iface::op_started(Op *op)
{
	op->started = true;
	maybe_finish(op);
}

void Iface::part_done(Op *op, ucs_status_t status)
{
	if (status != UCS_OK && op->status == UCS_OK)
		op->status = status;
	op->parts--;
	maybe_finish(op);
}

void Iface::maybe_finish(Op *op)
{
	if (op->parts > 0 || !op->started)
		return;
	Ep *ep = op->ep;
	uct_completion_t *comp = op->comp;
	ucs_status_t result = op->status;
	if (ep)
		ep->retire(op->index);
	inflight_--;
	ops_.erase(op->self);
	if (comp)
		uct_invoke_completion(comp, result);
	// The completion may have destroyed the endpoint (remove_ep()).
	if (ep && std::find(eps_.begin(), eps_.end(), ep) != eps_.end())
		ep->check_flushes();
}

void Iface::discard_op(Op *op)
{
	if (op->ep)
		op->ep->retire(op->index);
	inflight_--;
	ops_.erase(op->self);
}

unsigned Iface::progress()
{
	unsigned n = continue_copies();
	n += reap_channels();
	n += reap_staged();
	if (server_)
		n += server_->serve();
	n += continue_backlog();
	dispatch_pending();
	return n;
}

unsigned Iface::reap_channels()
{
	unsigned n = 0;
	for (auto &kv : channels_) {
		ChannelQueue &q = kv.second;
		// Copies of one channel complete in order: look at the oldest.
		while (!q.parts.empty()) {
			auto part = q.parts.front();
			int rc = hlthunk_ipc_wait(q.id, part.first, 0);
			if (rc == -ETIMEDOUT)
				break;
			q.parts.pop_front();
			ucs_status_t st = UCS_OK;
			if (rc < 0) {
				st = status_from_errno(rc);
				Ep *ep = part.second->ep;
				if (ep && !process_alive(ep->peer())) {
					st = UCS_ERR_CONNECTION_RESET;
					ep->set_failed(st);
				} else {
					ucs_error("gaudi_ipc: copy on channel %u failed: %s",
						  q.id, library_message(rc));
				}
			}
			part_done(part.second, st);
			n++;
		}
	}
	return n;
}

unsigned Iface::continue_copies()
{
	// One segment per call, oldest operation first: progress stays short.
	if (copy_backlog_.empty())
		return 0;
	Op *op = copy_backlog_.front();
	struct hlthunk_ipc_copy c = op->copies[op->copy_index];
	const uint64_t n = std::min(set_.seg_size, c.length - op->copy_done);
	c.src_offset += op->copy_done;
	c.dst_offset += op->copy_done;
	c.length = n;
	int rc = op->status == UCS_OK ? hlthunk_ipc_copy(&c) : 0;
	if (rc < 0) {
		Ep *ep = op->ep;
		if (ep && !process_alive(ep->peer())) {
			op->status = UCS_ERR_CONNECTION_RESET;
			ep->set_failed(op->status);
		} else {
			op->status = status_from_errno(rc);
			ucs_error("gaudi_ipc: copy on channel %u failed: %s", c.channel_id,
				  library_message(rc));
		}
	}
	op->copy_done += n;
	if (op->copy_done == op->copies[op->copy_index].length) {
		op->copy_index++;
		op->copy_done = 0;
	}
	if (op->status != UCS_OK || op->copy_index == op->copies.size()) {
		copy_backlog_.pop_front();
		op_started(op);
	}
	return 1;
}

unsigned Iface::reap_staged()
{
	unsigned n = 0;
	const uint64_t now = ucs_get_time();
	for (auto &kv : peers_) {
		PeerMailbox &peer = *kv.second;
		if (peer.chunks.empty())
			continue;
		// Take every finished chunk; the data of gets goes to local device
		// memory in one command submission per device.
		std::vector<PeerMailbox::Chunk> done;
		for (auto it = peer.chunks.begin(); it != peer.chunks.end();) {
			if (peer.mb.slot(it->slot).state.load(std::memory_order_acquire) ==
			    kSlotDone) {
				done.push_back(*it);
				it = peer.chunks.erase(it);
			} else {
				++it;
			}
		}
		if (done.empty())
			goto check_peer;
		{
			std::vector<int> rcs(done.size());
			bool planned = false;
			for (size_t k = 0; k < done.size(); k++) {
				auto &c = done[k];
				rcs[k] = peer.mb.slot(c.slot).status.load(std::memory_order_relaxed);
				if (rcs[k] == 0 && c.op->get) {
					rcs[k] = plan_local(c.op, peer, c.slot, c.pos, c.len, false, &plan_);
					planned = planned || rcs[k] == 0;
				}
			}
			int plan_rc = 0;
			if (planned)
				plan_rc = plan_.run(set_.dma_timeout_us);
			else
				plan_.clear();
			for (size_t k = 0; k < done.size(); k++) {
				auto &c = done[k];
				const char *where = "at the peer";
				int rc = rcs[k];
				if (rc == 0 && c.op->get && !c.op->unpack && plan_rc < 0) {
					rc = plan_rc;
					where = "here";
				}
				release_slot(peer, c.slot);
				ucs_status_t st = UCS_OK;
				if (rc < 0) {
					st = status_from_errno(rc);
					ucs_error("gaudi_ipc: staged %s of %" PRIu64 " bytes (offset "
						  "%" PRIu64 ") failed %s: %s",
						  c.op->get ? "get" : "put", c.len, c.pos, where,
						  staged_message(rc));
				}
				part_done(c.op, st);
				n++;
			}
		}
	check_peer:
		if (peer.chunks.empty() ||
		    now - peer.last_check < ucs_time_from_sec(kPeerCheckSeconds))
			continue;
		peer.last_check = now;
		if (!process_alive(peer.owner)) {
			ucs_diag("gaudi_ipc: peer pid %u exited with staged transfers in "
				 "flight", peer.owner.pid);
			fail_peer(peer, UCS_ERR_CONNECTION_RESET);
			continue;
		}
		// A live peer that does not serve: give up on chunks it has not
		// taken after the timeout (their slots are still ours to free).
		for (auto it = peer.chunks.begin(); it != peer.chunks.end();) {
			Slot &s = peer.mb.slot(it->slot);
			uint32_t expect = kSlotPosted;
			if (now - it->posted > set_.peer_timeout &&
			    s.state.compare_exchange_strong(expect, kSlotClaimed,
							    std::memory_order_acq_rel)) {
				auto c = *it;
				it = peer.chunks.erase(it);
				release_slot(peer, c.slot);
				ucs_error("gaudi_ipc: peer pid %u did not serve a staged "
					  "transfer within UCX_GAUDI_IPC_PEER_TIMEOUT",
					  peer.owner.pid);
				part_done(c.op, UCS_ERR_TIMED_OUT);
				n++;
			} else {
				++it;
			}
		}
	}
	return n;
}

void Iface::fail_peer(PeerMailbox &peer, ucs_status_t status)
{
	peer.dead = true;
	// Its slots are left as they are: the segment dies with our mapping.
	auto chunks = std::move(peer.chunks);
	peer.chunks.clear();
	for (Ep *ep : std::vector<Ep *>(eps_))
		if (ep->peer().pid == peer.owner.pid && ep->peer().start == peer.owner.start)
			ep->set_failed(status);
	for (auto &c : chunks)
		part_done(c.op, status);
}

unsigned Iface::continue_backlog()
{
	unsigned n = 0;
	while (!backlog_.empty()) {
		Op *op = backlog_.front();
		uint64_t before = op->posted;
		ucs_status_t st = post_staged(op);
		n += op->posted != before;
		if (st == UCS_INPROGRESS)
			break;  // no free slot: the rest waits, in order
		backlog_.pop_front();
		if (st != UCS_OK && op->status == UCS_OK)
			op->status = st;
		op_started(op);
	}
	return n;
}

void Iface::dispatch_pending()
{
	for (Ep *ep : std::vector<Ep *>(eps_)) {
		if (at_capacity())
			return;
		if (std::find(eps_.begin(), eps_.end(), ep) == eps_.end())
			continue;  // destroyed by a pending request's callback
		if (ep->has_pending())
			ep->dispatch_pending();
	}
}

void Iface::drain_for_close()
{
	// Copies in flight still write into memory the program may free once
	// the interface is gone, and staged chunks hold peers' slots: wait
	// for them (peers that exit end theirs), without calling completions
	// of operations the program gave up on.
	for (auto &op : ops_)
		op.comp = nullptr;
	for (Op *op : copy_backlog_) {
		if (op->status == UCS_OK)
			op->status = UCS_ERR_CANCELED;
		op_started(op);
	}
	copy_backlog_.clear();
	for (Op *op : backlog_) {
		if (op->status == UCS_OK)
			op->status = UCS_ERR_CANCELED;
		op_started(op);
	}
	backlog_.clear();
	const uint64_t deadline = ucs_get_time() + set_.peer_timeout;
	while (!ops_.empty() && ucs_get_time() < deadline) {
		if (!reap_channels() && !reap_staged())
			sched_yield();
	}
	if (!ops_.empty())
		ucs_warn("gaudi_ipc: closing the interface with %zu operations in "
			 "flight", ops_.size());
}

}  // namespace gaudi_ipc
