// SPDX-License-Identifier: MIT
// Helpers for the C ABI edge: -errno results that also set errno, the
// thread's last error message, and the guard every entry point runs in.
#pragma once

#include <cerrno>
#include <new>
#include <utility>

#include "error_message.h"
#include "result.h"

namespace hlthunk {

// Remembers what failed for hlthunk_ipc_last_error() in this thread.
void set_last_error(Op op, const char *what, int err) noexcept;
// Counts set_last_error() calls in this thread: an entry point that fails
// without having said why is described by its own name (so the last error
// is never left over from an earlier call).
unsigned long failures_recorded() noexcept;

// Returns rc unchanged; a negative rc also sets errno (hl-thunk callers
// read errno after a failed call).
inline int c_return(int rc) noexcept
{
	if (rc < 0)
		errno = -rc;
	return rc;
}

inline int c_fail(Op op, const char *what, int rc) noexcept
{
	set_last_error(op, what, rc);
	return c_return(rc);
}

template <typename T>
int c_return(const Result<T> &r) noexcept
{
	return c_return(r.error());
}

// The negative errno for an exception that reached an entry point.
inline int exception_errno() noexcept
{
	try {
		throw;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

// Runs the body of an entry point returning int: nothing it throws gets
// out (std::bad_alloc becomes -ENOMEM, anything else -EIO); what it had
// done is undone by the RAII guards it holds.
template <typename F>
int c_entry(const char *what, F &&body) noexcept
{
	unsigned long before = failures_recorded();
	try {
		int rc = body();
		if (rc < 0 && failures_recorded() == before)
			c_fail(Op::Generic, what, rc);
		return rc;
	} catch (...) {
		return c_fail(Op::Generic, what, exception_errno());
	}
}

// The same for entry points returning a value (a handle, an address):
// on_error is their failure value, returned with errno set; an exception
// becomes that failure.
template <typename T, typename F>
T c_entry_value(T on_error, const char *what, F &&body) noexcept
{
	unsigned long before = failures_recorded();
	try {
		T v = body();
		if (v == on_error && failures_recorded() == before)
			c_fail(Op::Generic, what, errno > 0 ? -errno : -EIO);
		return v;
	} catch (...) {
		c_fail(Op::Generic, what, exception_errno());
		return on_error;
	}
}

// Undoes a step of an entry point (an ioctl that succeeded) unless the
// entry point got to the end: on an early return or an exception.
template <typename F>
class Undo {
public:
	explicit Undo(F f) : f_(std::move(f)) {}
	~Undo()
	{
		if (armed_)
			f_();
	}
	Undo(const Undo &) = delete;
	Undo &operator=(const Undo &) = delete;
	void dismiss() { armed_ = false; }

private:
	F f_;
	bool armed_ = true;
};

}  // namespace hlthunk
