// SPDX-License-Identifier: MIT
// The per-context view habanalabs_ipc gives in /proc/PID/fdinfo/FD of an
// open /dev/hl_ipc (format: Documentation/uapi-hl-ipc.md, "fdinfo").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hlipc {

struct DevRef {
	unsigned kind = 0, major = 0, index = 0;  // HL_IPC_DEV_KIND_*
};

struct FdRegion {
	uint64_t cookie = 0;
	std::string type;  // "dmabuf" or "user"
	uint32_t flags = 0;
	uint64_t size = 0, pinned = 0;
	unsigned dev_kind = 0;
	DevRef dev;
};

struct FdChannel {
	uint32_t id = 0;
	DevRef src, dst;
	uint64_t submitted = 0, completed = 0;
	bool busy = false;
	uint64_t copies = 0, bytes = 0, errors = 0;
};

struct IpcContext {
	bool valid = false;  // the fdinfo had our lines (module that has them)
	unsigned abi = 0;
	std::vector<FdRegion> regions;
	std::vector<FdChannel> channels;
};

IpcContext parse_fdinfo(const std::string &text);

// "rw", "r", plus ",any-user", ",host" for the region flags.
std::string region_access(uint32_t flags);

}  // namespace hlipc
