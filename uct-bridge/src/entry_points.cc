// SPDX-License-Identifier: MIT
#include "entry_points.h"

#include <cstring>
#include <memory>

#include "ep.h"
#include "iface.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// Operations the transport does not offer (active messages, atomics,
// tags, ...): UCX never calls them for a transport without the
// capability flags, but the table has no holes.
template <typename... A>
ucs_status_t unsupported(A...)
{
	return UCS_ERR_UNSUPPORTED;
}
template <typename... A>
ssize_t unsupported_size(A...)
{
	return UCS_ERR_UNSUPPORTED;
}
template <typename... A>
ucs_status_ptr_t unsupported_ptr(A...)
{
	return UCS_STATUS_PTR(UCS_ERR_UNSUPPORTED);
}

Ep *ep_of(uct_ep_h ep) { return Ep::from(ep); }
Iface *iface_of(uct_iface_h iface) { return Iface::from(iface); }

// Every data operation as UCX's data log (UCX_LOG_LEVEL=data) shows those
// of its own transports: one line each, empty ones included.
void trace(uct_ep_h ep, const char *op, size_t length, uint64_t remote_addr, uct_rkey_t rkey)
{
	ucs_trace_data("gaudi_ipc: ep %p %s %zu bytes at 0x%" PRIx64 " rkey 0x%" PRIxPTR, ep, op,
		       length, remote_addr, static_cast<uintptr_t>(rkey));
}

ucs_status_t ep_put_short(uct_ep_h ep, const void *buffer, unsigned length,
			  uint64_t remote_addr, uct_rkey_t rkey)
{
	trace(ep, "put_short", length, remote_addr, rkey);
	return guarded([&] { return ep_of(ep)->put_short(buffer, length, remote_addr, rkey); });
}

ucs_status_t ep_get_short(uct_ep_h ep, void *buffer, unsigned length, uint64_t remote_addr,
			  uct_rkey_t rkey)
{
	trace(ep, "get_short", length, remote_addr, rkey);
	return guarded([&] { return ep_of(ep)->get_short(buffer, length, remote_addr, rkey); });
}

ssize_t ep_put_bcopy(uct_ep_h ep, uct_pack_callback_t pack_cb, void *arg,
		     uint64_t remote_addr, uct_rkey_t rkey)
{
	const ssize_t n = guarded([&]() -> ssize_t {
		return ep_of(ep)->put_bcopy(pack_cb, arg, remote_addr, rkey);
	});
	// The length is the packer's: known once packed (none on an error).
	trace(ep, "put_bcopy", n > 0 ? static_cast<size_t>(n) : 0, remote_addr, rkey);
	return n;
}

ucs_status_t ep_put_zcopy(uct_ep_h ep, const uct_iov_t *iov, size_t iovcnt,
			  uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	trace(ep, "put_zcopy", uct_iov_total_length(iov, iovcnt), remote_addr, rkey);
	return guarded([&] {
		return ep_of(ep)->put_zcopy(iov, iovcnt, remote_addr, rkey, comp);
	});
}

ucs_status_t ep_get_bcopy(uct_ep_h ep, uct_unpack_callback_t unpack_cb, void *arg,
			  size_t length, uint64_t remote_addr, uct_rkey_t rkey,
			  uct_completion_t *comp)
{
	trace(ep, "get_bcopy", length, remote_addr, rkey);
	return guarded([&] {
		return ep_of(ep)->get_bcopy(unpack_cb, arg, length, remote_addr, rkey, comp);
	});
}

ucs_status_t ep_get_zcopy(uct_ep_h ep, const uct_iov_t *iov, size_t iovcnt,
			  uint64_t remote_addr, uct_rkey_t rkey, uct_completion_t *comp)
{
	trace(ep, "get_zcopy", uct_iov_total_length(iov, iovcnt), remote_addr, rkey);
	return guarded([&] {
		return ep_of(ep)->get_zcopy(iov, iovcnt, remote_addr, rkey, comp);
	});
}

ucs_status_t ep_pending_add(uct_ep_h ep, uct_pending_req_t *req, unsigned flags)
{
	return ep_of(ep)->pending_add(req, flags);
}

void ep_pending_purge(uct_ep_h ep, uct_pending_purge_callback_t cb, void *arg)
{
	ep_of(ep)->pending_purge(cb, arg);
}

ucs_status_t ep_flush(uct_ep_h ep, unsigned flags, uct_completion_t *comp)
{
	return guarded([&] { return ep_of(ep)->flush(flags, comp); });
}

ucs_status_t ep_fence(uct_ep_h ep, unsigned flags) { return ep_of(ep)->fence(flags); }

ucs_status_t ep_check(uct_ep_h ep, unsigned flags, uct_completion_t *comp)
{
	return ep_of(ep)->check(flags, comp);
}

ucs_status_t ep_create(const uct_ep_params_t *params, uct_ep_h *ep_p)
{
	if (!(params->field_mask & UCT_EP_PARAM_FIELD_IFACE)) {
		ucs_error("gaudi_ipc: an endpoint connects to an interface: "
			  "iface, dev_addr and iface_addr are required");
		return UCS_ERR_INVALID_PARAM;
	}
	return guarded([&] { return iface_of(params->iface)->create_ep(params, ep_p); });
}

void ep_destroy(uct_ep_h ep)
{
	std::unique_ptr<Ep> e(ep_of(ep));
}

ucs_status_t iface_flush(uct_iface_h iface, unsigned flags, uct_completion_t *comp)
{
	return iface_of(iface)->flush(flags, comp);
}

ucs_status_t iface_fence(uct_iface_h iface, unsigned flags)
{
	return iface_of(iface)->fence(flags);
}

unsigned iface_progress(uct_iface_h iface)
{
	try {
		return iface_of(iface)->progress();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory in progress");
		return 0;
	}
}

ucs_status_t iface_event_fd_get(uct_iface_h iface, int *fd_p)
{
	return guarded([&] { return iface_of(iface)->event_fd_get(fd_p); });
}

ucs_status_t iface_event_arm(uct_iface_h iface, unsigned events)
{
	return iface_of(iface)->event_arm(events);
}

void iface_close(uct_iface_h iface)
{
	try {
		iface_of(iface)->close();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory closing an interface");
	}
}

ucs_status_t iface_query(uct_iface_h iface, uct_iface_attr_t *attr)
{
	return iface_of(iface)->query(attr);
}

ucs_status_t iface_get_device_address(uct_iface_h iface, uct_device_addr_t *addr)
{
	return iface_of(iface)->get_device_address(addr);
}

ucs_status_t iface_get_address(uct_iface_h iface, uct_iface_addr_t *addr)
{
	return iface_of(iface)->get_address(addr);
}

int iface_is_reachable(const uct_iface_h iface, const uct_device_addr_t *dev_addr,
		       const uct_iface_addr_t *iface_addr)
{
	return iface_of(iface)->is_reachable(dev_addr, iface_addr);
}

#if HL_UCX_1_18
// UCX 1.18's reachability and connection checks go through the
// interface's internal table.
int iface_is_reachable_v2(const uct_iface_h iface, const uct_iface_is_reachable_params_t *params)
{
	if (!uct_iface_is_reachable_params_valid(params,
						 UCT_IFACE_IS_REACHABLE_FIELD_DEVICE_ADDR |
							 UCT_IFACE_IS_REACHABLE_FIELD_IFACE_ADDR))
		return 0;
	if (iface_of(iface)->is_reachable(params->device_addr, params->iface_addr))
		return 1;
	uct_iface_fill_info_str_buf(params, "another node or namespace, or no path both "
					    "ends offer");
	return 0;
}

int ep_is_connected(uct_ep_h ep, const uct_ep_is_connected_params_t *params)
{
	const uint64_t need = UCT_EP_IS_CONNECTED_FIELD_DEVICE_ADDR |
			      UCT_EP_IS_CONNECTED_FIELD_IFACE_ADDR;
	if ((params->field_mask & need) != need)
		return 0;
	return iface_of(ep->iface)->is_reachable(params->device_addr, params->iface_addr) &&
	       ep_of(ep)->connects_to(params->iface_addr);
}

void iface_vfs_refresh(uct_iface_h) {}
#endif

}  // namespace

uct_iface_internal_ops_t *iface_internal_ops()
{
#if HL_UCX_1_18
	static uct_iface_internal_ops_t ops = [] {
		uct_iface_internal_ops_t o;
		memset(&o, 0, sizeof(o));
		o.iface_estimate_perf = uct_base_iface_estimate_perf;
		o.iface_vfs_refresh = iface_vfs_refresh;
		o.ep_query = unsupported;
		o.ep_invalidate = unsupported;
		o.ep_connect_to_ep_v2 = unsupported;
		o.iface_is_reachable_v2 = iface_is_reachable_v2;
		o.ep_is_connected = ep_is_connected;
		return o;
	}();
	return &ops;
#else
	return &uct_base_iface_internal_ops;
#endif
}

ucs_status_t iface_open(uct_md_h md, uct_worker_h worker, const uct_iface_params_t *params,
			const uct_iface_config_t *config, uct_iface_h *iface_p)
{
	return Iface::open(iface_ops(), iface_internal_ops(), md, worker, params, config,
			   iface_p);
}

uct_iface_ops_t *iface_ops()
{
	static uct_iface_ops_t ops = [] {
		uct_iface_ops_t o;
		memset(&o, 0, sizeof(o));
		o.ep_put_short = ep_put_short;
		o.ep_put_bcopy = ep_put_bcopy;
		o.ep_put_zcopy = ep_put_zcopy;
		o.ep_get_short = ep_get_short;
		o.ep_get_bcopy = ep_get_bcopy;
		o.ep_get_zcopy = ep_get_zcopy;
		o.ep_am_short = unsupported;
		o.ep_am_short_iov = unsupported;
		o.ep_am_bcopy = unsupported_size;
		o.ep_am_zcopy = unsupported;
		o.ep_atomic_cswap64 = unsupported;
		o.ep_atomic_cswap32 = unsupported;
		o.ep_atomic32_post = unsupported;
		o.ep_atomic64_post = unsupported;
		o.ep_atomic32_fetch = unsupported;
		o.ep_atomic64_fetch = unsupported;
		o.ep_tag_eager_short = unsupported;
		o.ep_tag_eager_bcopy = unsupported_size;
		o.ep_tag_eager_zcopy = unsupported;
		o.ep_tag_rndv_zcopy = unsupported_ptr;
		o.ep_tag_rndv_cancel = unsupported;
		o.ep_tag_rndv_request = unsupported;
		o.iface_tag_recv_zcopy = unsupported;
		o.iface_tag_recv_cancel = unsupported;
		o.ep_pending_add = ep_pending_add;
		o.ep_pending_purge = ep_pending_purge;
		o.ep_flush = ep_flush;
		o.ep_fence = ep_fence;
		o.ep_check = ep_check;
		o.ep_create = ep_create;
		o.ep_connect = unsupported;
		o.ep_disconnect = unsupported;
		o.cm_ep_conn_notify = unsupported;
		o.ep_destroy = ep_destroy;
		o.ep_get_address = unsupported;
		o.ep_connect_to_ep = unsupported;
		o.iface_accept = unsupported;
		o.iface_reject = unsupported;
		o.iface_flush = iface_flush;
		o.iface_fence = iface_fence;
		o.iface_progress_enable = uct_base_iface_progress_enable;
		o.iface_progress_disable = uct_base_iface_progress_disable;
		o.iface_progress = iface_progress;
		o.iface_event_fd_get = iface_event_fd_get;
		o.iface_event_arm = iface_event_arm;
		o.iface_close = iface_close;
		o.iface_query = iface_query;
		o.iface_get_device_address = iface_get_device_address;
		o.iface_get_address = iface_get_address;
		o.iface_is_reachable = iface_is_reachable;
		return o;
	}();
	return &ops;
}

}  // namespace gaudi_ipc
