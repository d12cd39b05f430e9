// SPDX-License-Identifier: MIT
// An operation in flight: a put or get that did not complete inside the
// call.  Its parts (channel copies, staged pieces) finish independently;
// when the last one has, and the operation was fully started, it is
// finished with the first error of any part, and its completion is called
// from the interface's progress (ops.h).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "hlthunk.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;
struct DeviceDma;
struct StagedPeer;

// A piece of local memory an operation reads (put) or writes (get).
struct Piece {
	uint64_t addr;  // host pointer, or device VA of device `dev`
	uint64_t len;
	int dev;        // device_index; kHostDevice for host memory
	// Its registration holds a dma-buf export of it: the driver refuses
	// to unmap it meanwhile, so it stays mapped on `dev`.
	bool exported = false;
	// Device memory on the staged path, resolved when the operation first
	// moves part of it (and, unless exported, checked then, as a whole, to
	// be mapped on `dev`): that device's DMA engine, and the peer's staging
	// memory as the device sees it.
	DeviceDma *dma = nullptr;
	uint64_t staging_va = 0;
};

struct Op {
	Ep *ep;                     // null once the endpoint is destroyed
	uct_completion_t *comp;     // may be null
	ucs_status_t status = UCS_OK;
	unsigned parts = 0;         // parts in flight
	bool started = false;       // every part has been submitted
	bool finished = false;      // queued for its completion
	uint64_t index = 0;         // issue order on its endpoint
	std::list<Op>::iterator self;

	// Channel path, segment mode: the copies and how far they got.
	std::vector<struct hlthunk_ipc_copy> copies;
	size_t copy_index = 0;
	uint64_t copy_done = 0;  // bytes of copies[copy_index] done

	// Staged path: what remains to be posted.
	bool get = false;
	std::vector<Piece> pieces;  // local memory, in transfer order
	uint64_t total = 0;         // bytes
	uint64_t posted = 0;        // bytes handed to slots so far
	uint64_t key = 0;           // the target's registry key
	uint64_t remote_off = 0;    // offset of byte 0 in that registration
	std::shared_ptr<StagedPeer> peer;  // keeps its mailbox open
	// Buffered operations: get_bcopy's unpack callback, and the data of a
	// buffered operation larger than the peer's slot (the operation's
	// one host piece), handed to unpack when it is all there.
	uct_unpack_callback_t unpack = nullptr;
	void *unpack_arg = nullptr;
	std::vector<unsigned char> bounce;

	// Every field above back to a new operation's, but for the memory
	// the vectors hold and `self` (operations are reused, ops.h).
	void reset()
	{
		ep = nullptr;
		comp = nullptr;
		status = UCS_OK;
		parts = 0;
		started = false;
		finished = false;
		index = 0;
		copies.clear();
		copy_index = 0;
		copy_done = 0;
		get = false;
		pieces.clear();
		total = 0;
		posted = 0;
		key = 0;
		remote_off = 0;
		peer.reset();
		unpack = nullptr;
		unpack_arg = nullptr;
		bounce.clear();
	}
};

}  // namespace gaudi_ipc
