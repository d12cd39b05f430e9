// SPDX-License-Identifier: MIT
// The gaudi_ipc interface: what one UCX worker uses to move data.  It
// keeps the UCT face (opening, attributes, addresses, events, flush,
// progress) and the operations in flight (ops.h); the data moves on its
// two paths, each a class with its own state and progress step: the
// channel path (channel_path.h) and the staged path (staged_path.h),
// which also serves this interface's own mailbox.  Endpoints call the
// paths; nobody reaches into another's state.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "addresses.h"
#include "channel_path.h"
#include "event_set.h"
#include "ops.h"
#include "staged_path.h"
#include "transport_config.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;
class Iface;
class Md;

// What UCX sees: uct_base_iface_t first, so a uct_iface_h converts to it.
struct IfaceHandle {
	uct_base_iface_t super;
	Iface *self;
};

class Iface {
public:
	static ucs_status_t open(uct_md_h md, uct_worker_h worker,
				 const uct_iface_params_t *params,
				 const uct_iface_config_t *config, uct_iface_h *iface_p);
	static Iface *from(uct_iface_h iface)
	{
		return reinterpret_cast<IfaceHandle *>(iface)->self;
	}

	Iface(Md *md, const IfaceConfig &config);
	Iface(const Iface &) = delete;
	Iface &operator=(const Iface &) = delete;
	~Iface();

	uct_iface_h handle() { return &h_.super.super; }
	uct_base_iface_t *base() { return &h_.super; }

	// uct_iface_ops_t
	void close();
	ucs_status_t query(uct_iface_attr_t *attr) const;
	ucs_status_t get_device_address(uct_device_addr_t *addr) const;
	ucs_status_t get_address(uct_iface_addr_t *addr) const;
	int is_reachable(const uct_device_addr_t *dev, const uct_iface_addr_t *iface) const;
	unsigned progress();
	ucs_status_t flush(unsigned flags, uct_completion_t *comp);
	ucs_status_t fence(unsigned flags);
	ucs_status_t event_fd_get(int *fd_p);
	ucs_status_t event_arm(unsigned events);

	// The longest put_short: it goes through the bcopy buffers, which are
	// never shorter.
	static constexpr size_t kMaxShort = 256;

	// Used by endpoints.
	struct Settings {
		uint64_t sync_copy_max;
		uint64_t bcopy_size;
	};
	const Settings &settings() const { return set_; }
	ChannelPath &channels() { return channel_; }
	StagedPath &staged() { return *staged_; }
	Ops &ops() { return ops_; }
	bool staged_on() const { return staged_allowed_; }
	bool at_capacity() const { return ops_.at_capacity(); }
	void add_ep(Ep *ep) { eps_.push_back(ep); }
	void remove_ep(Ep *ep);
	bool has_ep(Ep *ep) const;
	// Operations and bytes per path, reported when the interface closes.
	void count(bool channel, uint64_t bytes)
	{
		(channel ? channel_ops_ : staged_ops_)++;
		(channel ? channel_bytes_ : staged_bytes_) += bytes;
	}
	// The endpoints to a process that failed: later operations fail with
	// status, and UCX is told at the end of progress (its handler may
	// destroy them).
	void fail_eps(const ProcessId &peer, ucs_status_t status);
	void ep_failed(Ep *ep) { failed_eps_.push_back(ep); }

private:
	ucs_status_t init();
	bool has_work(bool want_rings);
	void report_failed_eps();
	void dispatch_pending();
	static ChannelPath::Settings channel_settings(const IfaceConfig &c);
	static StagedPath::Settings staged_settings(const IfaceConfig &c);

	IfaceHandle h_;
	Md *md_;
	Settings set_;
	double bandwidth_, latency_, overhead_;
	ucs_ternary_auto_value_t mode_;  // UCX_GAUDI_IPC_CHANNELS
	bool staged_allowed_;
	uint64_t nonce_;
	uint64_t peer_timeout_;  // ucs_time_t units
	uint64_t channel_ops_ = 0, channel_bytes_ = 0, staged_ops_ = 0, staged_bytes_ = 0;

	// The paths use the operations and the event set: declared first,
	// destroyed last.
	Ops ops_;
	EventSet events_;
	ChannelPath channel_;
	std::unique_ptr<StagedPath> staged_;
	std::vector<Ep *> eps_;
	std::vector<Ep *> failed_eps_;  // UCX not told yet
	bool initialized_ = false;
};

}  // namespace gaudi_ipc
