// SPDX-License-Identifier: MIT
// An operation of the staged path: the local memory it reads (put) or
// writes (get), what remains to be posted to the peer's slots, and the
// data of a buffered operation that goes through a buffer of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device_index.h"
#include "op.h"
#include "ucx.h"

namespace gaudi_ipc {

struct DeviceContext;
struct StagedPeer;

// A piece of local memory an operation reads (put) or writes (get).
struct Piece {
	uint64_t addr;  // host pointer, or device VA of device `dev`
	uint64_t len;
	int dev;        // device_index; kHostDevice for host memory
	// Its registration holds a dma-buf export of it: the driver refuses
	// to unmap it meanwhile, so it stays mapped on `dev`.
	bool exported = false;
	// Device memory, resolved when the operation first moves part of it
	// (and, unless exported, checked then, as a whole, to be mapped on
	// `dev`): that device's context in this process.
	DeviceContext *ctx = nullptr;
};

struct StagedOp : Op {
	bool get = false;
	std::vector<Piece> pieces;  // local memory, in transfer order
	uint64_t total = 0;         // bytes
	uint64_t posted = 0;        // bytes handed to slots so far
	uint64_t key = 0;           // the owner's registry key
	uint64_t remote_off = 0;    // offset of byte 0 in that registration
	std::shared_ptr<StagedPeer> peer;  // keeps its mailbox open
	// Buffered operations: get_bcopy's unpack callback, and the data of a
	// buffered operation larger than the peer's slot (the operation's one
	// host piece), handed to unpack when it is all there.
	uct_unpack_callback_t unpack = nullptr;
	void *unpack_arg = nullptr;
	std::vector<unsigned char> bounce;

	// Back to a new operation, keeping the memory of its vectors (but a
	// large bounce buffer's).
	void reset()
	{
		constexpr size_t kKeepBounce = 64 << 10;
		reset_common();
		get = false;
		pieces.clear();
		total = posted = key = remote_off = 0;
		peer.reset();
		unpack = nullptr;
		unpack_arg = nullptr;
		if (bounce.capacity() > kKeepBounce)
			std::vector<unsigned char>().swap(bounce);
		bounce.clear();
	}
};

}  // namespace gaudi_ipc
