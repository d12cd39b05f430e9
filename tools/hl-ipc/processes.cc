// SPDX-License-Identifier: MIT
#include "processes.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "sysfs.h"

namespace hlipc {

namespace {

bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

}  // namespace

int for_each_open_file(const std::function<void(const OpenFile &)> &f)
{
	int hidden = 0;
	DIR *proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (dirent *p = readdir(proc)) {
		if (!all_digits(p->d_name))
			continue;
		std::string base = std::string("/proc/") + p->d_name;
		DIR *fds = opendir((base + "/fd").c_str());
		if (!fds) {
			if (errno == EACCES)
				hidden++;
			continue;
		}
		OpenFile of;
		of.pid = static_cast<pid_t>(atoi(p->d_name));
		of.comm = read_attr(base + "/comm");
		while (dirent *e = readdir(fds)) {
			if (!all_digits(e->d_name))
				continue;
			std::string path = base + "/fd/" + e->d_name;
			if (stat(path.c_str(), &of.st) < 0)
				continue;
			char link[512];
			ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
			of.link.assign(link, n > 0 ? static_cast<size_t>(n) : 0);
			of.fd = atoi(e->d_name);
			f(of);
		}
		closedir(fds);
	}
	closedir(proc);
	return hidden;
}

std::string read_fdinfo(pid_t pid, int fd)
{
	return read_blob("/proc/" + std::to_string(pid) + "/fdinfo/" +
			 std::to_string(fd));
}

std::string describe_process(pid_t pid, const std::string &comm)
{
	return std::to_string(pid) + " (" + comm + ")";
}

}  // namespace hlipc
