// SPDX-License-Identifier: MIT
#include "registry.h"

#include "node_identity.h"

namespace gaudi_ipc {

Registry &Registry::get()
{
	// Never destroyed: registrations may outlive static destruction order.
	static Registry *r = new Registry();
	return *r;
}

uint64_t Registry::add(const StagedRegion &r)
{
	std::lock_guard<std::mutex> l(mu_);
	uint64_t key;
	do
		key = random_u64();
	while (regions_.count(key));
	regions_.emplace(key, r);
	return key;
}

void Registry::remove(uint64_t key)
{
	std::lock_guard<std::mutex> l(mu_);
	regions_.erase(key);
}

std::optional<StagedRegion> Registry::find(uint64_t key) const
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = regions_.find(key);
	if (it == regions_.end())
		return std::nullopt;
	return it->second;
}

}  // namespace gaudi_ipc
