// SPDX-License-Identifier: MIT
// A memory registration of the gaudi_ipc domain (uct_mem_h): what the
// channel path and the staged path each need to reach the memory, and
// what peers were granted.
#pragma once

#include <cstdint>

namespace gaudi_ipc {

struct Memh {
	uint64_t addr;            // as the program registered it
	uint64_t length;
	bool device;              // a device VA of this process (else host memory)
	char bus[16];             // its device ("" for host memory)
	int dev;                  // device_index(bus)
	// Channel path: the /dev/hl_ipc region of exactly this range, with
	// exactly the access peers were granted; its cookie goes into the
	// remote key (0: none, also when the kernel's region would be wider:
	// device memory not in whole pages).
	uint64_t cookie;
	uint64_t cookie_offset;   // where addr lies in the region
	// The region this process's own copies use: the same one; a wider one
	// (whole pages of device memory); or, when the program may write the
	// memory but peers may not (LOCAL_WRITE without REMOTE_PUT), a
	// writable one.  Its cookie never leaves the process.
	uint64_t local_cookie;
	uint64_t local_cookie_offset;
	bool remote_writable;     // peers may put into it
	bool local_writable;      // this process may get into it
	// Staged path: the key of the process's registry (0: none).
	uint64_t stage_key;
	// UCX 1.18's contract for invalidating deregistrations: the memory
	// was registered for puts or gets (not for atomics alone, which the
	// domain cannot invalidate: no UCT_MD_FLAG_INVALIDATE_AMO), and a key
	// of it was packed with UCT_MD_MKEY_PACK_FLAG_INVALIDATE_RMA.
	bool rma_access;
	bool packed_invalidatable;

	// Device memory whose regions hold a dma-buf export of it: the driver
	// refuses to unmap it until it is deregistered, so it stays mapped.
	bool exported() const { return device && (cookie != 0 || local_cookie != 0); }
};

}  // namespace gaudi_ipc
