// SPDX-License-Identifier: MIT
#include "rc_verbs.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

namespace hltest {

namespace {

int fail(std::string *why, const std::string &what, int err)
{
	if (why)
		*why = what + ": " + strerror(err);
	return -err;
}

}  // namespace

int find_ipv4_gid(ibv_context *ctx, const uint8_t *ipv4, ibv_gid *gid,
		  uint8_t *index, std::string *why)
{
	ibv_port_attr pa;
	if (ibv_query_port(ctx, 1, &pa))
		return fail(why, "ibv_query_port", errno);
	// The RoCE v2 GID of an IPv4 address is ::ffff:a.b.c.d.
	uint8_t want[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	size_t cmp = 12;
	if (ipv4) {
		memcpy(want + 12, ipv4, 4);
		cmp = 16;
	}
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		ibv_gid_entry e;
		if (ibv_query_gid_ex(ctx, 1, static_cast<uint32_t>(i), &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, want, cmp)) {
			*gid = e.gid;
			*index = static_cast<uint8_t>(i);
			return 0;
		}
	}
	char addr[INET_ADDRSTRLEN] = "an IPv4 address";
	if (ipv4)
		inet_ntop(AF_INET, ipv4, addr, sizeof(addr));
	return fail(why, std::string("no RoCE v2 GID of ") + addr + " on " +
				 ibv_get_device_name(ctx->device),
		    ENODEV);
}

int rc_connect(ibv_qp *qp, const RcPeer &peer, const RcLocal &local,
	       std::string *why)
{
	if (peer.qpn == 0 || peer.qpn > 0xffffff || peer.psn > 0xffffff ||
	    local.sq_psn > 0xffffff)
		return fail(why, "a QP number or PSN is out of range", EINVAL);

	ibv_qp_attr at;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return fail(why, "QP to INIT", errno);

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = local.mtu;
	at.dest_qp_num = peer.qpn;
	at.rq_psn = peer.psn;
	at.max_dest_rd_atomic = local.rd_atomic;
	at.min_rnr_timer = 12;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = peer.gid;
	at.ah_attr.grh.sgid_index = local.gid_index;
	at.ah_attr.grh.hop_limit = 1;
	at.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					   IBV_QP_MAX_DEST_RD_ATOMIC |
					   IBV_QP_MIN_RNR_TIMER))
		return fail(why, "QP to RTR", errno);

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = local.timeout;
	at.retry_cnt = local.retry_cnt;
	at.rnr_retry = 7;
	at.sq_psn = local.sq_psn;
	at.max_rd_atomic = local.rd_atomic;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
					   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return fail(why, "QP to RTS", errno);
	return 0;
}

}  // namespace hltest
