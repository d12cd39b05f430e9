// SPDX-License-Identifier: MIT
// The messages two hl-ipc processes (A and B, one device each) exchange
// over a unix socket in the demo and the benchmark.  A asks, B answers.
#pragma once

#include <cstdint>

namespace hlipc {

enum MsgType : uint32_t {
	kHello = 1,  // a: dst cookie, b: device index, c: pid, d: pvw buffer
	kVerify,     // a: size, b: seed: B's device buffer holds the pattern?
	kClear,      // a: size: zero B's device buffer
	kStagedH2D,  // a: size: B's DMA host -> device
	kCopyBack,   // a: size: B's channel copy into A's buffer
	kVerifyHost, // a: size, b: seed: B's process_vm_writev buffer
	kQuit,
	kReply,
};

struct Msg {
	uint32_t type;
	int32_t status;  // replies: 0 ok, < 0 -errno, > 0 first bad byte + 1
	uint64_t a, b, c, d;
	char text[48];
};

// These end the process (_exit(1), with a message) if the peer is gone:
// both processes are the tool's own, there is nothing to recover.
void send_msg(int sock, const Msg &m);
Msg recv_msg(int sock);
Msg request(int sock, uint32_t type, uint64_t a = 0, uint64_t b = 0);
void reply(int sock, int32_t status);

}  // namespace hlipc
