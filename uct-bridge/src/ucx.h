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
#include <uct/base/uct_iface.h>
#include <uct/base/uct_iov.inl>
#include <uct/base/uct_md.h>
}
