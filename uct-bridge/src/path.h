// SPDX-License-Identifier: MIT
// A way data moves between this process and a peer: the channel path
// (channel_path.h) and the staged path (staged_path.h) implement it.  An
// endpoint (ep.h) checks an operation, picks the first path that reaches
// the memory, once, and calls it; each path keeps its own state and
// progress, and reports a peer that failed through the callback the
// interface installs, so that no path knows endpoints or the interface.
#pragma once

#include <sys/types.h>

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "node_identity.h"
#include "remote_key.h"
#include "route.h"
#include "ucx.h"

namespace gaudi_ipc {

// Room a buffered put gives its packer past max_bcopy (the interface's
// BCOPY_SIZE).  A packer that writes too much is refused, with an error
// that names the length (UCT_IFACE_FLAG_ERRHANDLE_BCOPY_LEN); within this
// room its overrun lands in memory of ours that nothing else uses.
constexpr size_t kPackRoom = 4096;

// The error of a buffered put whose packer wrote len bytes, above max.
inline ucs_status_t packed_too_long(size_t len, uint64_t max)
{
	ucs_error("gaudi_ipc: put_bcopy: the pack callback wrote %zu bytes, above the length "
		  "limit max_bcopy %" PRIu64,
		  len, max);
	return UCS_ERR_EXCEEDS_LIMIT;
}

// The remote side of an operation: memory of a remote key, checked to lie
// inside the key's range (and to be writable for a put).
struct Target {
	const RemoteKey *rk;
	uint64_t addr;
	// Where addr lies in the owner's registration.
	uint64_t offset() const { return addr - rk->f.addr; }
	// Bytes of the registration from addr on.
	uint64_t room() const { return rk->f.length - offset(); }
};

// What a buffered put's pack callback wrote, len bytes: at most max
// (max_bcopy), and inside the remote registration from t on.
inline ucs_status_t check_packed(size_t len, uint64_t max, const Target &t)
{
	if (len > max)
		return packed_too_long(len, max);
	if (len > t.room())
		return check_remote(*t.rk, t.addr, len, true);
	return UCS_OK;
}

// The local side: the program's memory of a zero-copy operation (checked
// to lie inside its memory handles), or, when iov is null, the path's own
// buffer (short and buffered operations).
struct Local {
	bool get = false;                // data comes in (else it goes out)
	const uct_iov_t *iov = nullptr;
	size_t iovcnt = 0;
	bool cookies = false;            // every piece has a channel cookie
};

// A peer process that failed, as a path found out: the interface fails
// its endpoints to it.
using PeerFailed = std::function<void(const ProcessId &, ucs_status_t)>;

class Path {
public:
	Path(const char *name, PathIndex index) : name_(name), index_(index) {}
	Path(const Path &) = delete;
	Path &operator=(const Path &) = delete;
	virtual ~Path() = default;

	const char *name() const { return name_; }
	PathIndex index() const { return index_; }
	void on_peer_failed(PeerFailed cb) { peer_failed_ = std::move(cb); }

	// Whether this path can move data between `local` and the memory of
	// rk for route r.  Cheap; the channel path makes a channel on the
	// first use of a device pair.
	virtual bool reaches(Route &r, const RemoteKey &rk, const Local &local) = 0;
	// Why it cannot, for the error message.
	virtual const char *why_not(const Route &r, const RemoteKey &rk,
				    const Local &local) const = 0;

	// Operations, once reaches() said yes.  As UCT's calls return.
	virtual ucs_status_t put_short(Route &r, const Target &t, const void *buffer,
				       unsigned length) = 0;
	// Completed inside the call, or not at all: only a path whose copies
	// are synchronous offers it (the interface then says GET_SHORT).
	virtual ucs_status_t get_short(Route &r, const Target &t, void *buffer,
				       unsigned length) = 0;
	// Packs at most the interface's BCOPY_SIZE, and refuses more (the
	// packer's buffer has kPackRoom bytes more).
	virtual ssize_t put_bcopy(Route &r, const Target &t, uct_pack_callback_t pack,
				  void *arg) = 0;
	virtual ucs_status_t get_bcopy(Route &r, const Target &t, uct_unpack_callback_t unpack,
				       void *arg, size_t length, uct_completion_t *comp) = 0;
	virtual ucs_status_t zcopy(Route &r, const Target &t, const Local &local,
				   uint64_t total, uct_completion_t *comp) = 0;

	virtual unsigned progress() = 0;
	// Whether progress has anything to do; with want_rings, also prepares
	// to sleep (the staged path asks for rings and sets its timer).
	virtual bool has_work(bool want_rings) = 0;
	// Parts of r's operations not yet started are dropped (a flush with
	// UCT_FLUSH_FLAG_CANCEL); what is under way ends.
	virtual void cancel(const Route &r) = 0;
	// Closing: everything not yet started is dropped; returns whether
	// parts are still under way (ended by further calls).
	virtual bool drain() = 0;
	// The endpoint of r is going: its state here goes too.
	virtual void unbind(Route &r) { r.links[index_].reset(); }

	// Operations and bytes that took this path.
	void count(uint64_t bytes)
	{
		ops_++;
		bytes_ += bytes;
	}
	uint64_t ops() const { return ops_; }
	uint64_t bytes() const { return bytes_; }

protected:
	// Reports a failed peer; the interface fails its endpoints (later
	// operations on them fail, and UCX hears of it from progress).
	void peer_failed(const ProcessId &p, ucs_status_t status) const
	{
		if (peer_failed_)
			peer_failed_(p, status);
	}

private:
	const char *name_;
	PathIndex index_;
	PeerFailed peer_failed_;
	uint64_t ops_ = 0, bytes_ = 0;
};

}  // namespace gaudi_ipc
