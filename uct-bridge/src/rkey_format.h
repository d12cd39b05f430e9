// SPDX-License-Identifier: MIT
// The packed remote key of a gaudi_ipc memory registration: what a peer
// needs to reach the memory through a channel (the /dev/hl_ipc region
// cookie and where the registered range lies in that region) and through
// the staged path (the owner's staging key), and who and where the owner
// says it is (pid and start time, boot id and pid namespace), so a key
// from another node, namespace or process lifetime is refused cleanly.
//
// Nothing in a key is proof of anything: whoever sends it chose every
// byte.  What it grants is enforced elsewhere: the kernel checks a cookie
// (its owner's uid, the exact range and access registered, revoked at
// deregistration), the owner's staging server checks a staging key, and
// who the owner is comes from the kernel when the staged path connects
// (admission.h).  The key carries no uid: a self-reported one proves
// nothing.
//
// The layout is fixed (little-endian x86-64 fields) and ends with a
// checksum over the bytes before it, so a corrupted key is told from a
// stale one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "node_identity.h"

namespace gaudi_ipc {

constexpr uint32_t kRkeyMagic = 0x43504947;  // "GIPC"
constexpr uint16_t kRkeyVersion = 2;

enum RkeyFlags : uint16_t {
	kRkeyDevice = 1 << 0,    // device memory (bus names the device)
	kRkeyCookie = 1 << 1,    // cookie and cookie_offset are valid
	kRkeyStaged = 1 << 2,    // stage_key is valid
	kRkeyWritable = 1 << 3,  // peers may put into it
	kRkeyFlagsAll = 0xf,
};

struct PackedRkey {
	uint32_t magic;
	uint16_t version;
	uint16_t flags;          // RkeyFlags
	uint64_t addr;           // start of the registered range, owner's view
	uint64_t length;         // bytes registered
	uint64_t cookie;         // /dev/hl_ipc region (kRkeyCookie)
	uint64_t cookie_offset;  // where addr lies in that region
	uint64_t stage_key;      // owner's staged-path key (kRkeyStaged)
	uint64_t owner_start;    // owner's start time (ProcessId::start)
	uint32_t owner_pid;
	uint32_t reserved0;      // 0
	uint8_t boot_id[16];
	uint64_t pid_ns;
	char bus[16];            // "dddd:bb:dd.f" of the device, NUL-padded
	uint32_t reserved;       // 0
	uint32_t check;          // checksum of everything above
};
static_assert(sizeof(PackedRkey) == 112, "the remote key layout is fixed");

// What a remote key says, once checked.
struct RkeyFields {
	uint16_t flags;
	uint64_t addr, length;
	uint64_t cookie, cookie_offset;
	uint64_t stage_key;
	ProcessId owner;
	uint8_t boot_id[16];
	uint64_t pid_ns;
	char bus[16];  // NUL-terminated

	bool device() const { return flags & kRkeyDevice; }
	bool has_cookie() const { return flags & kRkeyCookie; }
	bool staged() const { return flags & kRkeyStaged; }
	bool writable() const { return flags & kRkeyWritable; }
	// [remote_addr, remote_addr + len) lies inside the registered range.
	bool covers(uint64_t remote_addr, uint64_t len) const
	{
		return remote_addr >= addr && len <= length &&
		       remote_addr - addr <= length - len;
	}
};

// Fills *out from f (with the checksum); f.bus must be NUL-terminated.
void pack_rkey(const RkeyFields &f, PackedRkey *out);

enum class RkeyCheck {
	Ok,
	Corrupt,       // not a key of this transport, or damaged
	OtherNode,     // another boot of the kernel, or another pid namespace
};

// Parses and checks a packed key (any alignment).  *out is valid only for
// Ok; `node` is the node of the process that unpacks it.
RkeyCheck parse_rkey(const void *buf, const NodeId &node, RkeyFields *out);

uint32_t rkey_checksum(const void *data, size_t len);

}  // namespace gaudi_ipc
