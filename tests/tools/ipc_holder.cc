// SPDX-License-Identifier: MIT
// A process that holds known objects for the hl-ipc tests: one /dev/hl_ipc
// context with a 16 KiB user region and a host-to-host channel that has
// made one 4 KiB copy, and (with --device NODE) a device's compute node.
// Prints "ready COOKIE" and waits until stdin is closed.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "uapi/habanalabs_ipc.h"

namespace {

int fail(const char *what)
{
	fprintf(stderr, "ipc_holder: %s: %s\n", what, strerror(errno));
	return 1;
}

}  // namespace

int main(int argc, char **argv)
{
	int dev = -1;
	if (argc == 3 && !strcmp(argv[1], "--device")) {
		dev = open(argv[2], O_RDWR | O_CLOEXEC);
		if (dev < 0)
			return fail(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: ipc_holder [--device NODE]\n");
		return 2;
	}
	int fd = open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(HL_IPC_DEVICE_PATH);
	const size_t len = 16384;
	void *mem = mmap(nullptr, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		return fail("mmap");

	struct hl_ipc_region_register reg;
	memset(&reg, 0, sizeof(reg));
	reg.type = HL_IPC_REGION_USER;
	reg.flags = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE | HL_IPC_REGION_DEV_HOST;
	reg.fd = -1;
	reg.dev_fd = HL_IPC_FD_HOST;
	reg.addr = reinterpret_cast<uintptr_t>(mem);
	reg.length = len;
	if (ioctl(fd, HL_IPC_IOCTL_REGION_REGISTER, &reg))
		return fail("REGION_REGISTER");

	struct hl_ipc_channel_create ch;
	memset(&ch, 0, sizeof(ch));
	ch.src_fd = HL_IPC_FD_HOST;
	ch.dst_fd = HL_IPC_FD_HOST;
	ch.flags = HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST;
	if (ioctl(fd, HL_IPC_IOCTL_CHANNEL_CREATE, &ch))
		return fail("CHANNEL_CREATE");

	struct hl_ipc_copy cp;
	memset(&cp, 0, sizeof(cp));
	cp.channel_id = ch.channel_id;
	cp.src_cookie = reg.cookie;
	cp.dst_cookie = reg.cookie;
	cp.dst_offset = 8192;
	cp.length = 4096;
	if (ioctl(fd, HL_IPC_IOCTL_COPY, &cp))
		return fail("COPY");

	printf("ready 0x%016" PRIx64 "\n", static_cast<uint64_t>(reg.cookie));
	fflush(stdout);
	char c;
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	close(fd);
	if (dev >= 0)
		close(dev);
	return 0;
}
