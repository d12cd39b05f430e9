// SPDX-License-Identifier: MIT
#include "channel_cache.h"

#include <cerrno>

namespace hlthunk {

Result<uint32_t> ChannelCache::acquire(DeviceKey src, DeviceKey dst,
				       int src_fd, int dst_fd)
{
	// Held across the create ioctl so two threads asking for the same new
	// pair make one channel; creation is rare, copies do not come here.
	std::lock_guard<std::mutex> l(mu_);
	auto key = std::make_pair(src, dst);
	auto it = by_pair_.find(key);
	if (it != by_pair_.end()) {
		++it->second.refs;
		return it->second.id;
	}
	auto id = create_(src_fd, dst_fd);
	if (!id)
		return Err{id.error()};
	try {
		by_pair_.emplace(key, Entry{*id, 1});
		by_id_.emplace(*id, key);
	} catch (...) {
		by_pair_.erase(key);
		(void)destroy_(*id);
		throw;
	}
	return *id;
}

Result<void> ChannelCache::release(uint32_t id)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = by_id_.find(id);
	if (it == by_id_.end())
		return Err{-ENOENT};
	auto pit = by_pair_.find(it->second);
	if (--pit->second.refs > 0)
		return {};
	by_pair_.erase(pit);
	by_id_.erase(it);
	gen_.fetch_add(1, std::memory_order_acq_rel);
	return destroy_(id);
}

bool ChannelCache::contains(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	return by_id_.count(id) != 0;
}

Result<std::pair<DeviceKey, DeviceKey>> ChannelCache::pair_of(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = by_id_.find(id);
	if (it == by_id_.end())
		return Err{-ENOENT};
	return it->second;
}

int ChannelCache::refs(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = by_id_.find(id);
	if (it == by_id_.end())
		return 0;
	return by_pair_.at(it->second).refs;
}

size_t ChannelCache::size() const
{
	std::lock_guard<std::mutex> l(mu_);
	return by_id_.size();
}

void ChannelCache::forget_all()
{
	std::lock_guard<std::mutex> l(mu_);
	by_pair_.clear();
	by_id_.clear();
	gen_.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace hlthunk
