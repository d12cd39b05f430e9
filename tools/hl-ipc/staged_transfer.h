// SPDX-License-Identifier: MIT
// The staged DMA path of the demo and the benchmark, from A's side: A's
// DMA engine copies A's source buffer into pinned host memory shared with
// B, B's DMA engine copies it into B's destination buffer.  Beyond one
// piece it is pipelined, as a careful runtime does it: the buffer moves
// in pieces through two staging slots, A's DMA of one piece running while
// B's DMA of the one before does.
#pragma once

#include <cstdint>

#include "peer_link.h"
#include "peer_side.h"

namespace hlipc {

// Size of a piece of a pipelined transfer; transfers up to it move whole.
constexpr uint64_t kStagedPiece = 512 << 10;

// Moves the first size bytes of a.src into B's destination buffer.  0, a
// negative errno of A's DMA, or B's answer (its DMA's status).
int staged_transfer(Side &a, PeerLink &link, uint64_t size);

}  // namespace hlipc
