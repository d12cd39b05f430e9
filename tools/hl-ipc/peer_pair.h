// SPDX-License-Identifier: MIT
// The two processes of the demo and the benchmark: this one (A, device 0)
// and a child (B, device 1) that serves A's requests (peer_side.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>

#include "mapping.h"
#include "peer_link.h"
#include "peer_side.h"

namespace hlipc {

struct Pair {
	Mapping host;        // shared: A's half, then B's half
	uint64_t host_size = 0;
	PeerLink link;       // A asks, B answers
	int sock = -1;       // A's end of the socket to B
	pid_t b_pid = -1;
	std::unique_ptr<Side> a;
	Peer b{};
};

// Checks the set-up (two devices, /dev/hl_ipc usable, with a message that
// says what to do otherwise), starts B and sets A up for buffers of up to
// max_size bytes.  0, or 1 after a message.
int start_pair(const char *tool, uint64_t max_size, Pair *p);

// Tells B to quit and waits for it.  0 if B ended well, else 1 (after a
// message).
int finish_pair(Pair *p);

}  // namespace hlipc
