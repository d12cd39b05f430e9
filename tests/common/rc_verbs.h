// SPDX-License-Identifier: MIT
// What the verbs tests (tests/rdma, tests/multinode) share: finding the
// RoCE v2 GID of an IPv4 address on port 1, and taking an RC queue pair
// through INIT, RTR and RTS towards a peer QP.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

namespace hltest {

// Finds on port 1 of ctx the RoCE v2 GID of ipv4 (network order), or of
// any IPv4 address when ipv4 is null.  0 or -errno; *why says what failed.
int find_ipv4_gid(ibv_context *ctx, const uint8_t *ipv4, ibv_gid *gid,
		  uint8_t *index, std::string *why);

// The peer QP a connection goes to.
struct RcPeer {
	uint32_t qpn;
	uint32_t psn;
	ibv_gid gid;
};

// This side of the connection.  retry_cnt and timeout as in ibv_qp_attr:
// a lost peer becomes an error after about (retry_cnt + 1) x 4.096 us x
// 2^timeout (0.5 s with the defaults).  Not 7: soft-RoCE takes a retry
// count of 7 as "retry for ever", as the specification does only for RNR
// retries (rxe_comp.c).
struct RcLocal {
	uint8_t gid_index;
	ibv_mtu mtu;
	uint32_t sq_psn;
	uint8_t rd_atomic = 1;  // RDMA READs in flight, each way
	uint8_t timeout = 14;
	uint8_t retry_cnt = 6;
};

// INIT -> RTR -> RTS with local write, remote read and remote write
// access.  0 or -errno; *why names the transition that failed.
int rc_connect(ibv_qp *qp, const RcPeer &peer, const RcLocal &local,
	       std::string *why);

}  // namespace hltest
