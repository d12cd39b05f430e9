// SPDX-License-Identifier: MIT
// The staged DMA path of the demo and the benchmarks: A's DMA engine
// copies A's source buffer into pinned host memory shared with B, B's DMA
// engine copies it into B's destination buffer.  Beyond one piece it is
// pipelined, as a careful runtime does it: the buffer moves in pieces
// through two staging slots, A's DMA of one piece running while B's DMA of
// the one before does.  A and B hand pieces over through a PeerLink.
#pragma once

#include <cstdint>

#include "peer_link.h"
#include "peer_msg.h"
#include "staged_dma.h"

namespace hlipc {

// Size of a piece of a pipelined transfer; transfers up to it move whole.
constexpr uint64_t kStagedPiece = 512 << 10;

// One process's end of the staged path: its device's DMA engine and the
// shared staging memory as mapped for that device (at least two pieces,
// or the largest transfer).
struct StagedEnd {
	StagedDma &dma;
	uint64_t staging_va;
};

// A's side: moves size bytes from src_va (A's device) into B's
// destination.  0, a negative errno of A's DMA, or B's answer (its DMA's
// status).
int staged_transfer(StagedEnd a, uint64_t src_va, PeerLink &link, uint64_t size);

// B's side: if m is a request of staged_transfer(), does B's part (DMA
// from staging into dst_va) and answers it; false if m is not one.
bool answer_staged(StagedEnd b, uint64_t dst_va, PeerLink &link, const Msg &m);

}  // namespace hlipc
