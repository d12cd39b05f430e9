// SPDX-License-Identifier: MIT
// RAII owners of the transport's system resources: an fd, an mmap()ed
// range.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <utility>

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

class Mapping {
public:
	Mapping() = default;
	Mapping(Mapping &&o) noexcept
		: p_(std::exchange(o.p_, nullptr)), len_(std::exchange(o.len_, 0))
	{
	}
	Mapping &operator=(Mapping &&o) noexcept
	{
		if (this != &o) {
			reset();
			p_ = std::exchange(o.p_, nullptr);
			len_ = std::exchange(o.len_, 0);
		}
		return *this;
	}
	Mapping(const Mapping &) = delete;
	Mapping &operator=(const Mapping &) = delete;
	~Mapping() { reset(); }

	// mmap(2); false (errno set) on failure.
	bool map(size_t len, int prot, int flags, int fd, off_t off)
	{
		reset();
		void *p = ::mmap(nullptr, len, prot, flags, fd, off);
		if (p == MAP_FAILED)
			return false;
		p_ = p;
		len_ = len;
		return true;
	}
	unsigned char *bytes() const { return static_cast<unsigned char *>(p_); }
	size_t size() const { return len_; }
	bool valid() const { return p_ != nullptr; }
	void reset()
	{
		if (p_)
			::munmap(p_, len_);
		p_ = nullptr;
		len_ = 0;
	}

private:
	void *p_ = nullptr;
	size_t len_ = 0;
};

}  // namespace gaudi_ipc
