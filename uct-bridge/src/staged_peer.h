// SPDX-License-Identifier: MIT
// A peer interface as an initiator's staged path sees it (an owner): the
// connection it was admitted on, the owner's process, its mailbox mapped
// here, the windows of its staging memory mapped on this process's
// devices, and the pieces posted to it and not yet taken back.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "staging_windows.h"
#include "hl/unique_fd.h"
#include "mailbox.h"
#include "node_identity.h"
#include "process_handle.h"
#include "route.h"
#include "ucx.h"

namespace gaudi_ipc {

struct StagedOp;

struct StagedPeer {
	enum class Link { Connecting, Ready, Failed };
	struct Chunk {
		uint32_t slot;
		StagedOp *op;
		uint64_t pos;     // where in the operation the piece starts
		uint64_t len;
		uint64_t posted;  // coarse_ns() when posted
	};
	ProcessId owner{};
	uint64_t nonce = 0;
	Link link = Link::Connecting;
	ucs_status_t failure = UCS_OK;  // why, once Failed
	uint64_t deadline = 0;          // Connecting: the welcome is due by then
	hl::UniqueFd line;              // to the owner: rings both ways
	ProcessHandle process;          // the owner, by its pidfd
	PeerMailbox mb;
	// Where our pieces use its staging memory, on our devices; unmapped
	// before mb (declared after it).
	std::unique_ptr<StagingWindows> windows;
	std::vector<Chunk> chunks;      // posted, not yet taken back
	std::vector<uint32_t> abandoned;  // given up while served: freed when done
	uint64_t last_check = 0;
	uint64_t last_full_ring = 0;

	bool idle() const { return chunks.empty() && abandoned.empty(); }
};

// An endpoint's hold on its peer (its route's staged link).
struct StagedLink : PathLink {
	std::shared_ptr<StagedPeer> peer;
};

}  // namespace gaudi_ipc
