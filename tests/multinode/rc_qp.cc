// SPDX-License-Identifier: MIT
#include "rc_qp.h"

#include <arpa/inet.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "oob_link.h"
#include "rc_verbs.h"

namespace mntest {

namespace {

int fail(std::string *why, const std::string &what, int err)
{
	if (why)
		*why = what + ": " + strerror(err);
	return -err;
}

Completion completion(const ibv_wc &wc)
{
	bool imm = wc.wc_flags & IBV_WC_WITH_IMM;
	return {wc.wr_id, wc.status, wc.opcode, imm ? ntohl(wc.imm_data) : 0, wc.byte_len};
}

}  // namespace

VerbsPort::~VerbsPort()
{
	if (pd_)
		ibv_dealloc_pd(pd_);
	if (ctx_)
		ibv_close_device(ctx_);
}

int VerbsPort::open(const std::string &name, const std::string &ipv4,
		    std::string *why)
{
	in_addr a;
	if (inet_pton(AF_INET, ipv4.c_str(), &a) != 1)
		return fail(why, "not an IPv4 address: " + ipv4, EINVAL);
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return fail(why, "ibv_get_device_list", errno);
	for (int i = 0; i < n && !ctx_; i++)
		if (name == ibv_get_device_name(list[i]))
			ctx_ = ibv_open_device(list[i]);
	int err = errno;
	ibv_free_device_list(list);
	if (!ctx_)
		return fail(why, "opening verbs device " + name +
					 " (is soft-RoCE up? run-vm --rxe)",
			    err ? err : ENODEV);
	pd_ = ibv_alloc_pd(ctx_);
	if (!pd_)
		return fail(why, "ibv_alloc_pd", errno);
	ibv_port_attr pa;
	if (ibv_query_port(ctx_, 1, &pa))
		return fail(why, "ibv_query_port", errno);
	mtu_ = pa.active_mtu;
	const uint8_t *v4 = reinterpret_cast<const uint8_t *>(&a.s_addr);
	return hltest::find_ipv4_gid(ctx_, v4, &gid_, &gid_index_, why);
}

void RcQp::destroy()
{
	if (qp_)
		ibv_destroy_qp(qp_);
	if (cq_)
		ibv_destroy_cq(cq_);
	if (chan_)
		ibv_destroy_comp_channel(chan_);
	qp_ = nullptr;
	cq_ = nullptr;
	chan_ = nullptr;
}

int RcQp::create(const VerbsPort &port, std::string *why)
{
	destroy();
	port_ = &port;
	chan_ = ibv_create_comp_channel(port.ctx());
	if (!chan_)
		return fail(why, "ibv_create_comp_channel", errno);
	cq_ = ibv_create_cq(port.ctx(), 2 * kDepth, nullptr, chan_, 0);
	if (!cq_)
		return fail(why, "ibv_create_cq", errno);
	ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq_;
	qa.recv_cq = cq_;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = kDepth;
	qa.cap.max_recv_wr = kDepth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp_ = ibv_create_qp(port.pd(), &qa);
	if (!qp_)
		return fail(why, "ibv_create_qp", errno);
	psn_ = std::random_device()() & 0xffffff;
	return 0;
}

QpInfo RcQp::info() const
{
	QpInfo i;
	memset(&i, 0, sizeof(i));
	i.qpn = qp_ ? qp_->qp_num : 0;
	i.psn = psn_;
	memcpy(i.gid, port_->gid().raw, 16);
	return i;
}

int RcQp::connect(const QpInfo &peer, std::string *why, uint8_t timeout,
		  uint8_t retry_cnt)
{
	hltest::RcPeer p;
	p.qpn = peer.qpn;
	p.psn = peer.psn;
	memcpy(p.gid.raw, peer.gid, 16);
	hltest::RcLocal l;
	l.gid_index = port_->gid_index();
	l.mtu = port_->mtu();
	l.sq_psn = psn_;
	l.rd_atomic = 4;
	l.timeout = timeout;
	l.retry_cnt = retry_cnt;
	return hltest::rc_connect(qp_, p, l, why);
}

int RcQp::post(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
	       uint64_t raddr, uint32_t rkey, uint64_t wr_id, uint32_t imm)
{
	ibv_sge sge;
	sge.addr = reinterpret_cast<uintptr_t>(local);
	sge.length = static_cast<uint32_t>(len);
	sge.lkey = lkey;
	ibv_send_wr wr, *bad = nullptr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = len ? &sge : nullptr;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM || op == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htonl(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return -ibv_post_send(qp_, &wr, &bad);
}

int RcQp::post_recv(uint64_t wr_id)
{
	ibv_recv_wr wr, *bad = nullptr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	return -ibv_post_recv(qp_, &wr, &bad);
}

std::vector<Completion> RcQp::wait(int n, int timeout_ms)
{
	std::vector<Completion> got;
	int64_t deadline = now_ms() + timeout_ms;
	// Sleep on the completion channel rather than spin: under TCG
	// soft-RoCE's work runs on the same vCPUs.
	while (static_cast<int>(got.size()) < n) {
		ibv_wc wc[RcQp::kDepth];
		int k = ibv_poll_cq(cq_, RcQp::kDepth, wc);
		if (k < 0)
			break;
		for (int i = 0; i < k; i++)
			got.push_back(completion(wc[i]));
		if (k > 0)
			continue;
		if (ibv_req_notify_cq(cq_, 0))
			break;
		k = ibv_poll_cq(cq_, RcQp::kDepth, wc);  // raced with the arm?
		for (int i = 0; i < k; i++)
			got.push_back(completion(wc[i]));
		if (k > 0)
			continue;
		int64_t left = deadline - now_ms();
		if (left <= 0)
			break;
		pollfd p = {chan_->fd, POLLIN, 0};
		if (poll(&p, 1, static_cast<int>(left > 1000 ? 1000 : left)) > 0) {
			ibv_cq *ev_cq;
			void *ev_ctx;
			if (!ibv_get_cq_event(chan_, &ev_cq, &ev_ctx))
				ibv_ack_cq_events(ev_cq, 1);
		}
	}
	return got;
}

int RcQp::transfer(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
		   uint64_t raddr, uint32_t rkey, int timeout_ms)
{
	uint64_t id = next_wr_++;
	int rc = post(op, local, lkey, len, raddr, rkey, id);
	if (rc)
		return rc;
	auto c = wait(1, timeout_ms);
	if (c.empty())
		return -ETIMEDOUT;
	return c[0].wr_id == id ? c[0].status : -EPROTO;
}

int RcQp::write(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		uint32_t rkey, int timeout_ms)
{
	return transfer(IBV_WR_RDMA_WRITE, local, lkey, len, raddr, rkey,
			timeout_ms);
}

int RcQp::read(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
	       uint32_t rkey, int timeout_ms)
{
	return transfer(IBV_WR_RDMA_READ, local, lkey, len, raddr, rkey,
			timeout_ms);
}

}  // namespace mntest
