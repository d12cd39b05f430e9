// SPDX-License-Identifier: MIT
#include "dma_engine.h"

#include <cerrno>

#include "hlthunk.h"

namespace gaudi_ipc {

int HostOnDevice::map(int fd, void *p, uint64_t len)
{
	reset();
	uint64_t va = hlthunk_host_memory_map(fd, p, 0, len);
	if (!va)
		return -errno;
	fd_ = fd;
	va_ = va;
	return 0;
}

void HostOnDevice::reset()
{
	// Fails only if the program closed the device meanwhile, which ended
	// the mapping anyway.
	if (va_)
		(void)hlthunk_memory_unmap(fd_, va_);
	va_ = 0;
	fd_ = -1;
}

}  // namespace gaudi_ipc
