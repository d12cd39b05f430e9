// SPDX-License-Identifier: MIT
#include "md.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "component.h"
#include "device_index.h"
#include "device_nodes.h"
#include "hlthunk.h"
#include "memh.h"
#include "node_identity.h"
#include "registry.h"
#include "rkey_format.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

std::mutex open_mu;
std::unique_ptr<Md> the_md;
int open_refs;

bool wants_write(unsigned flags)
{
	constexpr unsigned kAccess = UCT_MD_MEM_ACCESS_ALL;
	// No access flags at all means every access.
	return !(flags & kAccess) ||
	       (flags & (UCT_MD_MEM_ACCESS_REMOTE_PUT | UCT_MD_MEM_ACCESS_LOCAL_WRITE));
}

ucs_status_t md_query(uct_md_h md, uct_md_attr_t *attr)
{
	return Md::from(md)->query(attr);
}

ucs_status_t md_mem_reg(uct_md_h md, void *address, size_t length,
			unsigned flags, uct_mem_h *memh_p)
{
	return guarded([&] { return Md::from(md)->mem_reg(address, length, flags, memh_p); });
}

ucs_status_t md_mem_dereg(uct_md_h md, const uct_md_mem_dereg_params_t *params)
{
	return guarded([&] { return Md::from(md)->mem_dereg(params); });
}

ucs_status_t md_mkey_pack(uct_md_h md, uct_mem_h memh,
			  const uct_md_mkey_pack_params_t *, void *buffer)
{
	return Md::from(md)->mkey_pack(memh, buffer);
}

ucs_status_t md_mem_alloc(uct_md_h, size_t *, void **, ucs_memory_type_t,
			  unsigned, const char *, uct_mem_h *)
{
	return UCS_ERR_UNSUPPORTED;
}

ucs_status_t md_mem_free(uct_md_h, uct_mem_h) { return UCS_ERR_UNSUPPORTED; }

ucs_status_t md_mem_advise(uct_md_h, uct_mem_h, void *, size_t, unsigned)
{
	return UCS_ERR_UNSUPPORTED;
}

ucs_status_t md_mem_query(uct_md_h, const void *, size_t, uct_md_mem_attr_t *)
{
	return UCS_ERR_UNSUPPORTED;
}

int md_is_sockaddr_accessible(uct_md_h, const ucs_sock_addr_t *,
			      uct_sockaddr_accessibility_t)
{
	return 0;
}

ucs_status_t md_detect_memory_type(uct_md_h, const void *, size_t,
				   ucs_memory_type_t *)
{
	// UCS has no Gaudi memory type: device memory is host memory to UCP.
	return UCS_ERR_UNSUPPORTED;
}

uct_md_ops_t *md_ops()
{
	static uct_md_ops_t ops = [] {
		uct_md_ops_t o;
		memset(&o, 0, sizeof(o));
		o.close = md_close;
		o.query = md_query;
		o.mem_alloc = md_mem_alloc;
		o.mem_free = md_mem_free;
		o.mem_advise = md_mem_advise;
		o.mem_reg = md_mem_reg;
		o.mem_dereg = md_mem_dereg;
		o.mem_query = md_mem_query;
		o.mkey_pack = md_mkey_pack;
		o.is_sockaddr_accessible = md_is_sockaddr_accessible;
		o.detect_memory_type = md_detect_memory_type;
		return o;
	}();
	return &ops;
}

}  // namespace

void md_close(uct_md_h md)
{
	std::lock_guard<std::mutex> l(open_mu);
	if (the_md && md == the_md->handle() && --open_refs == 0)
		the_md.reset();
}

ucs_status_t Md::open(uct_component_t *, const MdConfig *config, uct_md_h *md_p)
{
	try {
		std::lock_guard<std::mutex> l(open_mu);
		if (!the_md)
			the_md = std::make_unique<Md>(*config);
		++open_refs;
		*md_p = the_md->handle();
		return UCS_OK;
	} catch (const std::bad_alloc &) {
		return UCS_ERR_NO_MEMORY;
	}
}

Md::Md(const MdConfig &)
{
	h_.super.ops = md_ops();
	h_.super.component = &component;
	h_.self = this;
}

ucs_status_t Md::query(uct_md_attr_t *attr) const
{
	attr->cap.flags = UCT_MD_FLAG_REG | UCT_MD_FLAG_NEED_MEMH |
			  UCT_MD_FLAG_NEED_RKEY;
	attr->cap.max_alloc = 0;
	attr->cap.max_reg = ULONG_MAX;
	attr->cap.reg_mem_types = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	attr->cap.detect_mem_types = 0;
	attr->cap.alloc_mem_types = 0;
	attr->cap.access_mem_types = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	attr->rkey_packed_size = sizeof(PackedRkey);
	// Registering pins (host) or exports once per allocation (device,
	// cached by libhlthunk): a fixed cost of a few system calls.
	attr->reg_cost = ucs_linear_func_make(20e-6, 0.05e-9);
	memset(&attr->local_cpus, 0xff, sizeof(attr->local_cpus));
	return UCS_OK;
}

ucs_status_t Md::mem_reg(void *address, size_t length, unsigned flags,
			 uct_mem_h *memh_p)
{
	const ucs_log_level_t level = uct_md_reg_log_lvl(flags);
	const uint64_t addr = reinterpret_cast<uintptr_t>(address);
	if (length == 0 || addr + length < addr) {
		ucs_log(level, "gaudi_ipc: cannot register %zu bytes at %p: empty or "
			       "wrapping range", length, address);
		return UCS_ERR_INVALID_PARAM;
	}
	auto m = std::make_unique<Memh>();
	memset(m.get(), 0, sizeof(*m));
	m->addr = addr;
	m->length = length;
	m->writable = wants_write(flags);

	struct hlthunk_ipc_mem_info info;
	int rc = hlthunk_ipc_lookup_address(addr, length, &info);
	if (rc == 0) {
		// An address libhlthunk knows as a device mapping of this process
		// is device memory; anything else is host memory (UCX has no
		// memory type for Gaudi: the address is all there is).
		m->device = true;
		m->writable = true;  // libhlthunk registers device memory read-write
		memcpy(m->bus, info.pci_bus_id, sizeof(m->bus));
		m->bus[sizeof(m->bus) - 1] = 0;
		m->dev = device_index(m->bus);
	} else if (rc != -ENOENT) {
		ucs_log(level, "gaudi_ipc: cannot register %zu bytes at %p: %s",
			length, address, library_message(rc));
		return status_from_errno(rc);
	}

	// Channel path: a /dev/hl_ipc region, if the kernel can reach the memory.
	if (m->device) {
		int fd = DeviceNodes::get().control_fd(m->bus);
		uint64_t off = 0, size = 0;
		rc = fd < 0 ? fd
			    : hlthunk_ipc_register_device_memory(fd, addr, &m->cookie,
								 &off, &size);
		m->cookie_offset = off;
	} else {
		uint32_t access = HLTHUNK_IPC_ACCESS_READ;
		if (wants_write(flags))
			access |= HLTHUNK_IPC_ACCESS_WRITE;
		rc = hlthunk_ipc_register_host(address, length, access, &m->cookie);
		if (rc == -EFAULT && (access & HLTHUNK_IPC_ACCESS_WRITE)) {
			// Read-only memory: peers may read it only.
			rc = hlthunk_ipc_register_host(address, length,
						       HLTHUNK_IPC_ACCESS_READ, &m->cookie);
			m->writable = false;
		}
		m->own_cookie = rc == 0;
	}
	if (rc < 0) {
		m->cookie = 0;
		ucs_debug("gaudi_ipc: %p (%zu bytes) is not reachable by channels, "
			  "only by the staged path: %s",
			  address, length, library_message(rc));
	}
	// Staged path: a key of this process's registry.
	StagedRegion r;
	memset(&r, 0, sizeof(r));
	r.addr = addr;
	r.length = length;
	r.device = m->device;
	memcpy(r.bus, m->bus, sizeof(r.bus));
	r.writable = m->writable;
	m->stage_key = Registry::get().add(r);
	ucs_trace("gaudi_ipc: registered %p..%p %s%s cookie 0x%" PRIx64 " key 0x%" PRIx64,
		  address, UCS_PTR_BYTE_OFFSET(address, length),
		  m->device ? "device memory of " : "host memory", m->bus, m->cookie,
		  m->stage_key);
	*memh_p = m.release();
	return UCS_OK;
}

ucs_status_t Md::mem_dereg(const uct_md_mem_dereg_params_t *params)
{
	UCT_MD_MEM_DEREG_CHECK_PARAMS(params, 0);
	std::unique_ptr<Memh> m(static_cast<Memh *>(params->memh));
	if (m->own_cookie) {
		int rc = hlthunk_ipc_deregister(m->cookie);
		if (rc < 0)
			ucs_debug("gaudi_ipc: deregistering cookie 0x%" PRIx64 ": %s",
				  m->cookie, library_message(rc));
	}
	if (m->stage_key)
		Registry::get().remove(m->stage_key);
	return UCS_OK;
}

ucs_status_t Md::mkey_pack(uct_mem_h memh, void *buffer) const
{
	const Memh *m = static_cast<const Memh *>(memh);
	RkeyFields f;
	memset(&f, 0, sizeof(f));
	f.flags = (m->device ? kRkeyDevice : 0) | (m->cookie ? kRkeyCookie : 0) |
		  (m->stage_key ? kRkeyStaged : 0) | (m->writable ? kRkeyWritable : 0);
	f.addr = m->addr;
	f.length = m->length;
	f.cookie = m->cookie;
	f.cookie_offset = m->cookie_offset;
	f.stage_key = m->stage_key;
	f.owner = this_process();
	f.owner_uid = static_cast<uint32_t>(geteuid());
	const NodeId &node = this_node();
	memcpy(f.boot_id, node.boot_id, sizeof(f.boot_id));
	f.pid_ns = node.pid_ns;
	memcpy(f.bus, m->bus, sizeof(f.bus));
	pack_rkey(f, static_cast<PackedRkey *>(buffer));
	return UCS_OK;
}

}  // namespace gaudi_ipc
