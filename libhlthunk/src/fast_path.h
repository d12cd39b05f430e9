// SPDX-License-Identifier: MIT
// FastPath: a per-thread memo of what the last channel copies resolved.
//
// hlthunk_ipc_channel_copy is called once per transfer, so its lookups
// (channel -> device pair, fd -> device, address -> registered region) must
// cost next to nothing beside the ioctl.  Each thread remembers the last
// channel check (the channel, the two fd numbers it was checked with and
// the devices they named) and a few regions by device, address range and
// access, with the generations of the caches they came from; any change to
// the library's state (a mapping made or dropped, a device opened or
// closed, a channel destroyed, fork) changes a generation and the memo is
// dropped.  A hit takes no lock and no atomic read-modify-write.
//
// What a hit trusts: that the fd numbers still name the devices they named
// when checked.  Addresses are resolved in the channel's devices, so a hit
// can only touch memory of the channel's source and destination devices,
// at the addresses given, in the one compute context each has (the cache
// keeps it from being replaced while it holds registrations).
#pragma once

#include <cstdint>

#include "channel_cache.h"
#include "device_key.h"

namespace hlthunk {

class FastPath {
public:
	// Drops everything if either generation moved.
	void sync(uint64_t reg_gen, uint64_t ch_gen)
	{
		if (reg_gen != reg_gen_ || ch_gen != ch_gen_) {
			*this = FastPath();
			reg_gen_ = reg_gen;
			ch_gen_ = ch_gen;
		}
	}

	// The kernel channel and devices of channel id, if it was checked
	// with these fds.  The caller holds the kernel channel in flight and
	// then checks that the channel generation did not move (see
	// ChannelCache) before it uses the kernel channel's number.
	bool channel(uint32_t id, int src_fd, int dst_fd, KernelChannel **k,
		     DeviceKey *src, DeviceKey *dst) const
	{
		if (!ch_valid_ || ch_ != id || sfd_ != src_fd || dfd_ != dst_fd)
			return false;
		*k = k_;
		*src = sdev_;
		*dst = ddev_;
		return true;
	}
	void set_channel(uint32_t id, int src_fd, int dst_fd, KernelChannel *k,
			 DeviceKey src, DeviceKey dst)
	{
		ch_valid_ = true;
		ch_ = id;
		sfd_ = src_fd;
		dfd_ = dst_fd;
		k_ = k;
		sdev_ = src;
		ddev_ = dst;
	}
	uint64_t channel_generation() const { return ch_gen_; }

	// The cookie and offset for [addr, addr + len) of dev usable for
	// `write` (a destination) or reading, if memoised.
	bool find(DeviceKey dev, uint64_t addr, uint64_t len, bool write,
		  uint64_t *cookie, uint64_t *offset) const
	{
		for (unsigned i = 0; i < n_; i++) {
			const Entry &e = e_[i];
			if (e.dev != dev || addr < e.start || (write && !e.write))
				continue;
			uint64_t off = addr - e.start;
			if (off >= e.len || len > e.len - off)
				continue;
			*cookie = e.cookie;
			*offset = off;
			return true;
		}
		return false;
	}
	void add(DeviceKey dev, uint64_t start, uint64_t len, bool write,
		 uint64_t cookie)
	{
		e_[next_] = Entry{dev, start, len, cookie, write};
		next_ = (next_ + 1) % kEntries;
		if (n_ < kEntries)
			n_++;
	}

private:
	static constexpr unsigned kEntries = 4;
	struct Entry {
		DeviceKey dev;
		uint64_t start, len, cookie;
		bool write;  // a registration that allows writing
	};
	uint64_t reg_gen_ = 0, ch_gen_ = 0;
	bool ch_valid_ = false;
	uint32_t ch_ = 0;
	KernelChannel *k_ = nullptr;
	int sfd_ = -1, dfd_ = -1;
	DeviceKey sdev_{-1, -1}, ddev_{-1, -1};
	Entry e_[kEntries] = {};
	unsigned n_ = 0, next_ = 0;
};

}  // namespace hlthunk
