// SPDX-License-Identifier: MIT
// The transport's configuration (UCX style: UCX_GAUDI_IPC_<NAME>, listed
// by `ucx_info -c -f`).  The memory domain registers memory for both paths
// whenever it can; each interface decides which path its transfers take.
#pragma once

#include <cstddef>

#include "ucx.h"

namespace gaudi_ipc {

// The transport's one device (ucx_info -d, uct_iface_open).
constexpr const char kDeviceName[] = "gaudi";

struct MdConfig {
	uct_md_config_t super;
};

struct IfaceConfig {
	uct_iface_config_t super;
	ucs_ternary_auto_value_t channels;  // yes, no, try
	double bandwidth;       // bytes/s, reported to UCX's selection
	double latency;         // s
	double overhead;        // s
	unsigned max_inflight;  // operations in flight per interface
	size_t sync_copy_max;   // operations up to this size complete in the call
	size_t seg_size;        // one synchronous channel copy moves at most this
	int async_copies;       // queue large copies on the kernel's channel
	size_t bcopy_size;      // buffered put/get size (bounce buffer)
	size_t staging_size;    // bytes per staging slot
	unsigned staging_slots; // slots peers may fill at once
	unsigned staging_depth; // pieces of one transfer in staging at once
	size_t peer_staging_max;  // the largest staging area accepted from a peer
	size_t peer_pin_max;      // peers' staging memory pinned at once
	double peer_timeout;    // s: staged transfers wait this long for a live peer
	double dma_timeout;     // s: one LIN_DMA command submission
	double serve_linger;    // s: the staging server waits awake for claimed slots
	double serve_spin;      // s: ... and for the next piece, none claimed
};

extern ucs_config_field_t md_config_table[];
extern ucs_config_field_t iface_config_table[];

}  // namespace gaudi_ipc
