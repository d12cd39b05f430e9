// SPDX-License-Identifier: MIT
// The other process of the bridge tests.  The test program starts itself
// again (fork + exec, so the peer's UCX starts clean) as a peer that owns
// one device and one gaudi_ipc interface, and does what the test asks over
// a unix socket: allocate, fill, check, register memory (answering with the
// packed remote key), and move data itself towards the test process.
// Between requests it drives its worker's progress, and its UCX async
// thread serves staged transfers too.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace uct_test {

enum PeerCmd : uint32_t {
	kHello = 1,   // -> blob: interface address; a: pid
	kAlloc,       // a: kind (0 host, 1 device), b: size -> a: id, b: address
	kFill,        // a: id, b: seed, c: offset, d: length, e: pattern base
	kCheck,       // a: id, b: seed, c: offset, d: length, e: pattern base
		      // -> a: first bad + 1 or 0
	kCheckZero,   // a: id, c: offset, d: length -> a: first non-zero + 1 or 0
	kZero,        // a: id
	kReg,         // a: id, b: UCT access flags (0: all), c: offset, d: length
		      // -> a: reg id, blob: packed rkey
	kDereg,       // a: reg id
	kFree,        // a: id
	kConnect,     // blob: the test's interface address -> a: ep id
	kXfer,        // a: 0 put / 1 get, b: id, c: offset, d: length,
		      // e: remote address, blob: packed rkey -> status
	kShm,         // b: size -> a: fd of a shared host buffer (memfd), which
		      // the peer mapped on its device: the staging buffer of
		      // the hand-written staged path the benchmark compares with
	kLink,        // -> a: fd of a memfd holding a hlipc::PeerLink page:
		      // the hand-over of the hand-written staged path
	kServeStaged, // a: id: answers the hand-written staged path's
		      // requests on the link (hlipc::answer_staged(), from the
		      // shared buffer into buffer id) until a kQuit comes on
		      // the link; then this reply
	kFds,         // a: 1 opens /dev/null until the fd table is full, 0 closes
		      // what it opened -> a: how many it holds
	kFlood,       // a: milliseconds, blob: an interface address: admitted
		      // there, holds one slot claimed and keeps every other one
		      // posted with a piece the owner answers at once, each
		      // posted again when answered, until the time is up or the
		      // owner hangs up -> a: pieces
	kExit,
};

struct PeerMsg {
	uint32_t cmd;
	int32_t status;
	uint64_t a, b, c, d, e;
	uint32_t blob_len;
	uint8_t blob[252];
};

class Peer {
public:
	// Starts a peer owning device index dev; `as_nobody` runs it as user
	// nobody (no device then: host memory only); env entries are added
	// to its environment.  A non-zero `memlock` runs it without
	// CAP_IPC_LOCK within that RLIMIT_MEMLOCK, as an unprivileged user's
	// process: what it pins for its device counts against it.  A
	// `run_as` uid other than -1 runs it as that user (and group).
	Peer(int dev, bool as_nobody = false,
	     const std::vector<std::string> &env = {}, uint64_t memlock = 0,
	     int run_as = -1);
	~Peer();
	Peer(const Peer &) = delete;
	Peer &operator=(const Peer &) = delete;

	bool ok() const { return sock_ >= 0 && hello_ok_; }
	pid_t pid() const { return pid_; }
	// The socket to the peer; its hang-up says the peer is gone.
	int sock() const { return sock_; }
	const std::vector<uint8_t> &address() const { return address_; }
	PeerMsg call(const PeerMsg &req);
	PeerMsg call(uint32_t cmd, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0,
		     uint64_t d = 0, uint64_t e = 0, const std::vector<uint8_t> &blob = {});
	// Sends a request without waiting for the answer (the peer may be
	// killed before it gives one); reply() reads it.
	bool post(uint32_t cmd, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0,
		  uint64_t d = 0, uint64_t e = 0, const std::vector<uint8_t> &blob = {});
	PeerMsg reply();
	// Kills it now (SIGKILL) and reaps it.
	void kill_now();

private:
	int sock_ = -1;
	pid_t pid_ = -1;
	bool hello_ok_ = false;
	std::vector<uint8_t> address_;
};

// The program peers run (default /proc/self/exe; under valgrind that is
// valgrind itself, so main() sets its own path).
void set_peer_program(const char *path);

// The peer's side: runs until kExit or the socket closes.  Returns the
// exit status.
int peer_main(int sock, int dev);

}  // namespace uct_test
