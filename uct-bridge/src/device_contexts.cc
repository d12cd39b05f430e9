// SPDX-License-Identifier: MIT
#include "device_contexts.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "device_index.h"
#include "hlthunk.h"

namespace gaudi_ipc {

int DeviceContexts::get(int dev, uint64_t addr, uint64_t len, bool exported,
			DeviceContext **out)
{
	// The lookup is a system call and a walk of libhlthunk's mappings:
	// under the emulator a seventh of a small staged transfer.
	if (exported) {
		if (DeviceContext *d = find(dev)) {
			*out = d;
			return 0;
		}
	}
	struct hlthunk_ipc_mem_info info;
	int rc = hlthunk_ipc_lookup_address(addr, len, &info);
	if (rc < 0)
		return rc == -ENOENT ? -EFAULT : rc;
	if (device_index(info.pci_bus_id) != dev)
		return -EFAULT;  // the address now belongs to another device
	if (DeviceContext *d = find(dev)) {
		*out = d;
		return 0;
	}
	if (info.fd < 0)
		return -EBADF;
	auto d = std::make_unique<DeviceContext>();
	// Out of the way of the small numbers a program may expect to get.
	int dup = fcntl(info.fd, F_DUPFD_CLOEXEC, 100);
	if (dup < 0 && errno == EINVAL)
		dup = fcntl(info.fd, F_DUPFD_CLOEXEC, 0);
	d->ctx = hl::UniqueFd(dup);
	if (!d->ctx.valid())
		return -errno;
	rc = d->dma.init(d->ctx.get());
	if (rc < 0)
		return rc;
	*out = d.get();
	by_dev_.emplace(dev, std::move(d));
	return 0;
}

DeviceContext *DeviceContexts::find(int dev)
{
	auto it = by_dev_.find(dev);
	return it == by_dev_.end() ? nullptr : it->second.get();
}

int DeviceMapping::map(int fd, void *p, uint64_t len)
{
	reset();
	uint64_t va = hlthunk_host_memory_map(fd, p, 0, len);
	if (!va)
		return errno ? -errno : -ENOMEM;
	fd_ = fd;
	va_ = va;
	len_ = len;
	return 0;
}

void DeviceMapping::reset()
{
	// Fails only if the program closed the device meanwhile, which ended
	// the mapping anyway.
	if (va_)
		(void)hlthunk_memory_unmap(fd_, va_);
	va_ = 0;
	len_ = 0;
	fd_ = -1;
}

int DeviceMappings::va(int dev, DeviceContext &dc, void *p, uint64_t len, uint64_t *out)
{
	auto it = by_dev_.find(dev);
	if (it == by_dev_.end()) {
		auto m = std::make_unique<DeviceMapping>();
		int rc = m->map(dc.ctx.get(), p, len);
		if (rc < 0)
			return rc;
		it = by_dev_.emplace(dev, std::move(m)).first;
	}
	*out = it->second->va();
	return 0;
}

}  // namespace gaudi_ipc
