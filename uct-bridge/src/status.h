// SPDX-License-Identifier: MIT
// Errors: a -errno of libhlthunk or the system as a ucs_status_t, and log
// messages that say what failed and what to do (libhlthunk's own message
// for its calls).
#pragma once

#include "ucx.h"

namespace gaudi_ipc {

// UCS status for a negative errno (0 is UCS_OK).
ucs_status_t status_from_errno(int err);

// The message of the last failed libhlthunk call in this thread, or the
// system's text for err when the library has none.  Only right after the
// failed call.
const char *library_message(int err);

// What a -errno a peer's staging server answered means.
const char *staged_message(int err);

}  // namespace gaudi_ipc

namespace gaudi_ipc {

// Runs an entry point called by UCX: nothing it throws gets out (the only
// exception the transport can meet is running out of memory).
template <typename F>
auto guarded(F &&f) noexcept -> decltype(f())
{
	try {
		return f();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory");
		return UCS_ERR_NO_MEMORY;
	}
}

}  // namespace gaudi_ipc
