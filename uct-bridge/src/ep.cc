// SPDX-License-Identifier: MIT
// Endpoint operations: the checks of local and remote ranges, the path
// each operation takes, and the order of operations.
#include "ep.h"

#include <cerrno>
#include <cstring>

#include "memh.h"
#include "remote_key.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

constexpr size_t kMaxIov = 16;

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

Ep::Ep(EpShared &shared, const IfaceAddr &peer) : shared_(shared)
{
	h_.self = this;
	route_.ep = this;
	route_.peer = ProcessId{peer.pid, peer.start};
	route_.nonce = peer.nonce;
	route_.offers = peer.flags;
	ucs_queue_head_init(&pending_);
}

bool Ep::connects_to(const uct_iface_addr_t *addr) const
{
	IfaceAddr a;
	memcpy(&a, addr, sizeof(a));
	return a.pid == route_.peer.pid && a.start == route_.peer.start && a.nonce == route_.nonce;
}

ucs_status_t Ep::init()
{
	ucs_status_t st = UCS_CLASS_INIT(uct_base_ep_t, &h_.super, shared_.base);
	if (st != UCS_OK)
		return st;
	initialized_ = true;
	shared_.add(this);
	return UCS_OK;
}

Ep::~Ep()
{
	if (!initialized_)
		return;
	shared_.remove(this);
	// Its operations go on without it; the paths let go of their state.
	shared_.ops.forget(&route_);
	for (Path *p : shared_.paths)
		if (p)
			p->unbind(route_);
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
		if (route_.order.oldest() <= fence_at_)
			return UCS_ERR_NO_RESOURCE;  // operations before the fence go first
		fence_at_ = 0;  // they have
	}
	if (shared_.ops.at_capacity())
		return UCS_ERR_NO_RESOURCE;
	return UCS_OK;
}

ucs_status_t Ep::begin(uct_rkey_t rkey, uint64_t remote_addr, uint64_t len, bool put,
		       const Local &local, Target *t, Path **path)
{
	ucs_status_t st = may_start();
	if (st != UCS_OK)
		return st;
	if ((st = check_key(rkey)) != UCS_OK)
		return st;
	const RemoteKey *rk = remote_key(rkey);
	if ((st = check_remote(*rk, remote_addr, len, put)) != UCS_OK)
		return st;
	*t = Target{rk, remote_addr};
	*path = pick(*rk, local);
	return *path ? UCS_OK : UCS_ERR_UNREACHABLE;
}

Path *Ep::pick(const RemoteKey &rk, const Local &local)
{
	for (Path *p : shared_.paths) {
		if (p && p->reaches(route_, rk, local)) {
			if (p != last_path_)
				note_path(p, rk);
			return p;
		}
	}
	ucs_error("gaudi_ipc: memory of pid %u is unreachable from this endpoint: channel "
		  "path: %s; staged path: %s",
		  rk.f.owner.pid,
		  shared_.paths[kChannelPath]
			  ? shared_.paths[kChannelPath]->why_not(route_, rk, local)
			  : "off here",
		  shared_.paths[kStagedPath]
			  ? shared_.paths[kStagedPath]->why_not(route_, rk, local)
			  : "off here");
	return nullptr;
}

void Ep::note_path(const Path *path, const RemoteKey &rk) const
{
	// Which path moves the data is visible with UCX_LOG_LEVEL=debug: one
	// line whenever it changes on an endpoint.
	last_path_ = path;
	ucs_debug("gaudi_ipc: endpoint %p to pid %u: %s path (remote %s%s; the remote key "
		  "is %susable by channels)",
		  this, route_.peer.pid, path->name(),
		  rk.f.device() ? "device memory of " : "host memory", rk.f.bus,
		  rk.channel_ok ? "" : "not ");
}

ucs_status_t Ep::put_short(const void *buffer, unsigned length, uint64_t remote_addr,
			   uct_rkey_t rkey)
{
	return short_op(buffer, nullptr, length, remote_addr, rkey);
}

ucs_status_t Ep::get_short(void *buffer, unsigned length, uint64_t remote_addr,
			   uct_rkey_t rkey)
{
	return short_op(nullptr, buffer, length, remote_addr, rkey);
}

ucs_status_t Ep::short_op(const void *src, void *dst, unsigned length, uint64_t remote_addr,
			  uct_rkey_t rkey)
{
	const bool get = dst != nullptr;
	// The length first: UCX passes an invalid key with an empty buffer.
	if (length > EpShared::kMaxShort) {
		ucs_error("gaudi_ipc: %s length %u is above its maximum %zu (%s move more)",
			  get ? "get_short" : "put_short", length, EpShared::kMaxShort,
			  get ? "get_bcopy or get_zcopy" : "put_bcopy or put_zcopy");
		return UCS_ERR_INVALID_PARAM;
	}
	if (length == 0)
		return may_start();
	Local local;
	local.get = get;
	Target t;
	Path *path;
	ucs_status_t st = begin(rkey, remote_addr, length, !get, local, &t, &path);
	if (st == UCS_OK)
		st = get ? path->get_short(route_, t, dst, length)
			 : path->put_short(route_, t, src, length);
	if (st != UCS_OK)
		return st;
	path->count(length);
	if (get) {
		UCT_TL_EP_STAT_OP(&h_.super, GET, SHORT, length);
	} else {
		UCT_TL_EP_STAT_OP(&h_.super, PUT, SHORT, length);
	}
	return UCS_OK;
}

ssize_t Ep::put_bcopy(uct_pack_callback_t pack_cb, void *arg, uint64_t remote_addr,
		      uct_rkey_t rkey)
{
	if (rkey == UCT_INVALID_RKEY) {
		ucs_status_t st = may_start();
		if (st != UCS_OK)
			return st;
		return put_bcopy_without_key(pack_cb, arg);
	}
	// The length is known once packed: the path checks it against the
	// room in the registration.
	Target t;
	Path *path;
	ucs_status_t st = begin(rkey, remote_addr, 1, true, Local{}, &t, &path);
	if (st != UCS_OK)
		return st;
	const ssize_t len = path->put_bcopy(route_, t, pack_cb, arg);
	if (len < 0)
		return len;
	path->count(len);
	UCT_TL_EP_STAT_OP(&h_.super, PUT, BCOPY, len);
	return len;
}

ssize_t Ep::put_bcopy_without_key(uct_pack_callback_t pack_cb, void *arg)
{
	// Only the length tells an empty put (UCX's way with empty buffers)
	// from a mistake: pack into a buffer of our own to learn it.
	std::vector<unsigned char> scratch(shared_.bcopy_size + kPackRoom);
	const size_t len = pack_cb(scratch.data(), arg);
	if (len == 0)
		return 0;
	if (len > shared_.bcopy_size)
		return packed_too_long(len, shared_.bcopy_size);
	return check_key(UCT_INVALID_RKEY);
}

ucs_status_t Ep::get_bcopy(uct_unpack_callback_t unpack_cb, void *arg, size_t length,
			   uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	if (length > shared_.bcopy_size) {
		ucs_error("gaudi_ipc: get_bcopy length %zu is above its maximum %" PRIu64,
			  length, shared_.bcopy_size);
		return UCS_ERR_EXCEEDS_LIMIT;
	}
	if (length == 0)
		return may_start();
	Local local;
	local.get = true;
	Target t;
	Path *path;
	ucs_status_t st = begin(rkey, remote_addr, length, false, local, &t, &path);
	if (st == UCS_OK)
		st = path->get_bcopy(route_, t, unpack_cb, arg, length, comp);
	if (!UCS_STATUS_IS_ERR(st)) {
		path->count(length);
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

ucs_status_t Ep::zcopy(bool get, const uct_iov_t *iov, size_t iovcnt, uint64_t remote_addr,
		       uct_rkey_t rkey, uct_completion_t *comp)
{
	if (iovcnt > kMaxIov) {
		ucs_error("gaudi_ipc: %zu iov entries, at most %zu", iovcnt, kMaxIov);
		return UCS_ERR_INVALID_PARAM;
	}
	Local local;
	local.get = get;
	local.iov = iov;
	local.iovcnt = iovcnt;
	local.cookies = true;
	uint64_t total = 0;
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
		local.cookies = local.cookies && m->local_cookie;
		total += len;
	}
	// An empty operation looks at neither the remote address nor the key.
	if (total == 0)
		return UCS_OK;
	Target t;
	Path *path;
	ucs_status_t st = begin(rkey, remote_addr, total, !get, local, &t, &path);
	if (st == UCS_OK)
		st = path->zcopy(route_, t, local, total, comp);
	if (!UCS_STATUS_IS_ERR(st)) {
		path->count(total);
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
	uct_pending_queue_dispatch(priv, &pending_, !shared_.ops.at_capacity());
	return ucs_queue_is_empty(&pending_);
}

ucs_status_t Ep::flush(unsigned flags, uct_completion_t *comp)
{
	if (flags & UCT_FLUSH_FLAG_CANCEL) {
		// Parts not yet started are dropped; what is under way ends.
		// Their completions run from progress.
		for (Path *p : shared_.paths)
			if (p)
				p->cancel(route_);
	}
	if (has_pending())
		return UCS_ERR_NO_RESOURCE;
	if (route_.order.empty()) {
		UCT_TL_EP_STAT_FLUSH(&h_.super);
		return UCS_OK;
	}
	if (comp)
		flushes_.push_back(FlushWaiter{route_.order.newest(), comp});
	UCT_TL_EP_STAT_FLUSH_WAIT(&h_.super);
	return UCS_INPROGRESS;
}

void Ep::check_flushes()
{
	if (flushes_.empty())
		return;
	const uint64_t oldest = route_.order.oldest();
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
	if (!route_.order.empty())
		fence_at_ = route_.order.newest();
	UCT_TL_EP_STAT_FENCE(&h_.super);
	return UCS_OK;
}

ucs_status_t Ep::check(unsigned flags, uct_completion_t *comp)
{
	UCT_EP_KEEPALIVE_CHECK_PARAM(flags, comp);
	if (failed_ == UCS_OK && !process_alive(route_.peer))
		set_failed(UCS_ERR_ENDPOINT_TIMEOUT);
	return UCS_OK;
}

void Ep::set_failed(ucs_status_t status)
{
	if (failed_ != UCS_OK)
		return;
	failed_ = status;
	ucs_diag("gaudi_ipc: endpoint %p: peer pid %u is gone (%s)", this, route_.peer.pid,
		 ucs_status_string(status));
	shared_.failed.push_back(this);
}

}  // namespace gaudi_ipc
