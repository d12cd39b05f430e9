// SPDX-License-Identifier: MIT
#include "registration_cache.h"

#include <fcntl.h>

#include <vector>

namespace hlthunk {

Registration::~Registration()
{
	if (dereg_)
		dereg_(cookie_);
}

namespace {

// What the cache let go of, released after its lock: ending a registration
// is an ioctl, and closing the last anchor may release a device context.
using Dropped = std::vector<std::shared_ptr<void>>;

int level(Access a) { return static_cast<int>(a); }

bool on_context(const MappingDesc &d)
{
	return d.kind == MappingKind::Device || d.kind == MappingKind::Host;
}

}  // namespace

void RegistrationCache::Space::index(const MappingDesc &d)
{
	if (d.kind == MappingKind::Device)
		by_handle.emplace(d.handle, d.va);
}

void RegistrationCache::Space::unindex(const MappingDesc &d)
{
	if (d.kind != MappingKind::Device)
		return;
	auto range = by_handle.equal_range(d.handle);
	for (auto it = range.first; it != range.second; ++it) {
		if (it->second == d.va) {
			by_handle.erase(it);
			return;
		}
	}
}

Result<std::shared_ptr<UniqueFd>> RegistrationCache::anchor_for(Space &s, int fd)
{
	if (auto a = s.anchor.lock())
		return a;
	// Out of the way of the small numbers a program may expect to get.
	int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 100);
	if (dup < 0 && errno == EINVAL)
		dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup < 0)
		return errno_err();
	UniqueFd owned(dup);  // closed if what follows throws
	auto a = std::make_shared<UniqueFd>(std::move(owned));
	s.anchor = a;
	return a;
}

Result<int> RegistrationCache::pick_context_fd(Space &s, const MappingDesc &d,
					      int call_fd)
{
	// The anchor if one is held (it is the context), else the caller's
	// fd or the mapping's own, each only if it still is the node the
	// mapping was made on.
	if (auto anchor = s.anchor.lock())
		return anchor->get();
	if (call_fd >= 0 && verify_(call_fd, d.file) == 0)
		return call_fd;
	if (verify_(d.fd, d.file) == 0)
		return d.fd;
	return Err{-EBADF};
}

Result<int> RegistrationCache::context_fd(const MappingDesc &d, int call_fd,
					  std::shared_ptr<UniqueFd> *keep)
{
	std::lock_guard<std::mutex> l(mu_);
	Space &s = spaces_[d.dev];
	*keep = s.anchor.lock();
	return pick_context_fd(s, d, call_fd);
}

Result<std::shared_ptr<Registration>> RegistrationCache::make_registration(
	std::unique_lock<std::mutex> &, const RegionPtr &r, int call_fd,
	Access access)
{
	const MappingDesc &d = r->desc;
	Space &s = spaces_[d.dev];
	auto fd = pick_context_fd(s, d, call_fd);
	if (!fd)
		return Err{fd.error()};
	auto a = anchor_for(s, *fd);
	if (!a)
		return Err{a.error()};
	auto cookie = register_(d, *fd, access);
	if (!cookie)
		return Err{cookie.error()};
	try {
		return std::make_shared<Registration>(*cookie, deregister_,
						      std::move(*a));
	} catch (...) {
		deregister_(*cookie);
		throw;
	}
}

Result<void> RegistrationCache::add(const MappingDesc &d)
{
	if (d.size == 0 || d.va + d.size < d.va)
		return Err{-EINVAL};
	auto region = std::make_shared<Region>();
	region->desc = d;
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	Space &s = spaces_[d.dev];
	s.map.erase_overlapping(d.va, d.size, [&](RegionPtr &&r) {
		s.unindex(r->desc);
		dropped.push_back(std::move(r));
	});
	if (d.kind == MappingKind::Host) {
		// Pin now: these are the pages the device mapping just pinned.
		auto reg = make_registration(l, region, d.fd, Access::ReadWrite);
		if (reg)
			region->reg[level(Access::ReadWrite)] = std::move(*reg);
		else
			region->reg_error = reg.error();
	}
	auto ins = s.map.insert(d.va, d.size, std::move(region));
	if (ins)
		s.index(d);
	bump();
	l.unlock();
	return ins;
}

Result<MappingDesc> RegistrationCache::lookup(DeviceKey dev, uint64_t addr) const
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return Err{-EFAULT};
	auto hit = const_cast<IntervalMap<RegionPtr> &>(it->second.map).find(addr, 1);
	if (!hit)
		return Err{hit.error()};
	return (*hit->value)->desc;
}

Result<Resolved> RegistrationCache::resolve(DeviceKey dev, int call_fd,
					    uint64_t addr, uint64_t len,
					    Access access)
{
	std::unique_lock<std::mutex> l(mu_);
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return Err{-EFAULT};
	auto hit = it->second.map.find(addr, len ? len : 1);
	if (!hit)
		return Err{hit.error()};
	RegionPtr r = *hit->value;
	uint64_t offset = hit->offset;
	if (r->desc.kind == MappingKind::Imported)
		return Resolved{nullptr, r->desc.cookie, offset, r->desc};
	if (r->reg_error)
		return Err{r->reg_error};
	// Host memory has its one registration, made when it was mapped.
	int lvl = r->desc.kind == MappingKind::Host ? level(Access::ReadWrite)
						   : level(access);
	if (!r->reg[lvl]) {
		auto reg = make_registration(l, r, call_fd, access);
		if (!reg)
			return Err{reg.error()};
		r->reg[lvl] = std::move(*reg);
	}
	return Resolved{r->reg[lvl], r->reg[lvl]->cookie(), offset, r->desc};
}

std::optional<MappingDesc> RegistrationCache::remove_mapping(DeviceKey dev,
							     uint64_t va)
{
	RegionPtr dropped;  // released after the lock
	std::unique_lock<std::mutex> l(mu_);
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return std::nullopt;
	auto v = it->second.map.erase(va);
	if (!v)
		return std::nullopt;
	dropped = std::move(*v);
	it->second.unindex(dropped->desc);
	bump();
	l.unlock();
	return dropped->desc;
}

size_t RegistrationCache::evict(DeviceKey dev, uint64_t va, uint64_t len)
{
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return 0;
	Space &s = it->second;
	size_t n = s.map.erase_overlapping(va, len, [&](RegionPtr &&r) {
		s.unindex(r->desc);
		dropped.push_back(std::move(r));
	});
	if (n)
		bump();
	l.unlock();
	return n;
}

size_t RegistrationCache::remove_handle(DeviceKey dev, uint64_t handle)
{
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return 0;
	Space &s = it->second;
	auto range = s.by_handle.equal_range(handle);
	for (auto h = range.first; h != range.second; ++h)
		if (auto v = s.map.erase(h->second))
			dropped.push_back(std::move(*v));
	s.by_handle.erase(range.first, range.second);
	size_t n = dropped.size();
	if (n)
		bump();
	l.unlock();
	return n;
}

size_t RegistrationCache::remove_context(DeviceKey dev)
{
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	bump();  // a context ended or began, even one the cache never saw
	auto it = spaces_.find(dev);
	if (it == spaces_.end())
		return 0;
	Space &s = it->second;
	size_t n = s.map.erase_if([&](RegionPtr &r) {
		if (!on_context(r->desc))
			return false;
		s.unindex(r->desc);
		dropped.push_back(r);
		return true;
	});
	l.unlock();
	return n;
}

size_t RegistrationCache::remove_origin(int fd, const FileId &file)
{
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	size_t n = 0;
	for (auto &kv : spaces_)
		n += kv.second.map.erase_if([&](RegionPtr &r) {
			if (r->desc.fd != fd || r->desc.file != file)
				return false;
			kv.second.unindex(r->desc);
			dropped.push_back(r);
			return true;
		});
	bump();
	l.unlock();
	return n;
}

size_t RegistrationCache::sweep_closed()
{
	Dropped dropped;
	std::unique_lock<std::mutex> l(mu_);
	size_t n = 0;
	for (auto &kv : spaces_) {
		bool any = false, alive = false;
		kv.second.map.for_each([&](uint64_t, uint64_t, RegionPtr &r) {
			if (!on_context(r->desc) || alive)
				return;
			any = true;
			alive = verify_(r->desc.fd, r->desc.file) == 0;
		});
		if (!any || alive)
			continue;
		n += kv.second.map.erase_if([&](RegionPtr &r) {
			if (!on_context(r->desc))
				return false;
			kv.second.unindex(r->desc);
			dropped.push_back(r);
			return true;
		});
	}
	if (n)
		bump();
	l.unlock();
	return n;
}

bool RegistrationCache::drop_cookie(uint64_t cookie)
{
	std::shared_ptr<Registration> dropped;
	std::unique_lock<std::mutex> l(mu_);
	for (auto &kv : spaces_)
		kv.second.map.for_each([&](uint64_t, uint64_t, RegionPtr &r) {
			if (r->desc.kind != MappingKind::Device)
				return;
			for (auto &reg : r->reg)
				if (reg && reg->cookie() == cookie && !dropped)
					dropped = std::move(reg);
		});
	if (!dropped)
		return false;
	bump();
	l.unlock();
	return true;
}

void RegistrationCache::reset_after_fork()
{
	bump();
	for (auto &kv : spaces_)
		kv.second.map.for_each([](uint64_t, uint64_t, RegionPtr &old) {
			// The old region may be held by a thread of the parent
			// that no longer exists here: leave it and start afresh.
			auto r = std::make_shared<Region>();
			r->desc = old->desc;
			for (auto &reg : old->reg)
				if (reg)
					reg->disown();
			// Host pages were pinned for the parent's mapping; the
			// child's own pages are copies (fork copies pinned pages),
			// so a registration made here would not be the memory the
			// device mapping uses.
			if (r->desc.kind == MappingKind::Host)
				r->reg_error = -EOPNOTSUPP;
			old = std::move(r);
		});
}

size_t RegistrationCache::size() const
{
	std::lock_guard<std::mutex> l(mu_);
	size_t n = 0;
	for (auto &kv : spaces_)
		n += kv.second.map.size();
	return n;
}

}  // namespace hlthunk
