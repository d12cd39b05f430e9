// SPDX-License-Identifier: MIT
#include "registration_cache.h"

#include <vector>

namespace hlthunk {

Region::~Region()
{
	if (registered_ && dereg_ && desc_.kind != MappingKind::Imported)
		dereg_(reg_.cookie);
}

Result<void> RegistrationCache::add(const MappingDesc &d)
{
	auto region = std::make_shared<Region>(d);
	std::unique_lock<std::mutex> l(mu_);
	return by_fd_[d.fd].insert(d.va, d.size, std::move(region));
}

Result<MappingDesc> RegistrationCache::lookup(int fd, uint64_t addr) const
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = by_fd_.find(fd);
	if (it == by_fd_.end())
		return Err{-EFAULT};
	auto hit = const_cast<IntervalMap<std::shared_ptr<Region>> &>(it->second)
			   .find(addr, 1);
	if (!hit)
		return Err{hit.error()};
	return (*hit->value)->desc();
}

Result<Resolved> RegistrationCache::resolve(int fd, uint64_t addr,
					    uint64_t len)
{
	std::shared_ptr<Region> region;
	uint64_t offset;
	{
		std::lock_guard<std::mutex> l(mu_);
		auto it = by_fd_.find(fd);
		if (it == by_fd_.end())
			return Err{-EFAULT};
		auto hit = it->second.find(addr, len ? len : 1);
		if (!hit)
			return Err{hit.error()};
		region = *hit->value;
		offset = hit->offset;
	}

	if (region->registered_.load(std::memory_order_acquire))
		return Resolved{region, region->reg_.cookie, offset};
	std::lock_guard<std::mutex> l(region->mu_);
	if (!region->registered_.load(std::memory_order_relaxed)) {
		if (region->desc_.kind == MappingKind::Imported) {
			region->reg_.cookie = region->desc_.cookie;
		} else {
			auto r = register_(region->desc_);
			if (!r)
				return Err{r.error()};
			region->reg_ = std::move(*r);
			region->dereg_ = deregister_;
		}
		region->registered_.store(true, std::memory_order_release);
	}
	return Resolved{region, region->reg_.cookie, offset};
}

size_t RegistrationCache::remove_mapping(int fd, uint64_t va)
{
	std::shared_ptr<Region> dropped;  // released after the lock
	std::unique_lock<std::mutex> l(mu_);
	auto it = by_fd_.find(fd);
	if (it == by_fd_.end())
		return 0;
	auto v = it->second.erase(va);
	if (!v)
		return 0;
	dropped = std::move(*v);
	bump();
	l.unlock();
	return 1;
}

size_t RegistrationCache::remove_handle(int fd, uint64_t handle)
{
	std::vector<std::shared_ptr<Region>> dropped;
	std::unique_lock<std::mutex> l(mu_);
	auto it = by_fd_.find(fd);
	if (it == by_fd_.end())
		return 0;
	size_t n = it->second.erase_if([&](std::shared_ptr<Region> &r) {
		const auto &d = r->desc();
		if (d.kind != MappingKind::Device || d.handle != handle)
			return false;
		dropped.push_back(r);
		return true;
	});
	if (n)
		bump();
	return n;
}

size_t RegistrationCache::remove_fd(int fd)
{
	IntervalMap<std::shared_ptr<Region>> dropped;
	std::unique_lock<std::mutex> l(mu_);
	bump();  // the fd itself may be reused for another device
	auto it = by_fd_.find(fd);
	if (it == by_fd_.end())
		return 0;
	dropped = std::move(it->second);
	by_fd_.erase(it);
	l.unlock();
	return dropped.size();
}

void RegistrationCache::reset_after_fork()
{
	bump();
	for (auto &kv : by_fd_)
		kv.second.for_each([](uint64_t, uint64_t,
				      std::shared_ptr<Region> &r) {
			// The old region's lock may have been held by a thread
			// of the parent: leave it alone and start afresh.
			r->dereg_ = nullptr;
			r = std::make_shared<Region>(r->desc());
		});
}

size_t RegistrationCache::size() const
{
	std::lock_guard<std::mutex> l(mu_);
	size_t n = 0;
	for (auto &kv : by_fd_)
		n += kv.second.size();
	return n;
}

}  // namespace hlthunk
