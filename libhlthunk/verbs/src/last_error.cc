// SPDX-License-Identifier: MIT
#include "last_error.h"

#include <cerrno>
#include <cstring>

namespace hlthunk_verbs {

namespace {
thread_local std::string g_last;
}

int fail(int err, const std::string &what, const std::string &why)
{
	g_last = what + ": " + why;
	errno = err;
	return -err;
}

const char *last_error()
{
	return g_last.c_str();
}

int errno_or(int fallback)
{
	return errno > 0 ? errno : fallback;
}

std::string errno_name(int err)
{
	const char *n = strerrorname_np(err);
	return n ? n : "errno " + std::to_string(err);
}

}  // namespace hlthunk_verbs
