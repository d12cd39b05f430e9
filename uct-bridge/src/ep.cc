// SPDX-License-Identifier: MIT
// Endpoint operations: which path moves an operation, the checks of
// local and remote ranges, and the order of operations.
#include "ep.h"

#include <cerrno>
#include <cstring>

#include "device_index.h"
#include "memh.h"
#include "remote_key.h"
#include "status.h"

namespace gaudi_ipc {

ucs_status_t Ep::create(const uct_ep_params_t *params, uct_ep_h *ep_p)
{
	return guarded([&]() -> ucs_status_t {
		if (!(params->field_mask & UCT_EP_PARAM_FIELD_IFACE) ||
		    !(params->field_mask & UCT_EP_PARAM_FIELD_IFACE_ADDR) ||
		    !(params->field_mask & UCT_EP_PARAM_FIELD_DEV_ADDR)) {
			ucs_error("gaudi_ipc: an endpoint connects to an interface: "
				  "iface, dev_addr and iface_addr are required");
			return UCS_ERR_INVALID_PARAM;
		}
		Iface *iface = Iface::from(params->iface);
		if (!iface->is_reachable(params->dev_addr, params->iface_addr)) {
			ucs_error("gaudi_ipc: the peer interface is unreachable (another "
				  "node or namespace, or no path both ends offer)");
			return UCS_ERR_UNREACHABLE;
		}
		IfaceAddr peer;
		memcpy(&peer, params->iface_addr, sizeof(peer));
		auto ep = std::make_unique<Ep>(iface, peer);
		ucs_status_t st = UCS_CLASS_INIT(uct_base_ep_t, &ep->h_.super, iface->base());
		if (st != UCS_OK)
			return st;
		ep->initialized_ = true;
		iface->add_ep(ep.get());
		*ep_p = ep.release()->handle();
		return UCS_OK;
	});
}

Ep::Ep(Iface *iface, const IfaceAddr &peer)
	: iface_(iface), peer_{peer.pid, peer.start}, peer_flags_(peer.flags),
	  peer_nonce_(peer.nonce)
{
	h_.self = this;
	ucs_queue_head_init(&pending_);
}

Ep::~Ep()
{
	if (!initialized_)
		return;
	iface_->remove_ep(this);
	if (staged_) {
		staged_.reset();
		iface_->staged().release_peer(peer_nonce_);
	}
	if (!ucs_queue_is_empty(&pending_))
		ucs_warn("gaudi_ipc: endpoint %p destroyed with pending requests", this);
	// Flushes that can no longer complete normally.
	auto waiters = std::move(flushes_);
	for (auto &w : waiters)
		uct_invoke_completion(w.comp, UCS_ERR_CANCELED);
	UCS_CLASS_CLEANUP(uct_base_ep_t, &h_.super);
}

ucs_status_t Ep::may_start()
{
	if (failed_ != UCS_OK)
		return failed_;
	if (fence_at_) {
		if (in_flight_.oldest() <= fence_at_)
			return UCS_ERR_NO_RESOURCE;  // operations before the fence go first
		fence_at_ = 0;  // they have
	}
	if (iface_->at_capacity())
		return UCS_ERR_NO_RESOURCE;
	return UCS_OK;
}

ucs_status_t Ep::pick_path(const RemoteKey *rk, bool local_cookies, Path *path) const
{
	if (rk->channel_ok && local_cookies && iface_->channels().on()) {
		*path = Path::Channel;
		note_path(*path, rk);
		return UCS_OK;
	}
	if (rk->staged_ok && iface_->staged_on() && (peer_flags_ & kAddrMailbox) &&
	    rk->f.owner.pid == peer_.pid && rk->f.owner.start == peer_.start) {
		*path = Path::Staged;
		note_path(*path, rk);
		return UCS_OK;
	}
	ucs_error("gaudi_ipc: memory of pid %u is unreachable from this endpoint: %s",
		  rk->f.owner.pid,
		  rk->f.owner.pid != peer_.pid ? "the remote key belongs to another process"
		  : !iface_->channels().on() && !iface_->staged_on() ? "no path is enabled"
		  : rk->channel_ok ? "the local memory is not registered for channels "
				     "and the staged path is off"
				   : "channels cannot use the remote key and the staged "
				     "path is off at one end");
	return UCS_ERR_UNREACHABLE;
}

void Ep::note_path(Path path, const RemoteKey *rk) const
{
	// Which path moves the data is visible with UCX_LOG_LEVEL=debug: one
	// line whenever it changes on an endpoint.
	if (last_path_ == static_cast<int>(path))
		return;
	last_path_ = static_cast<int>(path);
	ucs_debug("gaudi_ipc: endpoint %p to pid %u: %s path (remote %s%s; channels "
		  "%s here; the remote key is %susable by channels)",
		  this, peer_.pid, path == Path::Channel ? "channel" : "staged",
		  rk->f.device() ? "device memory of " : "host memory", rk->f.bus,
		  iface_->channels().on() ? "on" : "off", rk->channel_ok ? "" : "not ");
}

StagedPeer *Ep::staged_peer(ucs_status_t *status)
{
	if (!staged_ || staged_->link != StagedPeer::Link::Ready) {
		auto p = iface_->staged().peer(peer_, peer_nonce_, status);
		if (!p) {
			if (*status == UCS_ERR_CONNECTION_RESET)
				set_failed(*status);
			return nullptr;
		}
		staged_ = std::move(p);
	}
	*status = UCS_OK;
	return staged_.get();
}

namespace {

// Checks a remote range against its key: inside the registration, and
// writable for a put.  The key is the holder's own word: the kernel (for
// cookies) and the owner (for staging keys) check again what it grants.
ucs_status_t check_remote(const RemoteKey *rk, uint64_t remote_addr, uint64_t len,
			  bool put)
{
	if (!rk->f.covers(remote_addr, len)) {
		ucs_error("gaudi_ipc: remote range 0x%" PRIx64 "+%" PRIu64 " is outside "
			  "the registration 0x%" PRIx64 "+%" PRIu64 " of its key",
			  remote_addr, len, rk->f.addr, rk->f.length);
		return UCS_ERR_INVALID_PARAM;
	}
	if (put && !rk->f.writable()) {
		ucs_error("gaudi_ipc: remote memory at 0x%" PRIx64 " is read-only",
			  remote_addr);
		return UCS_ERR_REJECTED;
	}
	return UCS_OK;
}

// UCX's placeholder for "no key" (what it passes with an empty buffer)
// names no memory: an operation that moves bytes with it is refused, not
// read through.
ucs_status_t check_key(uct_rkey_t rkey)
{
	if (rkey == UCT_INVALID_RKEY) {
		ucs_error("gaudi_ipc: no remote key (UCT_INVALID_RKEY) for an operation "
			  "that moves data");
		return UCS_ERR_INVALID_PARAM;
	}
	return UCS_OK;
}

}  // namespace

ucs_status_t Ep::put_short(const void *buffer, unsigned length, uint64_t remote_addr,
			   uct_rkey_t rkey)
{
	// The length first: UCX passes an invalid key with an empty buffer.
	if (length > Iface::kMaxShort) {
		ucs_error("gaudi_ipc: put_short length %u is above its maximum %zu "
			  "(put_bcopy or put_zcopy move more)", length, Iface::kMaxShort);
		return UCS_ERR_INVALID_PARAM;
	}
	ucs_status_t st = may_start();
	if (st != UCS_OK || length == 0)
		return st;
	if ((st = check_key(rkey)) != UCS_OK)
		return st;
	const RemoteKey *rk = remote_key(rkey);
	if ((st = check_remote(rk, remote_addr, length, true)) != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, iface_->channels().bounce_ok(), &path)) != UCS_OK)
		return st;
	if (path == Path::Channel) {
		memcpy(iface_->channels().bounce(), buffer, length);
		st = iface_->channels().bounce_copy(this, false, length, *rk, remote_addr);
	} else {
		StagedPeer *p = staged_peer(&st);
		if (p)
			st = iface_->staged().put_short(this, *p, buffer, length, rk->f.stage_key,
							remote_addr - rk->f.addr);
	}
	if (st == UCS_OK) {
		iface_->count(path == Path::Channel, length);
		UCT_TL_EP_STAT_OP(&h_.super, PUT, SHORT, length);
	}
	return st;
}

ssize_t Ep::put_bcopy(uct_pack_callback_t pack_cb, void *arg, uint64_t remote_addr,
		      uct_rkey_t rkey)
{
	ucs_status_t st = may_start();
	if (st != UCS_OK)
		return st;
	if (rkey == UCT_INVALID_RKEY)
		return put_bcopy_without_key(pack_cb, arg);
	const RemoteKey *rk = remote_key(rkey);
	if ((st = check_remote(rk, remote_addr, 1, true)) != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, iface_->channels().bounce_ok(), &path)) != UCS_OK)
		return st;
	// Room in the registration from remote_addr on.
	const uint64_t room = rk->f.length - (remote_addr - rk->f.addr);
	ssize_t len;
	if (path == Path::Channel) {
		len = static_cast<ssize_t>(pack_cb(iface_->channels().bounce(), arg));
		if (static_cast<size_t>(len) > iface_->settings().bcopy_size)
			return UCS_ERR_EXCEEDS_LIMIT;
		if (static_cast<uint64_t>(len) > room)
			return check_remote(rk, remote_addr, len, true);
		if (len && (st = iface_->channels().bounce_copy(this, false, len, *rk,
								remote_addr)) != UCS_OK)
			return st;
	} else {
		StagedPeer *p = staged_peer(&st);
		if (!p)
			return st;
		len = iface_->staged().put_bcopy(this, *p, pack_cb, arg, rk->f.stage_key,
						 remote_addr - rk->f.addr, room);
		if (len < 0)
			return len;
	}
	iface_->count(path == Path::Channel, len);
	UCT_TL_EP_STAT_OP(&h_.super, PUT, BCOPY, len);
	return len;
}

ssize_t Ep::put_bcopy_without_key(uct_pack_callback_t pack_cb, void *arg)
{
	// Only the length tells an empty put (UCX's way with empty buffers)
	// from a mistake: pack into a buffer of our own to learn it.
	std::vector<unsigned char> scratch(iface_->settings().bcopy_size);
	const size_t len = pack_cb(scratch.data(), arg);
	if (len == 0)
		return 0;
	return check_key(UCT_INVALID_RKEY);
}

ucs_status_t Ep::get_bcopy(uct_unpack_callback_t unpack_cb, void *arg, size_t length,
			   uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	if (length > iface_->settings().bcopy_size) {
		ucs_error("gaudi_ipc: get_bcopy length %zu is above its maximum %" PRIu64,
			  length, iface_->settings().bcopy_size);
		return UCS_ERR_EXCEEDS_LIMIT;
	}
	ucs_status_t st = may_start();
	if (st != UCS_OK || length == 0)
		return st;
	if ((st = check_key(rkey)) != UCS_OK)
		return st;
	const RemoteKey *rk = remote_key(rkey);
	if ((st = check_remote(rk, remote_addr, length, false)) != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, iface_->channels().bounce_ok(), &path)) != UCS_OK)
		return st;
	if (path == Path::Channel) {
		st = iface_->channels().bounce_copy(this, true, length, *rk, remote_addr);
		if (st == UCS_OK)
			unpack_cb(arg, iface_->channels().bounce(), length);
	} else {
		StagedPeer *p = staged_peer(&st);
		if (p)
			st = iface_->staged().get_bcopy(this, *p, unpack_cb, arg, length,
							rk->f.stage_key, remote_addr - rk->f.addr,
							comp);
	}
	if (!UCS_STATUS_IS_ERR(st)) {
		iface_->count(path == Path::Channel, length);
		UCT_TL_EP_STAT_OP(&h_.super, GET, BCOPY, length);
	}
	return st;
}

ucs_status_t Ep::put_zcopy(const uct_iov_t *iov, size_t iovcnt, uint64_t remote_addr,
			   uct_rkey_t rkey, uct_completion_t *comp)
{
	return zcopy(false, iov, iovcnt, remote_addr, rkey, comp);
}

ucs_status_t Ep::get_zcopy(const uct_iov_t *iov, size_t iovcnt, uint64_t remote_addr,
			   uct_rkey_t rkey, uct_completion_t *comp)
{
	return zcopy(true, iov, iovcnt, remote_addr, rkey, comp);
}

ucs_status_t Ep::zcopy_fast(bool get, const uct_iov_t *iov, uint64_t remote_addr,
			    const RemoteKey *rk)
{
	// Everything zcopy() checks, for the one case that dominates latency;
	// anything unusual takes the general path, which says what is wrong.
	const uint64_t len = uct_iov_get_length(iov);
	const auto *m = static_cast<const Memh *>(iov->memh);
	const uint64_t a = reinterpret_cast<uintptr_t>(iov->buffer);
	if (!len || !m || !m->local_cookie || !rk->channel_ok || failed_ != UCS_OK ||
	    fence_at_ || len > iface_->settings().sync_copy_max || !iface_->channels().on() ||
	    a < m->addr || len > m->length || a - m->addr > m->length - len ||
	    !rk->f.covers(remote_addr, len) || (get ? !m->local_writable : !rk->f.writable()) ||
	    iface_->at_capacity())
		return UCS_ERR_LAST;
	ChannelQueue *ch = get ? channel(rk->dev, m->dev) : channel(m->dev, rk->dev);
	if (!ch)
		return UCS_ERR_LAST;
	if (last_path_ != static_cast<int>(Path::Channel))
		note_path(Path::Channel, rk);
	ucs_status_t st = iface_->channels().copy_now(this, ch, get, *m, a, *rk, remote_addr, len);
	if (st == UCS_OK)
		iface_->count(true, len);
	return st;
}

ucs_status_t Ep::zcopy(bool get, const uct_iov_t *iov, size_t iovcnt, uint64_t remote_addr,
		       uct_rkey_t rkey, uct_completion_t *comp)
{
	const RemoteKey *rk = remote_key(rkey);
	if (iovcnt == 1 && rkey != UCT_INVALID_RKEY) {
		ucs_status_t st = zcopy_fast(get, iov, remote_addr, rk);
		if (st != UCS_ERR_LAST)
			return st;
	}
	if (iovcnt > 16) {
		ucs_error("gaudi_ipc: %zu iov entries, at most 16", iovcnt);
		return UCS_ERR_INVALID_PARAM;
	}
	uint64_t total = 0;
	bool cookies = true;
	for (size_t i = 0; i < iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&iov[i]);
		if (len == 0)
			continue;
		const auto *m = static_cast<const Memh *>(iov[i].memh);
		const uint64_t a = reinterpret_cast<uintptr_t>(iov[i].buffer);
		if (!m || a < m->addr || len > m->length || a - m->addr > m->length - len) {
			ucs_error("gaudi_ipc: local buffer %p+%" PRIu64 " is not inside its "
				  "memory handle", iov[i].buffer, len);
			return UCS_ERR_INVALID_PARAM;
		}
		if (get && !m->local_writable) {
			ucs_error("gaudi_ipc: get into read-only memory at %p", iov[i].buffer);
			return UCS_ERR_INVALID_PARAM;
		}
		cookies = cookies && m->local_cookie;
		total += len;
	}
	if (total == 0)
		return UCS_OK;
	ucs_status_t st = may_start();
	if (st == UCS_OK)
		st = check_key(rkey);
	if (st == UCS_OK)
		st = check_remote(rk, remote_addr, total, !get);
	if (st != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, cookies, &path)) != UCS_OK)
		return st;
	if (path == Path::Channel) {
		st = iface_->channels().zcopy(this, get, iov, iovcnt, remote_addr, *rk, comp);
		// A device pair without a channel: the staged path, if offered.
		if (st == UCS_ERR_UNREACHABLE && rk->staged_ok && iface_->staged_on() &&
		    (peer_flags_ & kAddrMailbox))
			path = Path::Staged;
	}
	if (path == Path::Staged) {
		StagedPeer *p = staged_peer(&st);
		if (p)
			st = iface_->staged().zcopy(this, staged_, get, iov, iovcnt,
						    rk->f.stage_key, remote_addr - rk->f.addr, comp);
	}
	if (!UCS_STATUS_IS_ERR(st)) {
		iface_->count(path == Path::Channel, total);
		if (get) {
			UCT_TL_EP_STAT_OP(&h_.super, GET, ZCOPY, total);
		} else {
			UCT_TL_EP_STAT_OP(&h_.super, PUT, ZCOPY, total);
		}
	}
	return st;
}

ucs_status_t Ep::pending_add(uct_pending_req_t *req, unsigned)
{
	// Always queued: progress retries it as soon as anything completes.
	uct_pending_req_queue_push(&pending_, req);
	UCT_TL_EP_STAT_PEND(&h_.super);
	return UCS_OK;
}

void Ep::pending_purge(uct_pending_purge_callback_t cb, void *arg)
{
	uct_pending_req_priv_queue_t *priv;
	uct_pending_queue_purge(priv, &pending_, 1, cb, arg);
}

bool Ep::dispatch_pending()
{
	uct_pending_req_priv_queue_t *priv;
	uct_pending_queue_dispatch(priv, &pending_, !iface_->at_capacity());
	return ucs_queue_is_empty(&pending_);
}

ucs_status_t Ep::flush(unsigned flags, uct_completion_t *comp)
{
	if (flags & UCT_FLUSH_FLAG_CANCEL) {
		// Segments and pieces not yet started are dropped; what is in
		// flight ends.  Their completions run from progress.
		iface_->channels().cancel(this);
		iface_->staged().cancel(this);
	}
	if (has_pending())
		return UCS_ERR_NO_RESOURCE;
	if (in_flight_.empty()) {
		UCT_TL_EP_STAT_FLUSH(&h_.super);
		return UCS_OK;
	}
	if (comp)
		flushes_.push_back(FlushWaiter{in_flight_.newest(), comp});
	UCT_TL_EP_STAT_FLUSH_WAIT(&h_.super);
	return UCS_INPROGRESS;
}

void Ep::check_flushes()
{
	if (flushes_.empty())
		return;
	const uint64_t oldest = in_flight_.oldest();
	std::vector<uct_completion_t *> done;
	for (auto it = flushes_.begin(); it != flushes_.end();) {
		if (it->upto < oldest) {
			done.push_back(it->comp);
			it = flushes_.erase(it);
		} else {
			++it;
		}
	}
	// Completions may destroy this endpoint: nothing of it is used after.
	for (auto *c : done)
		uct_invoke_completion(c, UCS_OK);
}

ucs_status_t Ep::fence(unsigned)
{
	if (!in_flight_.empty())
		fence_at_ = in_flight_.newest();
	UCT_TL_EP_STAT_FENCE(&h_.super);
	return UCS_OK;
}

ucs_status_t Ep::check(unsigned flags, uct_completion_t *comp)
{
	UCT_EP_KEEPALIVE_CHECK_PARAM(flags, comp);
	if (failed_ == UCS_OK && !process_alive(peer_))
		set_failed(UCS_ERR_ENDPOINT_TIMEOUT);
	return UCS_OK;
}

void Ep::set_failed(ucs_status_t status)
{
	if (failed_ != UCS_OK)
		return;
	failed_ = status;
	ucs_diag("gaudi_ipc: endpoint %p: peer pid %u is gone (%s)", this, peer_.pid,
		 ucs_status_string(status));
	iface_->ep_failed(this);
}

}  // namespace gaudi_ipc
