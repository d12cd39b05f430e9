// SPDX-License-Identifier: MIT
#include "device_buffer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace hlipc {

DeviceBuffer::DeviceBuffer(DeviceBuffer &&o) noexcept { *this = std::move(o); }

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept
{
	if (this != &o) {
		reset();
		fd_ = std::exchange(o.fd_, -1);
		handle_ = std::exchange(o.handle_, 0);
		va_ = std::exchange(o.va_, 0);
		size_ = std::exchange(o.size_, 0);
		dmabuf_ = std::exchange(o.dmabuf_, -1);
		view_ = std::move(o.view_);
	}
	return *this;
}

int DeviceBuffer::create(int fd, uint64_t size)
{
	reset();
	handle_ = hlthunk_device_memory_alloc(fd, size, 0, false, false);
	if (!handle_)
		return -errno;
	fd_ = fd;
	size_ = size;
	va_ = hlthunk_device_memory_map(fd, handle_, 0);
	if (!va_) {
		int err = -errno;
		reset();
		return err;
	}
	return 0;
}

int DeviceBuffer::map_cpu()
{
	if (view_.valid())
		return 0;
	dmabuf_ = hlthunk_device_mapped_memory_export_dmabuf_fd(
		fd_, va_, size_, 0, O_RDWR | O_CLOEXEC);
	if (dmabuf_ < 0)
		return dmabuf_;
	view_ = Mapping::map(size_, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf_, 0);
	return view_.valid() ? 0 : -errno;
}

void DeviceBuffer::reset_view()
{
	view_.reset();
	if (dmabuf_ >= 0)
		::close(dmabuf_);
	dmabuf_ = -1;
}

void DeviceBuffer::forget()
{
	reset_view();
	va_ = handle_ = 0;
	fd_ = -1;
}

int DeviceBuffer::try_reset()
{
	reset_view();
	if (va_) {
		int rc = hlthunk_memory_unmap(fd_, va_);
		if (rc)
			return rc;
		va_ = 0;
	}
	reset();
	return 0;
}

void DeviceBuffer::reset()
{
	reset_view();
	if (va_)
		hlthunk_memory_unmap(fd_, va_);
	if (handle_)
		hlthunk_device_memory_free(fd_, handle_);
	va_ = handle_ = 0;
	fd_ = -1;
}

void fill_pattern(unsigned char *p, uint64_t len, uint32_t seed, uint64_t base)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, base + i);
}

int64_t check_pattern(const unsigned char *p, uint64_t len, uint32_t seed,
		      uint64_t base)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(seed, base + i))
			return static_cast<int64_t>(i);
	return -1;
}

}  // namespace hlipc
