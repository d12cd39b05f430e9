// SPDX-License-Identifier: MIT
#include "channel_cache.h"

#include <cerrno>
#include <chrono>
#include <thread>

namespace hlthunk {

namespace {

constexpr uint32_t kGenMask = (1u << (32 - ChannelCache::kSlotBits)) - 1;

// Waits for the calls that hold k in flight; they are inside one ioctl
// each (a copy), or about to notice a moved generation and let go.
void drain(KernelChannel *k)
{
	for (unsigned spins = 0; k->inflight.load(std::memory_order_seq_cst);
	     spins++) {
		if (spins < 1000)
			std::this_thread::yield();
		else
			std::this_thread::sleep_for(std::chrono::microseconds(100));
	}
}

}  // namespace

const ChannelCache::Slot *ChannelCache::find(uint32_t id) const
{
	uint32_t slot = id & (kMaxIds - 1), gen = id >> kSlotBits;
	if (!gen || slot >= slots_.size() || slots_[slot].gen != gen)
		return nullptr;
	return &slots_[slot];
}

void ChannelCache::free_slot(uint32_t slot)
{
	slots_[slot] = Slot{};
	free_ring_[(free_head_ + free_count_++) % kMaxIds] = slot;
}

Result<uint32_t> ChannelCache::acquire(DeviceKey src, DeviceKey dst,
				       int src_fd, int dst_fd)
{
	// Held across the create ioctl so two threads asking for the same new
	// pair make one kernel channel; creation is rare, copies do not come
	// here.
	std::lock_guard<std::mutex> l(mu_);
	// Everything that may allocate comes first: after the create ioctl
	// nothing may fail and leak the kernel channel.
	if (free_ring_.empty())
		free_ring_.resize(kMaxIds);
	bool new_slot = !free_count_;
	if (new_slot && slots_.size() >= kMaxIds)
		return Err{-ENOSPC};
	if (new_slot) {
		slots_.reserve(slots_.size() + 1);
		next_gen_.reserve(slots_.size() + 1);
	}
	auto key = std::make_pair(src, dst);
	KernelChannel *k;
	auto it = by_pair_.find(key);
	if (it != by_pair_.end()) {
		k = it->second;
	} else {
		if (free_kchans_.empty()) {
			// Room to return every channel without allocating.
			free_kchans_.reserve(kchans_.size() + 1);
			kchans_.emplace_back();
			free_kchans_.push_back(&kchans_.back());
		}
		k = free_kchans_.back();
		auto ins = by_pair_.emplace(key, k).first;
		free_kchans_.pop_back();
		auto kid = create_(src_fd, dst_fd);
		if (!kid) {
			by_pair_.erase(ins);
			free_kchans_.push_back(k);
			return Err{kid.error()};
		}
		k->kid = *kid;
		k->src = src;
		k->dst = dst;
		k->ids = 0;
		k->inflight.store(0, std::memory_order_relaxed);
	}
	uint32_t slot;
	if (new_slot) {
		slot = static_cast<uint32_t>(slots_.size());
		slots_.emplace_back();
		next_gen_.push_back(1);
	} else {
		slot = free_ring_[free_head_];
		free_head_ = (free_head_ + 1) % kMaxIds;
		free_count_--;
	}
	uint32_t gen = next_gen_[slot];
	next_gen_[slot] = gen == kGenMask ? 1 : gen + 1;
	slots_[slot].gen = gen;
	slots_[slot].k = k;
	k->ids++;
	return make_id(slot, gen);
}

Result<void> ChannelCache::release(uint32_t id)
{
	KernelChannel *k;
	{
		std::lock_guard<std::mutex> l(mu_);
		const Slot *s = find(id);
		if (!s)
			return Err{-ENOENT};
		k = s->k;
		free_slot(id & (kMaxIds - 1));
		gen_.fetch_add(1, std::memory_order_seq_cst);
		if (--k->ids > 0)
			return {};
		by_pair_.erase(std::make_pair(k->src, k->dst));
	}
	// The destroy ioctl blocks until the kernel channel is idle: never
	// under the lock, which creates and lookups of other ids need.
	drain(k);
	auto rc = destroy_(k->kid);
	std::lock_guard<std::mutex> l(mu_);
	k->kid = 0;
	free_kchans_.push_back(k);
	return rc;
}

Result<ChannelUse> ChannelCache::use(uint32_t id)
{
	std::lock_guard<std::mutex> l(mu_);
	const Slot *s = find(id);
	if (!s)
		return Err{-ENOENT};
	s->k->inflight.fetch_add(1, std::memory_order_seq_cst);
	return ChannelUse(s->k);
}

bool ChannelCache::live(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	return find(id) != nullptr;
}

KernelChannel *ChannelCache::peek(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	const Slot *s = find(id);
	return s ? s->k : nullptr;
}

size_t ChannelCache::size() const
{
	std::lock_guard<std::mutex> l(mu_);
	size_t n = 0;
	for (auto &s : slots_)
		n += s.gen != 0;
	return n;
}

int ChannelCache::ids_sharing(uint32_t id) const
{
	std::lock_guard<std::mutex> l(mu_);
	const Slot *s = find(id);
	return s ? s->k->ids : 0;
}

void ChannelCache::forget_all()
{
	std::lock_guard<std::mutex> l(mu_);
	for (uint32_t i = 0; i < slots_.size(); i++)
		if (slots_[i].gen)
			free_slot(i);
	for (auto &p : by_pair_) {
		p.second->kid = 0;
		p.second->ids = 0;
		p.second->inflight.store(0, std::memory_order_relaxed);
		free_kchans_.push_back(p.second);
	}
	by_pair_.clear();
	gen_.fetch_add(1, std::memory_order_seq_cst);
}

}  // namespace hlthunk
