// SPDX-License-Identifier: MIT
#include "device_index.h"

#include <mutex>
#include <vector>

#include "device_nodes.h"

namespace gaudi_ipc {

namespace {
std::mutex mu;
std::vector<std::string> &buses()
{
	static std::vector<std::string> b{""};
	return b;
}

int find_locked(const char *bus)
{
	auto &b = buses();
	for (size_t i = 1; i < b.size(); i++)
		if (b[i] == bus)
			return static_cast<int>(i);
	return kNoDevice;
}
}  // namespace

int device_index(const char *bus)
{
	if (!bus || !*bus)
		return kHostDevice;
	std::lock_guard<std::mutex> l(mu);
	int i = find_locked(bus);
	if (i != kNoDevice)
		return i;
	buses().emplace_back(bus);
	return static_cast<int>(buses().size() - 1);
}

int known_device_index(const char *bus)
{
	if (!bus || !*bus)
		return kHostDevice;
	{
		std::lock_guard<std::mutex> l(mu);
		int i = find_locked(bus);
		if (i != kNoDevice)
			return i;
	}
	// A device of this node, or nothing: the control node is opened (and
	// kept) only for addresses that exist.
	if (DeviceNodes::get().control_fd(bus) < 0)
		return kNoDevice;
	return device_index(bus);
}

std::string device_bus(int index)
{
	std::lock_guard<std::mutex> l(mu);
	auto &b = buses();
	return index > 0 && static_cast<size_t>(index) < b.size() ? b[index] : "";
}

}  // namespace gaudi_ipc
