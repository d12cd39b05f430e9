// SPDX-License-Identifier: MIT
// The gaudi_ipc UCT component and its one transport, registered with UCX
// when this library is loaded (LD_PRELOAD, linking or dlopen before UCX
// looks for components: Debian's UCX opens only the modules compiled into
// it).
#pragma once

#include "ucx.h"

namespace gaudi_ipc {

extern uct_component_t component;
extern uct_tl_t transport;

}  // namespace gaudi_ipc
