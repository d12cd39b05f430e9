// SPDX-License-Identifier: MIT
// hlthunk_ipc_strerror, hlthunk_ipc_last_error.
#include "c_return.h"
#include "hlthunk.h"

namespace hlthunk {

namespace {
// A fixed buffer: recording a failure must not itself fail (it runs while
// an entry point reports running out of memory).
thread_local char last_error[512];
thread_local unsigned long recorded;
}

void set_last_error(Op op, const char *what, int err) noexcept
{
	format_failure(last_error, sizeof(last_error), op, what, err);
	recorded++;
}

unsigned long failures_recorded() noexcept
{
	return recorded;
}

}  // namespace hlthunk

using namespace hlthunk;

extern "C" hlthunk_public const char *hlthunk_ipc_strerror(int err)
{
	return error_message(Op::Generic, err);
}

extern "C" hlthunk_public const char *hlthunk_ipc_last_error(void)
{
	return last_error;
}
