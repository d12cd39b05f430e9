// SPDX-License-Identifier: MIT
// The table of operations UCX calls on the transport's interfaces and
// endpoints: thin entry points that find the C++ object and run its
// method, with nothing thrown past them.
#pragma once

#include "ucx.h"

namespace gaudi_ipc {

uct_iface_ops_t *iface_ops();

}  // namespace gaudi_ipc
