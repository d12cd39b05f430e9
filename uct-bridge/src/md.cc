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

// What peers may do: no access flags at all means every access.
bool remote_write(uint64_t flags)
{
	return !(flags & UCT_MD_MEM_ACCESS_ALL) ||
	       (flags & (UCT_MD_MEM_ACCESS_REMOTE_PUT | UCT_MD_MEM_ACCESS_REMOTE_ATOMIC));
}

// What this process may do: gets land in memory registered for local or
// remote writes (UCP registers the destinations of its gets for RMA).
bool local_write(uint64_t flags)
{
	return remote_write(flags) || (flags & UCT_MD_MEM_ACCESS_LOCAL_WRITE);
}

uint32_t access_bits(bool write)
{
	return HLTHUNK_IPC_ACCESS_READ | (write ? HLTHUNK_IPC_ACCESS_WRITE : 0);
}

#if HL_UCX_1_18
ucs_status_t md_query(uct_md_h md, uct_md_attr_v2_t *attr)
{
	uct_md_base_md_query(attr);
	return Md::from(md)->query(attr);
}

ucs_status_t md_mem_reg(uct_md_h md, void *address, size_t length,
			const uct_md_mem_reg_params_t *params, uct_mem_h *memh_p)
{
	const uint64_t flags = UCT_MD_MEM_REG_FIELD_VALUE(params, flags, FIELD_FLAGS, 0);
	// The domain offers no dma-buf registration (UCT_MD_FLAG_REG_DMABUF).
	if (UCT_MD_MEM_REG_FIELD_VALUE(params, dmabuf_fd, FIELD_DMABUF_FD,
				       UCT_DMABUF_FD_INVALID) != UCT_DMABUF_FD_INVALID) {
		uct_md_log_mem_reg_error(flags, "gaudi_ipc: cannot register a dma-buf: "
					 "the domain registers addresses only");
		return UCS_ERR_UNSUPPORTED;
	}
	return guarded([&] { return Md::from(md)->mem_reg(address, length, flags, memh_p); });
}

// The key covers the whole registration, whatever part of it UCX packs
// it for: the kernel's region and the staging server hold peers to that.
ucs_status_t md_mkey_pack(uct_md_h md, uct_mem_h memh, void *, size_t,
			  const uct_md_mkey_pack_params_t *params, void *buffer)
{
	const uint64_t flags = UCS_PARAM_VALUE(UCT_MD_MKEY_PACK, params, flags, FIELD_FLAGS, 0);
	// No exported keys (UCT_MD_FLAG_EXPORTED_MKEY): keys are for peers.
	if (flags & UCT_MD_MKEY_PACK_FLAG_EXPORT)
		return UCS_ERR_UNSUPPORTED;
	if (flags & UCT_MD_MKEY_PACK_FLAG_INVALIDATE_AMO) {
		ucs_debug("gaudi_ipc: no atomics to invalidate (UCT_MD_FLAG_INVALIDATE_AMO)");
		return UCS_ERR_INVALID_PARAM;
	}
	if (flags & UCT_MD_MKEY_PACK_FLAG_INVALIDATE_RMA)
		static_cast<Memh *>(memh)->packed_invalidatable = true;
	return Md::from(md)->mkey_pack(memh, buffer);
}

ucs_status_t md_mem_attach(uct_md_h, const void *, uct_md_mem_attach_params_t *, uct_mem_h *)
{
	return UCS_ERR_UNSUPPORTED;
}
#else
ucs_status_t md_query(uct_md_h md, uct_md_attr_t *attr)
{
	return Md::from(md)->query(attr);
}

ucs_status_t md_mem_reg(uct_md_h md, void *address, size_t length,
			unsigned flags, uct_mem_h *memh_p)
{
	return guarded([&] { return Md::from(md)->mem_reg(address, length, flags, memh_p); });
}

ucs_status_t md_mkey_pack(uct_md_h md, uct_mem_h memh,
			  const uct_md_mkey_pack_params_t *, void *buffer)
{
	return Md::from(md)->mkey_pack(memh, buffer);
}

int md_is_sockaddr_accessible(uct_md_h, const ucs_sock_addr_t *,
			      uct_sockaddr_accessibility_t)
{
	return 0;
}
#endif

ucs_status_t md_mem_dereg(uct_md_h md, const uct_md_mem_dereg_params_t *params)
{
	return guarded([&] { return Md::from(md)->mem_dereg(params); });
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
#if HL_UCX_1_18
		o.mem_attach = md_mem_attach;
#else
		o.is_sockaddr_accessible = md_is_sockaddr_accessible;
#endif
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

ucs_status_t Md::open(uct_component_t *component, const MdConfig *config, uct_md_h *md_p)
{
	try {
		std::lock_guard<std::mutex> l(open_mu);
		if (!the_md)
			the_md = std::make_unique<Md>(component, *config);
		++open_refs;
		*md_p = the_md->handle();
		return UCS_OK;
	} catch (const std::bad_alloc &) {
		return UCS_ERR_NO_MEMORY;
	}
}

Md::Md(uct_component_t *component, const MdConfig &)
{
	h_.super.ops = md_ops();
	h_.super.component = component;
	h_.self = this;
}

Md::~Md()
{
	// Registrations never deregistered hold these back: they end unfinished.
	auto left = invalidations_.drain();
	if (!left.empty())
		ucs_warn("gaudi_ipc: memory domain closed with %zu invalidations waiting for "
			 "registrations that were never deregistered", left.size());
	for (uct_completion_t *c : left)
		uct_invoke_completion(c, UCS_ERR_CANCELED);
}

ucs_status_t Md::query(MdAttr *attr) const
{
	// INVALIDATE: every deregistration revokes the handle's keys before it
	// returns (mem_dereg); an invalidating one completes when the last
	// registration of its memory is gone (invalidations.h).  Puts and
	// gets both stop (UCX 1.18 names that INVALIDATE_RMA).
	uint64_t flags = UCT_MD_FLAG_REG | UCT_MD_FLAG_NEED_MEMH | UCT_MD_FLAG_NEED_RKEY |
			 UCT_MD_FLAG_INVALIDATE;
#if HL_UCX_1_18
	flags |= UCT_MD_FLAG_INVALIDATE_RMA;
	auto &cap = *attr;
#else
	auto &cap = attr->cap;
#endif
	cap.flags = flags;
	cap.max_alloc = 0;
	cap.max_reg = ULONG_MAX;
	cap.reg_mem_types = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	cap.detect_mem_types = 0;
	cap.alloc_mem_types = 0;
	cap.access_mem_types = UCS_BIT(UCS_MEMORY_TYPE_HOST);
	attr->rkey_packed_size = sizeof(PackedRkey);
	// Registering pins (host memory) or exports the range as a dma-buf
	// (device memory): a fixed cost of a few system calls.
	attr->reg_cost = ucs_linear_func_make(20e-6, 0.05e-9);
	memset(&attr->local_cpus, 0xff, sizeof(attr->local_cpus));
	return UCS_OK;
}

namespace {

// A /dev/hl_ipc region of exactly [addr, addr + length) with that access:
// the kernel then enforces the range and the access for everybody with
// the cookie, and deregistering it revokes it.  0 or -errno.
int register_region(const Memh &m, bool write, uint64_t *cookie, uint64_t *offset)
{
	*offset = 0;
	if (m.device) {
		int fd = DeviceNodes::get().control_fd(m.bus);
		if (fd < 0)
			return fd;
		return hlthunk_ipc_register_device_range(fd, m.addr, m.length, access_bits(write),
							 cookie, offset);
	}
	return hlthunk_ipc_register_host(reinterpret_cast<void *>(m.addr), m.length,
					 access_bits(write), cookie);
}

void deregister_cookie(uint64_t c)
{
	// Returns once no copy is inside the region any more.
	int rc = hlthunk_ipc_deregister(c);
	if (rc < 0)
		ucs_debug("gaudi_ipc: deregistering cookie 0x%" PRIx64 ": %s", c,
			  library_message(rc));
}

void deregister_regions(const Memh &m)
{
	for (uint64_t c : {m.cookie, m.local_cookie != m.cookie ? m.local_cookie : 0})
		if (c)
			deregister_cookie(c);
}

// Once per process: on a host where channels cannot reach device memory
// (no DMA engine, or the kernel does not allow peer to peer), every
// registration of device memory would say so.
void say_device_memory_is_staged(const char *why)
{
	static std::once_flag said;
	std::call_once(said, [why] {
		ucs_diag("gaudi_ipc: device memory takes the staged path on this host, "
			 "host memory channels: %s",
			 why);
	});
}

// Whether the kernel's region of a cookie is [offset 0, length): no byte
// more than was registered.
bool region_is_exactly(uint64_t cookie, uint64_t offset, uint64_t length)
{
	struct hlthunk_ipc_region_info info;
	return offset == 0 && hlthunk_ipc_query_cookie(cookie, &info) == 0 && info.size == length;
}

}  // namespace

ucs_status_t Md::mem_reg(void *address, size_t length, uint64_t flags,
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
	m->remote_writable = remote_write(flags);
	m->local_writable = local_write(flags);
	m->rma_access = !(flags & UCT_MD_MEM_ACCESS_ALL) ||
			(flags & (UCT_MD_MEM_ACCESS_REMOTE_PUT | UCT_MD_MEM_ACCESS_REMOTE_GET));

	struct hlthunk_ipc_mem_info info;
	int rc = hlthunk_ipc_lookup_address(addr, length, &info);
	if (rc == 0) {
		// An address libhlthunk knows as a device mapping of this process
		// is device memory; anything else is host memory (UCX has no
		// memory type for Gaudi: the address is all there is).
		m->device = true;
		memcpy(m->bus, info.pci_bus_id, sizeof(m->bus));
		m->bus[sizeof(m->bus) - 1] = 0;
		m->dev = device_index(m->bus);
	} else if (rc != -ENOENT) {
		ucs_log(level, "gaudi_ipc: cannot register %zu bytes at %p: %s",
			length, address, library_message(rc));
		return status_from_errno(rc);
	}

	// Channel path: a region the kernel holds to exactly what peers were
	// granted, if the kernel can reach the memory.
	uint64_t cookie = 0, offset = 0;
	rc = register_region(*m, m->remote_writable, &cookie, &offset);
	if (rc == -EFAULT && !m->device && m->remote_writable) {
		// Read-only pages: peers may read them only, and so may we.
		rc = register_region(*m, false, &cookie, &offset);
		m->remote_writable = m->local_writable = false;
	}
	if (rc < 0) {
		cookie = 0;
		ucs_debug("gaudi_ipc: %p (%zu bytes) is not reachable by channels, "
			  "only by the staged path: %s",
			  address, length, library_message(rc));
		if (m->device && rc == -EOPNOTSUPP)
			say_device_memory_is_staged(library_message(rc));
	}
	// Peers get the cookie only if its region is exactly the registered
	// bytes.  Device memory is exported in whole pages, so a registration
	// that starts or ends inside a page has a wider region, and its
	// cookie would grant the rest of those pages: it stays here, for this
	// process's own copies, and peers reach the memory by the staged path,
	// whose owner checks the exact range.
	const bool exact = cookie && region_is_exactly(cookie, offset, length);
	if (exact) {
		m->cookie = cookie;
		m->cookie_offset = offset;
	} else if (cookie) {
		ucs_debug("gaudi_ipc: %p (%zu bytes) is not whole pages of device memory: "
			  "peers reach it by the staged path only",
			  address, length);
	}
	m->local_cookie = cookie;
	m->local_cookie_offset = offset;
	if (cookie && m->local_writable && !m->remote_writable) {
		// Writable by us only: a region whose cookie stays here.
		uint64_t w = 0, wo = 0;
		rc = register_region(*m, true, &w, &wo);
		if (rc < 0) {
			w = wo = 0;
			ucs_debug("gaudi_ipc: %p (%zu bytes): no writable region for this "
				  "process's own gets, they take the staged path: %s",
				  address, length, library_message(rc));
		}
		if (!exact)
			deregister_cookie(cookie);  // neither peers nor this process use it
		m->local_cookie = w;
		m->local_cookie_offset = wo;
	}
	// Staged path: a key of this process's registry.
	StagedRegion r;
	memset(&r, 0, sizeof(r));
	r.addr = addr;
	r.length = length;
	r.device = m->device;
	r.writable = m->remote_writable;
	r.dev = m->dev;
	r.exported = m->exported();
	m->stage_key = Registry::get().add(r);
	ucs_trace("gaudi_ipc: registered %p..%p %s%s%s cookie 0x%" PRIx64 " key 0x%" PRIx64,
		  address, UCS_PTR_BYTE_OFFSET(address, length),
		  m->device ? "device memory of " : "host memory", m->bus,
		  m->remote_writable ? "" : " (read-only for peers)", m->cookie, m->stage_key);
	invalidations_.added(m.get());
	*memh_p = m.release();
	return UCS_OK;
}

ucs_status_t Md::mem_dereg(const uct_md_mem_dereg_params_t *params)
{
	UCT_MD_MEM_DEREG_CHECK_PARAMS(params, 1);
	const unsigned flags = UCT_MD_MEM_DEREG_FIELD_VALUE(params, flags, FIELD_FLAGS, 0);
	uct_completion_t *comp = UCT_MD_MEM_DEREG_FIELD_VALUE(params, comp, FIELD_COMPLETION,
							      nullptr);
	if ((flags & UCT_MD_MEM_DEREG_FLAG_INVALIDATE) && !comp) {
		ucs_error("gaudi_ipc: an invalidating deregistration needs a completion");
		return UCS_ERR_INVALID_PARAM;
	}
#if HL_UCX_1_18
	if (flags & UCT_MD_MEM_DEREG_FLAG_INVALIDATE) {
		const Memh *h = static_cast<const Memh *>(params->memh);
		if (!h->rma_access)
			return UCS_ERR_UNSUPPORTED;
		if (!h->packed_invalidatable) {
			// Refused quietly, as UCX's own domains do.
			ucs_debug("gaudi_ipc: an invalidating deregistration of %p needs a key "
				  "packed with UCT_MD_MKEY_PACK_FLAG_INVALIDATE_RMA",
				  reinterpret_cast<void *>(h->addr));
			return UCS_ERR_INVALID_PARAM;
		}
	}
#endif
	std::unique_ptr<Memh> m(static_cast<Memh *>(params->memh));
	// Both paths wait for pieces in service: the kernel for channel
	// copies inside the regions, the registry for the staged pieces the
	// staging server is moving.  Once this returns no peer touches the
	// memory.
	deregister_regions(*m);
	if (m->stage_key)
		Registry::get().remove(m->stage_key);
	// Its keys reach nothing; an invalidation completes once no other
	// registration reaches the memory either (invalidations.h).
	const bool invalidate = flags & UCT_MD_MEM_DEREG_FLAG_INVALIDATE;
	for (uct_completion_t *c : invalidations_.removed(m.get(), invalidate ? comp : nullptr))
		uct_invoke_completion(c, UCS_OK);
	return UCS_OK;
}

ucs_status_t Md::mkey_pack(uct_mem_h memh, void *buffer) const
{
	const Memh *m = static_cast<const Memh *>(memh);
	RkeyFields f;
	memset(&f, 0, sizeof(f));
	f.flags = (m->device ? kRkeyDevice : 0) | (m->cookie ? kRkeyCookie : 0) |
		  (m->stage_key ? kRkeyStaged : 0) | (m->remote_writable ? kRkeyWritable : 0);
	f.addr = m->addr;
	f.length = m->length;
	f.cookie = m->cookie;
	f.cookie_offset = m->cookie_offset;
	f.stage_key = m->stage_key;
	f.owner = this_process();
	const NodeId &node = this_node();
	memcpy(f.boot_id, node.boot_id, sizeof(f.boot_id));
	f.pid_ns = node.pid_ns;
	memcpy(f.bus, m->bus, sizeof(f.bus));
	pack_rkey(f, static_cast<PackedRkey *>(buffer));
	return UCS_OK;
}

}  // namespace gaudi_ipc
