// SPDX-License-Identifier: MIT
// The gaudi_ipc interface: what one UCX worker uses to move data.
//
// Channel path: copies by cookie on /dev/hl_ipc channels, one per (local
// device, remote device) pair, created on first use; small copies run in
// the call, larger ones are queued on the channel and completed by
// progress (the channel's WAIT; the /dev/hl_ipc fd for events).
//
// Staged path: pieces of at most a staging slot go through the target
// interface's mailbox (staging_server.h); this interface posts them and
// takes their results (staged_path.cc).  It also serves its own mailbox.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "addresses.h"
#include "transport_config.h"
#include "device_dma.h"
#include "doorbell.h"
#include "mailbox.h"
#include "op.h"
#include "hl/unique_fd.h"
#include "mapping.h"
#include "staging_server.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;
class Iface;
class Md;
struct Memh;
struct RemoteKey;

// What UCX sees: uct_base_iface_t first, so a uct_iface_h converts to it.
struct IfaceHandle {
	uct_base_iface_t super;
	Iface *self;
};

// A peer interface's mailbox, opened by this interface for the staged path.
struct PeerMailbox {
	struct Chunk {
		uint32_t slot;
		Op *op;
		uint64_t pos;     // where in the operation the chunk starts
		uint64_t len;
		uint64_t posted;  // ucs_get_time() when posted
	};
	ProcessId owner;
	uint64_t nonce = 0;
	Mailbox mb;
	BellLine bell;           // to the owner's request doorbell
	HostOnDevices staging;   // its staging memory on our devices
	std::list<Chunk> chunks; // posted, not yet taken back
	bool dead = false;
	uint64_t last_check = 0;
	uint64_t last_full_ring = 0;  // when we last rang it for want of a slot
};

// A channel of this interface, and its copies in flight (in order).
struct ChannelQueue {
	uint32_t id = 0;
	int error = 0;  // creating it failed: the pair takes the staged path
	std::deque<std::pair<uint64_t, Op *>> parts;  // seq, operation
};

class Iface {
public:
	static ucs_status_t open(uct_md_h md, uct_worker_h worker,
				 const uct_iface_params_t *params,
				 const uct_iface_config_t *config, uct_iface_h *iface_p);
	static Iface *from(uct_iface_h iface)
	{
		return reinterpret_cast<IfaceHandle *>(iface)->self;
	}

	Iface(Md *md, const IfaceConfig &config);
	Iface(const Iface &) = delete;
	Iface &operator=(const Iface &) = delete;
	~Iface();

	uct_iface_h handle() { return &h_.super.super; }
	uct_base_iface_t *base() { return &h_.super; }
	Md *md() const { return md_; }

	// uct_iface_ops_t
	void close();
	ucs_status_t query(uct_iface_attr_t *attr) const;
	ucs_status_t get_device_address(uct_device_addr_t *addr) const;
	ucs_status_t get_address(uct_iface_addr_t *addr) const;
	int is_reachable(const uct_device_addr_t *dev, const uct_iface_addr_t *iface) const;
	unsigned progress();
	ucs_status_t flush(unsigned flags, uct_completion_t *comp);
	ucs_status_t fence(unsigned flags);
	ucs_status_t event_fd_get(int *fd_p);
	ucs_status_t event_arm(unsigned events);

	// Used by endpoints.
	struct Settings {
		unsigned max_inflight;
		uint64_t sync_copy_max;
		uint64_t seg_size;
		bool async_copies;
		uint64_t bcopy_size;
		uint64_t peer_timeout;    // ucs_time_t units
		uint64_t dma_timeout_us;
		uint64_t linger_ns;       // the staging server's wait for claimed slots
		uint64_t spin_ns;         // ... and for the next piece, none claimed
		unsigned staging_depth;   // pieces of one transfer in staging at once
	};
	const Settings &settings() const { return set_; }
	bool channels_on() const { return channels_on_; }
	bool staged_on() const { return server_ != nullptr || staged_allowed_; }
	bool at_capacity() const { return inflight_ >= set_.max_inflight; }
	void add_ep(Ep *ep) { eps_.push_back(ep); }
	// Operations and bytes per path, reported when the interface closes.
	void count(bool channel, uint64_t bytes)
	{
		(channel ? channel_ops_ : staged_ops_)++;
		(channel ? channel_bytes_ : staged_bytes_) += bytes;
	}
	void remove_ep(Ep *ep);

	// Operations.
	Op *new_op(Ep *ep, uct_completion_t *comp);
	// All parts of op have been submitted; completes it if none is left.
	void op_started(Op *op);
	// One part of op ended; the last one completes it.
	void part_done(Op *op, ucs_status_t status);
	// Forgets an operation that failed before any part was submitted
	// (the call returns the error; the completion is never called).
	void discard_op(Op *op);

	// Channel path.
	// The channel from device src to device dst (device_index), created
	// on first use; null if it cannot be created.
	ChannelQueue *channel(int src, int dst);
	// The registered bounce buffer for short and buffered copies, and
	// its cookie (0: none).
	unsigned char *bounce() const { return bounce_.bytes(); }
	uint64_t bounce_cookie() const { return bounce_cookie_; }

	// Staged path (staged_path.cc).
	std::shared_ptr<PeerMailbox> attach_peer(const ProcessId &owner, int fd,
						 uint64_t nonce, ucs_status_t *status);
	// Closes a peer's mailbox once no endpoint and no piece in flight uses
	// it (its staging memory stays pinned on our devices until then).
	void release_peer(uint64_t nonce);
	// Claims a slot of peer and sets it up; -1 if none is free.
	int claim_slot(PeerMailbox &peer);
	// Wakes the owner ahead of a put piece of len bytes that is about to
	// be filled (see mailbox.h).
	void announce(PeerMailbox &peer, uint64_t len);
	// Posts a claimed slot as piece [pos, pos + len) of op and rings the
	// peer unless it is awake.
	void post_slot(PeerMailbox &peer, uint32_t slot, Op *op, uint32_t sop,
		       uint64_t key, uint64_t remote_off, uint64_t pos, uint64_t len);
	// Queues op's remaining channel copies for progress (segment mode).
	void queue_copies(Op *op) { copy_backlog_.push_back(op); }
	// Starts (or continues) posting op's chunks while slots are free.
	ucs_status_t post_staged(Op *op);
	static uint64_t piece_size(const Op &op, const PeerMailbox &peer);
	// DMA copies collected to run together: one command submission per
	// local device.
	struct DmaPlan {
		struct Engine {
			DeviceDma *dma;
			std::vector<DmaCopy> copies;
		};
		std::vector<Engine> engines;  // one per device; few
		void add(DeviceDma *dma, const DmaCopy &c);
		// Runs the copies; 0 or the first -errno.  Empty afterwards.
		int run(uint64_t timeout_us);
		void clear();
	};
	// Moves op's local memory [pos, pos + len) to or from a staging slot:
	// host memory now, device memory added to *plan.
	int plan_local(Op *op, PeerMailbox &peer, uint32_t slot, uint64_t pos,
		       uint64_t len, bool to_staging, DmaPlan *plan);
	// Gives a slot back.
	void release_slot(PeerMailbox &peer, uint32_t slot);
	// Tells peer that we wait for a slot.
	void nudge(PeerMailbox &peer);
	// Rings peer's request doorbell.
	static void ring_owner(const PeerMailbox &peer);

private:
	friend class Ep;
	ucs_status_t init(const uct_iface_params_t *params);
	void maybe_finish(Op *op);
	unsigned reap_channels();
	unsigned continue_copies();
	unsigned reap_staged();
	unsigned continue_backlog();
	// Whether progress has anything to do; with want_rings, asks the
	// owners of staged pieces still out to ring when they are done.
	bool has_work(bool want_rings);
	void dispatch_pending();
	void check_flushes(Ep *ep);
	void fail_peer(PeerMailbox &peer, ucs_status_t status);
	void drain_for_close();
	static void request_bell_cb(int id, ucs_event_set_types_t events, void *arg);

	IfaceHandle h_;
	Md *md_;
	Settings set_;
	double bandwidth_, latency_, overhead_;
	uint32_t staging_slots_;
	uint64_t staging_size_;
	ucs_ternary_auto_value_t mode_;  // UCX_GAUDI_IPC_CHANNELS
	bool channels_on_ = false;
	bool staged_allowed_ = false;
	uint64_t nonce_;

	std::list<Op> ops_;
	unsigned inflight_ = 0;
	uint64_t channel_ops_ = 0, channel_bytes_ = 0, staged_ops_ = 0, staged_bytes_ = 0;
	std::vector<Ep *> eps_;

	// Channel path.
	std::map<std::pair<int, int>, ChannelQueue> channels_;
	std::deque<Op *> copy_backlog_;  // large copies progress moves in segments
	hlipc::Mapping bounce_;
	uint64_t bounce_cookie_ = 0;

	// Staged path.  local_dma_ is declared before the peers, whose
	// staging areas are mapped on its contexts, so it outlives them.
	DeviceDmaSet local_dma_;
	DmaPlan plan_;  // reused: what it allocated stays for the next piece
	std::map<uint64_t, std::shared_ptr<PeerMailbox>> peers_;
	std::deque<Op *> backlog_;  // staged ops with chunks left to post
	std::unique_ptr<StagingServer> server_;
	Doorbell completion_bell_;
	int async_id_ = -1;

	hl::UniqueFd epoll_;
	bool initialized_ = false;
};

}  // namespace gaudi_ipc
