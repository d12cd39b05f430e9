// SPDX-License-Identifier: MIT
// The demo's UCX row: the same device buffers moved through UCX, by the
// gaudi_ipc UCT transport of uct-bridge/.  Each process loads the
// transport (dlopen, before UCX looks for components), opens its memory
// domain and an interface; B registers its destination buffer and hands
// A the remote key and its interface address; A puts with
// uct_ep_put_zcopy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hlipc {

class UcxSide {
public:
	UcxSide();
	~UcxSide();
	UcxSide(const UcxSide &) = delete;
	UcxSide &operator=(const UcxSide &) = delete;

	// Loads the transport and opens its domain and an interface; false
	// with the reason in why() if UCX or the transport is not there.
	// staged: an interface that moves data by the staged path only
	// (UCX_GAUDI_IPC_CHANNELS=n), else one that uses channels.
	bool open(bool staged = false);
	const std::string &why() const { return why_; }
	// B: registers [addr, addr + len) and returns the packed remote key.
	bool expose(uint64_t addr, uint64_t len, std::vector<uint8_t> *rkey);
	// Device address then interface address, for the peer's endpoint.
	std::vector<uint8_t> address() const;
	// A: connects to B's interface and takes B's remote key.
	bool connect(const std::vector<uint8_t> &addr, const std::vector<uint8_t> &rkey);
	// A: registers its source buffer.
	bool register_source(uint64_t addr, uint64_t len);
	// A: puts len bytes from the source to remote_addr and waits for it.
	bool put(uint64_t src, uint64_t len, uint64_t remote_addr);

private:
	struct State;
	std::unique_ptr<State> s_;
	std::string why_;
};

}  // namespace hlipc
