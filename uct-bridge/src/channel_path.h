// SPDX-License-Identifier: MIT
// The channel path: copies by cookie on /dev/hl_ipc channels, one per
// (local device, remote device) pair (the host counts as a device),
// created on first use.  Operations up to SYNC_COPY_MAX are one copy
// inside the call; larger ones are copied by progress in SEG_SIZE
// segments, or queued on the kernel's channel (ASYNC_COPIES) and reaped
// by progress.  Short and buffered operations go through a registered
// bounce buffer.  The peer process takes no part: the kernel checks each
// copy against the regions' owners, ranges and access.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <utility>

#include "hlthunk.h"
#include "mapping.h"
#include "memh.h"
#include "ops.h"
#include "remote_key.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;

// A channel of this interface, and its queued copies in flight (in order).
struct ChannelQueue {
	uint32_t id = 0;
	int error = 0;  // creating it failed: the pair takes the staged path
	std::deque<std::pair<uint64_t, Op *>> parts;  // seq, operation
};

class ChannelPath {
public:
	struct Settings {
		uint64_t sync_copy_max;
		uint64_t seg_size;
		uint64_t bcopy_size;
		bool async_copies;
	};
	ChannelPath(Ops &ops, const Settings &s) : ops_(ops), set_(s) {}
	ChannelPath(const ChannelPath &) = delete;
	ChannelPath &operator=(const ChannelPath &) = delete;
	~ChannelPath();

	// Opens the path unless `mode` is no; UCS_ERR_NO_DEVICE if it is
	// required (yes) and /dev/hl_ipc is unusable.
	ucs_status_t init(ucs_ternary_auto_value_t mode);
	bool on() const { return on_; }
	// The /dev/hl_ipc fd, readable when a queued copy completed (-1: none).
	int event_fd() const;

	// The channel from device src to device dst (device_index), created
	// on first use; null if it cannot be created.
	ChannelQueue *channel(int src, int dst);

	// Short and buffered operations: the bounce buffer, if registered.
	bool bounce_ok() const { return bounce_cookie_ != 0; }
	unsigned char *bounce() const { return bounce_.bytes(); }
	// One copy of len bytes between the bounce buffer and remote memory.
	ucs_status_t bounce_copy(Ep *ep, bool get, uint64_t len, const RemoteKey &rk,
				 uint64_t remote_addr);
	// One copy between local memory (inside m) and remote memory, inside
	// the call, on channel ch.
	ucs_status_t copy_now(Ep *ep, ChannelQueue *ch, bool get, const Memh &m,
			      uint64_t local_addr, const RemoteKey &rk, uint64_t remote_addr,
			      uint64_t len);
	// A zero-copy operation (checked by the endpoint): UCS_OK when done
	// in the call, UCS_INPROGRESS, an error, or UCS_ERR_UNREACHABLE if a
	// device pair has no channel (nothing was started then).
	ucs_status_t zcopy(Ep *ep, bool get, const uct_iov_t *iov, size_t iovcnt,
			   uint64_t remote_addr, const RemoteKey &rk, uct_completion_t *comp);

	// Progress: one segment of the oldest operation, and the queued
	// copies the kernel completed.
	unsigned progress();
	bool has_work();
	// Segments not yet copied of ep's operations are dropped (flush with
	// UCT_FLUSH_FLAG_CANCEL); what the kernel has queued ends.
	void cancel(Ep *ep);
	// Closing: every segment is dropped; returns whether copies queued on
	// the kernel are still in flight (reaped by further calls).
	bool drain();

private:
	// The one handler of a failed copy: a peer that is gone fails its
	// endpoint, anything else is logged.
	ucs_status_t failure(Ep *ep, int rc, const char *what);
	unsigned reap();
	unsigned continue_segments();

	Ops &ops_;
	Settings set_;
	bool on_ = false;
	std::map<std::pair<int, int>, ChannelQueue> channels_;
	std::deque<Op *> segments_;  // operations progress copies in segments
	hlipc::Mapping bounce_;
	uint64_t bounce_cookie_ = 0;
};

}  // namespace gaudi_ipc
