// SPDX-License-Identifier: MIT
// RegistrationCache::holders_of: which device an address belongs to.
#include "registration_cache.h"

namespace hlthunk {

std::vector<RegistrationCache::Holder> RegistrationCache::holders_of(
	uint64_t addr, uint64_t len) const
{
	std::vector<Holder> out;
	std::lock_guard<std::mutex> l(mu_);
	for (auto &kv : spaces_) {
		auto &map = const_cast<IntervalMap<RegionPtr> &>(kv.second.map);
		auto hit = map.find(addr, 1);
		if (!hit)
			continue;
		const MappingDesc &d = (*hit->value)->desc;
		if (d.kind == MappingKind::Imported)
			continue;
		out.push_back(Holder{d, len <= hit->len - hit->offset});
	}
	return out;
}

}  // namespace hlthunk
