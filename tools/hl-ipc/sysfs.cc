// SPDX-License-Identifier: MIT
#include "sysfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace hlipc {

std::string read_blob(const std::string &path, size_t max)
{
	std::string out;
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return out;
	char buf[4096];
	while (out.size() < max) {
		ssize_t n = ::read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out.append(buf, static_cast<size_t>(n));
	}
	::close(fd);
	if (out.size() > max)
		out.resize(max);
	return out;
}

std::string read_attr(const std::string &path)
{
	std::string s = read_blob(path, 4096);
	size_t nl = s.find('\n');
	if (nl != std::string::npos)
		s.resize(nl);
	return s;
}

bool read_u64(const std::string &path, uint64_t *out)
{
	std::string s = read_attr(path);
	if (s.empty())
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s.c_str(), &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

}  // namespace hlipc
