// SPDX-License-Identifier: MIT
// The interface: opening and closing it, its endpoints, what it reports to
// UCX, its addresses, its progress and the events UCX can wait for.
#include "iface.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "ep.h"
#include "node_identity.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

constexpr size_t kMaxIov = 16;

}  // namespace

ucs_status_t Iface::open(uct_iface_ops_t *ops, uct_iface_internal_ops_t *internal_ops,
			 uct_md_h md, uct_worker_h worker, const uct_iface_params_t *params,
			 const uct_iface_config_t *tl_config, uct_iface_h *iface_p)
{
	return guarded([&]() -> ucs_status_t {
		// The device name comes with the open mode (UCX's own tools do
		// not set UCT_IFACE_PARAM_FIELD_DEVICE).
		if (!(params->field_mask & UCT_IFACE_PARAM_FIELD_OPEN_MODE) ||
		    !(params->open_mode & UCT_IFACE_OPEN_MODE_DEVICE) ||
		    !params->mode.device.dev_name ||
		    strcmp(params->mode.device.dev_name, kDeviceName) != 0) {
			ucs_error("gaudi_ipc: no such device '%s': the transport's one "
				  "device is '%s' (opened in device mode)",
				  (params->field_mask & UCT_IFACE_PARAM_FIELD_OPEN_MODE) &&
						  (params->open_mode & UCT_IFACE_OPEN_MODE_DEVICE) &&
						  params->mode.device.dev_name
					  ? params->mode.device.dev_name
					  : "",
				  kDeviceName);
			return UCS_ERR_NO_DEVICE;
		}
		const auto *config = reinterpret_cast<const IfaceConfig *>(tl_config);
		auto self = std::make_unique<Iface>(*config);
		ucs_status_t st = UCS_CLASS_INIT(uct_base_iface_t, &self->h_.super, ops,
						 internal_ops, md, worker, params,
						 tl_config);
		if (st != UCS_OK)
			return st;
		self->initialized_ = true;
		st = self->init();
		if (st != UCS_OK)
			return st;  // self's destructor undoes what init did
		*iface_p = self.release()->handle();
		return UCS_OK;
	});
}

ChannelPath::Settings Iface::channel_settings(const IfaceConfig &c)
{
	ChannelPath::Settings s;
	s.sync_copy_max = c.sync_copy_max;
	s.seg_size = std::max<uint64_t>(4096, c.seg_size);
	s.bcopy_size = std::max<uint64_t>(EpShared::kMaxShort, c.bcopy_size);
	s.async_copies = c.async_copies != 0;
	return s;
}

StagedPath::Settings Iface::staged_settings(const IfaceConfig &c)
{
	StagedPath::Settings s;
	s.initiate = s.serve = c.channels != UCS_YES;
	s.slots = c.staging_slots;
	s.slot_size = c.staging_size;
	s.bcopy_size = std::max<uint64_t>(EpShared::kMaxShort, c.bcopy_size);
	s.depth = std::max(1u, c.staging_depth);
	s.peer_staging_max = c.peer_staging_max;
	// Whole pages, one at least: a piece and its window are no longer.
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	s.peer_pin_max = std::max<uint64_t>(page, c.peer_pin_max / page * page);
	s.peer_timeout_ns = static_cast<uint64_t>(c.peer_timeout * 1e9);
	s.dma_timeout_us = static_cast<uint64_t>(c.dma_timeout * 1e6);
	s.linger_ns = static_cast<uint64_t>(c.serve_linger * 1e9);
	s.spin_ns = static_cast<uint64_t>(c.serve_spin * 1e9);
	return s;
}

Iface::Iface(const IfaceConfig &c)
	: bandwidth_(c.bandwidth), latency_(c.latency), overhead_(c.overhead),
	  mode_(c.channels == UCS_AUTO ? UCS_TRY : c.channels), nonce_(random_u64()),
	  peer_timeout_(ucs_time_from_sec(c.peer_timeout)), ops_(std::max(1u, c.max_inflight)),
	  channel_(ops_, channel_settings(c)),
	  staged_(std::make_unique<StagedPath>(ops_, events_, staged_settings(c), nonce_)),
	  shared_(&h_.super, ops_, std::max<uint64_t>(EpShared::kMaxShort, c.bcopy_size))
{
	h_.self = this;
	PeerFailed failed = [this](const ProcessId &p, ucs_status_t st) { fail_eps(p, st); };
	channel_.on_peer_failed(failed);
	staged_->on_peer_failed(failed);
}

ucs_status_t Iface::init()
{
	int rc = events_.init();
	if (rc < 0) {
		ucs_error("gaudi_ipc: cannot create the event fd: %s", strerror(-rc));
		return status_from_errno(rc);
	}
	ucs_status_t st = channel_.init(mode_);
	if (st != UCS_OK)
		return st;
	if (channel_.event_fd() >= 0 && (rc = events_.watch(channel_.event_fd())) < 0) {
		ucs_error("gaudi_ipc: cannot watch /dev/hl_ipc: %s", strerror(-rc));
		return status_from_errno(rc);
	}
	if ((st = staged_->init()) != UCS_OK)
		return st;
	const bool staged_on = mode_ != UCS_YES;
	if (!channel_.on() && !staged_on)
		return UCS_ERR_NO_DEVICE;
	shared_.paths[kChannelPath] = channel_.on() ? &channel_ : nullptr;
	shared_.paths[kStagedPath] = staged_on ? staged_.get() : nullptr;
	ucs_debug("gaudi_ipc: interface %p: channels %s, staged path %s%s", this,
		  channel_.on() ? "on" : "off", staged_on ? "on" : "off",
		  staged_on && !staged_->serving() ? " (serving no peer)" : "");
	return UCS_OK;
}

Iface::~Iface()
{
	// The staged path first: UCX's async thread stops serving our mailbox
	// before anything else goes.
	staged_.reset();
	if (initialized_)
		UCS_CLASS_CLEANUP(uct_base_iface_t, &h_.super);
}

void Iface::close()
{
	std::unique_ptr<Iface> me(this);
	uct_base_iface_progress_disable(handle(), UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
	// Copies in flight still write into memory the program may free once
	// the interface is gone, and staged pieces hold peers' slots: wait
	// for them (peers that exit end theirs; those that neither serve nor
	// exit time out), without calling completions of operations the
	// program gave up on.
	ops_.drop_completions();
	const uint64_t deadline = ucs_get_time() + peer_timeout_;
	for (;;) {
		bool busy = false;
		for (Path *p : shared_.paths)
			if (p)
				busy = p->drain() || busy;
		ops_.complete([](Route *) {});
		if (ops_.empty() || ucs_get_time() > deadline)
			break;
		if (busy)
			sched_yield();
	}
	if (!ops_.empty())
		ucs_warn("gaudi_ipc: closing the interface with %zu operations in flight",
			 ops_.size());
	ucs_debug("gaudi_ipc: interface %p closed: %" PRIu64 " operations (%" PRIu64
		  " bytes) on the channel path, %" PRIu64 " (%" PRIu64 " bytes) on the "
		  "staged path; %" PRIu64 " staged pieces served for peers",
		  this, channel_.ops(), channel_.bytes(), staged_->ops(), staged_->bytes(),
		  staged_->served());
}

ucs_status_t Iface::create_ep(const uct_ep_params_t *params, uct_ep_h *ep_p)
{
	if (!(params->field_mask & UCT_EP_PARAM_FIELD_IFACE_ADDR) ||
	    !(params->field_mask & UCT_EP_PARAM_FIELD_DEV_ADDR)) {
		ucs_error("gaudi_ipc: an endpoint connects to an interface: "
			  "iface, dev_addr and iface_addr are required");
		return UCS_ERR_INVALID_PARAM;
	}
	if (!is_reachable(params->dev_addr, params->iface_addr)) {
		ucs_error("gaudi_ipc: the peer interface is unreachable (another "
			  "node or namespace, or no path both ends offer)");
		return UCS_ERR_UNREACHABLE;
	}
	IfaceAddr peer;
	memcpy(&peer, params->iface_addr, sizeof(peer));
	auto ep = std::make_unique<Ep>(shared_, peer);
	ucs_status_t st = ep->init();
	if (st != UCS_OK)
		return st;
	*ep_p = ep.release()->handle();
	return UCS_OK;
}

ucs_status_t Iface::query(uct_iface_attr_t *attr) const
{
	uct_base_iface_query(const_cast<uct_base_iface_t *>(&h_.super), attr);
	attr->iface_addr_len = sizeof(IfaceAddr);
	attr->device_addr_len = sizeof(DeviceAddr);
	attr->ep_addr_len = 0;
	attr->max_conn_priv = 0;
	attr->cap.flags = UCT_IFACE_FLAG_PUT_SHORT | UCT_IFACE_FLAG_PUT_BCOPY |
			  UCT_IFACE_FLAG_PUT_ZCOPY | UCT_IFACE_FLAG_GET_BCOPY |
			  UCT_IFACE_FLAG_GET_ZCOPY | UCT_IFACE_FLAG_PENDING |
			  UCT_IFACE_FLAG_CONNECT_TO_IFACE |
			  UCT_IFACE_FLAG_ERRHANDLE_PEER_FAILURE | UCT_IFACE_FLAG_EP_CHECK |
			  // Refused, with an error logged, before anything moves:
			  // a local buffer outside its memory handle, a remote
			  // range outside its key, a packer past max_bcopy.
			  UCT_IFACE_FLAG_ERRHANDLE_ZCOPY_BUF |
			  UCT_IFACE_FLAG_ERRHANDLE_REMOTE_MEM |
			  UCT_IFACE_FLAG_ERRHANDLE_BCOPY_LEN;
	// get_short completes inside the call: only channels do (a staged
	// get waits for the peer's serving thread).
	const bool get_short = shared_.paths[kStagedPath] == nullptr;
	if (get_short)
		attr->cap.flags |= UCT_IFACE_FLAG_GET_SHORT;
	attr->cap.event_flags = UCT_IFACE_FLAG_EVENT_SEND_COMP |
				UCT_IFACE_FLAG_EVENT_RECV | UCT_IFACE_FLAG_EVENT_FD;
	attr->cap.put.max_short = EpShared::kMaxShort;
	attr->cap.put.max_bcopy = shared_.bcopy_size;
	attr->cap.put.min_zcopy = 0;
	attr->cap.put.max_zcopy = SIZE_MAX;
	attr->cap.put.opt_zcopy_align = 1;
	attr->cap.put.align_mtu = 1;
	attr->cap.put.max_iov = kMaxIov;
	attr->cap.get.max_short = get_short ? EpShared::kMaxShort : 0;
	attr->cap.get.max_bcopy = shared_.bcopy_size;
	attr->cap.get.min_zcopy = 0;
	attr->cap.get.max_zcopy = SIZE_MAX;
	attr->cap.get.opt_zcopy_align = 1;
	attr->cap.get.align_mtu = 1;
	attr->cap.get.max_iov = kMaxIov;
	attr->latency = ucs_linear_func_make(latency_, 0);
	attr->bandwidth.dedicated = 0;
	attr->bandwidth.shared = bandwidth_;
	attr->overhead = overhead_;
	attr->priority = 0;
	return UCS_OK;
}

ucs_status_t Iface::get_device_address(uct_device_addr_t *addr) const
{
	DeviceAddr d = device_addr(this_node());
	memcpy(addr, &d, sizeof(d));
	return UCS_OK;
}

ucs_status_t Iface::get_address(uct_iface_addr_t *addr) const
{
	IfaceAddr a;
	memset(&a, 0, sizeof(a));
	a.pid = this_process().pid;
	a.start = this_process().start;
	a.nonce = nonce_;
	a.flags = (channel_.on() ? uint32_t{kAddrChannels} : 0u) |
		  (staged_->serving() ? uint32_t{kAddrMailbox} : 0u);
	memcpy(addr, &a, sizeof(a));
	return UCS_OK;
}

int Iface::is_reachable(const uct_device_addr_t *dev, const uct_iface_addr_t *iface) const
{
	if (!dev || !iface)
		return 0;
	DeviceAddr d;
	IfaceAddr a;
	memcpy(&d, dev, sizeof(d));
	memcpy(&a, iface, sizeof(a));
	DeviceAddr mine = device_addr(this_node());
	if (d.boot != mine.boot || d.namespaces != mine.namespaces)
		return 0;
	return (channel_.on() && (a.flags & kAddrChannels)) ||
	       (mode_ != UCS_YES && (a.flags & kAddrMailbox));
}

unsigned Iface::progress()
{
	unsigned n = 0;
	for (Path *p : shared_.paths)
		if (p)
			n += p->progress();
	// The paths have walked their state: now UCX may hear of failed
	// endpoints, and completions may run.
	report_failed_eps();
	n += ops_.complete([this](Route *r) {
		// Its endpoint may be gone: r is compared, not followed.
		for (Ep *ep : shared_.eps)
			if (&ep->route() == r) {
				ep->check_flushes();
				return;
			}
	});
	dispatch_pending();
	return n;
}

void Iface::report_failed_eps()
{
	while (!shared_.failed.empty()) {
		Ep *ep = shared_.failed.back();
		shared_.failed.pop_back();
		// The handler may destroy this and other endpoints (they take
		// themselves off the lists).
		uct_iface_handle_ep_err(handle(), ep->handle(), ep->failed());
	}
}

void Iface::fail_eps(const ProcessId &peer, ucs_status_t status)
{
	for (Ep *ep : shared_.eps)
		if (ep->peer().pid == peer.pid && ep->peer().start == peer.start)
			ep->set_failed(status);
}

void Iface::dispatch_pending()
{
	for (size_t i = 0; i < shared_.eps.size(); i++) {
		if (ops_.at_capacity())
			return;
		// A pending request's callback may destroy endpoints: the list
		// is read afresh each time round.
		Ep *ep = shared_.eps[i];
		if (ep->has_pending())
			ep->dispatch_pending();
	}
}

ucs_status_t Iface::flush(unsigned, uct_completion_t *comp)
{
	if (comp)
		return UCS_ERR_UNSUPPORTED;
	if (ops_.empty()) {
		UCT_TL_IFACE_STAT_FLUSH(&h_.super);
		return UCS_OK;
	}
	UCT_TL_IFACE_STAT_FLUSH_WAIT(&h_.super);
	return UCS_INPROGRESS;
}

ucs_status_t Iface::fence(unsigned)
{
	for (Ep *ep : shared_.eps)
		ep->fence(0);
	UCT_TL_IFACE_STAT_FENCE(&h_.super);
	return UCS_OK;
}

ucs_status_t Iface::event_fd_get(int *fd_p)
{
	*fd_p = events_.fd();
	return UCS_OK;
}

ucs_status_t Iface::event_arm(unsigned)
{
	// A look first: work found costs no system call (a caller polls by
	// arming).  Then clear the timer and look again, asking the owners of
	// staged pieces still out to ring when they are done and setting the
	// timer to the next deadline: a ring or a hang-up after this leaves
	// the event fd readable, work found says busy.
	if (has_work(false))
		return UCS_ERR_BUSY;
	events_.clear_timer();
	return has_work(true) ? UCS_ERR_BUSY : UCS_OK;
}

bool Iface::has_work(bool want_rings)
{
	if (ops_.has_finished() || !shared_.failed.empty())
		return true;
	for (Path *p : shared_.paths)
		if (p && p->has_work(want_rings))
			return true;
	for (Ep *ep : shared_.eps)
		if (ep->has_pending() && !ops_.at_capacity())
			return true;
	return false;
}

}  // namespace gaudi_ipc
