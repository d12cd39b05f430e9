// SPDX-License-Identifier: MIT
// Identities the caches key on: which device, and which file an fd is.
#pragma once

#include <cstdint>

namespace hlthunk {

// Identifies a device independently of which of its nodes an fd is open on.
struct DeviceKey {
	int kind;   // DeviceKind
	int index;  // device index within its kind
	bool operator<(const DeviceKey &o) const
	{
		return kind != o.kind ? kind < o.kind : index < o.index;
	}
	bool operator==(const DeviceKey &o) const
	{
		return kind == o.kind && index == o.index;
	}
	bool operator!=(const DeviceKey &o) const { return !(*this == o); }
};

// What fstat() says an fd is: the node (device number and inode) it is
// open on.  Two fds with equal FileIds are open on the same node; for a
// compute node, which only one open may hold, that is the same context as
// long as the context is kept alive (see RegistrationCache).
struct FileId {
	uint64_t dev = 0;   // st_dev of the node
	uint64_t ino = 0;   // st_ino
	uint64_t rdev = 0;  // st_rdev: the char device
	bool operator==(const FileId &o) const
	{
		return dev == o.dev && ino == o.ino && rdev == o.rdev;
	}
	bool operator!=(const FileId &o) const { return !(*this == o); }
};

}  // namespace hlthunk
