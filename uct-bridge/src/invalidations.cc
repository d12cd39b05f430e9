// SPDX-License-Identifier: MIT
#include "invalidations.h"

#include <cstring>

namespace gaudi_ipc {

Invalidations::Range::Range(const Memh &m) : device(m.device), addr(m.addr), length(m.length)
{
	memcpy(bus, m.bus, sizeof(bus));
}

bool Invalidations::Range::overlaps(const Range &o) const
{
	return device == o.device && memcmp(bus, o.bus, sizeof(bus)) == 0 &&
	       addr < o.addr + o.length && o.addr < addr + length;
}

bool Invalidations::covered(const Range &r) const
{
	for (const Memh *m : live_)
		if (r.overlaps(Range(*m)))
			return true;
	return false;
}

void Invalidations::added(const Memh *m)
{
	std::lock_guard<std::mutex> l(mu_);
	live_.insert(m);
}

std::vector<uct_completion_t *> Invalidations::removed(const Memh *m, uct_completion_t *comp)
{
	std::vector<uct_completion_t *> due;
	std::lock_guard<std::mutex> l(mu_);
	live_.erase(m);
	if (comp)
		waiting_.push_back(Waiter{Range(*m), comp});
	for (auto it = waiting_.begin(); it != waiting_.end();) {
		if (covered(it->range)) {
			++it;
			continue;
		}
		due.push_back(it->comp);
		it = waiting_.erase(it);
	}
	return due;
}

std::vector<uct_completion_t *> Invalidations::drain()
{
	std::vector<uct_completion_t *> due;
	std::lock_guard<std::mutex> l(mu_);
	for (const Waiter &w : waiting_)
		due.push_back(w.comp);
	waiting_.clear();
	live_.clear();
	return due;
}

}  // namespace gaudi_ipc
