// SPDX-License-Identifier: MIT
// A process known to the kernel by a pidfd: proven to be the one with a
// given pid and start time when it is opened, and told dead the moment it
// exits (the pidfd then polls readable, so a sleeper waiting on it in an
// epoll set wakes).  Pids are reused; a pidfd never names another process.
#pragma once

#include <cstdint>

#include "hl/unique_fd.h"

namespace gaudi_ipc {

class ProcessHandle {
public:
	ProcessHandle() = default;
	ProcessHandle(ProcessHandle &&) = default;
	ProcessHandle &operator=(ProcessHandle &&) = default;

	// Opens the process pid, which must be the one that started at
	// `start` (clock ticks after boot; 0: whichever runs now, whose start
	// time is then recorded).  0 or -errno: -ESRCH if no such process
	// runs (any more).
	int open(uint32_t pid, uint64_t start);
	bool valid() const { return fd_.valid(); }
	uint32_t pid() const { return pid_; }
	uint64_t start() const { return start_; }
	// Readable (POLLIN) once the process has exited.
	int fd() const { return fd_.get(); }
	// False once it has exited (a zombie counts as exited).
	bool alive() const;

private:
	hl::UniqueFd fd_;
	uint32_t pid_ = 0;
	uint64_t start_ = 0;
};

}  // namespace gaudi_ipc
