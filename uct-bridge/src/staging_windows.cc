// SPDX-License-Identifier: MIT
#include "staging_windows.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gaudi_ipc {

namespace {

constexpr uint64_t kMinWindow = 64 << 10;

uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = kMinWindow;
	while (p < v)
		p <<= 1;
	return p;
}

uint64_t page_round(uint64_t v)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	return (v + page - 1) / page * page;
}

}  // namespace

bool PinBudget::reserve(uint64_t bytes)
{
	while (used_ + bytes > cap_) {
		StagingWindows *oldest = nullptr;
		uint64_t at = UINT64_MAX;
		for (StagingWindows *w : members_) {
			const uint64_t t = w->oldest_unused();
			if (t < at) {
				at = t;
				oldest = w;
			}
		}
		if (!oldest)
			return false;
		oldest->evict_one();
	}
	used_ += bytes;
	return true;
}

void PinBudget::leave(StagingWindows *w)
{
	members_.erase(std::remove(members_.begin(), members_.end(), w), members_.end());
}

StagingWindows::StagingWindows(PinBudget &budget, unsigned char *base, uint64_t slot_size)
	: budget_(budget), base_(base), slot_size_(slot_size)
{
	budget_.join(this);
}

StagingWindows::~StagingWindows()
{
	budget_.leave(this);
	while (!windows_.empty())
		unmap(windows_.size() - 1);
}

void StagingWindows::unmap(size_t i)
{
	budget_.release(windows_[i].map->size());
	if (i + 1 != windows_.size())
		std::swap(windows_[i], windows_.back());
	windows_.pop_back();  // its mapping unmaps
}

uint64_t StagingWindows::oldest_unused() const
{
	uint64_t at = UINT64_MAX;
	for (const Window &w : windows_)
		if (!w.in_use)
			at = std::min(at, w.last_use);
	return at;
}

uint64_t StagingWindows::evict_one()
{
	size_t pick = windows_.size();
	for (size_t i = 0; i < windows_.size(); i++)
		if (!windows_[i].in_use &&
		    (pick == windows_.size() || windows_[i].last_use < windows_[pick].last_use))
			pick = i;
	if (pick == windows_.size())
		return 0;
	const uint64_t n = windows_[pick].map->size();
	unmap(pick);
	return n;
}

int StagingWindows::va(int dev, DeviceContext &dc, uint32_t slot, uint64_t len, uint64_t *out)
{
	auto it = std::find_if(windows_.begin(), windows_.end(), [&](const Window &w) {
		return w.dev == dev && w.slot == slot;
	});
	if (it != windows_.end() && it->map->size() >= len) {
		it->in_use = true;
		it->last_use = budget_.tick();
		*out = it->map->va();
		return 0;
	}
	if (it != windows_.end()) {
		if (it->in_use)
			return -EBUSY;  // a slot holds one piece at a time: cannot be
		unmap(static_cast<size_t>(it - windows_.begin()));
	}
	// Long enough for this piece and the next ones like it: a few sizes
	// per slot at most, whatever the pieces.
	uint64_t size = std::min({pow2_at_least(len), slot_size_, budget_.cap()});
	size = std::max(size, page_round(len));
	if (!budget_.reserve(size))
		return -ENOSPC;
	auto map = std::make_unique<DeviceMapping>();
	int rc = map->map(dc.ctx.get(), base_ + static_cast<uint64_t>(slot) * slot_size_, size);
	if (rc < 0) {
		budget_.release(size);
		return rc;
	}
	*out = map->va();
	windows_.push_back(Window{dev, slot, budget_.tick(), true, std::move(map)});
	return 0;
}

void StagingWindows::done()
{
	for (Window &w : windows_)
		w.in_use = false;
}

}  // namespace gaudi_ipc
