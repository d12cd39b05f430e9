// SPDX-License-Identifier: MIT
#include "ucp_world.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "oob_link.h"

namespace mntest {

ucs_status_t UcpMemMap::map(ucp_context_h ctx, void *addr, size_t len)
{
	reset();
	ucp_mem_map_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
	p.address = addr;
	p.length = len;
	ucs_status_t st = ucp_mem_map(ctx, &p, &memh_);
	if (st != UCS_OK) {
		memh_ = nullptr;
		return st;
	}
	ctx_ = ctx;
	void *buf = nullptr;
	size_t n = 0;
	st = ucp_rkey_pack(ctx, memh_, &buf, &n);
	if (st != UCS_OK)
		return st;
	rkey_.assign(static_cast<uint8_t *>(buf), static_cast<uint8_t *>(buf) + n);
	ucp_rkey_buffer_release(buf);
	return UCS_OK;
}

void UcpMemMap::reset()
{
	if (memh_)
		ucp_mem_unmap(ctx_, memh_);
	memh_ = nullptr;
	rkey_.clear();
}

UcpWorld::~UcpWorld()
{
	close_all();
	if (worker_)
		ucp_worker_destroy(worker_);
	if (ctx_)
		ucp_cleanup(ctx_);
}

ucs_status_t UcpWorld::init(const std::vector<std::pair<std::string, std::string>> &overrides,
			    std::string *why)
{
	ucp_config_t *cfg = nullptr;
	ucs_status_t st = ucp_config_read(nullptr, nullptr, &cfg);
	if (st != UCS_OK) {
		*why = std::string("ucp_config_read: ") + ucs_status_string(st);
		return st;
	}
	for (auto &o : overrides) {
		st = ucp_config_modify(cfg, o.first.c_str(), o.second.c_str());
		if (st != UCS_OK) {
			*why = "UCX setting " + o.first + "=" + o.second + ": " +
			       ucs_status_string(st);
			ucp_config_release(cfg);
			return st;
		}
	}
	ucp_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_PARAM_FIELD_FEATURES;
	p.features = UCP_FEATURE_RMA;
	st = ucp_init(&p, cfg, &ctx_);
	ucp_config_release(cfg);
	if (st != UCS_OK) {
		ctx_ = nullptr;
		*why = std::string("ucp_init: ") + ucs_status_string(st);
		return st;
	}
	ucp_worker_params_t wp;
	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	st = ucp_worker_create(ctx_, &wp, &worker_);
	if (st != UCS_OK) {
		worker_ = nullptr;
		*why = std::string("ucp_worker_create: ") + ucs_status_string(st);
		return st;
	}
	ucp_address_t *a = nullptr;
	size_t n = 0;
	st = ucp_worker_get_address(worker_, &a, &n);
	if (st != UCS_OK) {
		*why = std::string("ucp_worker_get_address: ") + ucs_status_string(st);
		return st;
	}
	address_.assign(reinterpret_cast<uint8_t *>(a), reinterpret_cast<uint8_t *>(a) + n);
	ucp_worker_release_address(worker_, a);
	return UCS_OK;
}

void UcpWorld::on_error(void *arg, ucp_ep_h, ucs_status_t status)
{
	static_cast<Peer *>(arg)->error = status;
}

ucs_status_t UcpWorld::connect(const std::vector<uint8_t> &address,
			       const std::vector<uint8_t> &rkey, size_t *index)
{
	if (npeers_ == peers_.size())
		return UCS_ERR_EXCEEDS_LIMIT;
	Peer &peer = peers_[npeers_];
	ucp_ep_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
		       UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
		       UCP_EP_PARAM_FIELD_ERR_HANDLER;
	p.address = reinterpret_cast<const ucp_address_t *>(address.data());
	p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	p.err_handler.cb = on_error;
	p.err_handler.arg = &peer;
	ucs_status_t st = ucp_ep_create(worker_, &p, &peer.ep);
	if (st != UCS_OK) {
		peer.ep = nullptr;
		return st;
	}
	st = ucp_ep_rkey_unpack(peer.ep, rkey.data(), &peer.rkey);
	if (st != UCS_OK) {
		peer.rkey = nullptr;
		return st;
	}
	*index = npeers_++;
	return UCS_OK;
}

ucs_status_t UcpWorld::wait(ucs_status_ptr_t req, int timeout_ms)
{
	if (req == nullptr)
		return UCS_OK;
	if (UCS_PTR_IS_ERR(req))
		return UCS_PTR_STATUS(req);
	int64_t deadline = now_ms() + timeout_ms;
	ucs_status_t st;
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
		if (now_ms() > deadline) {
			// Still owned by UCX: it cannot be freed, and the
			// test reports the hang and ends.
			return UCS_ERR_TIMED_OUT;
		}
		if (!ucp_worker_progress(worker_))
			sched_yield();
	}
	ucp_request_free(req);
	return st;
}

ucs_status_t UcpWorld::put(size_t index, const void *buf, size_t len,
			   uint64_t raddr, int timeout_ms)
{
	Peer &peer = peers_[index];
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	int64_t deadline = now_ms() + timeout_ms;
	ucs_status_t st = wait(ucp_put_nbx(peer.ep, buf, len, raddr, peer.rkey, &p),
			       timeout_ms);
	if (st != UCS_OK)
		return st;
	// The data is at the peer once the flush completes.
	int left = static_cast<int>(deadline - now_ms());
	return wait(ucp_ep_flush_nbx(peer.ep, &p), left > 0 ? left : 1);
}

ucs_status_t UcpWorld::get(size_t index, void *buf, size_t len, uint64_t raddr,
			   int timeout_ms)
{
	Peer &peer = peers_[index];
	ucp_request_param_t p;
	memset(&p, 0, sizeof(p));
	return wait(ucp_get_nbx(peer.ep, buf, len, raddr, peer.rkey, &p), timeout_ms);
}

std::vector<std::string> UcpWorld::lanes(size_t index)
{
	std::vector<std::string> out;
	char *text = nullptr;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return out;
	ucp_ep_print_info(peers_[index].ep, f);
	fclose(f);
	// Lines "#                 lane[0]:  3:rc_verbs/rxe_link:1.0 md[2] ..."
	char *save = nullptr;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(nullptr, "\n", &save)) {
		const char *p = strstr(l, "lane[");
		if (p)
			out.emplace_back(p);
	}
	free(text);
	return out;
}

void UcpWorld::close_all()
{
	for (size_t i = 0; i < npeers_; i++) {
		Peer &peer = peers_[i];
		if (peer.rkey)
			ucp_rkey_destroy(peer.rkey);
		peer.rkey = nullptr;
		if (!peer.ep)
			continue;
		ucp_request_param_t p;
		memset(&p, 0, sizeof(p));
		p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		p.flags = UCP_EP_CLOSE_FLAG_FORCE;
		ucs_status_ptr_t r = ucp_ep_close_nbx(peer.ep, &p);
		wait(r, 10000);
		peer.ep = nullptr;
	}
	npeers_ = 0;
}

}  // namespace mntest
