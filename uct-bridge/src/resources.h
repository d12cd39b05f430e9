// SPDX-License-Identifier: MIT
// RAII owners of the transport's system resources: an fd, an mmap()ed
// range.
#pragma once

#include <unistd.h>

#include <utility>

#include "mapping.h"

namespace gaudi_ipc {

class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = std::exchange(o.fd_, -1);
		}
		return *this;
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd() { reset(); }
	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }
	void reset()
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = -1;
	}

private:
	int fd_ = -1;
};

// An mmap()ed range: the one hl-ipc's tools use.
using hlipc::Mapping;

}  // namespace gaudi_ipc
