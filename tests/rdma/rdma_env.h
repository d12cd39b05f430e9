// SPDX-License-Identifier: MIT
// What the libhlthunk-verbs tests run on: a verbs device (soft-RoCE in the
// VM) with a PD, a CQ and two RC QPs connected to each other, host
// buffers that both the NIC and the device's DMA engine can reach, and
// the emulated device's live object counters.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <string>

namespace rdmatest {

// A loopback RC connection on one verbs device: QP a sends, QP b is its
// peer, both in one PD.  RDMA READ/WRITE posted on a reach memory
// registered in the PD through b's side of the connection.
class Loopback {
public:
	Loopback() = default;
	Loopback(const Loopback &) = delete;
	Loopback &operator=(const Loopback &) = delete;
	~Loopback();

	// Opens $HL_RDMA_DEV (default: the first verbs device) and connects
	// the QPs over its first RoCE v2 GID of an IPv4 address.  0 or -errno;
	// *why says what failed.
	int open(std::string *why);

	// RDMA WRITE of [local, local + len) (lkey) to raddr (rkey), or RDMA
	// READ of raddr into local; waits for the completion.  Returns the
	// work completion status (IBV_WC_SUCCESS == 0) or -errno.
	int write(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		  uint32_t rkey);
	int read(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		 uint32_t rkey);

	// Replaces both QPs by new, connected ones, after a failed work
	// request left them in the error state.
	int reconnect(std::string *why);

	ibv_context *ctx() const { return ctx_; }
	ibv_pd *pd() const { return pd_; }
	const char *name() const;

private:
	int post(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
		 uint64_t raddr, uint32_t rkey);
	int create_qps(std::string *why);
	int connect(uint8_t gid_index, std::string *why);

	ibv_context *ctx_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_comp_channel *chan_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_qp *a_ = nullptr;
	ibv_qp *b_ = nullptr;
	uint64_t next_wr_ = 1;
	uint8_t gid_index_ = 0;
};

// Page-aligned anonymous memory registered with the PD (for the NIC) and
// mapped for the device (for its DMA engine) unless dev_fd is -1.
class HostBuffer {
public:
	HostBuffer() = default;
	HostBuffer(const HostBuffer &) = delete;
	HostBuffer &operator=(const HostBuffer &) = delete;
	~HostBuffer();
	// 0 or -errno.
	int create(ibv_pd *pd, int dev_fd, uint64_t size);

	unsigned char *data() const { return p_; }
	uint32_t lkey() const { return mr_->lkey; }
	uint64_t dev_va() const { return dev_va_; }

private:
	unsigned char *p_ = nullptr;
	uint64_t map_len_ = 0;
	ibv_mr *mr_ = nullptr;
	int dev_fd_ = -1;
	uint64_t dev_va_ = 0;
};

// The process's compute node of emulated device 0, opened on first use
// (the node is exclusive: every test of the process shares it).  After
// close_dev_fd() the next call opens it again.  -errno on failure.
int dev_fd();
void close_dev_fd();

// Device 0's charged memory (sysfs memory_used); the live object
// counters are hltest::sim_counters() (sim_counters.h).
long sim_memory_used();

}  // namespace rdmatest
