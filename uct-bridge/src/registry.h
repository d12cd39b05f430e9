// SPDX-License-Identifier: MIT
// The staged path's registrations of this process: a random 64-bit key
// per registration, which its remote key carries, so a peer's request
// names memory the process registered and nothing else.  A key is never
// reused.  Serving a piece pins its registration; ending a registration
// makes later requests fail at once and waits until the pieces in
// service have ended, so once uct_md_mem_dereg returns no peer's piece
// touches the memory any more.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace gaudi_ipc {

struct StagedRegion {
	uint64_t addr;   // host pointer or device VA, as registered
	uint64_t length;
	bool device;     // device memory (addr is a device VA)
	bool writable;   // peers may put into it
	int dev;         // its device (device_index)
	bool exported;   // the registration holds an export of it: it stays mapped
};

class Registry {
public:
	// A registration held while a piece is served in it.
	class Pin {
	public:
		Pin() = default;
		Pin(Pin &&o) noexcept : reg_(o.reg_), key_(o.key_), region_(o.region_)
		{
			o.reg_ = nullptr;
		}
		Pin &operator=(Pin &&o) noexcept;
		Pin(const Pin &) = delete;
		Pin &operator=(const Pin &) = delete;
		~Pin() { reset(); }
		const StagedRegion &region() const { return region_; }
		bool held() const { return reg_ != nullptr; }
		void reset();

	private:
		friend class Registry;
		Registry *reg_ = nullptr;
		uint64_t key_ = 0;
		StagedRegion region_{};
	};

	static Registry &get();
	uint64_t add(const StagedRegion &r);
	// Ends a registration; returns once no piece is served in it.
	void remove(uint64_t key);
	// Pins a registration for a piece.  0, or -ENOENT if there is none
	// (never registered here, or being or already deregistered).
	int pin(uint64_t key, Pin *out);

private:
	struct Entry {
		StagedRegion region;
		unsigned pins = 0;
		bool ending = false;
	};
	void unpin(uint64_t key);

	std::mutex mu_;
	std::condition_variable unpinned_;
	std::unordered_map<uint64_t, Entry> regions_;
};

}  // namespace gaudi_ipc
