// SPDX-License-Identifier: MIT
// The gaudi_ipc interface: what one UCX worker uses to move data.  It
// keeps the UCT face (opening, attributes, addresses, events, flush,
// progress), its endpoints, and the books of operations in flight
// (in_flight.h); the data moves on its two paths (path.h), each with its
// own state and progress step: the channel path (channel_path.h) and the
// staged path (staged_path.h), which also serves this interface's own
// mailbox.  Endpoints call the paths; a path tells the interface of a
// failed peer through a callback.
#pragma once

#include <cstdint>
#include <memory>

#include "addresses.h"
#include "channel_path.h"
#include "ep_shared.h"
#include "event_set.h"
#include "in_flight.h"
#include "staged_path.h"
#include "transport_config.h"
#include "ucx.h"

namespace gaudi_ipc {

class Iface;

// What UCX sees: uct_base_iface_t first, so a uct_iface_h converts to it.
struct IfaceHandle {
	uct_base_iface_t super;
	Iface *self;
};

class Iface {
public:
	// uct_tl_t::iface_open, with UCX's table of the transport's
	// operations (entry_points.h).
	static ucs_status_t open(uct_iface_ops_t *ops, uct_iface_internal_ops_t *internal_ops,
				 uct_md_h md, uct_worker_h worker,
				 const uct_iface_params_t *params,
				 const uct_iface_config_t *config, uct_iface_h *iface_p);
	static Iface *from(uct_iface_h iface)
	{
		return reinterpret_cast<IfaceHandle *>(iface)->self;
	}

	explicit Iface(const IfaceConfig &config);
	Iface(const Iface &) = delete;
	Iface &operator=(const Iface &) = delete;
	~Iface();

	uct_iface_h handle() { return &h_.super.super; }

	// uct_iface_ops_t
	void close();
	ucs_status_t create_ep(const uct_ep_params_t *params, uct_ep_h *ep_p);
	ucs_status_t query(uct_iface_attr_t *attr) const;
	ucs_status_t get_device_address(uct_device_addr_t *addr) const;
	ucs_status_t get_address(uct_iface_addr_t *addr) const;
	int is_reachable(const uct_device_addr_t *dev, const uct_iface_addr_t *iface) const;
	unsigned progress();
	ucs_status_t flush(unsigned flags, uct_completion_t *comp);
	ucs_status_t fence(unsigned flags);
	ucs_status_t event_fd_get(int *fd_p);
	ucs_status_t event_arm(unsigned events);

private:
	ucs_status_t init();
	bool has_work(bool want_rings);
	// The endpoints to a process that failed: later operations fail with
	// status, and UCX is told at the end of progress (its handler may
	// destroy them).
	void fail_eps(const ProcessId &peer, ucs_status_t status);
	void report_failed_eps();
	void dispatch_pending();
	static ChannelPath::Settings channel_settings(const IfaceConfig &c);
	static StagedPath::Settings staged_settings(const IfaceConfig &c);

	IfaceHandle h_;
	double bandwidth_, latency_, overhead_;
	ucs_ternary_auto_value_t mode_;  // UCX_GAUDI_IPC_CHANNELS
	uint64_t nonce_;
	uint64_t peer_timeout_;  // ucs_time_t units

	// The paths use the operations and the event set: declared first,
	// destroyed last.
	InFlight ops_;
	EventSet events_;
	ChannelPath channel_;
	std::unique_ptr<StagedPath> staged_;
	EpShared shared_;
	bool initialized_ = false;
};

}  // namespace gaudi_ipc
