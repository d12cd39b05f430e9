// SPDX-License-Identifier: MIT
// The state of /dev/hl_ipc: its node and access, the INFO ioctl (ABI
// version, features, limits) and the module's live counters in sysfs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "devices.h"
#include "uapi/habanalabs_ipc.h"

namespace hlipc {

// The group the udev rules give the nodes to (70-habanalabs-ipc.rules).
inline constexpr const char *kAccessGroup = "hl";

struct IpcState {
	bool node_present = false;
	NodeAccess node;
	int open_error = 0;      // 0, or -errno of opening /dev/hl_ipc
	bool have_info = false;
	struct hl_ipc_info info {};
	// /sys/class/misc/hl_ipc/stats/*, in a fixed order; absent ones left out.
	std::vector<std::pair<std::string, int64_t>> counters;
	// /sys/class/misc/hl_ipc/engine/: the DMA engine copies use
	// ("dma <driver> <device> <channels>", "none"; empty: a module
	// without it) and whether the kernel allows peer to peer (-1: unknown).
	std::string dma_engine;
	int p2pdma = -1;
};

// The DMA engine line of s, parsed: false when there is none.
struct DmaEngine {
	std::string driver, device;
	unsigned channels = 0;
};
bool dma_engine(const IpcState &s, DmaEngine *out);

IpcState read_ipc_state();

std::vector<std::string> feature_names(uint64_t features);
std::vector<std::string> engine_names(uint32_t engines);

// What to do about err (-errno) opening the node of a: for EACCES and
// EPERM names the group to join, or says that the udev rules are missing.
// Empty for other errors.
std::string access_hint(const NodeAccess &a, int err);
// The same for a path (stat()ed here).
std::string access_hint(const std::string &path, int err);

}  // namespace hlipc
