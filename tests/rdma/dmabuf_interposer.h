// SPDX-License-Identifier: MIT
// This test program defines ibv_reg_dmabuf_mr, ibv_reg_mr_iova2 and
// ibv_dereg_mr itself, so the calls libhlthunk-verbs makes land here
// first: the tests see whether, in which order and with what arguments
// the library asks for memory regions, and what libibverbs answered,
// independently of what the library reports about itself.
//
// Modes of ibv_reg_dmabuf_mr:
//  - Forward (default): record the call, call libibverbs' own
//    ibv_reg_dmabuf_mr, record its answer.
//  - AcceptShim: stand in for a provider WITH dma-buf memory regions,
//    which no device in the VM has: map the dma-buf here, register that
//    mapping and return the memory region.  This exercises the library's
//    handling of a successful dma-buf registration only; it says nothing
//    about a real NIC's dma-buf path.
//  - RefusePeer: stand in for a provider with dma-buf memory regions whose
//    exporter refuses to map the memory for the NIC: EPERM, as a Gaudi
//    exporter answers where the kernel allows no peer-to-peer DMA
//    (upstream hl_map_dmabuf).  Again only the library's handling of that
//    answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdmatest {

enum class DmabufMode { Forward, AcceptShim, RefusePeer };

struct VerbsCall {
	enum Kind { RegDmabufMr, RegMrIova2 } kind;
	uint64_t offset_or_addr;  // dma-buf offset, or the virtual address
	uint64_t length;
	uint64_t iova;
	int access;
	int result_errno;         // 0 if it returned a memory region
	std::string exporter;     // ibv_reg_dmabuf_mr: exp_name of the fd
};

// Forgets the log and sets the mode.
void interposer_reset(DmabufMode mode = DmabufMode::Forward);
std::vector<VerbsCall> interposer_log();
// Mappings the AcceptShim mode holds for memory regions not yet
// deregistered.
int interposer_shim_mappings();

}  // namespace rdmatest
