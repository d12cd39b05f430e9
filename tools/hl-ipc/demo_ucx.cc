// SPDX-License-Identifier: MIT
#include "demo_ucx.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <uct/api/uct.h>
#include <ucs/async/async_fwd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace hlipc {

namespace {

// Where the transport is: $HL_UCX_PLUGIN, the build tree next to this
// program (build/tools/hl-ipc/hl-ipc -> build/uct-bridge/), or where it
// is installed.
std::vector<std::string> plugin_candidates()
{
	std::vector<std::string> c;
	if (const char *e = getenv("HL_UCX_PLUGIN"); e && *e)
		c.push_back(e);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		std::string dir(exe);
		dir = dir.substr(0, dir.rfind('/'));
		c.push_back(dir + "/../../uct-bridge/libuct_gaudi_ipc.so");
	}
	c.push_back(HL_IPC_UCX_PLUGIN);
	return c;
}

void completed(uct_completion_t *self) { (void)self; }

}  // namespace

struct UcxSide::State {
	uct_component_h component = nullptr;
	uct_md_h md = nullptr;
	ucs_async_context_t *async = nullptr;
	uct_worker_h worker = nullptr;
	uct_iface_h iface = nullptr;
	uct_iface_attr_t attr{};
	size_t rkey_size = 0;
	uct_ep_h ep = nullptr;
	uct_mem_h src_memh = nullptr, dst_memh = nullptr;
	uct_rkey_bundle_t rkey{};
	bool rkey_ok = false;
};

UcxSide::UcxSide() : s_(std::make_unique<State>()) {}

UcxSide::~UcxSide()
{
	if (s_->ep)
		uct_ep_destroy(s_->ep);
	if (s_->rkey_ok)
		uct_rkey_release(s_->component, &s_->rkey);
	if (s_->src_memh)
		uct_md_mem_dereg(s_->md, s_->src_memh);
	if (s_->dst_memh)
		uct_md_mem_dereg(s_->md, s_->dst_memh);
	if (s_->iface)
		uct_iface_close(s_->iface);
	if (s_->worker)
		uct_worker_destroy(s_->worker);
	if (s_->async)
		ucs_async_context_destroy(s_->async);
	if (s_->md)
		uct_md_close(s_->md);
}

bool UcxSide::open(bool staged)
{
	std::string tried;
	bool loaded = false;
	for (auto &p : plugin_candidates()) {
		if (access(p.c_str(), R_OK) != 0)
			continue;
		// RTLD_NODELETE: UCX keeps pointers into the transport for good.
		if (dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) {
			loaded = true;
			break;
		}
		tried = p + ": " + dlerror();
	}
	if (!loaded) {
		why_ = tried.empty() ? "the gaudi_ipc transport is not installed (set "
				       "HL_UCX_PLUGIN to libuct_gaudi_ipc.so)"
				     : tried;
		return false;
	}
	uct_component_h *comps = nullptr;
	unsigned n = 0;
	if (uct_query_components(&comps, &n) != UCS_OK) {
		why_ = "UCX lists no components";
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		uct_component_attr_t a;
		memset(&a, 0, sizeof(a));
		a.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME;
		if (uct_component_query(comps[i], &a) == UCS_OK && !strcmp(a.name, "gaudi_ipc"))
			s_->component = comps[i];
	}
	uct_release_component_list(comps);
	if (!s_->component) {
		why_ = "the gaudi_ipc component did not register with UCX";
		return false;
	}
	uct_md_config_t *mdc = nullptr;
	if (uct_md_config_read(s_->component, nullptr, nullptr, &mdc) != UCS_OK ||
	    uct_md_open(s_->component, "gaudi_ipc", mdc, &s_->md) != UCS_OK) {
		if (mdc)
			uct_config_release(mdc);
		s_->md = nullptr;
		why_ = "opening the gaudi_ipc memory domain failed";
		return false;
	}
	uct_config_release(mdc);
	uct_md_attr_t mda;
	uct_md_query(s_->md, &mda);
	s_->rkey_size = mda.rkey_packed_size;
	uct_iface_config_t *ic = nullptr;
	uct_iface_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCT_IFACE_PARAM_FIELD_OPEN_MODE;
	p.open_mode = UCT_IFACE_OPEN_MODE_DEVICE;
	p.mode.device.tl_name = "gaudi_ipc";
	p.mode.device.dev_name = "gaudi";
	if (ucs_async_context_create(UCS_ASYNC_MODE_THREAD_SPINLOCK, &s_->async) != UCS_OK ||
	    uct_worker_create(s_->async, UCS_THREAD_MODE_SINGLE, &s_->worker) != UCS_OK ||
	    uct_md_iface_config_read(s_->md, "gaudi_ipc", nullptr, nullptr, &ic) != UCS_OK ||
	    (staged && uct_config_modify(ic, "CHANNELS", "n") != UCS_OK) ||
	    uct_iface_open(s_->md, s_->worker, &p, ic, &s_->iface) != UCS_OK) {
		if (ic)
			uct_config_release(ic);
		s_->iface = nullptr;
		why_ = "opening a gaudi_ipc interface failed";
		return false;
	}
	uct_config_release(ic);
	uct_iface_progress_enable(s_->iface, UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
	uct_iface_query(s_->iface, &s_->attr);
	return true;
}

bool UcxSide::expose(uint64_t addr, uint64_t len, std::vector<uint8_t> *rkey)
{
	if (uct_md_mem_reg(s_->md, reinterpret_cast<void *>(addr), len,
			   UCT_MD_MEM_ACCESS_ALL, &s_->dst_memh) != UCS_OK) {
		s_->dst_memh = nullptr;
		return false;
	}
	rkey->resize(s_->rkey_size);
	return uct_md_mkey_pack(s_->md, s_->dst_memh, rkey->data()) == UCS_OK;
}

std::vector<uint8_t> UcxSide::address() const
{
	std::vector<uint8_t> a(s_->attr.device_addr_len + s_->attr.iface_addr_len);
	uct_iface_get_device_address(s_->iface, reinterpret_cast<uct_device_addr_t *>(a.data()));
	uct_iface_get_address(s_->iface, reinterpret_cast<uct_iface_addr_t *>(
						 a.data() + s_->attr.device_addr_len));
	return a;
}

bool UcxSide::connect(const std::vector<uint8_t> &addr, const std::vector<uint8_t> &rkey)
{
	if (addr.size() != s_->attr.device_addr_len + s_->attr.iface_addr_len ||
	    rkey.size() != s_->rkey_size)
		return false;
	uct_ep_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCT_EP_PARAM_FIELD_IFACE | UCT_EP_PARAM_FIELD_DEV_ADDR |
		       UCT_EP_PARAM_FIELD_IFACE_ADDR;
	p.iface = s_->iface;
	p.dev_addr = reinterpret_cast<const uct_device_addr_t *>(addr.data());
	p.iface_addr = reinterpret_cast<const uct_iface_addr_t *>(addr.data() +
								  s_->attr.device_addr_len);
	if (uct_ep_create(&p, &s_->ep) != UCS_OK) {
		s_->ep = nullptr;
		return false;
	}
	s_->rkey_ok = uct_rkey_unpack(s_->component, rkey.data(), &s_->rkey) == UCS_OK;
	return s_->rkey_ok;
}

bool UcxSide::register_source(uint64_t addr, uint64_t len)
{
	if (uct_md_mem_reg(s_->md, reinterpret_cast<void *>(addr), len,
			   UCT_MD_MEM_ACCESS_ALL, &s_->src_memh) != UCS_OK) {
		s_->src_memh = nullptr;
		return false;
	}
	return true;
}

bool UcxSide::put(uint64_t src, uint64_t len, uint64_t remote_addr)
{
	uct_iov_t iov;
	memset(&iov, 0, sizeof(iov));
	iov.buffer = reinterpret_cast<void *>(src);
	iov.length = len;
	iov.memh = s_->src_memh;
	iov.count = 1;
	uct_completion_t comp;
	comp.func = completed;
	comp.count = 1;
	comp.status = UCS_OK;
	ucs_status_t st;
	while ((st = uct_ep_put_zcopy(s_->ep, &iov, 1, remote_addr, s_->rkey.rkey, &comp)) ==
	       UCS_ERR_NO_RESOURCE)
		uct_worker_progress(s_->worker);
	if (st == UCS_INPROGRESS) {
		while (comp.count > 0)
			if (!uct_worker_progress(s_->worker))
				sched_yield();
		st = comp.status;
	}
	return st == UCS_OK;
}

}  // namespace hlipc
