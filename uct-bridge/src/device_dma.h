// SPDX-License-Identifier: MIT
// The staged path's hold on the devices whose memory it moves: per device,
// a duplicate of the program's compute fd (the device's context in this
// process) with a DMA engine on it, and host memory mapped on it.
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

#include "dma_engine.h"
#include "hl/unique_fd.h"
#include "mapping.h"

namespace gaudi_ipc {

struct DeviceDma {
	hl::UniqueFd ctx;  // dup of the program's compute fd
	DmaEngine engine;  // on ctx
};

class DeviceDmaSet {
public:
	// The DMA engine of device `dev` for moving [addr, addr + len) of its
	// memory, after checking the range is mapped there: always the first
	// time, then only if the range is not `exported` (held by an export
	// of it, which keeps it mapped).  0 or -errno: -EFAULT when the memory
	// is not (any more) mapped on that device, -EBADF when the program
	// closed the fd it was mapped on before the transport first needed it.
	int get(int dev, uint64_t addr, uint64_t len, bool exported, DeviceDma **out);
	// The engine already held for dev, or null.
	DeviceDma *find(int dev);

private:
	std::map<int, std::unique_ptr<DeviceDma>> by_dev_;
};

// Host memory (a staging area) mapped on the devices that use it.
class HostOnDevices {
public:
	// Device VA of p on dd's device, mapping [p, p + len) there first.
	int va(int dev, DeviceDma &dd, void *p, uint64_t len, uint64_t *out);
	void reset() { by_dev_.clear(); }

private:
	std::map<int, std::unique_ptr<HostOnDevice>> by_dev_;
};

}  // namespace gaudi_ipc
