// SPDX-License-Identifier: MIT
// One of the two processes of the demo and the benchmark: it owns one
// device, a source and a destination buffer in its memory, a DMA engine
// for the staged path, and a channel to the other process's device.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "demo_ucx.h"
#include "device_buffer.h"
#include "hlthunk.h"
#include "mapping.h"
#include "peer_link.h"
#include "staged_dma.h"

namespace hlipc {

struct Side {
	Side(const char *tool_, const char *name_, int index_)
		: tool(tool_), name(name_), index(index_)
	{
	}
	const char *tool;  // "hl-ipc demo": prefix of messages
	const char *name;  // "A" or "B"
	int index;         // device index
	int fd = -1;
	std::string bus;
	DeviceBuffer src, dst;
	StagedDma dma;
	unsigned char *host = nullptr;  // the host buffer shared by A and B
	uint64_t host_va = 0;           // ... mapped for this device
	Mapping pvw;                    // private host memory (process_vm_writev)
	// Private host memory mapped for the device, through which the
	// device's DMA fills, clears and checks device memory: the CPU does
	// not map a Gaudi's device memory.
	Mapping scratch;
	uint64_t scratch_va = 0;
	hlthunk_ipc_cookie dst_cookie = 0;  // 0: /dev/hl_ipc refused dst
	std::string no_channel;         // why, when there is no channel
	int peer_ctl = -1;          // control node of the peer's device
	uint64_t peer_dst_va = 0;   // the peer's destination, imported
	uint32_t channel = 0;       // this device -> peer device
	std::unique_ptr<UcxSide> ucx;         // the UCX rows (demo): channels
	std::unique_ptr<UcxSide> ucx_staged;  // ... and the staged path (A)
	uint64_t peer_dst_addr = 0;    // the peer's destination, for UCX
};

struct Peer {
	int index;
	std::string bus;
	pid_t pid;
	uint64_t pvw_addr;  // the peer's private host buffer
};

// Prints what failed, with what to do about it (the group to join, the
// process that holds a busy device), and ends the process.
[[noreturn]] void die(const Side &s, const char *what, int err);

// Opens this side's device, fills its source buffer with the DMA engine
// from its half of the host buffer (pattern seed index + 1), registers its
// destination buffer (where /dev/hl_ipc refuses it, as device memory that
// no engine may reach, says why in no_channel) and maps a private host
// buffer of max_size.
void setup(Side &s, uint64_t max_size, unsigned char *host, uint64_t host_size);

// Swaps cookies with the peer, imports the peer's and opens a channel
// (none when either side's memory was refused: no_channel says why).
Peer connect_peer(Side &s, int sock);

// B's side: answers A's requests on the link until kQuit (the UCX set-up's
// data goes over the socket).  Returns the exit status.
int serve(Side &b, PeerLink &link, int sock);

// 0 if the first size bytes of p hold the pattern of seed, else the first
// bad offset + 1 (the reply status of kVerify).
int32_t verify_pattern(const unsigned char *p, uint64_t size, uint32_t seed);
// The same for size bytes of device memory at va, read by the device's DMA
// (or -errno of the DMA).
int32_t verify_device(Side &s, uint64_t va, uint64_t size, uint32_t seed);
// Zeroes size bytes of device memory at va with the device's DMA; 0 or
// -errno.
int clear_device(Side &s, uint64_t va, uint64_t size);

}  // namespace hlipc
