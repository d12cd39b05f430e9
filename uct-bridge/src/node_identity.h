// SPDX-License-Identifier: MIT
// Who and where: the node (boot id, namespaces) and processes (pid plus
// start time, since pids are reused), as the addresses and remote keys of
// the transport carry them.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace gaudi_ipc {

// What makes two processes able to reach each other's memory: the same
// running kernel (boot id) and the same pid, mount (/proc, memfds) and
// network (abstract unix sockets) namespaces.
struct NodeId {
	uint8_t boot_id[16];
	uint64_t pid_ns;
	uint64_t mnt_ns;
	uint64_t net_ns;
};

// This process's node, read once.
const NodeId &this_node();
bool same_node(const NodeId &a, const NodeId &b);

// A process: its pid and its start time (clock ticks after boot, from
// /proc/<pid>/stat), which tells it from a later process with the same pid.
struct ProcessId {
	uint32_t pid;
	uint64_t start;
};

const ProcessId &this_process();
// The start time of pid, or 0 if no such process exists (any more).
uint64_t process_start_time(pid_t pid);
// True while the very process p runs (not a later one with its pid).
bool process_alive(const ProcessId &p);
// The effective uid pid runs as, by the kernel's word (the owner of
// /proc/<pid>, which is root for a process that is not dumpable), or
// (uid_t)-1 if it does not run.
uid_t process_uid(uint32_t pid);

// 64 random bits from the kernel (never 0).
uint64_t random_u64();

}  // namespace gaudi_ipc
