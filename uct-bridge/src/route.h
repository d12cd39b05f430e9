// SPDX-License-Identifier: MIT
// What an endpoint is to the paths and to the books of operations: the
// peer interface it connects to, the order of its operations, and each
// path's own state for it.  The endpoint (ep.h) owns it.
#pragma once

#include <cstdint>
#include <memory>

#include "issue_window.h"
#include "node_identity.h"

namespace gaudi_ipc {

class Ep;

// A path's own state for one endpoint (the staged path's: its link to the
// peer's mailbox).
class PathLink {
public:
	virtual ~PathLink() = default;
};

// The paths, in the order an endpoint tries them.
enum PathIndex { kChannelPath = 0, kStagedPath = 1, kPaths = 2 };

struct Route {
	Ep *ep = nullptr;        // its endpoint (only compared, never called here)
	ProcessId peer{};        // the peer interface's process
	uint64_t nonce = 0;      // and its nonce
	uint32_t offers = 0;     // what it offers (IfaceAddrFlags)
	IssueWindow order;       // its operations in flight, by issue number
	std::unique_ptr<PathLink> links[kPaths];
};

}  // namespace gaudi_ipc
