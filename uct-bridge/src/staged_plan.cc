// SPDX-License-Identifier: MIT
#include "staged_plan.h"

#include <algorithm>
#include <cstring>

namespace gaudi_ipc {

int StagedPlan::add(StagedOp &op, StagedPeer &p, uint32_t slot, uint64_t pos, uint64_t len,
		    bool to_staging)
{
	unsigned char *staging = p.mb.staging(slot);
	if (op.unpack && op.bounce.empty()) {
		// get_bcopy of one slot: the caller's callback takes the data.
		if (!op.abandoned)
			op.unpack(op.unpack_arg, staging, len);
		return 0;
	}
	uint64_t at = 0;  // start of the current piece within the operation
	uint64_t inner = 0;
	for (Piece &pc : op.pieces) {
		if (inner == len)
			break;
		if (at + pc.len <= pos) {
			at += pc.len;
			continue;
		}
		const uint64_t off = pos + inner - at;  // into this piece
		const uint64_t n = std::min(pc.len - off, len - inner);
		if (pc.dev == kHostDevice) {
			auto *mem = reinterpret_cast<unsigned char *>(pc.addr + off);
			if (to_staging)
				memcpy(staging + inner, mem, n);
			else
				memcpy(mem, staging + inner, n);
		} else {
			// Once per operation: the memory must stay mapped while the
			// operation runs (UCT's rule for zero-copy memory).
			if (!pc.ctx) {
				int rc = local_.get(pc.dev, pc.addr, pc.len, pc.exported, &pc.ctx);
				if (rc < 0) {
					pc.ctx = nullptr;
					return rc;
				}
			}
			// The slot's window on this device: as long as the
			// whole piece, so one look serves all of its parts.
			uint64_t base = 0;
			int rc = p.windows->va(pc.dev, *pc.ctx, slot, len, &base);
			if (rc < 0)
				return rc;
			in_use_ = p.windows.get();
			const uint64_t sva = base + inner;
			const DmaCopy c = to_staging ? DmaCopy{sva, pc.addr + off, n}
						     : DmaCopy{pc.addr + off, sva, n};
			auto e = std::find_if(engines_.begin(), engines_.end(),
					      [&](const Engine &x) { return x.dc == pc.ctx; });
			if (e == engines_.end())
				engines_.push_back(Engine{pc.ctx, {c}});
			else
				e->copies.push_back(c);
		}
		inner += n;
		at += pc.len;
	}
	return 0;
}

int StagedPlan::run()
{
	int ret = 0;
	for (Engine &e : engines_) {
		if (ret == 0 && !e.copies.empty())
			ret = e.dc->dma.copy(e.copies, dma_timeout_us_);
		e.copies.clear();
	}
	// The submissions have ended, whatever they returned (staged_dma.h):
	// the windows may go.
	if (in_use_)
		in_use_->done();
	in_use_ = nullptr;
	return ret;
}

void StagedPlan::clear()
{
	for (Engine &e : engines_)
		e.copies.clear();
	if (in_use_)
		in_use_->done();
	in_use_ = nullptr;
}

}  // namespace gaudi_ipc
