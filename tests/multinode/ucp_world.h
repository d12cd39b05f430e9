// SPDX-License-Identifier: MIT
// UcpWorld: one UCP context and worker of a test process, and what the
// two-host UCP test does with them: memory maps with their packed remote
// keys, endpoints to peers (peer-failure error handling), put, get and
// flush whose waits are bounded, and the lanes UCP chose for an endpoint.
// Nothing here throws; failures are UCS statuses.
#pragma once

#include <ucp/api/ucp.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mntest {

// A registered buffer of this process and its packed remote key.
class UcpMemMap {
public:
	UcpMemMap() = default;
	UcpMemMap(const UcpMemMap &) = delete;
	UcpMemMap &operator=(const UcpMemMap &) = delete;
	~UcpMemMap() { reset(); }
	// ucp_mem_map of [addr, addr + len) and ucp_rkey_pack.
	ucs_status_t map(ucp_context_h ctx, void *addr, size_t len);
	void reset();
	const std::vector<uint8_t> &rkey() const { return rkey_; }

private:
	ucp_context_h ctx_ = nullptr;
	ucp_mem_h memh_ = nullptr;
	std::vector<uint8_t> rkey_;
};

class UcpWorld {
public:
	UcpWorld() = default;
	UcpWorld(const UcpWorld &) = delete;
	UcpWorld &operator=(const UcpWorld &) = delete;
	~UcpWorld();

	// A context for RMA, configured from the environment (UCX_*) with
	// the settings in overrides applied on top, and its worker.
	ucs_status_t init(const std::vector<std::pair<std::string, std::string>> &overrides,
			  std::string *why);
	ucp_context_h ctx() const { return ctx_; }
	const std::vector<uint8_t> &address() const { return address_; }
	unsigned progress() { return ucp_worker_progress(worker_); }

	// An endpoint to the worker at address (with peer-failure error
	// handling: on_error(arg, status) when UCX declares it failed) and
	// the peer's remote key unpacked on it.  Returns its index.
	ucs_status_t connect(const std::vector<uint8_t> &address,
			     const std::vector<uint8_t> &rkey, size_t *index);
	// Put or get of len bytes at raddr of peer index, then (put) a flush
	// of the endpoint; waits up to timeout_ms, progressing the worker.
	// UCS_ERR_TIMED_OUT if the operation did not finish.
	ucs_status_t put(size_t index, const void *buf, size_t len, uint64_t raddr,
			 int timeout_ms);
	ucs_status_t get(size_t index, void *buf, size_t len, uint64_t raddr,
			 int timeout_ms);
	// The endpoint's lanes as ucp_ep_print_info shows them.
	std::vector<std::string> lanes(size_t index);
	// What the error handler saw for peer index: UCS_OK if nothing.
	ucs_status_t peer_error(size_t index) const { return peers_[index].error; }
	// Closes every endpoint (FORCE: after the test's own last barrier).
	void close_all();

private:
	struct Peer {
		ucp_ep_h ep = nullptr;
		ucp_rkey_h rkey = nullptr;
		ucs_status_t error = UCS_OK;
	};
	static void on_error(void *arg, ucp_ep_h ep, ucs_status_t status);
	ucs_status_t wait(ucs_status_ptr_t req, int timeout_ms);

	ucp_context_h ctx_ = nullptr;
	ucp_worker_h worker_ = nullptr;
	std::vector<uint8_t> address_;
	// Stable addresses: the error handler's argument points into it.
	std::vector<Peer> peers_ = std::vector<Peer>(8);
	size_t npeers_ = 0;
};

}  // namespace mntest
