// SPDX-License-Identifier: MIT
// What the adversarial tests use to play a hostile peer: the staging
// mailbox of another process, found and mapped as any process of its user
// can (through /proc/<pid>/fd), where that process maps it, the CPU time a
// process has used, the unix sockets of the transport any local user can
// see, and a packed remote key rewritten at will with its checksum made
// right again.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hl/unique_fd.h"
#include "mapping.h"
#include "rkey_format.h"

namespace uct_test {

// A process's staging mailbox, mapped here read-write.
struct Segment {
	hl::UniqueFd fd;
	hlipc::Mapping map;
	uint64_t size = 0;
	uint64_t owner_base = 0;  // where the owner maps it
};
// Finds and maps the mailbox of pid's gaudi_ipc interface (the first one).
bool open_mailbox_of(pid_t pid, Segment *out);

// Clock ticks of CPU time pid's threads other than its main one have used
// (user + system): the threads that serve its peers (UCX's async thread).
uint64_t helper_cpu_ticks(pid_t pid);

// The names of the unix sockets whose address has `needle` in it, as
// /proc/net/unix shows them to everybody ('@' for abstract ones).
std::vector<std::string> unix_sockets(const char *needle);

// Tries, for `seconds`, to wake whatever listens on those sockets: a
// datagram to each, and a connection with a byte on it.  Returns how many
// attempts got through.
uint64_t flood_sockets(const std::vector<std::string> &names, double seconds);

// A packed key with one change and its checksum made right again.
template <typename F>
std::vector<uint8_t> repack(std::vector<uint8_t> k, F change)
{
	gaudi_ipc::PackedRkey p;
	memcpy(&p, k.data(), sizeof(p));
	change(p);
	p.check = gaudi_ipc::rkey_checksum(&p, offsetof(gaudi_ipc::PackedRkey, check));
	memcpy(k.data(), &p, sizeof(p));
	return k;
}

}  // namespace uct_test
