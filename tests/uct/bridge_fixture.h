// SPDX-License-Identifier: MIT
// What the bridge tests share: this process owns device 0, a peer process
// owns device 1; this process has two interfaces, one forced onto the
// channel path (UCX_GAUDI_IPC_CHANNELS=y) and one onto the staged path
// (=n), each with an endpoint to the peer; and helpers that move bytes
// and check every one of them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "peer.h"
#include "uct_env.h"

namespace uct_test {

enum class Path { Channel, Staged };

// Devices of habanalabs_sim num_devices=4: this process, the long-lived
// peer, and one for peers a test starts (one at a time: a compute node
// opens once).
constexpr int kOwnDevice = 0, kPeerDevice = 1, kSparePeerDevice = 2;
const char *path_name(Path p);

// Memory of the peer, registered whole.
struct RemoteBuffer {
	uint64_t id = 0;
	uint64_t addr = 0;
	uint64_t size = 0;
	std::vector<uint8_t> rkey;
};

// Allocates and registers memory of peer (kind: 0 host, 1 device); id 0
// if either failed.
RemoteBuffer remote_buffer(Peer &peer, int kind, uint64_t size);

class BridgeEnv {
public:
	static BridgeEnv &get();
	static void teardown_if_used();
	bool ready() const { return ready_; }
	const std::string &why() const { return why_; }
	int dev() const { return dev_; }
	Peer &peer() { return *peer_; }
	Iface &iface(Path p) { return p == Path::Channel ? *channel_ : *staged_; }
	uct_ep_h ep(Path p) { return p == Path::Channel ? ep_channel_ : ep_staged_; }
	void teardown();

	// Allocates and registers peer memory (kind: 0 host, 1 device).
	RemoteBuffer remote(int kind, uint64_t size);

private:
	BridgeEnv();
	bool ready_ = false;
	std::string why_;
	int dev_ = -1;
	std::unique_ptr<Peer> peer_;
	std::unique_ptr<Iface> channel_, staged_;
	uct_ep_h ep_channel_ = nullptr, ep_staged_ = nullptr;
};

// Moves [local + loff, +len) to or from raddr with a zero-copy operation
// on ep, waits for it and flushes.  Retries while the transport says
// NO_RESOURCE.
ucs_status_t zcopy(const Iface &i, uct_ep_h ep, bool get, const Buffer &local,
		   uint64_t loff, uct_mem_h memh, uint64_t raddr, uct_rkey_t rkey,
		   uint64_t len);
// The same for local memory at a host pointer or device VA.
ucs_status_t zcopy(const Iface &i, uct_ep_h ep, bool get, uint64_t local, uct_mem_h memh,
		   uint64_t raddr, uct_rkey_t rkey, uint64_t len);

// The kernel's count of completed channel copies (every process).
uint64_t kernel_copies();

// habanalabs_sim's delay before each command submission runs (one queue
// per device): the staged path's DMA engines become that slow.
void set_cs_delay(int ms);

// Runs op, driving progress, while the transport says NO_RESOURCE.
template <typename Op>
auto retry(const Iface &i, Op op) -> decltype(op())
{
	decltype(op()) r;
	while ((r = op()) == UCS_ERR_NO_RESOURCE)
		i.progress();
	return r;
}

class Bridge : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (!BridgeEnv::get().ready())
			GTEST_FAIL() << "set-up failed: " << BridgeEnv::get().why();
	}
	BridgeEnv &env() { return BridgeEnv::get(); }
	// A put or get of len bytes between a local buffer at loff and a peer
	// buffer at roff, with every byte and the bytes around the range
	// checked.
	void check_transfer(Path path, bool get, Buffer &local, uct_mem_h memh,
			    const RemoteBuffer &r, const RemoteKey &rk, uint64_t loff,
			    uint64_t roff, uint64_t len, uint32_t seed);
};

// The tests that play a hostile peer, owner or user (uct_*_test.cc).
class Hostile : public Bridge {
protected:
	void TearDown() override { set_cs_delay(0); }
};

}  // namespace uct_test
