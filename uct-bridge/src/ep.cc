// SPDX-License-Identifier: MIT
// Endpoint operations: which path moves an operation, and the operations
// themselves.
#include "ep.h"

#include <cerrno>
#include <cstring>

#include "device_index.h"
#include "hlthunk.h"
#include "md.h"
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
	  peer_nonce_(peer.nonce), peer_mailbox_fd_(peer.mailbox_fd)
{
	h_.self = this;
	ucs_queue_head_init(&pending_);
}

Ep::~Ep()
{
	if (!initialized_)
		return;
	iface_->remove_ep(this);
	if (mailbox_) {
		mailbox_.reset();
		iface_->release_peer(peer_nonce_);
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
		if (!outstanding_.empty() && *outstanding_.begin() <= fence_at_)
			return UCS_ERR_NO_RESOURCE;  // operations before the fence go first
		fence_at_ = 0;  // they have
	}
	if (iface_->at_capacity())
		return UCS_ERR_NO_RESOURCE;
	return UCS_OK;
}

ucs_status_t Ep::pick_path(const RemoteKey *rk, bool local_cookies, Path *path) const
{
	if (rk->channel_ok && local_cookies && iface_->channels_on()) {
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
		  : !iface_->channels_on() && !iface_->staged_on() ? "no path is enabled"
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
		  iface_->channels_on() ? "on" : "off", rk->channel_ok ? "" : "not ");
}

PeerMailbox *Ep::mailbox(ucs_status_t *status)
{
	if (!mailbox_)
		mailbox_ = iface_->attach_peer(peer_, peer_mailbox_fd_, peer_nonce_, status);
	else
		*status = mailbox_->dead ? UCS_ERR_CONNECTION_RESET : UCS_OK;
	if (*status == UCS_ERR_CONNECTION_RESET)
		set_failed(*status);
	return *status == UCS_OK ? mailbox_.get() : nullptr;
}

PeerMailbox *Ep::staging_slot(uint32_t *slot, ucs_status_t *status)
{
	PeerMailbox *peer = mailbox(status);
	if (!peer)
		return nullptr;
	int s = iface_->claim_slot(*peer);
	if (s < 0) {
		*status = UCS_ERR_NO_RESOURCE;
		return nullptr;
	}
	*slot = static_cast<uint32_t>(s);
	return peer;
}

void Ep::post_put(PeerMailbox &peer, uint32_t slot, const RemoteKey *rk,
		  uint64_t remote_addr, uint64_t len)
{
	Op *op = iface_->new_op(this, nullptr);
	iface_->post_slot(peer, slot, op, kSlotPut, rk->f.stage_key,
			  remote_addr - rk->f.addr, 0, len);
	iface_->op_started(op);
}

namespace {

// Checks a remote range against its key: inside the registration, and
// writable for a put.
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

ucs_status_t copy_failed(const char *what, int rc)
{
	ucs_error("gaudi_ipc: %s: %s", what, library_message(rc));
	return status_from_errno(rc);
}

}  // namespace

ucs_status_t Ep::bounce_copy(bool get, uint64_t len, uint64_t remote_addr,
			     const RemoteKey *rk)
{
	ChannelQueue *ch = get ? channel(rk->dev, kHostDevice) : channel(kHostDevice, rk->dev);
	if (!ch)
		return UCS_ERR_UNREACHABLE;
	struct hlthunk_ipc_copy c;
	memset(&c, 0, sizeof(c));
	c.channel_id = ch->id;
	const uint64_t roff = rk->f.cookie_offset + (remote_addr - rk->f.addr);
	if (get) {
		c.src_cookie = rk->f.cookie;
		c.src_offset = roff;
		c.dst_cookie = iface_->bounce_cookie();
	} else {
		c.src_cookie = iface_->bounce_cookie();
		c.dst_cookie = rk->f.cookie;
		c.dst_offset = roff;
	}
	c.length = len;
	int rc = hlthunk_ipc_copy(&c);
	if (rc < 0) {
		if (!process_alive(peer_)) {
			set_failed(UCS_ERR_CONNECTION_RESET);
			return UCS_ERR_CONNECTION_RESET;
		}
		return copy_failed(get ? "get through the bounce buffer"
				       : "put through the bounce buffer", rc);
	}
	return UCS_OK;
}

ucs_status_t Ep::put_short(const void *buffer, unsigned length, uint64_t remote_addr,
			   uct_rkey_t rkey)
{
	const RemoteKey *rk = remote_key(rkey);
	ucs_status_t st = may_start();
	if (st == UCS_OK)
		st = check_remote(rk, remote_addr, length, true);
	if (st != UCS_OK || length == 0)
		return st;
	Path path;
	if ((st = pick_path(rk, iface_->bounce_cookie() != 0, &path)) != UCS_OK)
		return st;
	iface_->count(path == Path::Channel, length);
	if (path == Path::Channel) {
		memcpy(iface_->bounce(), buffer, length);
		st = bounce_copy(false, length, remote_addr, rk);
		UCT_TL_EP_STAT_OP_IF_SUCCESS(st, &h_.super, PUT, SHORT, length);
		return st;
	}
	uint32_t slot;
	PeerMailbox *peer = staging_slot(&slot, &st);
	if (!peer)
		return st;
	memcpy(peer->mb.staging(slot), buffer, length);
	post_put(*peer, slot, rk, remote_addr, length);
	UCT_TL_EP_STAT_OP(&h_.super, PUT, SHORT, length);
	return UCS_OK;
}

ssize_t Ep::put_bcopy(uct_pack_callback_t pack_cb, void *arg, uint64_t remote_addr,
		      uct_rkey_t rkey)
{
	const RemoteKey *rk = remote_key(rkey);
	ucs_status_t st = may_start();
	if (st != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, iface_->bounce_cookie() != 0, &path)) != UCS_OK)
		return st;
	if (path == Path::Channel) {
		size_t len = pack_cb(iface_->bounce(), arg);
		if (len > iface_->settings().bcopy_size)
			return UCS_ERR_EXCEEDS_LIMIT;
		if ((st = check_remote(rk, remote_addr, len, true)) != UCS_OK)
			return st;
		if (len && (st = bounce_copy(false, len, remote_addr, rk)) != UCS_OK)
			return st;
		iface_->count(true, len);
		UCT_TL_EP_STAT_OP(&h_.super, PUT, BCOPY, len);
		return static_cast<ssize_t>(len);
	}
	uint32_t slot;
	PeerMailbox *peer = staging_slot(&slot, &st);
	if (!peer)
		return st;
	size_t len = pack_cb(peer->mb.staging(slot), arg);
	if (len > iface_->settings().bcopy_size)
		st = UCS_ERR_EXCEEDS_LIMIT;
	else
		st = check_remote(rk, remote_addr, len ? len : 1, true);
	if (st != UCS_OK || len == 0) {
		iface_->release_slot(*peer, slot);
		return st != UCS_OK ? st : 0;
	}
	post_put(*peer, slot, rk, remote_addr, len);
	iface_->count(false, len);
	UCT_TL_EP_STAT_OP(&h_.super, PUT, BCOPY, len);
	return static_cast<ssize_t>(len);
}

ucs_status_t Ep::get_bcopy(uct_unpack_callback_t unpack_cb, void *arg, size_t length,
			   uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	const RemoteKey *rk = remote_key(rkey);
	ucs_status_t st = may_start();
	if (st == UCS_OK)
		st = check_remote(rk, remote_addr, length, false);
	if (st != UCS_OK)
		return st;
	if (length > iface_->settings().bcopy_size)
		return UCS_ERR_EXCEEDS_LIMIT;
	if (length == 0)
		return UCS_OK;
	Path path;
	if ((st = pick_path(rk, iface_->bounce_cookie() != 0, &path)) != UCS_OK)
		return st;
	iface_->count(path == Path::Channel, length);
	if (path == Path::Channel) {
		if ((st = bounce_copy(true, length, remote_addr, rk)) != UCS_OK)
			return st;
		unpack_cb(arg, iface_->bounce(), length);
		UCT_TL_EP_STAT_OP(&h_.super, GET, BCOPY, length);
		return UCS_OK;
	}
	uint32_t slot;
	PeerMailbox *peer = staging_slot(&slot, &st);
	if (!peer)
		return st;
	Op *op = iface_->new_op(this, comp);
	op->staged = true;
	op->get = true;
	op->total = op->posted = length;
	op->unpack = unpack_cb;
	op->unpack_arg = arg;
	op->peer = mailbox_;
	iface_->post_slot(*peer, slot, op, kSlotGet,
			  rk->f.stage_key, remote_addr - rk->f.addr, 0, length);
	iface_->op_started(op);
	UCT_TL_EP_STAT_OP(&h_.super, GET, BCOPY, length);
	return UCS_INPROGRESS;
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
	if (!len || !m || !m->cookie || !rk->channel_ok || failed_ != UCS_OK ||
	    fence_at_ || len > iface_->settings().sync_copy_max ||
	    !iface_->channels_on() || a < m->addr || len > m->length ||
	    a - m->addr > m->length - len || !rk->f.covers(remote_addr, len) ||
	    (get ? !m->writable : !rk->f.writable()) || iface_->at_capacity())
		return UCS_ERR_LAST;
	ChannelQueue *ch = get ? channel(rk->dev, m->dev) : channel(m->dev, rk->dev);
	if (!ch)
		return UCS_ERR_LAST;
	if (last_path_ != static_cast<int>(Path::Channel))
		note_path(Path::Channel, rk);
	const uint64_t loff = m->cookie_offset + (a - m->addr);
	const uint64_t roff = rk->f.cookie_offset + (remote_addr - rk->f.addr);
	struct hlthunk_ipc_copy c;
	c.channel_id = ch->id;
	c.flags = 0;
	c.src_cookie = get ? rk->f.cookie : m->cookie;
	c.src_offset = get ? roff : loff;
	c.dst_cookie = get ? m->cookie : rk->f.cookie;
	c.dst_offset = get ? loff : roff;
	c.length = len;
	int rc = hlthunk_ipc_copy(&c);
	if (rc < 0) {
		if (!process_alive(peer_)) {
			set_failed(UCS_ERR_CONNECTION_RESET);
			return UCS_ERR_CONNECTION_RESET;
		}
		return copy_failed(get ? "get on a channel" : "put on a channel", rc);
	}
	iface_->count(true, len);
	return UCS_OK;
}

ucs_status_t Ep::zcopy(bool get, const uct_iov_t *iov, size_t iovcnt,
		       uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	const RemoteKey *rk = remote_key(rkey);
	if (iovcnt == 1) {
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
		if (get && !m->writable) {
			ucs_error("gaudi_ipc: get into read-only memory at %p", iov[i].buffer);
			return UCS_ERR_INVALID_PARAM;
		}
		cookies = cookies && m->cookie;
		total += len;
	}
	if (total == 0)
		return UCS_OK;
	ucs_status_t st = may_start();
	if (st == UCS_OK)
		st = check_remote(rk, remote_addr, total, !get);
	if (st != UCS_OK)
		return st;
	Path path;
	if ((st = pick_path(rk, cookies, &path)) != UCS_OK)
		return st;
	if (path == Path::Channel) {
		st = zcopy_channel(get, iov, iovcnt, remote_addr, rk, comp);
		if (st != UCS_ERR_UNREACHABLE)
			goto done;
		// A device pair without a channel: the staged path, if offered.
		if (!rk->staged_ok || !iface_->staged_on() || !(peer_flags_ & kAddrMailbox))
			return st;
	}
	st = zcopy_staged(get, iov, iovcnt, remote_addr, rk, comp);
done:
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

ucs_status_t Ep::zcopy_channel(bool get, const uct_iov_t *iov, size_t iovcnt,
			       uint64_t remote_addr, const RemoteKey *rk,
			       uct_completion_t *comp)
{
	// Check every pair has a channel before submitting anything.
	uint64_t total = 0;
	for (size_t i = 0; i < iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&iov[i]);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(iov[i].memh);
		if (!(get ? channel(rk->dev, m->dev) : channel(m->dev, rk->dev)))
			return UCS_ERR_UNREACHABLE;
		total += len;
	}
	const auto &set = iface_->settings();
	const bool sync = total <= set.sync_copy_max;
	Op *op = nullptr;
	if (!sync && !set.async_copies)
		op = iface_->new_op(this, comp);  // progress copies it, in segments
	uint64_t roff = rk->f.cookie_offset + (remote_addr - rk->f.addr);
	for (size_t i = 0; i < iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&iov[i]);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(iov[i].memh);
		ChannelQueue *ch = get ? channel(rk->dev, m->dev) : channel(m->dev, rk->dev);
		const uint64_t loff = m->cookie_offset +
				      (reinterpret_cast<uintptr_t>(iov[i].buffer) - m->addr);
		struct hlthunk_ipc_copy c;
		memset(&c, 0, sizeof(c));
		c.channel_id = ch->id;
		c.src_cookie = get ? rk->f.cookie : m->cookie;
		c.src_offset = get ? roff : loff;
		c.dst_cookie = get ? m->cookie : rk->f.cookie;
		c.dst_offset = get ? loff : roff;
		c.length = len;
		roff += len;
		if (!sync && !set.async_copies) {
			op->copies.push_back(c);
			continue;
		}
		uint64_t seq = 0;
		int rc = sync ? -EAGAIN : hlthunk_ipc_copy_async(&c, &seq);
		// A full kernel queue (EAGAIN) is waited out inside libhlthunk,
		// which restarts the ioctl; -EAGAIN here means a small copy.
		if (rc == -EAGAIN)  // small: copy in the call
			rc = hlthunk_ipc_copy(&c);
		else if (rc == 0) {
			if (!op)
				op = iface_->new_op(this, comp);
			op->parts++;
			ch->parts.emplace_back(seq, op);
			continue;
		}
		if (rc < 0) {
			ucs_status_t st;
			if (!process_alive(peer_)) {
				st = UCS_ERR_CONNECTION_RESET;
				set_failed(st);
			} else {
				st = copy_failed(get ? "get on a channel" : "put on a channel", rc);
			}
			if (!op)
				return st;
			// Copies already queued complete the operation, with this error.
			op->status = st;
			break;
		}
	}
	if (!op)
		return UCS_OK;
	if (!op->copies.empty()) {
		iface_->queue_copies(op);
		return UCS_INPROGRESS;
	}
	iface_->op_started(op);
	return UCS_INPROGRESS;
}

ucs_status_t Ep::zcopy_staged(bool get, const uct_iov_t *iov, size_t iovcnt,
			      uint64_t remote_addr, const RemoteKey *rk,
			      uct_completion_t *comp)
{
	ucs_status_t st;
	PeerMailbox *peer = mailbox(&st);
	if (!peer)
		return st;
	// Back-pressure: with no slot free right now, UCX queues the request.
	bool free_slot = false;
	for (uint32_t i = 0; i < peer->mb.slots() && !free_slot; i++)
		free_slot = peer->mb.slot(i).state.load(std::memory_order_relaxed) == kSlotFree;
	if (!free_slot) {
		iface_->nudge(*peer);
		return UCS_ERR_NO_RESOURCE;
	}
	Op *op = iface_->new_op(this, comp);
	op->staged = true;
	op->get = get;
	op->key = rk->f.stage_key;
	op->remote_off = remote_addr - rk->f.addr;
	op->peer = mailbox_;
	for (size_t i = 0; i < iovcnt; i++) {
		const uint64_t len = uct_iov_get_length(&iov[i]);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(iov[i].memh);
		op->pieces.push_back(Piece{reinterpret_cast<uintptr_t>(iov[i].buffer), len,
					   m->device ? m->dev : kHostDevice});
		op->total += len;
	}
	st = iface_->post_staged(op);
	if (UCS_STATUS_IS_ERR(st) && op->parts == 0) {
		iface_->discard_op(op);
		return st;
	}
	if (st == UCS_INPROGRESS) {
		iface_->backlog_.push_back(op);
		return UCS_INPROGRESS;
	}
	if (st != UCS_OK)
		op->status = st;
	iface_->op_started(op);
	return UCS_INPROGRESS;
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
		// Segments and chunks not yet started are dropped; what is in
		// flight ends.
		for (Op *op : iface_->copy_backlog_)
			if (op->ep == this && op->status == UCS_OK)
				op->status = UCS_ERR_CANCELED;
		auto &backlog = iface_->backlog_;
		for (auto it = backlog.begin(); it != backlog.end();) {
			Op *op = *it;
			if (op->ep == this) {
				it = backlog.erase(it);
				if (op->status == UCS_OK)
					op->status = UCS_ERR_CANCELED;
				iface_->op_started(op);
			} else {
				++it;
			}
		}
	}
	if (has_pending())
		return UCS_ERR_NO_RESOURCE;
	if (outstanding_.empty()) {
		UCT_TL_EP_STAT_FLUSH(&h_.super);
		return UCS_OK;
	}
	if (comp)
		flushes_.push_back(FlushWaiter{issued_, comp});
	UCT_TL_EP_STAT_FLUSH_WAIT(&h_.super);
	return UCS_INPROGRESS;
}

void Ep::check_flushes()
{
	if (flushes_.empty())
		return;
	const uint64_t oldest = outstanding_.empty() ? UINT64_MAX : *outstanding_.begin();
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
	if (!outstanding_.empty())
		fence_at_ = issued_;
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
	uct_iface_handle_ep_err(iface_->handle(), handle(), status);
}

}  // namespace gaudi_ipc
