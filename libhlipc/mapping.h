// SPDX-License-Identifier: MIT
// Mapping: owns one mmap()ed range and unmaps it once.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <utility>

namespace hlipc {

class Mapping {
public:
	Mapping() = default;
	Mapping(void *p, size_t len) : p_(p), len_(len) {}
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

	// mmap(2) that returns an empty Mapping on failure (errno set).
	static Mapping map(size_t len, int prot, int flags, int fd, off_t off)
	{
		void *p = ::mmap(nullptr, len, prot, flags, fd, off);
		return p == MAP_FAILED ? Mapping() : Mapping(p, len);
	}

	bool valid() const { return p_ != nullptr; }
	void *get() const { return p_; }
	unsigned char *bytes() const { return static_cast<unsigned char *>(p_); }
	size_t size() const { return len_; }
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

}  // namespace hlipc
