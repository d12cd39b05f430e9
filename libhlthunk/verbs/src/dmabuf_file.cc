// SPDX-License-Identifier: MIT
#include "dmabuf_file.h"

#include <fcntl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace hlthunk_verbs {

using hlthunk::Err;

hlthunk::Result<uint64_t> dmabuf_size(int fd)
{
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return Err{-EBADF};
	// Every dma-buf's fdinfo names its exporter ("exp_name:") and gives
	// its size; no other file has an exp_name line.
	std::string path = "/proc/self/fdinfo/" + std::to_string(fd);
	FILE *f = fopen(path.c_str(), "re");
	if (!f)
		return Err{-EBADF};
	char line[256];
	bool exporter = false;
	unsigned long long size = 0;
	bool have_size = false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "exp_name:", 9))
			exporter = true;
		else if (sscanf(line, "size: %llu", &size) == 1)
			have_size = true;
	}
	fclose(f);
	if (!exporter || !have_size)
		return Err{-EINVAL};
	return static_cast<uint64_t>(size);
}

}  // namespace hlthunk_verbs
