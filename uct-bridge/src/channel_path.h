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
#include <vector>

#include "hlthunk.h"
#include "in_flight.h"
#include "mapping.h"
#include "op.h"
#include "path.h"

namespace gaudi_ipc {

// An operation of the channel path: its copies, and how far the segments
// of a large one got.
struct ChannelOp : Op {
	std::vector<struct hlthunk_ipc_copy> copies;
	size_t copy_index = 0;
	uint64_t copy_done = 0;  // bytes of copies[copy_index] done

	void reset()
	{
		reset_common();
		copies.clear();
		copy_index = 0;
		copy_done = 0;
	}
};

// A channel of this interface, and its queued copies in flight (in order).
struct ChannelQueue {
	uint32_t id = 0;
	int error = 0;  // creating it failed: the pair is unreachable here
	std::deque<std::pair<uint64_t, ChannelOp *>> parts;  // seq, operation
};

class ChannelPath : public Path, private OpHome {
public:
	struct Settings {
		uint64_t sync_copy_max;
		uint64_t seg_size;
		uint64_t bcopy_size;
		bool async_copies;
	};
	ChannelPath(InFlight &ops, const Settings &s)
		: Path("channel", kChannelPath), ops_(ops), set_(s)
	{
	}
	~ChannelPath() override;

	// Opens the path unless `mode` is no; UCS_ERR_NO_DEVICE if it is
	// required (yes) and /dev/hl_ipc is unusable.
	ucs_status_t init(ucs_ternary_auto_value_t mode);
	bool on() const { return on_; }
	// The /dev/hl_ipc fd, readable when a queued copy completed (-1: none).
	int event_fd() const;

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

private:
	void finishing(Op &) override {}
	void recycle(Op &op) override { pool_.put(static_cast<ChannelOp *>(&op)); }

	// The channel from device src to device dst (device_index), created on
	// first use; null if there is none.  The last two pairs used are
	// remembered (zero-copy and bounce-buffer operations use different
	// pairs), so the per-operation path compares ints.
	ChannelQueue *channel(int src, int dst);
	ChannelQueue *lookup(int src, int dst);
	ChannelQueue *pair(bool get, int local, int remote)
	{
		return get ? channel(remote, local) : channel(local, remote);
	}
	// One copy of len bytes between the bounce buffer and remote memory.
	ucs_status_t bounce_copy(bool get, uint64_t len, const Route &r, const Target &t);
	// The one handler of a failed copy: a peer that is gone is reported
	// (it explains any failure on its memory), anything else is logged.
	ucs_status_t failure(const ProcessId &peer, int rc, const char *what);
	unsigned reap();
	unsigned continue_segments();

	InFlight &ops_;
	Settings set_;
	bool on_ = false;
	OpPool<ChannelOp> pool_;
	std::map<std::pair<int, int>, ChannelQueue> channels_;
	struct Memo {
		int src, dst;
		ChannelQueue *ch;
	};
	Memo memo_[2] = {{-1, -1, nullptr}, {-1, -1, nullptr}};
	int memo_next_ = 0;
	std::deque<ChannelOp *> segments_;  // operations progress copies in segments
	hlipc::Mapping bounce_;
	uint64_t bounce_cookie_ = 0;
};

}  // namespace gaudi_ipc
