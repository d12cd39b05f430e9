// SPDX-License-Identifier: MIT
// The interface: opening and closing it, what it reports to UCX, its
// addresses, and the events UCX can wait for.
#include "iface.h"

#include <sys/epoll.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "component.h"
#include "device_index.h"
#include "device_nodes.h"
#include "ep.h"
#include "hlthunk.h"
#include "md.h"
#include "node_identity.h"
#include "status.h"
#include "uct_ops.h"

namespace gaudi_ipc {

namespace {

constexpr size_t kMaxIov = 16;
constexpr size_t kMaxShort = 256;

}  // namespace

ucs_status_t Iface::open(uct_md_h md, uct_worker_h worker,
			 const uct_iface_params_t *params,
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
		auto self = std::make_unique<Iface>(Md::from(md), *config);
		ucs_status_t st = UCS_CLASS_INIT(uct_base_iface_t, &self->h_.super,
						 iface_ops(), &uct_base_iface_internal_ops,
						 md, worker, params, tl_config);
		if (st != UCS_OK)
			return st;
		self->initialized_ = true;
		st = self->init(params);
		if (st != UCS_OK)
			return st;  // self's destructor undoes what init did
		*iface_p = self.release()->handle();
		return UCS_OK;
	});
}

Iface::Iface(Md *md, const IfaceConfig &c)
	: md_(md), bandwidth_(c.bandwidth), latency_(c.latency), overhead_(c.overhead),
	  staging_slots_(c.staging_slots), staging_size_(c.staging_size),
	  mode_(c.channels == UCS_AUTO ? UCS_TRY : c.channels), nonce_(random_u64())
{
	h_.self = this;
	set_.max_inflight = std::max(1u, c.max_inflight);
	set_.sync_copy_max = c.sync_copy_max;
	set_.seg_size = std::max<uint64_t>(4096, c.seg_size);
	set_.async_copies = c.async_copies != 0;
	set_.bcopy_size = std::max<uint64_t>(kMaxShort, c.bcopy_size);
	staging_size_ = std::max<uint64_t>(staging_size_, set_.bcopy_size);
	set_.peer_timeout = ucs_time_from_sec(c.peer_timeout);
	set_.dma_timeout_us = static_cast<uint64_t>(c.dma_timeout * 1e6);
	set_.linger_ns = static_cast<uint64_t>(c.serve_linger * 1e9);
	set_.spin_ns = static_cast<uint64_t>(c.serve_spin * 1e9);
	set_.staging_depth = std::max(1u, c.staging_depth);
}

ucs_status_t Iface::init(const uct_iface_params_t *)
{
	const ucs_ternary_auto_value_t mode = mode_;
	if (mode != UCS_NO) {
		struct hlthunk_ipc_info info;
		int rc = hlthunk_ipc_query(&info);
		if (rc == 0) {
			channels_on_ = true;
		} else if (mode == UCS_YES) {
			ucs_error("gaudi_ipc: channels required (UCX_GAUDI_IPC_CHANNELS=y) "
				  "but unusable: %s", library_message(rc));
			return UCS_ERR_NO_DEVICE;
		} else {
			ucs_debug("gaudi_ipc: no channels, staged path only: %s",
				  library_message(rc));
		}
	}
	if (channels_on_) {
		// The bounce buffer of short and buffered copies: registered
		// once, so those copies are one ioctl.
		bounce_ = hlipc::Mapping::map(set_.bcopy_size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!bounce_.valid())
			return UCS_ERR_NO_MEMORY;
		int rc = hlthunk_ipc_register_host(bounce_.bytes(), set_.bcopy_size,
						   HLTHUNK_IPC_ACCESS_READ |
							   HLTHUNK_IPC_ACCESS_WRITE,
						   &bounce_cookie_);
		if (rc < 0) {
			bounce_cookie_ = 0;
			ucs_debug("gaudi_ipc: bounce buffer not registered, short and "
				  "buffered copies take the staged path: %s",
				  library_message(rc));
		}
	}
	staged_allowed_ = mode != UCS_YES;
	if (staged_allowed_) {
		int rc = completion_bell_.bind(nonce_, Bell::Completion);
		if (rc < 0) {
			ucs_error("gaudi_ipc: cannot create the completion doorbell: %s",
				  strerror(-rc));
			return status_from_errno(rc);
		}
		auto server = std::make_unique<StagingServer>();
		rc = server->init(staging_slots_, staging_size_, nonce_, set_.dma_timeout_us,
				  set_.linger_ns, set_.spin_ns);
		if (rc < 0) {
			ucs_error("gaudi_ipc: cannot create the staging mailbox (%u x %" PRIu64
				  " bytes): %s; lower UCX_GAUDI_IPC_STAGING_SLOTS or "
				  "UCX_GAUDI_IPC_STAGING_SIZE",
				  staging_slots_, staging_size_, strerror(-rc));
			return status_from_errno(rc);
		}
		// Requests are served from UCX's async context too: a peer doing
		// one-sided transfers must not depend on this process calling
		// progress.
		ucs_async_context_t *async = h_.super.worker->async;
		ucs_status_t st = ucs_async_set_event_handler(
			async->mode, server->bell().fd(), UCS_EVENT_SET_EVREAD,
			request_bell_cb, this, async);
		if (st != UCS_OK) {
			ucs_error("gaudi_ipc: cannot watch the request doorbell: %s",
				  ucs_status_string(st));
			return st;
		}
		async_id_ = server->bell().fd();
		server_ = std::move(server);
	}
	if (!channels_on_ && !staged_allowed_)
		return UCS_ERR_NO_DEVICE;
	ucs_debug("gaudi_ipc: interface %p: channels %s, staged path %s", this,
		  channels_on_ ? "on" : "off", staged_allowed_ ? "on" : "off");
	return UCS_OK;
}

void Iface::request_bell_cb(int, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<Iface *>(arg);
	self->server_->bell().drain();
	self->server_->serve_awake();
}

Iface::~Iface()
{
	if (async_id_ >= 0) {
		// Waits for a handler that is running.
		ucs_async_remove_handler(async_id_, 1);
		async_id_ = -1;
	}
	if (server_)
		server_->shutdown();
	for (auto &kv : channels_)
		if (kv.second.id)
			(void)hlthunk_ipc_channel_destroy(kv.second.id);
	if (bounce_cookie_)
		(void)hlthunk_ipc_deregister(bounce_cookie_);
	if (initialized_)
		UCS_CLASS_CLEANUP(uct_base_iface_t, &h_.super);
}

void Iface::close()
{
	std::unique_ptr<Iface> me(this);
	uct_base_iface_progress_disable(handle(), UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
	drain_for_close();
	ucs_debug("gaudi_ipc: interface %p closed: %" PRIu64 " operations (%" PRIu64
		  " bytes) on the channel path, %" PRIu64 " (%" PRIu64 " bytes) on the "
		  "staged path; %" PRIu64 " staged pieces served for peers",
		  this, channel_ops_, channel_bytes_, staged_ops_, staged_bytes_,
		  server_ ? server_->served() : 0);
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
			  UCT_IFACE_FLAG_ERRHANDLE_PEER_FAILURE | UCT_IFACE_FLAG_EP_CHECK;
	attr->cap.event_flags = UCT_IFACE_FLAG_EVENT_SEND_COMP |
				UCT_IFACE_FLAG_EVENT_RECV | UCT_IFACE_FLAG_EVENT_FD;
	attr->cap.put.max_short = kMaxShort;
	attr->cap.put.max_bcopy = set_.bcopy_size;
	attr->cap.put.min_zcopy = 0;
	attr->cap.put.max_zcopy = SIZE_MAX;
	attr->cap.put.opt_zcopy_align = 1;
	attr->cap.put.align_mtu = 1;
	attr->cap.put.max_iov = kMaxIov;
	attr->cap.get.max_short = 0;
	attr->cap.get.max_bcopy = set_.bcopy_size;
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
	a.flags = (channels_on_ ? uint32_t{kAddrChannels} : 0u) |
		  (server_ ? uint32_t{kAddrMailbox} : 0u);
	a.mailbox_fd = server_ ? server_->mailbox().fd() : -1;
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
	return (channels_on_ && (a.flags & kAddrChannels)) ||
	       (staged_allowed_ && (a.flags & kAddrMailbox));
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
	for (Ep *ep : eps_)
		ep->fence(0);
	UCT_TL_IFACE_STAT_FENCE(&h_.super);
	return UCS_OK;
}

ucs_status_t Iface::event_fd_get(int *fd_p)
{
	if (!epoll_.valid()) {
		hl::UniqueFd ep(epoll_create1(EPOLL_CLOEXEC));
		if (!ep.valid()) {
			ucs_error("gaudi_ipc: epoll_create1: %m");
			return UCS_ERR_IO_ERROR;
		}
		std::vector<int> fds;
		if (completion_bell_.fd() >= 0)
			fds.push_back(completion_bell_.fd());
		if (server_)
			fds.push_back(server_->bell().fd());
		if (channels_on_) {
			// Readable while a copy of this process completed that no
			// WAIT has seen yet.
			int ipc = hlthunk_ipc_get_fd();
			if (ipc >= 0)
				fds.push_back(ipc);
		}
		for (int fd : fds) {
			struct epoll_event ev;
			memset(&ev, 0, sizeof(ev));
			ev.events = EPOLLIN;
			ev.data.fd = fd;
			if (epoll_ctl(ep.get(), EPOLL_CTL_ADD, fd, &ev) < 0) {
				ucs_error("gaudi_ipc: epoll_ctl: %m");
				return UCS_ERR_IO_ERROR;
			}
		}
		epoll_ = std::move(ep);
	}
	*fd_p = epoll_.get();
	return UCS_OK;
}

ucs_status_t Iface::event_arm(unsigned)
{
	// A look first: work found costs no system call (a caller polls by
	// arming).  Then clear the doorbells and look again, asking the owners
	// of staged pieces still out to ring when they are done: a ring after
	// the clearing leaves the fd readable, work found says busy.
	if (has_work(false))
		return UCS_ERR_BUSY;
	completion_bell_.drain();
	return has_work(true) ? UCS_ERR_BUSY : UCS_OK;
}

bool Iface::has_work(bool want_rings)
{
	if (!backlog_.empty() || !copy_backlog_.empty())
		return true;
	for (auto &kv : peers_) {
		const Mailbox &mb = kv.second->mb;
		for (auto &c : kv.second->chunks)
			if (want_rings ? !mb.want_ring(c.slot)
				       : mb.slot(c.slot).state.load(std::memory_order_acquire) ==
						 kSlotDone)
				return true;
	}
	if (server_ && server_->has_posted())
		return true;
	for (auto &kv : channels_) {
		auto &q = kv.second;
		if (!q.parts.empty() &&
		    hlthunk_ipc_wait(q.id, q.parts.front().first, 0) != -ETIMEDOUT)
			return true;
	}
	for (Ep *ep : eps_)
		if (ep->has_pending() && !at_capacity())
			return true;
	return false;
}

ChannelQueue *Iface::channel(int src, int dst)
{
	auto key = std::make_pair(src, dst);
	auto it = channels_.find(key);
	if (it != channels_.end())
		return it->second.id ? &it->second : nullptr;
	ChannelQueue q;
	int fds[2] = {-1, -1};
	uint32_t flags = 0;
	const int devs[2] = {src, dst};
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		if (devs[i] == kHostDevice) {
			flags |= i == 0 ? HLTHUNK_IPC_CHANNEL_SRC_HOST
					: HLTHUNK_IPC_CHANNEL_DST_HOST;
			continue;
		}
		fds[i] = DeviceNodes::get().control_fd(device_bus(devs[i]));
		if (fds[i] < 0)
			rc = fds[i];
	}
	if (rc == 0)
		rc = hlthunk_ipc_channel_create_ex(fds[0], fds[1], flags, &q.id);
	if (rc < 0) {
		q.id = 0;
		q.error = rc;
		ucs_diag("gaudi_ipc: no channel %s -> %s, that pair takes the staged "
			 "path: %s",
			 src ? device_bus(src).c_str() : "host",
			 dst ? device_bus(dst).c_str() : "host", library_message(rc));
	}
	auto &slot = channels_.emplace(key, std::move(q)).first->second;
	return slot.id ? &slot : nullptr;
}

void Iface::remove_ep(Ep *ep)
{
	for (auto &op : ops_)
		if (op.ep == ep)
			op.ep = nullptr;
	eps_.erase(std::remove(eps_.begin(), eps_.end(), ep), eps_.end());
}

}  // namespace gaudi_ipc
