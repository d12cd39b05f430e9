// SPDX-License-Identifier: MIT
// The staged path's hold on the devices whose memory it moves: per device,
// a duplicate of the program's compute fd (the device's context in this
// process) with the device's DMA engine on it (libhlipc's StagedDma:
// LIN_DMA packets in a command submission through libhlthunk), and host
// memory mapped into the device's address space for that engine.
//
// The duplicate keeps the context alive while the transport uses it, so an
// fd number the program closes and reuses can never make the transport
// submit work to another device or context (an exclusive compute node
// cannot be opened a second time while the duplicate lives).  Every use of
// memory that the program could have unmapped since it registered it
// checks with libhlthunk that it is still mapped on that device; memory
// whose registration holds a dma-buf export of it cannot be unmapped
// meanwhile (the driver refuses while it is exported) and is not looked up
// again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "hl/unique_fd.h"
#include "staged_dma.h"

namespace gaudi_ipc {

using DmaCopy = hlipc::DmaCopy;

struct DeviceContext {
	hl::UniqueFd ctx;        // dup of the program's compute fd
	hlipc::StagedDma dma;    // the device's DMA engine, on ctx
};

class DeviceContexts {
public:
	// The context of device `dev` for moving [addr, addr + len) of its
	// memory, after checking the range is mapped there: always the first
	// time, then only if the range is not `exported` (held by an export
	// of it, which keeps it mapped).  0 or -errno: -EFAULT when the memory
	// is not (any more) mapped on that device, -EBADF when the program
	// closed the fd it was mapped on before the transport first needed it.
	int get(int dev, uint64_t addr, uint64_t len, bool exported, DeviceContext **out);
	// The context already held for dev, or null.
	DeviceContext *find(int dev);

private:
	std::map<int, std::unique_ptr<DeviceContext>> by_dev_;
};

// Host memory mapped into a device's address space (pinned), so its DMA
// engine can reach it.
class DeviceMapping {
public:
	DeviceMapping() = default;
	DeviceMapping(const DeviceMapping &) = delete;
	DeviceMapping &operator=(const DeviceMapping &) = delete;
	~DeviceMapping() { reset(); }

	// Maps [p, p + len) (page-aligned) on fd's device.  0 or -errno.
	int map(int fd, void *p, uint64_t len);
	void reset();
	bool valid() const { return va_ != 0; }
	uint64_t va() const { return va_; }
	uint64_t size() const { return len_; }

private:
	int fd_ = -1;
	uint64_t va_ = 0;
	uint64_t len_ = 0;
};

// One area of host memory mapped on each device that uses it.
class DeviceMappings {
public:
	// Device VA of p on dev's context, mapping [p, p + len) there first.
	int va(int dev, DeviceContext &dc, void *p, uint64_t len, uint64_t *out);
	void reset() { by_dev_.clear(); }

private:
	std::map<int, std::unique_ptr<DeviceMapping>> by_dev_;
};

}  // namespace gaudi_ipc
