// SPDX-License-Identifier: MIT
#include "uct_env.h"

#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucs/async/async_fwd.h>
#include <uct/api/v2/uct_v2.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hlthunk.h"

namespace uct_test {

bool load_plugin()
{
	const char *path = getenv("HL_UCX_PLUGIN");
	if (!path || !*path)
		path = UCT_PLUGIN_PATH;
	// RTLD_NODELETE: UCX keeps pointers into the plugin for good.
	if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE)) {
		fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
		return false;
	}
	return true;
}

Domain &Domain::get()
{
	static Domain d = [] {
		Domain r;
		uct_component_h *comps = nullptr;
		unsigned n = 0;
		if (uct_query_components(&comps, &n) != UCS_OK)
			return r;
		for (unsigned i = 0; i < n; i++) {
			uct_component_attr_t a;
			memset(&a, 0, sizeof(a));
			a.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME;
			if (uct_component_query(comps[i], &a) == UCS_OK &&
			    strcmp(a.name, "gaudi_ipc") == 0)
				r.component = comps[i];
		}
		uct_release_component_list(comps);
		if (!r.component)
			return r;
		uct_md_config_t *cfg = nullptr;
		if (uct_md_config_read(r.component, nullptr, nullptr, &cfg) != UCS_OK)
			return r;
		if (uct_md_open(r.component, "gaudi_ipc", cfg, &r.md) != UCS_OK)
			r.md = nullptr;
		uct_config_release(cfg);
		if (r.md) {
			uct_md_attr_t attr;
			uct_md_query(r.md, &attr);
			r.rkey_size = attr.rkey_packed_size;
		}
		return r;
	}();
	return d;
}

Iface::Iface(const Config &config, ucs_async_mode_t mode)
{
	Domain &d = Domain::get();
	if (!d.md) {
		status_ = UCS_ERR_NO_DEVICE;
		return;
	}
	if ((status_ = ucs_async_context_create(mode, &async_)) !=
	    UCS_OK)
		return;
	if ((status_ = uct_worker_create(async_, UCS_THREAD_MODE_SINGLE, &worker_)) != UCS_OK)
		return;
	uct_iface_config_t *cfg = nullptr;
	if ((status_ = uct_md_iface_config_read(d.md, "gaudi_ipc", nullptr, nullptr,
						&cfg)) != UCS_OK)
		return;
	for (auto &kv : config) {
		status_ = uct_config_modify(cfg, kv.first.c_str(), kv.second.c_str());
		if (status_ != UCS_OK) {
			uct_config_release(cfg);
			return;
		}
	}
	uct_iface_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCT_IFACE_PARAM_FIELD_OPEN_MODE | UCT_IFACE_PARAM_FIELD_DEVICE;
	p.open_mode = UCT_IFACE_OPEN_MODE_DEVICE;
	p.mode.device.tl_name = "gaudi_ipc";
	p.mode.device.dev_name = "gaudi";
	status_ = uct_iface_open(d.md, worker_, &p, cfg, &iface_);
	uct_config_release(cfg);
	if (status_ != UCS_OK) {
		iface_ = nullptr;
		return;
	}
	uct_iface_progress_enable(iface_, UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
	status_ = uct_iface_query(iface_, &attr_);
}

Iface::~Iface()
{
	if (iface_)
		uct_iface_close(iface_);
	if (worker_)
		uct_worker_destroy(worker_);
	if (async_)
		ucs_async_context_destroy(async_);
}

std::vector<uint8_t> Iface::address() const
{
	std::vector<uint8_t> a(attr_.device_addr_len + attr_.iface_addr_len);
	uct_iface_get_device_address(iface_, reinterpret_cast<uct_device_addr_t *>(a.data()));
	uct_iface_get_address(iface_, reinterpret_cast<uct_iface_addr_t *>(
					      a.data() + attr_.device_addr_len));
	return a;
}

ucs_status_t Iface::connect(const std::vector<uint8_t> &addr, uct_ep_h *ep) const
{
	if (addr.size() != attr_.device_addr_len + attr_.iface_addr_len)
		return UCS_ERR_INVALID_PARAM;
	uct_ep_params_t p;
	memset(&p, 0, sizeof(p));
	p.field_mask = UCT_EP_PARAM_FIELD_IFACE | UCT_EP_PARAM_FIELD_DEV_ADDR |
		       UCT_EP_PARAM_FIELD_IFACE_ADDR;
	p.iface = iface_;
	p.dev_addr = reinterpret_cast<const uct_device_addr_t *>(addr.data());
	p.iface_addr = reinterpret_cast<const uct_iface_addr_t *>(addr.data() +
								  attr_.device_addr_len);
	return uct_ep_create(&p, ep);
}

Deadline::Deadline(double seconds)
	: end_(std::chrono::steady_clock::now() +
	       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
		       std::chrono::duration<double>(seconds * timeout_factor())))
{
}

bool Deadline::passed() const { return std::chrono::steady_clock::now() > end_; }

double timeout_factor()
{
	const char *f = getenv("HL_TIMEOUT_FACTOR");
	double v = f ? atof(f) : 1;
	return v >= 1 ? v : 1;
}

bool Iface::wait(const volatile bool *done, double seconds) const
{
	Deadline d(seconds);
	while (!*done) {
		if (!progress())
			sched_yield();
		if (d.passed())
			return false;
	}
	return true;
}

bool Iface::wait_comp(const uct_completion_t *comp, double seconds) const
{
	Deadline d(seconds);
	while (comp->count > 0) {
		if (!progress())
			sched_yield();
		if (d.passed())
			return false;
	}
	return true;
}

ucs_status_t Iface::flush(uct_ep_h ep, double seconds) const
{
	Deadline d(seconds);
	for (;;) {
		ucs_status_t st = uct_ep_flush(ep, 0, nullptr);
		if (st != UCS_INPROGRESS && st != UCS_ERR_NO_RESOURCE)
			return st;
		if (!progress())
			sched_yield();
		if (d.passed())
			return UCS_ERR_TIMED_OUT;
	}
}

namespace {
void completion_cb(uct_completion_t *self)
{
	auto *c = reinterpret_cast<Completion *>(self);
	c->status = self->status;
	c->done = true;
}
}  // namespace

Completion::Completion(int count) { reset(count); }

void Completion::reset(int count)
{
	comp.func = completion_cb;
	comp.count = count;
	comp.status = UCS_OK;
	done = false;
	status = UCS_OK;
}

Buffer::Buffer(Kind kind, uint64_t size, int dev_fd) : kind_(kind), size_(size)
{
	if (kind == Host) {
		void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			cpu_ = static_cast<unsigned char *>(p);
			addr_ = reinterpret_cast<uintptr_t>(p);
		}
		return;
	}
	// Device memory comes in whole pages (the dma-buf view needs them).
	const uint64_t pages = (size + 4095) & ~4095ull;
	if (dev_.create(dev_fd, pages) != 0 || dev_.map_cpu() != 0)
		return;
	addr_ = dev_.va();
	cpu_ = dev_.cpu();
}

Buffer::~Buffer() { release(); }

void Buffer::release()
{
	if (kind_ == Host && cpu_)
		munmap(cpu_, size_);
	else
		dev_.reset();
	cpu_ = nullptr;
}

Registration::Registration(uint64_t addr, uint64_t len, unsigned flags)
{
	Domain &d = Domain::get();
	status_ = uct_md_mem_reg(d.md, reinterpret_cast<void *>(addr), len, flags, &memh_);
	if (status_ != UCS_OK) {
		memh_ = nullptr;
		return;
	}
	packed_.resize(d.rkey_size);
	status_ = uct_md_mkey_pack(d.md, memh_, packed_.data());
}

Registration::~Registration() { dereg(); }

void Registration::dereg()
{
	if (memh_)
		uct_md_mem_dereg(Domain::get().md, memh_);
	memh_ = nullptr;
}

ucs_status_t Registration::invalidate(uct_completion_t *comp)
{
	uct_md_mem_dereg_params_t p;
	p.field_mask = UCT_MD_MEM_DEREG_FIELD_MEMH | UCT_MD_MEM_DEREG_FIELD_FLAGS |
		       UCT_MD_MEM_DEREG_FIELD_COMPLETION;
	p.memh = memh_;
	p.flags = UCT_MD_MEM_DEREG_FLAG_INVALIDATE;
	p.comp = comp;
	ucs_status_t st = uct_md_mem_dereg_v2(Domain::get().md, &p);
	if (st == UCS_OK)
		memh_ = nullptr;
	return st;
}

RemoteKey::RemoteKey(const std::vector<uint8_t> &packed)
{
	status_ = uct_rkey_unpack(Domain::get().component, packed.data(), &b_);
}

RemoteKey::~RemoteKey()
{
	if (status_ == UCS_OK)
		uct_rkey_release(Domain::get().component, &b_);
}

// Here rather than hlipc's: this file is built optimised, and filling and
// checking 64 MiB byte by byte under QEMU without KVM is what takes time.
void fill(unsigned char *p, uint64_t len, uint32_t seed, uint64_t base)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = hlipc::pattern_byte(seed, base + i);
}

int64_t check(const unsigned char *p, uint64_t len, uint32_t seed, uint64_t base)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != hlipc::pattern_byte(seed, base + i))
			return static_cast<int64_t>(i);
	return -1;
}

int64_t check_zero(const unsigned char *p, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i])
			return static_cast<int64_t>(i);
	return -1;
}

std::string sim_bus(int index)
{
	std::string path = "/sys/class/habanalabs_sim/hlsim" + std::to_string(index) +
			   "/pci_addr";
	FILE *f = fopen(path.c_str(), "r");
	if (!f)
		return {};
	char buf[32] = "";
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	std::string s(buf);
	while (!s.empty() && s.back() == '\n')
		s.pop_back();
	return s;
}

int open_device(int index)
{
	std::string bus = sim_bus(index);
	return bus.empty() ? -ENODEV : hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, bus.c_str());
}

}  // namespace uct_test
