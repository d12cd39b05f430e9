// SPDX-License-Identifier: MIT
#include "device_nodes.h"

#include "hlthunk.h"

namespace gaudi_ipc {

DeviceNodes &DeviceNodes::get()
{
	static DeviceNodes d;
	return d;
}

int DeviceNodes::control_fd(const std::string &bus)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = fds_.find(bus);
	if (it != fds_.end())
		return it->second;
	int fd = hlthunk_open_control(-1, bus.c_str());
	if (fd >= 0)
		fds_.emplace(bus, fd);
	return fd;
}

DeviceNodes::~DeviceNodes()
{
	for (auto &kv : fds_)
		hlthunk_close(kv.second);
}

}  // namespace gaudi_ipc
