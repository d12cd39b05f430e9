// SPDX-License-Identifier: MIT
// IntervalMap<T>: disjoint address ranges [start, start + len) -> T.
//
// The registration cache resolves any address inside a mapping (and any
// sub-range of it) to the mapping; this is the ordered-map arithmetic
// behind it, kept free of any device state so it can be tested alone.
#pragma once

#include <cerrno>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <utility>

#include "result.h"

namespace hlthunk {

template <typename T>
class IntervalMap {
public:
	struct Hit {
		uint64_t start;   // start of the containing interval
		uint64_t len;     // its length
		uint64_t offset;  // of the looked-up address inside it
		T *value;
	};

	// -EINVAL for an empty or wrapping range, -EEXIST if it overlaps.
	Result<void> insert(uint64_t start, uint64_t len, T value)
	{
		if (len == 0 || start + len < start)
			return Err{-EINVAL};
		auto next = map_.lower_bound(start);
		if (next != map_.end() && next->first < start + len)
			return Err{-EEXIST};
		if (next != map_.begin()) {
			auto prev = std::prev(next);
			if (prev->first + prev->second.len > start)
				return Err{-EEXIST};
		}
		map_.emplace_hint(next, start, Entry{len, std::move(value)});
		return {};
	}

	// The interval holding all of [addr, addr + len): -EFAULT if addr is in
	// none, -ERANGE if the range runs past the end of the one holding addr.
	Result<Hit> find(uint64_t addr, uint64_t len)
	{
		auto it = map_.upper_bound(addr);
		if (it == map_.begin())
			return Err{-EFAULT};
		--it;
		uint64_t off = addr - it->first;
		if (off >= it->second.len)
			return Err{-EFAULT};
		if (len > it->second.len - off)
			return Err{-ERANGE};
		return Hit{it->first, it->second.len, off, &it->second.value};
	}

	// Removes the interval starting exactly at start.
	std::optional<T> erase(uint64_t start)
	{
		auto it = map_.find(start);
		if (it == map_.end())
			return std::nullopt;
		T v = std::move(it->second.value);
		map_.erase(it);
		return v;
	}

	// Removes every interval overlapping [start, start + len), handing
	// each value to sink; returns how many.
	template <typename Sink>
	size_t erase_overlapping(uint64_t start, uint64_t len, Sink sink)
	{
		if (len == 0)
			return 0;
		uint64_t end = start + len < start ? UINT64_MAX : start + len;
		auto it = map_.upper_bound(start);
		if (it != map_.begin()) {
			auto prev = std::prev(it);
			if (prev->first + prev->second.len > start)
				it = prev;
		}
		size_t n = 0;
		while (it != map_.end() && it->first < end) {
			sink(std::move(it->second.value));
			it = map_.erase(it);
			++n;
		}
		return n;
	}

	// Removes every interval whose value satisfies pred; returns how many.
	template <typename Pred>
	size_t erase_if(Pred pred)
	{
		size_t n = 0;
		for (auto it = map_.begin(); it != map_.end();) {
			if (pred(it->second.value)) {
				it = map_.erase(it);
				++n;
			} else {
				++it;
			}
		}
		return n;
	}

	size_t size() const { return map_.size(); }
	bool empty() const { return map_.empty(); }
	void clear() { map_.clear(); }

	template <typename F>
	void for_each(F f)
	{
		for (auto &kv : map_)
			f(kv.first, kv.second.len, kv.second.value);
	}

private:
	struct Entry {
		uint64_t len;
		T value;
	};
	std::map<uint64_t, Entry> map_;
};

}  // namespace hlthunk
