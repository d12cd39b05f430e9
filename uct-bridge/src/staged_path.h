// SPDX-License-Identifier: MIT
// The staged path: device (or host) memory moved through pinned host
// staging memory, by this process's DMA engine on one side and the peer's
// on the other, when channels cannot reach the memory.
//
// As an initiator, an interface is admitted by each peer interface it
// moves data to or from (admission.h), then cuts an operation into pieces
// of at most a slot of the peer's mailbox (mailbox.h): it claims a slot,
// moves its side of the piece into the slot's staging memory (host memory
// with the CPU, device memory with its device's DMA engine), posts it and
// rings the owner unless the owner says it is awake; the owner serves it;
// the initiator takes the result (for a get: moves it out of the slot)
// and frees the slot.  At most STAGING_DEPTH pieces of one operation are
// out at once; each is posted as soon as it is in staging, so the two
// DMA engines work at the same time.  Pieces are posted in the order
// their operations were issued (an operation issued while earlier ones
// wait for slots waits behind them), and the owner moves them in that
// order (mailbox.h, "Order").  Every wait on the peer is bounded:
// a piece the peer neither serves nor finishes within PEER_TIMEOUT fails
// (a piece it is serving is abandoned: its slot is freed once the peer
// ends it), a peer whose line hangs up or whose process exits fails its
// pieces at once, and a sleeper wakes for each of these (event_set.h).
//
// As an owner, an interface serves its own mailbox (staging_server.h),
// from UCX's async thread and from progress.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "device_dma.h"
#include "event_set.h"
#include "hl/unique_fd.h"
#include "mailbox.h"
#include "node_identity.h"
#include "ops.h"
#include "process_handle.h"
#include "staging_server.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;
class Iface;

// A peer interface as this interface's staged path sees it.
struct StagedPeer {
	enum class Link { Connecting, Ready, Failed };
	struct Chunk {
		uint32_t slot;
		Op *op;
		uint64_t pos;     // where in the operation the piece starts
		uint64_t len;
		uint64_t posted;  // coarse_ns() when posted
	};
	ProcessId owner{};
	uint64_t nonce = 0;
	Link link = Link::Connecting;
	ucs_status_t failure = UCS_OK;  // why, once Failed
	uint64_t deadline = 0;          // Connecting: the welcome is due by then
	hl::UniqueFd line;              // to the owner: rings both ways
	ProcessHandle process;          // the owner, by its pidfd
	PeerMailbox mb;
	HostOnDevices staging;          // its staging memory on our devices
	std::vector<Chunk> chunks;      // posted, not yet taken back
	std::vector<uint32_t> abandoned;  // given up while served: freed when done
	uint64_t last_check = 0;
	uint64_t last_full_ring = 0;
};

class StagedPath {
public:
	struct Settings {
		bool serve;               // offer a mailbox to peers
		uint32_t slots;
		uint64_t slot_size;
		uint64_t bcopy_size;
		unsigned depth;           // pieces of one transfer out at once
		uint64_t peer_timeout_ns;
		uint64_t dma_timeout_us;
		uint64_t linger_ns;
		uint64_t spin_ns;
	};
	StagedPath(Iface &iface, Ops &ops, EventSet &events, const Settings &s, uint64_t nonce);
	StagedPath(const StagedPath &) = delete;
	StagedPath &operator=(const StagedPath &) = delete;
	~StagedPath();

	// Opens the mailbox (if the interface serves) and has UCX's async
	// thread watch its admission point and lanes.  UCS_OK or an error,
	// logged.
	ucs_status_t init();
	bool serving() const { return server_ != nullptr; }
	uint64_t served() const { return server_ ? server_->served() : 0; }

	// The peer interface (owner, nonce), connected on first use.  Null
	// with *status: UCS_ERR_NO_RESOURCE while it has not answered yet,
	// or why it cannot be used.
	std::shared_ptr<StagedPeer> peer(const ProcessId &owner, uint64_t nonce,
					 ucs_status_t *status);
	// An endpoint lets go of its peer; it is closed once nothing uses it.
	void release_peer(uint64_t nonce);

	// Operations on a Ready peer's memory (key, offset in its
	// registration), checked by the endpoint.  As UCT's calls return.
	ucs_status_t put_short(Ep *ep, StagedPeer &peer, const void *buffer, unsigned length,
			       uint64_t key, uint64_t offset);
	ssize_t put_bcopy(Ep *ep, StagedPeer &peer, uct_pack_callback_t pack_cb, void *arg,
			  uint64_t key, uint64_t offset, uint64_t remote_room);
	ucs_status_t get_bcopy(Ep *ep, StagedPeer &peer, uct_unpack_callback_t unpack_cb,
			       void *arg, size_t length, uint64_t key, uint64_t offset,
			       uct_completion_t *comp);
	ucs_status_t zcopy(Ep *ep, const std::shared_ptr<StagedPeer> &peer, bool get,
			   const uct_iov_t *iov, size_t iovcnt, uint64_t key, uint64_t offset,
			   uct_completion_t *comp);

	unsigned progress();
	// Whether progress has anything to do; with want_rings, also asks
	// the owners of pieces still out to ring when they are done, and sets
	// the event set's timer to the next deadline.
	bool has_work(bool want_rings);
	// Pieces not yet posted of ep's operations are dropped.
	void cancel(Ep *ep);
	// Closing: operations not yet posted are dropped; returns whether
	// pieces are still out (reaped by further calls, until the deadline).
	bool drain();

private:
	ucs_status_t connect(StagedPeer &p);
	void take_welcome(StagedPeer &p);
	void fail_peer(StagedPeer &p, ucs_status_t status);
	int claim(StagedPeer &p);
	void ring(StagedPeer &p);
	void post(StagedPeer &p, uint32_t slot, Op *op, SlotOp sop, uint64_t pos, uint64_t len);
	ucs_status_t post_pieces(Op *op);
	unsigned continue_backlog();
	unsigned reap(StagedPeer &p, uint64_t now);
	void check_peer(StagedPeer &p, uint64_t now);
	uint64_t piece_size(const Op &op, const StagedPeer &p) const;
	// Moves op's local memory [pos, pos + len) to or from a staging slot:
	// host memory now, device memory added to the DMA plan.
	int plan_local(Op *op, StagedPeer &p, uint32_t slot, uint64_t pos, uint64_t len,
		       bool to_staging);
	int run_plan();
	void clear_plan();
	// The server's fds, watched by UCX's async thread without any async
	// context (so without UCX's async lock, and never in a signal
	// handler, whatever the worker's async mode).
	static void admission_cb(int fd, ucs_event_set_types_t events, void *arg);
	static void line_cb(int fd, ucs_event_set_types_t events, void *arg);
	static void kick_cb(int fd, ucs_event_set_types_t events, void *arg);
	void watch_lane(int fd);

	Iface &iface_;
	Ops &ops_;
	EventSet &events_;
	Settings set_;
	uint64_t nonce_;

	// Initiator side.  local_dma_ is declared before the peers, whose
	// staging memory is mapped on its contexts, so it outlives them.
	DeviceDmaSet local_dma_;
	struct PlanEngine {
		DeviceDma *dma;
		std::vector<DmaCopy> copies;
	};
	std::vector<PlanEngine> plan_;  // reused: what it allocated stays
	std::map<uint64_t, std::shared_ptr<StagedPeer>> peers_;
	std::deque<Op *> backlog_;  // operations with pieces left to post

	// Owner side.
	std::unique_ptr<StagingServer> server_;
	std::mutex watch_mu_;
	std::vector<int> lanes_watched_;  // lines handed to UCX's async thread
	bool admission_watched_ = false;
	bool kick_watched_ = false;
	// reap()'s scratch.
	struct Finished {
		StagedPeer::Chunk chunk;
		PieceState state;
		int rc;
	};
	std::vector<Finished> finished_;
};

}  // namespace gaudi_ipc
