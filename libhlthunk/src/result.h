// SPDX-License-Identifier: MIT
// Result<T>: a value or a negative errno, the library's internal error type.
#pragma once

#include <cerrno>
#include <utility>
#include <variant>

namespace hlthunk {

// Carries a negative errno; kept distinct from T so Result<int> is unambiguous.
struct Err {
	int code;  // always < 0
};

inline Err errno_err() { return Err{errno > 0 ? -errno : -EIO}; }

template <typename T>
class Result {
public:
	Result(T v) : v_(std::move(v)) {}
	Result(Err e) : v_(e) {}
	bool ok() const { return std::holds_alternative<T>(v_); }
	explicit operator bool() const { return ok(); }
	// Negative errno, or 0 on success.
	int error() const { return ok() ? 0 : std::get<Err>(v_).code; }
	T &value() { return std::get<T>(v_); }
	const T &value() const { return std::get<T>(v_); }
	T &operator*() { return value(); }
	T *operator->() { return &value(); }

private:
	std::variant<T, Err> v_;
};

// For operations that return nothing but may fail.
template <>
class Result<void> {
public:
	Result() = default;
	Result(Err e) : code_(e.code) {}
	bool ok() const { return code_ == 0; }
	explicit operator bool() const { return ok(); }
	int error() const { return code_; }

private:
	int code_ = 0;
};

}  // namespace hlthunk
