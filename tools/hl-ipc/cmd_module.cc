// SPDX-License-Identifier: MIT
// hl-ipc load / unload: our modules through libkmod, with their
// parameters; unloading names the processes that keep a module in use.
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "holders.h"
#include "kernel_module.h"

namespace hlipc {

namespace {

bool our_module(const std::string &m)
{
	return m == "habanalabs_ipc" || m == "habanalabs_sim";
}

void load_usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc load [MODULE] [PARAM=VALUE...]\n"
		"\n"
		"Loads MODULE, habanalabs_ipc (the default) or habanalabs_sim (the\n"
		"emulated devices), through libkmod as modprobe would: the installed\n"
		"module of the running kernel, with the options of /etc/modprobe.d and\n"
		"then PARAM=VALUE.  'modinfo MODULE' and hl-ipc(8) list the parameters.\n"
		"Needs root.\n"
		"\n"
		"examples:\n"
		"  hl-ipc load\n"
		"  hl-ipc load habanalabs_ipc max_channels=128\n"
		"  hl-ipc load habanalabs_sim num_devices=2 memory_mb=512\n"
		"\n"
		"options:\n"
		"  -h, --help   this text\n"
		"\n"
		"exit status: 0 loaded (or already loaded, without parameters),\n"
		"1 not loaded (the message says why), 2 bad command line.\n");
}

void unload_usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc unload [MODULE]\n"
		"\n"
		"Unloads MODULE, habanalabs_ipc (the default) or habanalabs_sim, through\n"
		"libkmod.  Refuses while the module is in use and names the processes\n"
		"that hold it (open /dev/hl_ipc or device nodes, dma-bufs, regions).\n"
		"Needs root.\n"
		"\n"
		"options:\n"
		"  -h, --help   this text\n"
		"\n"
		"exit status: 0 unloaded, 1 in use or refused (the message says why),\n"
		"2 bad command line, 3 the module is not loaded.\n");
}

std::string kernel_release()
{
	struct utsname u;
	return uname(&u) == 0 ? u.release : "?";
}

std::string not_root_hint()
{
	return geteuid() == 0 ? "" : " (loading and unloading modules needs root: "
				     "run it with sudo)";
}

}  // namespace

int load_main(int argc, char **argv)
{
	bool help = false;
	OptionParser opts("load");
	opts.flag("help", 'h', &help);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		load_usage(stdout);
		return kExitOk;
	}
	std::string module = "habanalabs_ipc";
	size_t first = 0;
	if (!args.empty() && args[0].find('=') == std::string::npos) {
		module = args[0];
		first = 1;
	}
	if (!our_module(module))
		return usage_error("load", "unknown module '" + module +
						   "': hl-ipc loads habanalabs_ipc or "
						   "habanalabs_sim");
	std::string options;
	std::vector<std::string> names;
	for (size_t i = first; i < args.size(); i++) {
		size_t eq = args[i].find('=');
		if (eq == std::string::npos || eq == 0)
			return usage_error("load", "'" + args[i] +
							   "' is not PARAM=VALUE");
		names.push_back(args[i].substr(0, eq));
		options += (options.empty() ? "" : " ") + args[i];
	}

	int err = 0;
	auto kmod = KernelModules::open(&err);
	if (!kmod) {
		fprintf(stderr, "hl-ipc load: cannot start libkmod: %s\n", strerror(-err));
		return kExitFail;
	}
	ModuleStatus st = kmod->status(module);
	if (st.file.empty()) {
		fprintf(stderr,
			"hl-ipc load: %s is not installed for kernel %s (modprobe cannot "
			"find it): install the %s package and the kernel's headers, or "
			"check 'dkms status'\n", module.c_str(), kernel_release().c_str(),
			module == "habanalabs_sim" ? "habanalabs-sim-dkms" : "habanalabs-ipc-dkms");
		return kExitFail;
	}
	for (auto &n : names) {
		bool known = false;
		std::string valid;
		for (auto &p : st.file_params) {
			known |= p.name == n;
			valid += (valid.empty() ? "" : ", ") + p.name;
		}
		if (!known)
			return usage_error("load", module + " has no parameter '" + n +
							   "'; it has: " + valid);
	}
	if (st.loaded()) {
		if (!names.empty()) {
			fprintf(stderr,
				"hl-ipc load: %s is already loaded; unload it first "
				"('hl-ipc unload %s') to load it with other parameters\n",
				module.c_str(), module.c_str());
			return kExitFail;
		}
		printf("%s is already loaded\n", module.c_str());
		return kExitOk;
	}
	err = kmod->load(module, options);
	if (err) {
		std::string why = strerror(-err);
		if (err == -EPERM && geteuid() != 0)
			why += not_root_hint();
		else if (err == -EINVAL || err == -ENOEXEC)
			why += " (the kernel refused the module or a parameter "
			       "value; 'dmesg' says which)";
		else if (err == -EPERM)
			why += " (blacklisted in /etc/modprobe.d, or refused by "
			       "module signing: see dmesg)";
		fprintf(stderr, "hl-ipc load: cannot load %s: %s\n", module.c_str(),
			why.c_str());
		return kExitFail;
	}
	ModuleStatus now = kmod->status(module);
	printf("loaded %s from %s%s%s\n", module.c_str(), st.file.c_str(),
	       options.empty() ? "" : " with ", options.c_str());
	return now.loaded() ? kExitOk : kExitFail;
}

int unload_main(int argc, char **argv)
{
	bool help = false;
	OptionParser opts("unload");
	opts.flag("help", 'h', &help);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		unload_usage(stdout);
		return kExitOk;
	}
	if (args.size() > 1)
		return usage_error("unload", "unexpected argument '" + args[1] + "'");
	std::string module = args.empty() ? "habanalabs_ipc" : args[0];
	if (!our_module(module))
		return usage_error("unload", "unknown module '" + module +
						     "': hl-ipc unloads habanalabs_ipc or "
						     "habanalabs_sim");
	int err = 0;
	auto kmod = KernelModules::open(&err);
	if (!kmod) {
		fprintf(stderr, "hl-ipc unload: cannot start libkmod: %s\n",
			strerror(-err));
		return kExitFail;
	}
	ModuleStatus st = kmod->status(module);
	if (!st.loaded()) {
		fprintf(stderr, "hl-ipc unload: %s is not loaded\n", module.c_str());
		return kExitNotLoaded;
	}
	auto refuse = [&](const char *why) {
		std::vector<Device> devs;
		list_devices(&devs);
		Holders h = find_holders(module, devs);
		std::string who = describe_holders(h);
		fprintf(stderr, "hl-ipc unload: %s is in use%s; not unloaded\n",
			module.c_str(), why);
		for (auto &m : st.holders)
			fprintf(stderr, "  module %s depends on it: unload that first\n",
				m.c_str());
		for (auto &p : h.processes)
			fprintf(stderr, "  process %d (%s) holds %s\n", p.pid,
				p.comm.c_str(), p.what.c_str());
		if (h.hidden)
			fprintf(stderr, "  %d processes of other users could not be "
					"inspected (run as root to see them)\n", h.hidden);
		if (h.processes.empty() && st.holders.empty() && !h.hidden)
			fprintf(stderr, "  no process has its files open; memory "
					"mappings or in-flight work may still hold it\n");
		if (!h.processes.empty())
			fprintf(stderr, "stop those processes, then run 'hl-ipc unload "
					"%s' again\n", module.c_str());
		return kExitFail;
	};
	if (st.refcount > 0 || !st.holders.empty())
		return refuse("");
	err = kmod->unload(module);
	if (err == -EAGAIN || err == -EBUSY || err == -EWOULDBLOCK) {
		st = kmod->status(module);
		return refuse(" (it was opened meanwhile)");
	}
	if (err) {
		fprintf(stderr, "hl-ipc unload: cannot unload %s: %s%s\n",
			module.c_str(), strerror(-err),
			err == -EPERM ? not_root_hint().c_str() : "");
		return kExitFail;
	}
	printf("unloaded %s\n", module.c_str());
	return kExitOk;
}

}  // namespace hlipc
