// SPDX-License-Identifier: MIT
// A memory registration of the gaudi_ipc domain (uct_mem_h): what the
// channel path and the staged path each need to reach the memory.
#pragma once

#include <cstdint>

namespace gaudi_ipc {

struct Memh {
	uint64_t addr;           // as the program registered it
	uint64_t length;
	bool device;             // a device VA of this process (else host memory)
	char bus[16];            // its device ("" for host memory)
	int dev;                 // device_index(bus)
	// Channel path: the /dev/hl_ipc region holding the range (0: none).
	uint64_t cookie;
	uint64_t cookie_offset;  // where addr lies in the region
	bool own_cookie;         // registered for this memh (host memory);
				 // device memory uses libhlthunk's cached one
	bool writable;
	// Staged path: the key of the process's registry (0: none).
	uint64_t stage_key;
};

}  // namespace gaudi_ipc
