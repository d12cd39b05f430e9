// SPDX-License-Identifier: MIT
// The gaudi_ipc memory domain: one per process (it is a view of the node,
// not of one device, as UCX's cuda_ipc domain is).  It registers host
// memory and device memory that this process mapped through libhlthunk,
// for the channel path (a /dev/hl_ipc region cookie; device memory through
// libhlthunk's registration cache) and the staged path (a registry key),
// and packs both into the remote key.
#pragma once

#include "invalidations.h"
#include "transport_config.h"
#include "ucx.h"

namespace gaudi_ipc {

class Md;

// uct_md_ops_t::close.
void md_close(uct_md_h md);

// What UCX sees: uct_md_t first, so a uct_md_h converts to it.
struct MdHandle {
	uct_md super;
	Md *self;
};

#if HL_UCX_1_18
using MdAttr = uct_md_attr_v2_t;
#else
using MdAttr = uct_md_attr_t;
#endif

class Md {
public:
	// uct_component_t::md_open: the process's domain, opened on first use
	// with this config (later opens share it and its configuration).
	static ucs_status_t open(uct_component_t *component, const MdConfig *config,
				 uct_md_h *md_p);
	static Md *from(uct_md_h md) { return reinterpret_cast<MdHandle *>(md)->self; }

	Md(uct_component_t *component, const MdConfig &config);
	~Md();
	Md(const Md &) = delete;
	Md &operator=(const Md &) = delete;

	uct_md_h handle() { return &h_.super; }

	ucs_status_t query(MdAttr *attr) const;
	ucs_status_t mem_reg(void *address, size_t length, uint64_t flags,
			     uct_mem_h *memh_p);
	ucs_status_t mem_dereg(const uct_md_mem_dereg_params_t *params);
	ucs_status_t mkey_pack(uct_mem_h memh, void *buffer) const;

private:
	friend void md_close(uct_md_h md);
	MdHandle h_;
	Invalidations invalidations_;
};

}  // namespace gaudi_ipc
