// SPDX-License-Identifier: MIT
#include "staged_transfer.h"

#include <algorithm>

namespace hlipc {

int staged_transfer(StagedEnd a, uint64_t src_va, PeerLink &link, uint64_t size)
{
	if (size <= kStagedPiece) {
		int rc = a.dma.copy(a.staging_va, src_va, size);
		if (rc < 0)
			return rc;
		return request(link, kStagedH2D, size).status;
	}
	// Piece i goes through slot i % 2; B's answer for piece i - 1 is
	// awaited after A's DMA of piece i, so the two DMAs overlap, and
	// before A's DMA of piece i + 1 overwrites that slot.
	bool b_busy = false;
	int ret = 0;
	for (uint64_t off = 0, i = 0; off < size; off += kStagedPiece, i++) {
		const uint64_t n = std::min(kStagedPiece, size - off);
		const uint64_t slot = (i % 2) * kStagedPiece;
		int rc = a.dma.copy(a.staging_va + slot, src_va + off, n);
		if (b_busy) {
			int st = link.wait_answer<Msg>().status;
			b_busy = false;
			if (st && !ret)
				ret = st;
		}
		if (rc < 0 || ret)
			return rc < 0 ? rc : ret;
		Msg m{};
		m.type = kPieceH2D;
		m.a = n;
		m.b = slot;
		m.c = off;
		link.post(m);
		b_busy = true;
	}
	int st = link.wait_answer<Msg>().status;
	return st ? st : ret;
}

bool answer_staged(StagedEnd b, uint64_t dst_va, PeerLink &link, const Msg &m)
{
	switch (m.type) {
	case kStagedH2D:
		reply(link, b.dma.copy(dst_va, b.staging_va, m.a));
		return true;
	case kPieceH2D:
		reply(link, b.dma.copy(dst_va + m.c, b.staging_va + m.b, m.a));
		return true;
	default:
		return false;
	}
}

}  // namespace hlipc
