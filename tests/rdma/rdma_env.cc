// SPDX-License-Identifier: MIT
#include "rdma_env.h"

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "hlthunk.h"
#include "rc_verbs.h"

namespace rdmatest {

namespace {

constexpr int kCqDepth = 16;
constexpr int kCompletionTimeoutMs = 60000;

// Slow kernels (the debug kernel: KASAN under TCG) get proportionally
// longer; the harness says how much longer in HL_TIMEOUT_FACTOR.
std::chrono::milliseconds completion_timeout()
{
	const char *f = getenv("HL_TIMEOUT_FACTOR");
	long factor = f ? strtol(f, nullptr, 10) : 1;
	if (factor < 1 || factor > 100)
		factor = 1;
	return std::chrono::milliseconds(kCompletionTimeoutMs * factor);
}

int set_why(std::string *why, const std::string &what, int err)
{
	if (why)
		*why = what + ": " + strerror(err);
	return -err;
}

}  // namespace

Loopback::~Loopback()
{
	if (a_)
		ibv_destroy_qp(a_);
	if (b_)
		ibv_destroy_qp(b_);
	if (cq_)
		ibv_destroy_cq(cq_);
	if (chan_)
		ibv_destroy_comp_channel(chan_);
	if (pd_)
		ibv_dealloc_pd(pd_);
	if (ctx_)
		ibv_close_device(ctx_);
}

const char *Loopback::name() const
{
	return ctx_ ? ibv_get_device_name(ctx_->device) : "?";
}

int Loopback::open(std::string *why)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	if (!list)
		return set_why(why, "ibv_get_device_list", errno);
	const char *want = getenv("HL_RDMA_DEV");
	ibv_device *dev = nullptr;
	for (int i = 0; i < n && !dev; i++)
		if (!want || !strcmp(ibv_get_device_name(list[i]), want))
			dev = list[i];
	if (dev)
		ctx_ = ibv_open_device(dev);
	int err = errno;
	ibv_free_device_list(list);
	if (!dev)
		return set_why(why, std::string("no verbs device ") +
					    (want ? want : "at all"), ENODEV);
	if (!ctx_)
		return set_why(why, "ibv_open_device", err);

	pd_ = ibv_alloc_pd(ctx_);
	if (!pd_)
		return set_why(why, "ibv_alloc_pd", errno);
	chan_ = ibv_create_comp_channel(ctx_);
	if (!chan_)
		return set_why(why, "ibv_create_comp_channel", errno);
	cq_ = ibv_create_cq(ctx_, kCqDepth, nullptr, chan_, 0);
	if (!cq_)
		return set_why(why, "ibv_create_cq", errno);

	int rc = create_qps(why);
	if (rc)
		return rc;

	ibv_gid gid;
	uint8_t index;
	rc = hltest::find_ipv4_gid(ctx_, nullptr, &gid, &index, why);
	return rc ? rc : connect(index, why);
}

int Loopback::create_qps(std::string *why)
{
	ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq_;
	qa.recv_cq = cq_;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	a_ = ibv_create_qp(pd_, &qa);
	if (!a_)
		return set_why(why, "ibv_create_qp", errno);
	b_ = ibv_create_qp(pd_, &qa);
	if (!b_)
		return set_why(why, "ibv_create_qp", errno);
	return 0;
}

int Loopback::reconnect(std::string *why)
{
	// New QPs rather than a trip through RESET: soft-RoCE finishes
	// moving a failed QP to the error state in the background.
	if (ibv_destroy_qp(a_) || ibv_destroy_qp(b_))
		return set_why(why, "ibv_destroy_qp", errno);
	a_ = b_ = nullptr;
	ibv_wc wc;
	while (ibv_poll_cq(cq_, 1, &wc) > 0)
		;  // completions of the failed connection
	int rc = create_qps(why);
	return rc ? rc : connect(gid_index_, why);
}

int Loopback::connect(uint8_t gid_index, std::string *why)
{
	gid_index_ = gid_index;
	ibv_port_attr port;
	hltest::RcPeer peer;
	if (ibv_query_port(ctx_, 1, &port) ||
	    ibv_query_gid(ctx_, 1, gid_index, &peer.gid))
		return set_why(why, "querying the port", errno);

	ibv_qp *qps[2] = {a_, b_};
	for (int i = 0; i < 2; i++) {
		peer.qpn = qps[1 - i]->qp_num;
		peer.psn = (100 + peer.qpn) & 0xffffff;
		hltest::RcLocal local;
		local.gid_index = gid_index;
		local.mtu = port.active_mtu;
		local.sq_psn = (100 + qps[i]->qp_num) & 0xffffff;
		int rc = hltest::rc_connect(qps[i], peer, local, why);
		if (rc)
			return rc;
	}
	return 0;
}

int Loopback::post(ibv_wr_opcode op, void *local, uint32_t lkey, uint64_t len,
		   uint64_t raddr, uint32_t rkey)
{
	ibv_sge sge;
	sge.addr = reinterpret_cast<uintptr_t>(local);
	sge.length = static_cast<uint32_t>(len);
	sge.lkey = lkey;
	ibv_send_wr wr, *bad = nullptr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = next_wr_++;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	int rc = ibv_post_send(a_, &wr, &bad);
	if (rc)
		return -rc;

	// Sleep on the completion channel rather than spin: under TCG the
	// soft-RoCE work runs on the same two vCPUs.
	auto deadline = std::chrono::steady_clock::now() +
			completion_timeout();
	for (;;) {
		ibv_wc wc;
		int n = ibv_poll_cq(cq_, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n == 1) {
			if (wc.wr_id != wr.wr_id)
				return -EPROTO;
			return wc.status;
		}
		if (ibv_req_notify_cq(cq_, 0))
			return -EIO;
		n = ibv_poll_cq(cq_, 1, &wc);  // raced with the arm?
		if (n == 1)
			return wc.wr_id == wr.wr_id ? wc.status : -EPROTO;
		if (std::chrono::steady_clock::now() > deadline)
			return -ETIMEDOUT;
		pollfd p = {chan_->fd, POLLIN, 0};
		if (poll(&p, 1, 1000) > 0) {
			ibv_cq *ev_cq;
			void *ev_ctx;
			if (!ibv_get_cq_event(chan_, &ev_cq, &ev_ctx))
				ibv_ack_cq_events(ev_cq, 1);
		}
	}
}

int Loopback::write(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		    uint32_t rkey)
{
	return post(IBV_WR_RDMA_WRITE, local, lkey, len, raddr, rkey);
}

int Loopback::read(void *local, uint32_t lkey, uint64_t len, uint64_t raddr,
		   uint32_t rkey)
{
	return post(IBV_WR_RDMA_READ, local, lkey, len, raddr, rkey);
}

HostBuffer::~HostBuffer()
{
	if (dev_va_)
		hlthunk_memory_unmap(dev_fd_, dev_va_);
	if (mr_)
		ibv_dereg_mr(mr_);
	if (p_)
		munmap(p_, map_len_);
}

int HostBuffer::create(ibv_pd *pd, int dev_fd, uint64_t size)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	map_len_ = (size + page - 1) / page * page;
	void *p = mmap(nullptr, map_len_, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	p_ = static_cast<unsigned char *>(p);
	mr_ = ibv_reg_mr(pd, p_, map_len_,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ);
	if (!mr_)
		return -errno;
	if (dev_fd < 0)
		return 0;
	dev_va_ = hlthunk_host_memory_map(dev_fd, p_, 0, map_len_);
	if (!dev_va_)
		return -errno;
	dev_fd_ = dev_fd;
	return 0;
}

namespace {
int g_dev_fd = -1;
}

int dev_fd()
{
	if (g_dev_fd < 0) {
		int fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
		if (fd < 0)
			return fd;
		g_dev_fd = fd;
	}
	return g_dev_fd;
}

void close_dev_fd()
{
	if (g_dev_fd >= 0)
		hlthunk_close(g_dev_fd);
	g_dev_fd = -1;
}

long sim_memory_used()
{
	std::ifstream f("/sys/class/habanalabs_sim/hlsim0/memory_used");
	long v = -1;
	f >> v;
	return v;
}

}  // namespace rdmatest
