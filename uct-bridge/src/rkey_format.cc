// SPDX-License-Identifier: MIT
#include "rkey_format.h"

#include <cstring>

namespace gaudi_ipc {

uint32_t rkey_checksum(const void *data, size_t len)
{
	// FNV-1a: catches damage, not forgery (the cookie's random bits and
	// the kernel's checks are what guard the memory).
	const auto *p = static_cast<const uint8_t *>(data);
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

void pack_rkey(const RkeyFields &f, PackedRkey *out)
{
	PackedRkey k;
	memset(&k, 0, sizeof(k));
	k.magic = kRkeyMagic;
	k.version = kRkeyVersion;
	k.flags = f.flags;
	k.addr = f.addr;
	k.length = f.length;
	k.cookie = f.has_cookie() ? f.cookie : 0;
	k.cookie_offset = f.has_cookie() ? f.cookie_offset : 0;
	k.stage_key = f.staged() ? f.stage_key : 0;
	k.owner_start = f.owner.start;
	k.owner_pid = f.owner.pid;
	memcpy(k.boot_id, f.boot_id, sizeof(k.boot_id));
	k.pid_ns = f.pid_ns;
	memcpy(k.bus, f.bus, sizeof(k.bus));
	k.bus[sizeof(k.bus) - 1] = 0;
	k.check = rkey_checksum(&k, offsetof(PackedRkey, check));
	memcpy(out, &k, sizeof(k));
}

RkeyCheck parse_rkey(const void *buf, const NodeId &node, RkeyFields *out)
{
	PackedRkey k;
	memcpy(&k, buf, sizeof(k));
	if (k.magic != kRkeyMagic || k.version != kRkeyVersion ||
	    k.check != rkey_checksum(&k, offsetof(PackedRkey, check)))
		return RkeyCheck::Corrupt;
	if ((k.flags & ~kRkeyFlagsAll) || k.reserved || k.reserved0 || k.length == 0 ||
	    k.addr + k.length < k.addr || k.bus[sizeof(k.bus) - 1] != 0 ||
	    !(k.flags & (kRkeyCookie | kRkeyStaged)) || !k.owner_pid ||
	    ((k.flags & kRkeyDevice) != 0) != (k.bus[0] != 0) ||
	    ((k.flags & kRkeyCookie) && !k.cookie) ||
	    ((k.flags & kRkeyStaged) && !k.stage_key))
		return RkeyCheck::Corrupt;
	if (memcmp(k.boot_id, node.boot_id, sizeof(k.boot_id)) != 0 ||
	    k.pid_ns != node.pid_ns)
		return RkeyCheck::OtherNode;
	memset(out, 0, sizeof(*out));
	out->flags = k.flags;
	out->addr = k.addr;
	out->length = k.length;
	out->cookie = k.cookie;
	out->cookie_offset = k.cookie_offset;
	out->stage_key = k.stage_key;
	out->owner = ProcessId{k.owner_pid, k.owner_start};
	memcpy(out->boot_id, k.boot_id, sizeof(out->boot_id));
	out->pid_ns = k.pid_ns;
	memcpy(out->bus, k.bus, sizeof(out->bus));
	return RkeyCheck::Ok;
}

}  // namespace gaudi_ipc
