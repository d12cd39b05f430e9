// SPDX-License-Identifier: MIT
// What UCX calls: the table of the transport's interface and endpoint
// operations, and the interface's open.  Thin entry points that find the
// C++ object and run its method, with nothing thrown past them.
#pragma once

#include "ucx.h"

namespace gaudi_ipc {

uct_iface_ops_t *iface_ops();
// UCX's own part of the interface's table (UCX 1.18 adds to it).
uct_iface_internal_ops_t *iface_internal_ops();
// uct_tl_t::iface_open.
ucs_status_t iface_open(uct_md_h md, uct_worker_h worker, const uct_iface_params_t *params,
			const uct_iface_config_t *config, uct_iface_h *iface_p);

}  // namespace gaudi_ipc
