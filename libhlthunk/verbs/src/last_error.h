// SPDX-License-Identifier: MIT
// The thread's last failure message, and the C ABI's -errno convention.
#pragma once

#include <string>

namespace hlthunk_verbs {

// Records "what: why" as this thread's last error, sets errno to err and
// returns -err.  err is a positive errno value.
int fail(int err, const std::string &what, const std::string &why);
const char *last_error();

// errno if a failed call set it, else fallback.
int errno_or(int fallback);

// "EOPNOTSUPP" for EOPNOTSUPP, or "errno N".
std::string errno_name(int err);

}  // namespace hlthunk_verbs
