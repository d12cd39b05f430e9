// SPDX-License-Identifier: MIT
// The staged path's registrations of this process: a random 64-bit key
// per registration, which its remote key carries, so a peer's request
// names memory the process registered and nothing else.  A key is never
// reused; a request with a key deregistered meanwhile fails.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace gaudi_ipc {

struct StagedRegion {
	uint64_t addr;     // host pointer or device VA, as registered
	uint64_t length;
	bool device;       // device memory (addr is a device VA)
	char bus[16];      // its device
	bool writable;     // peers may put into it
};

class Registry {
public:
	static Registry &get();
	uint64_t add(const StagedRegion &r);
	void remove(uint64_t key);
	std::optional<StagedRegion> find(uint64_t key) const;

private:
	mutable std::mutex mu_;
	std::unordered_map<uint64_t, StagedRegion> regions_;
};

}  // namespace gaudi_ipc
