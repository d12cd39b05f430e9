// SPDX-License-Identifier: MIT
// UCX's internal headers, as the transport includes them: the installed
// build's config.h first (it decides struct layouts), then uct/base, which
// is C without extern "C" guards.
#pragma once

extern "C" {
#include "config.h"
#include <ucs/async/async.h>
#include <ucs/debug/log.h>
#include <ucs/sys/sys.h>
#include <ucs/time/time.h>
#include <uct/api/uct.h>
#include <uct/api/version.h>
#include <uct/base/uct_iface.h>
#include <uct/base/uct_iov.inl>
#include <uct/base/uct_md.h>
}

// The UCX versions the transport is built for: Debian 12's 1.13 and
// Debian 13's 1.18.  Their internal tables differ (the memory domain's
// query, registration and key packing, the component's remote key
// comparison, the interface's internal operations); HL_UCX_1_18 selects
// the newer shapes where they differ.  Any other UCX stops the build here
// rather than load with a table of the wrong shape.
#if UCT_API == UCT_VERSION(1, 13)
#define HL_UCX_1_18 0
#elif UCT_API == UCT_VERSION(1, 18)
#define HL_UCX_1_18 1
#else
#error "gaudi_ipc is built for UCX 1.13 (Debian 12) or 1.18 (Debian 13); this UCX's internal tables may differ from both"
#endif
