// SPDX-License-Identifier: MIT
#include "addresses.h"

namespace gaudi_ipc {

namespace {

uint64_t fnv64(const void *data, size_t len, uint64_t h = 14695981039346656037ull)
{
	const auto *p = static_cast<const uint8_t *>(data);
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

}  // namespace

DeviceAddr device_addr(const NodeId &n)
{
	DeviceAddr d;
	d.boot = fnv64(n.boot_id, sizeof(n.boot_id));
	const uint64_t ns[3] = {n.pid_ns, n.mnt_ns, n.net_ns};
	d.namespaces = fnv64(ns, sizeof(ns));
	return d;
}

}  // namespace gaudi_ipc
