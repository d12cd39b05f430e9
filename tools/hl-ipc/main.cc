// SPDX-License-Identifier: MIT
// hl-ipc: the operator's tool for habanalabs_ipc and the accelerators.
#include <cstdio>
#include <cstring>

#include "cli.h"
#include "commands.h"

#ifndef HL_IPC_VERSION
#define HL_IPC_VERSION "unknown"
#endif

namespace {

struct Command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

const Command kCommands[] = {
	{"status", hlipc::status_main,
	 "modules, devices, /dev/hl_ipc: version, parameters, access, counters"},
	{"load", hlipc::load_main, "load habanalabs_ipc or habanalabs_sim (libkmod)"},
	{"unload", hlipc::unload_main,
	 "unload a module; names the processes that keep it in use"},
	{"channels", hlipc::channels_main, "the channels open now, per process"},
	{"regions", hlipc::regions_main, "the memory regions registered now, per process"},
	{"bench", hlipc::bench_main,
	 "channel vs staged DMA vs process_vm_writev on the devices"},
	{"demo", hlipc::demo_main,
	 "two processes move device buffers through a channel and staged DMA"},
};

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc COMMAND [OPTIONS]\n"
		"\n"
		"The operator's tool for node-local device-to-device copies between\n"
		"Habana Gaudi devices through /dev/hl_ipc (habanalabs_ipc).\n"
		"\n"
		"commands:\n");
	for (auto &c : kCommands)
		fprintf(f, "  %-9s %s\n", c.name, c.summary);
	fprintf(f,
		"\n"
		"'hl-ipc COMMAND --help' describes each; hl-ipc(8) has it all.\n"
		"\n"
		"options:\n"
		"  -h, --help     this text\n"
		"  --version      the version of hl-ipc\n");
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return hlipc::kExitUsage;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return hlipc::kExitOk;
	}
	if (!strcmp(cmd, "--version")) {
		printf("hl-ipc %s\n", HL_IPC_VERSION);
		return hlipc::kExitOk;
	}
	for (auto &c : kCommands)
		if (!strcmp(cmd, c.name))
			return c.main(argc - 1, argv + 1);
	fprintf(stderr, "hl-ipc: unknown %s '%s' (see 'hl-ipc --help')\n",
		cmd[0] == '-' ? "option" : "command", cmd);
	return hlipc::kExitUsage;
}
