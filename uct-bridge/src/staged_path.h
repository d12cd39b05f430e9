// SPDX-License-Identifier: MIT
// The staged path: device (or host) memory moved through pinned host
// staging memory, by this process's DMA engine on one side and the peer's
// on the other, when channels cannot reach the memory.
//
// As an initiator, an interface is admitted by each peer interface it
// moves data to or from (admission.h), then cuts an operation into pieces
// of at most a slot of the peer's mailbox (mailbox.h): it claims a slot,
// moves its side of the piece into the slot's staging memory (host memory
// with the CPU, device memory with its device's DMA engine: staged_plan.h),
// posts it and rings the owner unless the owner says it is awake; the
// owner serves it; the initiator takes the result (for a get: moves it out
// of the slot) and frees the slot.  At most STAGING_DEPTH pieces of one
// operation are out at once; each is posted as soon as it is in staging,
// so the two DMA engines work at the same time.  Pieces are posted in the
// order their operations were issued (an operation issued while earlier
// ones wait for slots waits behind them), and the owner moves them in
// that order (mailbox.h, "Order").  Every wait on the peer is bounded: a
// piece the peer neither serves nor finishes within PEER_TIMEOUT fails (a
// piece it is serving is abandoned: its slot is freed once the peer ends
// it), a peer whose line hangs up or whose process exits fails its pieces
// at once, and a sleeper wakes for each of these (event_set.h).  The
// operations are in staged_path.cc, the peers (admission, reaping,
// timeouts) in staged_path_peers.cc.
//
// As an owner, an interface serves its own mailbox (serving.h), from
// UCX's async thread and from progress.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "event_set.h"
#include "in_flight.h"
#include "path.h"
#include "serving.h"
#include "staged_op.h"
#include "staged_peer.h"
#include "staged_plan.h"

namespace gaudi_ipc {

class StagedPath : public Path, private OpHome {
public:
	struct Settings {
		bool initiate;            // move data through peers' mailboxes
		bool serve;               // offer a mailbox to peers
		uint32_t slots;
		uint64_t slot_size;
		uint64_t bcopy_size;
		unsigned depth;           // pieces of one transfer out at once
		uint64_t peer_staging_max;  // the largest staging area a peer may offer
		uint64_t peer_pin_max;      // peers' staging memory pinned at once, at most
		uint64_t peer_timeout_ns;
		uint64_t dma_timeout_us;
		uint64_t linger_ns;
		uint64_t spin_ns;
	};
	StagedPath(InFlight &ops, EventSet &events, const Settings &s, uint64_t nonce);
	~StagedPath() override;

	// Opens the mailbox (if the interface serves) and has UCX's async
	// thread watch its admission point and lanes.  UCS_OK or an error,
	// logged; with no safe place to listen at it serves no peer, says why
	// once, and returns UCS_OK.
	ucs_status_t init();
	bool serving() const { return serving_ != nullptr; }
	uint64_t served() const { return serving_ ? serving_->served() : 0; }

	bool reaches(Route &r, const RemoteKey &rk, const Local &local) override;
	const char *why_not(const Route &r, const RemoteKey &rk,
			    const Local &local) const override;
	ucs_status_t put_short(Route &r, const Target &t, const void *buffer,
			       unsigned length) override;
	ucs_status_t get_short(Route &r, const Target &t, void *buffer,
			       unsigned length) override;
	ssize_t put_bcopy(Route &r, const Target &t, uct_pack_callback_t pack,
			  void *arg) override;
	ucs_status_t get_bcopy(Route &r, const Target &t, uct_unpack_callback_t unpack,
			       void *arg, size_t length, uct_completion_t *comp) override;
	ucs_status_t zcopy(Route &r, const Target &t, const Local &local, uint64_t total,
			   uct_completion_t *comp) override;
	unsigned progress() override;
	bool has_work(bool want_rings) override;
	void cancel(const Route &r) override;
	bool drain() override;
	void unbind(Route &r) override;

private:
	void finishing(Op &op) override;
	void recycle(Op &op) override { pool_.put(static_cast<StagedOp *>(&op)); }

	// staged_path_peers.cc: the peers this interface is admitted by.
	// Route r's link to its peer, connected on first use; null with
	// *status (UCS_ERR_NO_RESOURCE while the peer has not admitted us
	// yet, or why it cannot be used).
	StagedLink *link_of(Route &r, ucs_status_t *status);
	std::shared_ptr<StagedPeer> peer(const ProcessId &owner, uint64_t nonce,
					 ucs_status_t *status);
	ucs_status_t connect(StagedPeer &p);
	void take_welcome(StagedPeer &p);
	void fail_peer(StagedPeer &p, ucs_status_t status);
	void release_peer(uint64_t nonce);
	unsigned reap(StagedPeer &p, uint64_t now);
	void check_peer(StagedPeer &p, uint64_t now);
	void ring(StagedPeer &p);
	int claim(StagedPeer &p);

	// staged_path.cc: operations.
	StagedOp *start(Route &r, uct_completion_t *comp, const Target &t);
	void post(StagedPeer &p, uint32_t slot, StagedOp *op, SlotOp sop, uint64_t pos,
		  uint64_t len);
	ucs_status_t post_pieces(StagedOp *op);
	// Posts what it can of op, or queues it behind earlier operations;
	// then it is under way.
	void launch(StagedOp *op);
	unsigned continue_backlog();
	uint64_t piece_size(const StagedOp &op, const StagedPeer &p) const;

	InFlight &ops_;
	EventSet &events_;
	Settings set_;
	uint64_t nonce_;

	// Initiator side.  The plan holds this process's device contexts, on
	// which the peers' staging memory is mapped: declared before the
	// peers and the operations (which hold peers), it outlives them.
	StagedPlan plan_;
	std::map<uint64_t, std::shared_ptr<StagedPeer>> peers_;
	OpPool<StagedOp> pool_;
	std::deque<StagedOp *> backlog_;  // operations with pieces left to post
	// reap()'s scratch.
	struct Finished {
		StagedPeer::Chunk chunk;
		PieceState state;
		int rc;
		bool later;  // no room to pin it now: taken next round
	};
	std::vector<Finished> finished_;

	// Owner side.
	std::unique_ptr<Serving> serving_;
};

}  // namespace gaudi_ipc
