// SPDX-License-Identifier: MIT
// The messages two hl-ipc processes (A and B, one device each) exchange
// in the demo and the benchmark.  A asks, B answers, through a PeerLink
// (shared memory); the greeting and the UCX set-up's data go over a unix
// socket, whose hang-up also tells either side that the other died.
#pragma once

#include <cstdint>

#include "peer_link.h"

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
	kUcxSetup,   // B opens the gaudi_ipc UCT transport, registers its
		     // destination; the reply is followed by a UcxInfo
	kPing,       // B answers at once: one hand-over and nothing else
	kTimeH2D,    // a: size, b: count: B's DMA host -> device, count times;
		     // the reply's status is the median nanoseconds of one
	kPieceH2D,   // a: length, b: offset in the staging buffer, c: offset
		     // in B's destination: one piece of a pipelined transfer
};

struct Msg {
	uint32_t type;
	int32_t status;  // replies: 0 ok, < 0 -errno, > 0 first bad byte + 1
	uint64_t a, b, c, d;
	char text[48];
};

// What B hands A for the UCX row: its interface address, the remote key
// of its destination buffer, and that buffer's address.
struct UcxInfo {
	uint32_t addr_len;
	uint32_t rkey_len;
	uint64_t dst_addr;
	uint8_t data[240];  // address, then remote key
};

// These end the process (_exit(1), with a message) if the peer is gone:
// both processes are the tool's own, there is nothing to recover.
void send_msg(int sock, const Msg &m);
Msg recv_msg(int sock);
Msg request(PeerLink &link, uint32_t type, uint64_t a = 0, uint64_t b = 0);
void reply(PeerLink &link, int32_t status);
void send_ucx_info(int sock, const UcxInfo &info);
UcxInfo recv_ucx_info(int sock);

}  // namespace hlipc
