// SPDX-License-Identifier: MIT
// Test helper: makes this process, and the programs it execs, pin memory
// as an unprivileged user's process does, within its RLIMIT_MEMLOCK.
#pragma once

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hltest {

// Drops CAP_IPC_LOCK from every set: effective, permitted and inheritable
// now, and the bounding set, from which root's programs would get it back
// at exec.  False (errno set) if it cannot.
inline bool drop_ipc_lock()
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0) || syscall(SYS_capget, &h, d))
		return false;
	for (auto &x : d) {
		x.effective &= ~(1u << CAP_IPC_LOCK);
		x.permitted &= ~(1u << CAP_IPC_LOCK);
		x.inheritable &= ~(1u << CAP_IPC_LOCK);
	}
	return syscall(SYS_capset, &h, d) == 0;
}

}  // namespace hltest
