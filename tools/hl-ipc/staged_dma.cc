// SPDX-License-Identifier: MIT
#include "staged_dma.h"

#include <cerrno>
#include <cstring>

#include "hlthunk.h"
#include "uapi/habanalabs_abi.h"

namespace hlipc {

namespace {
constexpr uint32_t kCbSize = 4096;
}

StagedDma::~StagedDma()
{
	cb_view_.reset();
	if (cb_)
		hlthunk_destroy_command_buffer(fd_, cb_);
}

int StagedDma::init(int fd)
{
	int rc = hlthunk_request_command_buffer(fd, kCbSize, &cb_);
	if (rc < 0)
		return rc;
	fd_ = fd;
	// The handle is the mmap offset of the command buffer.
	cb_view_ = Mapping::map(kCbSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				static_cast<off_t>(cb_));
	return cb_view_.valid() ? 0 : -errno;
}

int StagedDma::copy(uint64_t dst_va, uint64_t src_va, uint32_t len)
{
	struct gaudi2_packet_lin_dma pkt;
	memset(&pkt, 0, sizeof(pkt));
	pkt.tsize = len;
	pkt.ctl = (GAUDI2_PACKET_LIN_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
		  GAUDI2_PKT_CTL_EB_MASK | GAUDI2_PKT_CTL_MB_MASK;
	pkt.src_addr = src_va;
	pkt.dst_addr = dst_va;
	memcpy(cb_view_.get(), &pkt, sizeof(pkt));

	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_;
	chunk.queue_index = GAUDI2_QUEUE_ID_PDMA_0_0;
	chunk.cb_size = sizeof(pkt);

	struct hlthunk_cs_in in;
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	struct hlthunk_cs_out out;
	int rc = hlthunk_command_submission(fd_, &in, &out);
	if (rc < 0)
		return rc;
	uint32_t status = 0;
	rc = hlthunk_wait_for_cs(fd_, out.seq, 60ull * 1000 * 1000, &status);
	if (rc < 0)
		return rc;
	return status == HL_WAIT_CS_STATUS_COMPLETED ? 0 : -ETIMEDOUT;
}

}  // namespace hlipc
