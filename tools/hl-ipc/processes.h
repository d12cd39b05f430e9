// SPDX-License-Identifier: MIT
// Which processes hold which files open (procfs).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <functional>
#include <string>

namespace hlipc {

struct OpenFile {
	pid_t pid;
	std::string comm;   // the process's command name
	int fd;
	struct stat st;     // of the open file (st_rdev for device nodes)
	std::string link;   // readlink of /proc/PID/fd/FD
};

// Calls f for every open fd of every process this user may inspect (all
// of them for root); processes that exit meanwhile are skipped.  Returns
// the number of processes that could not be inspected.
int for_each_open_file(const std::function<void(const OpenFile &)> &f);

// /proc/PID/fdinfo/FD; empty if it cannot be read.
std::string read_fdinfo(pid_t pid, int fd);

// "123 (python3)"
std::string describe_process(pid_t pid, const std::string &comm);

}  // namespace hlipc
