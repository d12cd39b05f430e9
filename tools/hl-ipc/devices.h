// SPDX-License-Identifier: MIT
// The accelerators present (libudev): real habanalabs devices and the
// emulated ones of habanalabs_sim, one entry per device with both nodes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hlipc {

struct NodeAccess {
	std::string path;
	dev_t rdev = 0;
	std::string owner, group;  // names (numbers if unnamed)
	unsigned mode = 0;         // permission bits
};

struct Device {
	std::string driver;     // "habanalabs" or "habanalabs_sim"
	std::string name;       // of the compute node's class device: "hlsim0"
	NodeAccess compute, control;
	std::string pci_addr, type, status;
	int in_use = -1;        // 1/0, -1 if the driver does not say
	int64_t memory_used = -1, memory_size = -1;  // bytes; -1: unknown
	// The identity habanalabs_ipc reports (fdinfo, REGION_QUERY).
	unsigned major = 0, kernel_index = 0;
};

// 0 and the devices sorted by driver and name, or -errno.
int list_devices(std::vector<Device> *out);

// Mode, owner and group of a node; false if it does not exist.
bool node_access(const std::string &path, NodeAccess *out);
// "crw-rw---- root:hl"
std::string describe_access(const NodeAccess &a);

// The device a habanalabs_ipc "kind:major:index" names, as the compute
// node's name ("hlsim0"), "host" for kind 0, or the triple itself.
std::string device_label(const std::vector<Device> &devs, unsigned kind,
			 unsigned major, unsigned index);

}  // namespace hlipc
