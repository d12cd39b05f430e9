// SPDX-License-Identifier: MIT
// FastPath: per-thread memo of what the last channel copies resolved.
//
// hlthunk_ipc_channel_copy runs once per copy, so its lookups (channel ->
// device pair, fd -> device, address -> registered region) must cost next
// to nothing beside the ioctl.  Each thread remembers the last channel check
// and a few regions, with the generations of the two caches they came from;
// any removal (unmap, free, close, channel destroy, fork) changes a
// generation and the memo is dropped.  A hit takes no lock and no atomic
// read-modify-write.
#pragma once

#include <cstdint>

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

	bool channel_ok(uint32_t id, int src_fd, int dst_fd) const
	{
		return ch_valid_ && ch_ == id && sfd_ == src_fd && dfd_ == dst_fd;
	}
	void set_channel_ok(uint32_t id, int src_fd, int dst_fd)
	{
		ch_valid_ = true;
		ch_ = id;
		sfd_ = src_fd;
		dfd_ = dst_fd;
	}

	// The cookie and offset for [addr, addr + len) of fd, if memoised.
	bool find(int fd, uint64_t addr, uint64_t len, uint64_t *cookie,
		  uint64_t *offset) const
	{
		for (unsigned i = 0; i < n_; i++) {
			const Entry &e = e_[i];
			if (e.fd != fd || addr < e.start)
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
	void add(int fd, uint64_t start, uint64_t len, uint64_t cookie)
	{
		e_[next_] = Entry{fd, start, len, cookie};
		next_ = (next_ + 1) % kEntries;
		if (n_ < kEntries)
			n_++;
	}

private:
	static constexpr unsigned kEntries = 4;
	struct Entry {
		int fd;
		uint64_t start, len, cookie;
	};
	uint64_t reg_gen_ = 0, ch_gen_ = 0;
	bool ch_valid_ = false;
	uint32_t ch_ = 0;
	int sfd_ = -1, dfd_ = -1;
	Entry e_[kEntries] = {};
	unsigned n_ = 0, next_ = 0;
};

}  // namespace hlthunk
