// SPDX-License-Identifier: MIT
// hlthunk_ipc_strerror, hlthunk_ipc_last_error.
#include "c_return.h"
#include "hlthunk.h"

namespace hlthunk {

namespace {
thread_local std::string last_error;
}

void set_last_error(Op op, const std::string &what, int err)
{
	last_error = describe_failure(op, what, err);
}

}  // namespace hlthunk

using namespace hlthunk;

extern "C" hlthunk_public const char *hlthunk_ipc_strerror(int err)
{
	return error_message(Op::Generic, err);
}

extern "C" hlthunk_public const char *hlthunk_ipc_last_error(void)
{
	return last_error.c_str();
}
