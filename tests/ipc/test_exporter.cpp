// SPDX-License-Identifier: GPL-2.0
#include "test_exporter.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

namespace hlipc {

TestExporter::TestExporter()
{
	fd_ = open("/dev/hl_ipc_testexp", O_RDWR | O_CLOEXEC);
}

TestExporter::~TestExporter()
{
	if (fd_ >= 0) {
		gate(true);	// never leave a copy stuck for the next test
		close(fd_);
	}
}

int TestExporter::create(uint32_t mode, size_t size, bool writable)
{
	hl_testexp_create c{};
	c.mode = mode;
	c.flags = writable ? O_RDWR : O_RDONLY;
	c.size = size;
	int fd = ioctl(fd_, HL_TESTEXP_CREATE, &c);
	return fd >= 0 ? fd : -errno;
}

void TestExporter::gate(bool open)
{
	ioctl(fd_, HL_TESTEXP_GATE, open ? 1UL : 0UL);
}

int TestExporter::move(int dmabuf)
{
	return ioctl(fd_, HL_TESTEXP_MOVE, static_cast<unsigned long>(dmabuf)) == 0 ? 0 : -errno;
}

int TestExporter::waiters()
{
	return ioctl(fd_, HL_TESTEXP_WAITERS, 0);
}

bool TestExporter::wait_for_waiters(int n, int ms)
{
	for (int t = 0; t <= ms; t += 10) {
		if (waiters() >= n)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	return false;
}

}  // namespace hlipc
