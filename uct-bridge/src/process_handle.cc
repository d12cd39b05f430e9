// SPDX-License-Identifier: MIT
#include "process_handle.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "node_identity.h"

namespace gaudi_ipc {

int ProcessHandle::open(uint32_t pid, uint64_t start)
{
	if (pid == 0 || pid > 0x3fffffff)
		return -ESRCH;
	hl::UniqueFd fd(static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0)));
	if (!fd.valid())
		return errno == EINVAL ? -ESRCH : -errno;
	// The pidfd holds whatever process had the pid; its start time says
	// whether that is the one meant, and its being alive after the read
	// says the time read was its own (its pid cannot have moved on).
	const uint64_t now = process_start_time(static_cast<pid_t>(pid));
	if (now == 0 || (start && now != start))
		return -ESRCH;
	fd_ = std::move(fd);
	pid_ = pid;
	start_ = now;
	if (!alive()) {
		fd_.reset();
		return -ESRCH;
	}
	return 0;
}

bool ProcessHandle::alive() const
{
	if (!fd_.valid())
		return false;
	struct pollfd p = {fd_.get(), POLLIN, 0};
	int n = poll(&p, 1, 0);
	return n == 0;
}

}  // namespace gaudi_ipc
