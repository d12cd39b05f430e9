// SPDX-License-Identifier: MIT
// Helpers for the C ABI edge: -errno results that also set errno, and the
// thread's last error message.
#pragma once

#include <cerrno>
#include <string>

#include "error_message.h"
#include "result.h"

namespace hlthunk {

// Remembers what failed for hlthunk_ipc_last_error() in this thread.
void set_last_error(Op op, const std::string &what, int err);

// Returns rc unchanged; a negative rc also sets errno (hl-thunk callers
// read errno after a failed call).
inline int c_return(int rc)
{
	if (rc < 0)
		errno = -rc;
	return rc;
}

inline int c_fail(Op op, const char *what, int rc)
{
	set_last_error(op, what, rc);
	return c_return(rc);
}

template <typename T>
int c_return(const Result<T> &r)
{
	return c_return(r.error());
}

}  // namespace hlthunk
