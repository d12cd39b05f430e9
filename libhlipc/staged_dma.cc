// SPDX-License-Identifier: MIT
#include "staged_dma.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "hlthunk.h"
#include "uapi/habanalabs_abi.h"
#include "uapi/habanalabs_extra.h"

namespace hlipc {

namespace {
constexpr uint32_t kCbSize = 4096;
}

StagedDma::~StagedDma()
{
	if (cb_)
		(void)hlthunk_memory_unmap(fd_, cb_);
	cb_view_.reset();
}

// Gaudi2's queues take only command buffers the user allocates: memory of
// this process mapped into the device, named in the CS by its device
// address (HL_CS_CHUNK_FLAGS_USER_ALLOC_CB), as hl-thunk and the runtimes
// submit them.  A kernel CB's handle is refused on every user queue.
int StagedDma::init(int fd)
{
	cb_view_ = Mapping::map(kCbSize, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!cb_view_.valid())
		return -errno;
	cb_ = hlthunk_host_memory_map(fd, cb_view_.get(), 0, kCbSize);
	if (!cb_) {
		int err = errno ? -errno : -ENOMEM;
		cb_view_.reset();
		return err;
	}
	fd_ = fd;
	return 0;
}

int StagedDma::copy(const std::vector<DmaCopy> &copies, uint64_t timeout_us)
{
	// A packet's size field is 32 bits: larger copies take several.
	constexpr uint64_t kMaxPacket = 1ull << 31;
	auto *pkts = reinterpret_cast<struct gaudi2_packet_lin_dma *>(cb_view_.bytes());
	const uint32_t max_pkts = kCbSize / sizeof(*pkts);
	uint32_t npkts = 0;
	for (const DmaCopy &c : copies) {
		for (uint64_t done = 0; done < c.len; npkts++) {
			if (npkts == max_pkts)
				return -E2BIG;
			uint64_t n = std::min(c.len - done, kMaxPacket);
			struct gaudi2_packet_lin_dma pkt;
			memset(&pkt, 0, sizeof(pkt));
			pkt.tsize = static_cast<uint32_t>(n);
			pkt.ctl = (GAUDI2_PACKET_LIN_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
				  GAUDI2_PKT_CTL_EB_MASK | GAUDI2_PKT_CTL_MB_MASK;
			pkt.src_addr = c.src + done;
			pkt.dst_addr = c.dst + done;
			memcpy(&pkts[npkts], &pkt, sizeof(pkt));
			done += n;
		}
	}
	if (npkts == 0)
		return 0;
	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_;
	chunk.queue_index = GAUDI2_QUEUE_ID_PDMA_0_0;
	chunk.cb_size = npkts * sizeof(*pkts);
	chunk.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	struct hlthunk_cs_in in;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	struct hlthunk_cs_out out;
	memset(&out, 0, sizeof(out));
	int rc = hlthunk_command_submission(fd_, &in, &out);
	if (rc < 0)
		return rc;
	uint32_t status = 0;
	rc = hlthunk_wait_for_cs(fd_, out.seq, timeout_us, &status);
	if (rc < 0 || status == HL_WAIT_CS_STATUS_COMPLETED)
		return rc;
	// Late: the submission still reads the command buffer and moves
	// memory its caller will reuse as soon as this returns.  Let it end
	// first; only then is it reported.
	while (rc == 0 && status == HL_WAIT_CS_STATUS_BUSY)
		rc = hlthunk_wait_for_cs(fd_, out.seq, std::max<uint64_t>(timeout_us, 1000),
					 &status);
	return -ETIMEDOUT;
}

}  // namespace hlipc
