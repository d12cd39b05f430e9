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
#include <map>
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

// Clock ticks of CPU time each thread of pid other than its main one has
// used, by thread id.
std::map<int, uint64_t> helper_thread_ticks(pid_t pid);
// The ticks the threads of `after` used since `before` (threads in both).
uint64_t ticks_since(const std::map<int, uint64_t> &before,
		     const std::map<int, uint64_t> &after);

// The names of the unix sockets whose address has `needle` in it, as
// /proc/net/unix shows them to everybody ('@' for abstract ones).
std::vector<std::string> unix_sockets(const char *needle);

// Tries, for `seconds`, to wake whatever listens on those sockets: a
// datagram to each, and a connection with a byte on it.  Returns how many
// attempts got through.
uint64_t flood_sockets(const std::vector<std::string> &names, double seconds);

// The path of the admission socket of pid's interface with that nonce (0:
// any of pid's), as /proc/net/unix shows it; "" if there is none.
std::string admission_socket_of(pid_t pid, uint64_t nonce = 0);
// The nonce in an interface's address (device address, then interface
// address, as uct_env's Iface::address() gives them).
uint64_t nonce_of(const std::vector<uint8_t> &address);
// The address of an interface this process does not have: its pid and
// start time, the staged path offered, that nonce.
std::vector<uint8_t> forged_address(uint64_t nonce);

// How many fds pid holds; its pinned memory (VmPin) in KiB.
int count_fds(pid_t pid);
uint64_t vm_pin_kib(pid_t pid);

// A sysctl under /proc/sys set for a test, and put back.
class Sysctl {
public:
	Sysctl(const char *name, const std::string &value);
	~Sysctl();
	bool ok() const { return ok_; }

private:
	std::string path_, old_;
	bool ok_ = false;
};

// Has user `uid` create each path (as a directory open to all, or as a
// symlink to /tmp), as another user would before the victim starts.
// Returns whether all were made; ~Squat removes them.
class Squat {
public:
	Squat(unsigned uid, const std::vector<std::string> &paths, bool as_links);
	~Squat();
	bool ok() const { return ok_; }

private:
	std::vector<std::string> paths_;
	bool links_;
	bool ok_ = false;
};

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
