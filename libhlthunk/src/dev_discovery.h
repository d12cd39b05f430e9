// SPDX-License-Identifier: MIT
// Finding habanalabs and habanalabs_sim device nodes through libudev.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "node_name.h"
#include "result.h"

namespace hlthunk {

struct DeviceNode {
	NodeName name;
	std::string path;         // /dev/...
	std::string pci_bus;      // "dddd:bb:dd.f", empty if unknown
	std::string device_type;  // sysfs device_type ("GAUDI2"), may be empty
};

// Every node allowed by HLTHUNK_DEVICE_KIND, real kinds first, then by
// index.  -EINVAL for an unknown HLTHUNK_DEVICE_KIND value.
Result<std::vector<DeviceNode>> discover_nodes();

// The node an open fd refers to.  -EBADF for a closed fd, -ENOTTY for an
// fd that is not a habanalabs or habanalabs_sim node.
Result<DeviceNode> node_of_fd(int fd);
// The node of a char device number (st_rdev); -ENOTTY if it is none of ours.
Result<DeviceNode> node_of_devnum(uint64_t rdev);

// libudev keeps process-wide state without locking; every use of it holds
// one lock, which fork() must not leave held in the child (LibState's fork
// handlers take it around fork).
void discovery_fork_lock();
void discovery_fork_unlock();

}  // namespace hlthunk
