// SPDX-License-Identifier: MIT
// A gaudi_ipc endpoint: a connection to one peer interface (its process,
// what it offers), the operations on it, and their order (fences,
// flushes, the pending queue).  Each operation is checked and given to
// the first of the interface's paths that reaches its memory, in one
// place (begin()); the data moves there.
#pragma once

#include <cstdint>
#include <vector>

#include "addresses.h"
#include "ep_shared.h"
#include "path.h"
#include "route.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;

struct EpHandle {
	uct_base_ep_t super;
	Ep *self;
};

class Ep {
public:
	static Ep *from(uct_ep_h ep) { return reinterpret_cast<EpHandle *>(ep)->self; }

	Ep(EpShared &shared, const IfaceAddr &peer);
	Ep(const Ep &) = delete;
	Ep &operator=(const Ep &) = delete;
	~Ep();
	// UCX's part of the endpoint; then it is on the interface's list.
	ucs_status_t init();

	uct_ep_h handle() { return &h_.super.super; }
	const ProcessId &peer() const { return route_.peer; }
	// Whether this endpoint connects to the interface of that address.
	bool connects_to(const uct_iface_addr_t *addr) const;
	Route &route() { return route_; }

	// uct_iface_ops_t, endpoint part.
	ucs_status_t put_short(const void *buffer, unsigned length,
			       uint64_t remote_addr, uct_rkey_t rkey);
	ssize_t put_bcopy(uct_pack_callback_t pack_cb, void *arg,
			  uint64_t remote_addr, uct_rkey_t rkey);
	ucs_status_t get_short(void *buffer, unsigned length, uint64_t remote_addr,
			       uct_rkey_t rkey);
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
	// put_short (from src) or get_short (into dst): at most kMaxShort,
	// completed or refused inside the call.
	ucs_status_t short_op(const void *src, void *dst, unsigned length,
			      uint64_t remote_addr, uct_rkey_t rkey);
	// put_bcopy with UCX's "no key": fine when it packs nothing.
	ssize_t put_bcopy_without_key(uct_pack_callback_t pack_cb, void *arg);
	// Whether a new operation may start now (failure, fence, capacity).
	ucs_status_t may_start();
	// What every operation that moves data goes through, once: may it
	// start, is the key a key, does [remote_addr, +len) lie in it (and
	// may it be written), and which path reaches the memory.
	ucs_status_t begin(uct_rkey_t rkey, uint64_t remote_addr, uint64_t len, bool put,
			   const Local &local, Target *t, Path **path);
	Path *pick(const RemoteKey &rk, const Local &local);
	void note_path(const Path *path, const RemoteKey &rk) const;
	ucs_status_t zcopy(bool get, const uct_iov_t *iov, size_t iovcnt,
			   uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp);

	EpHandle h_;
	EpShared &shared_;
	Route route_;
	uint64_t fence_at_ = 0;           // ops up to this index go first
	struct FlushWaiter {
		uint64_t upto;
		uct_completion_t *comp;
	};
	std::vector<FlushWaiter> flushes_;
	ucs_queue_head_t pending_;
	ucs_status_t failed_ = UCS_OK;
	bool initialized_ = false;
	mutable const Path *last_path_ = nullptr;  // for the log line when it changes
};

}  // namespace gaudi_ipc
