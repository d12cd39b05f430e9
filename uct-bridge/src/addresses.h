// SPDX-License-Identifier: MIT
// The transport's addresses.  The device address is the node (boot id and
// namespaces); the interface address is the process and what it offers:
// channels (/dev/hl_ipc usable there) and the staged path (a mailbox,
// reached through the admission socket its nonce names: admission.h).
// Endpoints connect to interfaces.  An address is what its sender says:
// who really listens is checked with the kernel when the staged path
// connects.
#pragma once

#include <cstdint>

#include "node_identity.h"

namespace gaudi_ipc {

// UCP packs device addresses of at most 31 bytes: the node as two hashes,
// enough to tell equal from different.
struct DeviceAddr {
	uint64_t boot;        // of the boot id
	uint64_t namespaces;  // of the pid, mount and network namespaces
};
static_assert(sizeof(DeviceAddr) <= 31, "UCP's limit for device addresses");

DeviceAddr device_addr(const NodeId &n);

enum IfaceAddrFlags : uint32_t {
	kAddrChannels = 1 << 0,  // takes part in channel copies
	kAddrMailbox = 1 << 1,   // serves the staged path
};

struct IfaceAddr {
	uint32_t pid;
	uint32_t flags;        // IfaceAddrFlags
	uint64_t start;        // process start time
	uint64_t nonce;        // names the interface's admission socket
	uint64_t reserved;     // 0
};
static_assert(sizeof(IfaceAddr) == 32 && sizeof(IfaceAddr) <= 63,
	      "the layout is fixed; UCP packs at most 63 bytes");

}  // namespace gaudi_ipc
