// SPDX-License-Identifier: MIT
// hl-ipc: command-line tool for node-local device-to-device copies.
#include <cstdio>
#include <cstring>

#include "demo.h"

namespace {

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc COMMAND [OPTIONS]\n"
		"\n"
		"Node-local device-to-device copies between Habana Gaudi devices\n"
		"through /dev/hl_ipc (habanalabs_ipc) and libhlthunk.\n"
		"\n"
		"commands:\n"
		"  demo     two processes, each owning one device, move buffers to\n"
		"           each other through a channel and through the staged DMA\n"
		"           path, check every byte and print what each path achieved\n"
		"           (see 'hl-ipc demo --help')\n"
		"\n"
		"options:\n"
		"  -h, --help   this text\n");
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "demo"))
		return hlipc::demo_main(argc - 1, argv + 1);
	fprintf(stderr, "hl-ipc: unknown command '%s' (see 'hl-ipc --help')\n",
		argv[1]);
	return 2;
}
