// SPDX-License-Identifier: MIT
#include "device_index.h"

#include <mutex>
#include <vector>

namespace gaudi_ipc {

namespace {
std::mutex mu;
std::vector<std::string> &buses()
{
	static std::vector<std::string> b{""};
	return b;
}
}  // namespace

int device_index(const char *bus)
{
	if (!bus || !*bus)
		return kHostDevice;
	std::lock_guard<std::mutex> l(mu);
	auto &b = buses();
	for (size_t i = 1; i < b.size(); i++)
		if (b[i] == bus)
			return static_cast<int>(i);
	b.emplace_back(bus);
	return static_cast<int>(b.size() - 1);
}

std::string device_bus(int index)
{
	std::lock_guard<std::mutex> l(mu);
	auto &b = buses();
	return index > 0 && static_cast<size_t>(index) < b.size() ? b[index] : "";
}

}  // namespace gaudi_ipc
