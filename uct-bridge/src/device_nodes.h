// SPDX-License-Identifier: MIT
// Control nodes of devices, by PCI address, opened once per process: a
// channel names its devices by fds, and the transport must not depend on
// the program's own fds (which it may close at any time).
#pragma once

#include <map>
#include <mutex>
#include <string>

namespace gaudi_ipc {

class DeviceNodes {
public:
	static DeviceNodes &get();
	// An fd of the control node of the device at bus ("dddd:bb:dd.f"),
	// owned by this cache; a negative errno if it cannot be opened (then
	// hlthunk_ipc_last_error() says why).
	int control_fd(const std::string &bus);
	~DeviceNodes();

private:
	std::mutex mu_;
	std::map<std::string, int> fds_;
};

}  // namespace gaudi_ipc
