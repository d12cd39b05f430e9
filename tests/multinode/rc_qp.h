// SPDX-License-Identifier: MIT
// The verbs side of the two-host tests: the soft-RoCE device on the link
// (VerbsPort: context, PD, the RoCE v2 GID of the link's IPv4 address) and
// RC queue pairs connected to a QP of a process on the other host
// (RcQp), each with its own completion queue, whose waits are bounded.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mntest {

// What a peer needs to connect a QP to ours; sent over the OobLink.
struct QpInfo {
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
};

class VerbsPort {
public:
	VerbsPort() = default;
	VerbsPort(const VerbsPort &) = delete;
	VerbsPort &operator=(const VerbsPort &) = delete;
	~VerbsPort();

	// Opens verbs device `name` and finds the RoCE v2 GID of ipv4 on port 1.
	// 0 or -errno; *why says what failed.
	int open(const std::string &name, const std::string &ipv4,
		 std::string *why);

	ibv_context *ctx() const { return ctx_; }
	ibv_pd *pd() const { return pd_; }
	const ibv_gid &gid() const { return gid_; }
	uint8_t gid_index() const { return gid_index_; }
	ibv_mtu mtu() const { return mtu_; }

private:
	ibv_context *ctx_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_gid gid_{};
	uint8_t gid_index_ = 0;
	ibv_mtu mtu_ = IBV_MTU_1024;
};

// One completion of a work request.
struct Completion {
	uint64_t wr_id;
	ibv_wc_status status;
	ibv_wc_opcode opcode;
	uint32_t imm;       // host order; receives of data with immediate
	uint32_t byte_len;  // receives: how many bytes came
};

class RcQp {
public:
	static constexpr int kDepth = 16;

	RcQp() = default;
	RcQp(const RcQp &) = delete;
	RcQp &operator=(const RcQp &) = delete;
	~RcQp() { destroy(); }

	// A new QP (and its CQ) on port; info() then says how to reach it.
	int create(const VerbsPort &port, std::string *why);
	QpInfo info() const;
	// INIT -> RTR -> RTS towards the peer's QP (hltest::rc_connect:
	// rc_verbs.h says what retry_cnt and timeout mean and why not 7).
	int connect(const QpInfo &peer, std::string *why, uint8_t timeout = 14,
		    uint8_t retry_cnt = 6);
	void destroy();
	bool valid() const { return qp_ != nullptr; }

	// Posts one signalled RDMA WRITE (with immediate), READ or SEND;
	// wr_id names it.  0 or -errno.
	int post(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
		 uint64_t raddr, uint32_t rkey, uint64_t wr_id, uint32_t imm = 0);
	// Posts a receive without a buffer: for sends without data and
	// writes with immediate.  0 or -errno.
	int post_recv(uint64_t wr_id);
	// Waits for n completions, at most timeout_ms in all; returns what
	// arrived (fewer than n on timeout).
	std::vector<Completion> wait(int n, int timeout_ms);
	// post + wait for its completion: the WC status, or -ETIMEDOUT/-errno.
	int write(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		  uint32_t rkey, int timeout_ms);
	int read(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		 uint32_t rkey, int timeout_ms);

private:
	int transfer(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
		     uint64_t raddr, uint32_t rkey, int timeout_ms);

	const VerbsPort *port_ = nullptr;
	ibv_comp_channel *chan_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_qp *qp_ = nullptr;
	uint32_t psn_ = 0;
	uint64_t next_wr_ = 1;
};

}  // namespace mntest
