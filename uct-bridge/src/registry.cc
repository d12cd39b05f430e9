// SPDX-License-Identifier: MIT
#include "registry.h"

#include <cerrno>

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
	regions_.emplace(key, Entry{r});
	return key;
}

void Registry::remove(uint64_t key)
{
	std::unique_lock<std::mutex> l(mu_);
	auto it = regions_.find(key);
	if (it == regions_.end())
		return;
	it->second.ending = true;
	// A piece in service ends within the DMA timeout (the engine never
	// gives up on a submission that still runs: staged_dma.h).
	unpinned_.wait(l, [&] { return regions_.at(key).pins == 0; });
	regions_.erase(key);
}

int Registry::pin(uint64_t key, Pin *out)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = regions_.find(key);
	if (it == regions_.end() || it->second.ending)
		return -ENOENT;
	it->second.pins++;
	out->reset();
	out->reg_ = this;
	out->key_ = key;
	out->region_ = it->second.region;
	return 0;
}

void Registry::unpin(uint64_t key)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = regions_.find(key);
	if (it != regions_.end() && --it->second.pins == 0 && it->second.ending)
		unpinned_.notify_all();
}

Registry::Pin &Registry::Pin::operator=(Pin &&o) noexcept
{
	if (this != &o) {
		reset();
		reg_ = o.reg_;
		key_ = o.key_;
		region_ = o.region_;
		o.reg_ = nullptr;
	}
	return *this;
}

void Registry::Pin::reset()
{
	if (reg_)
		reg_->unpin(key_);
	reg_ = nullptr;
}

}  // namespace gaudi_ipc
