// SPDX-License-Identifier: MIT
// A gaudi_ipc endpoint: a connection to one peer interface (its process,
// what it offers), the operations on it, and their order (fences,
// flushes, the pending queue).  The data moves on the interface's paths.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "addresses.h"
#include "iface.h"
#include "issue_window.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;
struct RemoteKey;

struct EpHandle {
	uct_base_ep_t super;
	Ep *self;
};

class Ep {
public:
	static ucs_status_t create(const uct_ep_params_t *params, uct_ep_h *ep_p);
	static Ep *from(uct_ep_h ep) { return reinterpret_cast<EpHandle *>(ep)->self; }

	Ep(Iface *iface, const IfaceAddr &peer);
	Ep(const Ep &) = delete;
	Ep &operator=(const Ep &) = delete;
	~Ep();

	uct_ep_h handle() { return &h_.super.super; }
	const ProcessId &peer() const { return peer_; }

	// uct_iface_ops_t, endpoint part.
	ucs_status_t put_short(const void *buffer, unsigned length,
			       uint64_t remote_addr, uct_rkey_t rkey);
	ssize_t put_bcopy(uct_pack_callback_t pack_cb, void *arg,
			  uint64_t remote_addr, uct_rkey_t rkey);
	ucs_status_t put_zcopy(const uct_iov_t *iov, size_t iovcnt,
			       uint64_t remote_addr, uct_rkey_t rkey,
			       uct_completion_t *comp);
	ucs_status_t get_bcopy(uct_unpack_callback_t unpack_cb, void *arg,
			       size_t length, uint64_t remote_addr, uct_rkey_t rkey,
			       uct_completion_t *comp);
	ucs_status_t get_zcopy(const uct_iov_t *iov, size_t iovcnt,
			       uint64_t remote_addr, uct_rkey_t rkey,
			       uct_completion_t *comp);
	ucs_status_t pending_add(uct_pending_req_t *req, unsigned flags);
	void pending_purge(uct_pending_purge_callback_t cb, void *arg);
	ucs_status_t flush(unsigned flags, uct_completion_t *comp);
	ucs_status_t fence(unsigned flags);
	ucs_status_t check(unsigned flags, uct_completion_t *comp);

	// Bookkeeping of operations (called by the interface's Ops).
	uint64_t issue() { return in_flight_.issue(); }
	void retire(uint64_t index) { in_flight_.retire(index); }
	bool has_pending() const { return !ucs_queue_is_empty(&pending_); }
	// Runs pending requests while they succeed; false if one could not.
	bool dispatch_pending();
	// Calls the flush completions whose operations have all completed.
	void check_flushes();
	// The peer failed: later operations fail with status, and UCX's
	// error handler hears of it once, from the interface's progress.
	void set_failed(ucs_status_t status);
	ucs_status_t failed() const { return failed_; }

private:
	// put_bcopy with UCX's "no key": fine when it packs nothing.
	ssize_t put_bcopy_without_key(uct_pack_callback_t pack_cb, void *arg);
	// Whether a new operation may start now (fence, capacity).
	ucs_status_t may_start();
	// The path for an operation on memory of this rkey: channel, staged,
	// or an error (unreachable both ways).
	enum class Path { Channel, Staged };
	ucs_status_t pick_path(const RemoteKey *rk, bool local_cookies, Path *path) const;
	ucs_status_t zcopy(bool get, const uct_iov_t *iov, size_t iovcnt,
			   uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp);
	// A small zero-copy operation with one iov entry on the channel path:
	// checks and one copy.  UCS_ERR_LAST when it does not apply.
	ucs_status_t zcopy_fast(bool get, const uct_iov_t *iov, uint64_t remote_addr,
				const RemoteKey *rk);
	void note_path(Path path, const RemoteKey *rk) const;
	// The interface's channel for a device pair, remembered for the last
	// two pairs this endpoint used (zero-copy and bounce-buffer operations
	// use different pairs), so the per-operation path compares ints.
	ChannelQueue *channel(int src, int dst)
	{
		for (auto &c : ch_cache_)
			if (c.src == src && c.dst == dst)
				return c.ch;
		auto &c = ch_cache_[ch_next_];
		ch_next_ ^= 1;
		c = ChannelMemo{src, dst, iface_->channels().channel(src, dst)};
		return c.ch;
	}
	// The peer's staged path, connected on first use; null with *status
	// (UCS_ERR_NO_RESOURCE while the peer has not admitted us yet).
	StagedPeer *staged_peer(ucs_status_t *status);

	EpHandle h_;
	Iface *iface_;
	ProcessId peer_;
	uint32_t peer_flags_;
	uint64_t peer_nonce_;
	std::shared_ptr<StagedPeer> staged_;

	IssueWindow in_flight_;  // its operations, by issue number
	uint64_t fence_at_ = 0;           // ops up to this index go first
	struct FlushWaiter {
		uint64_t upto;
		uct_completion_t *comp;
	};
	std::vector<FlushWaiter> flushes_;
	ucs_queue_head_t pending_;
	ucs_status_t failed_ = UCS_OK;
	bool initialized_ = false;
	mutable int last_path_ = -1;  // for the log line when the path changes
	struct ChannelMemo {
		int src, dst;
		ChannelQueue *ch;
	};
	ChannelMemo ch_cache_[2] = {{-1, -1, nullptr}, {-1, -1, nullptr}};
	int ch_next_ = 0;
};

}  // namespace gaudi_ipc
