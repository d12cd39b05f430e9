// SPDX-License-Identifier: MIT
// hl-ipc status: the modules (libkmod), the devices (libudev) and
// /dev/hl_ipc (INFO ioctl, live counters), as a table or as JSON.
#include <sys/utsname.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "ipc_state.h"
#include "json_writer.h"
#include "kernel_module.h"
#include "processes.h"
#include "table.h"

namespace hlipc {

namespace {

const char *const kModules[] = {"habanalabs_ipc", "habanalabs_sim"};

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc status [--json]\n"
		"\n"
		"Shows whether habanalabs_ipc and habanalabs_sim are loaded (version,\n"
		"parameters, the file they were loaded from), the accelerators present\n"
		"(node, PCI address, type, in use, memory used), and for /dev/hl_ipc its\n"
		"access, ABI version, features, limits and live counters.\n"
		"\n"
		"options:\n"
		"  --json       one JSON object on stdout instead of the table\n"
		"  -h, --help   this text\n"
		"\n"
		"exit status: 0 habanalabs_ipc is loaded and usable by this user,\n"
		"1 it is loaded but cannot be used (the message says why),\n"
		"2 bad command line, 3 habanalabs_ipc is not loaded.\n");
}

std::string kernel_release()
{
	struct utsname u;
	return uname(&u) == 0 ? u.release : "?";
}

std::string join(const std::vector<std::string> &v, const char *sep = " ")
{
	std::string s;
	for (auto &x : v)
		s += (s.empty() ? "" : sep) + x;
	return s;
}

// Processes holding each device's compute node, for the "in use" column.
std::map<dev_t, std::string> compute_holders(const std::vector<Device> &devs)
{
	std::map<dev_t, std::string> out;
	bool any = false;
	for (auto &d : devs)
		any |= d.in_use == 1;
	if (!any)
		return out;
	for_each_open_file([&](const OpenFile &f) {
		if (!S_ISCHR(f.st.st_mode))
			return;
		for (auto &d : devs)
			if (f.st.st_rdev == d.compute.rdev && !out.count(d.compute.rdev))
				out[d.compute.rdev] = describe_process(f.pid, f.comm);
	});
	return out;
}

std::string loaded_from_text(const ModuleStatus &m)
{
	if (m.file.empty())
		return "not an installed module (loaded from a file outside "
		       "/lib/modules, e.g. with insmod)";
	if (m.loaded_from_file == "yes")
		return "the installed file";
	if (m.loaded_from_file == "no")
		return "another file than the installed one (insmod from elsewhere, "
		       "or the file changed since loading)";
	return "unknown (no build id of the loaded module or of the installed "
	       "file to compare, e.g. a gzip or zstd compressed file)";
}

void print_module(const ModuleStatus &m)
{
	if (!m.loaded()) {
		if (m.file.empty())
			printf("%s: not loaded, not installed for kernel %s\n",
			       m.name.c_str(), kernel_release().c_str());
		else
			printf("%s: not loaded (installed: %s)\n", m.name.c_str(),
			       m.file.c_str());
		return;
	}
	printf("%s: loaded (%s), %d reference%s%s%s\n", m.name.c_str(),
	       m.state.c_str(), m.refcount, m.refcount == 1 ? "" : "s",
	       m.holders.empty() ? "" : ", used by ", join(m.holders, ", ").c_str());
	std::string version = m.version.empty() ? "not recorded" : m.version;
	if (!m.srcversion.empty())
		version += " (srcversion " + m.srcversion + ")";
	printf("  %-13s %s\n", "version", version.c_str());
	if (!m.file.empty())
		printf("  %-13s %s%s%s\n", "installed", m.file.c_str(),
		       m.file_version.empty() ? "" : ", version ",
		       m.file_version.c_str());
	printf("  %-13s %s\n", "loaded from", loaded_from_text(m).c_str());
	std::vector<std::string> params;
	for (auto &p : m.params)
		params.push_back(p.name + "=" + p.value);
	printf("  %-13s %s\n", "parameters",
	       params.empty() ? "(none)" : join(params).c_str());
}

std::string counter(const IpcState &s, const char *name)
{
	for (auto &c : s.counters)
		if (c.first == name)
			return std::string(name) == "pinned_bytes" ||
					       std::string(name) == "bytes"
				       ? human_bytes(static_cast<uint64_t>(c.second))
				       : std::to_string(c.second);
	return "?";
}

// Which engine copies memory the CPU cannot map (a Gaudi's, exported peer
// to peer only), and what is missing when none can.
void print_engines(const IpcState &s)
{
	if (s.dma_engine.empty())
		return;  // a module without the DMA engine
	DmaEngine e;
	if (dma_engine(s, &e))
		printf("  %-13s %s on %s, %u channels\n", "DMA engine", e.driver.c_str(),
		       e.device.c_str(), e.channels);
	else
		printf("  %-13s none: device memory without CPU access takes the staged path "
		       "(load the host's engine driver: ioatdma, idxd or ptdma)\n",
		       "DMA engine");
	if (s.p2pdma == 0)
		printf("  %-13s not in this kernel (CONFIG_PCI_P2PDMA unset): device memory "
		       "moves device to device only through staging\n", "peer to peer");
	else if (s.p2pdma == 1)
		printf("  %-13s in this kernel; each exporter decides by the PCI topology "
		       "(a switch above the devices and the engine, ACS)\n", "peer to peer");
}

void print_ipc(const IpcState &s)
{
	if (!s.node_present) {
		printf("  %-13s %s is missing (check dmesg)\n", "node",
		       HL_IPC_DEVICE_PATH);
		return;
	}
	printf("  %-13s %s %s\n", "node", s.node.path.c_str(),
	       describe_access(s.node).c_str());
	if (s.open_error) {
		std::string hint = access_hint(s.node, s.open_error);
		printf("  %-13s cannot open it: %s%s%s\n", "access",
		       strerror(-s.open_error), hint.empty() ? "" : "; ",
		       hint.c_str());
	}
	if (s.have_info) {
		printf("  %-13s version %u; features %s; engines %s\n", "ABI",
		       s.info.abi_version, join(feature_names(s.info.features)).c_str(),
		       join(engine_names(s.info.engines)).c_str());
		print_engines(s);
		printf("  %-13s %u regions and %u channels per context, %u copies per "
		       "batch, %s chunks\n", "limits", s.info.max_regions,
		       s.info.max_channels, s.info.max_batch,
		       human_bytes(s.info.chunk_size).c_str());
	}
	if (!s.counters.empty()) {
		printf("  %-13s %s contexts, %s regions, %s channels, %s jobs, %s pinned\n",
		       "now", counter(s, "contexts").c_str(),
		       counter(s, "regions").c_str(), counter(s, "channels").c_str(),
		       counter(s, "jobs").c_str(), counter(s, "pinned_bytes").c_str());
		printf("  %-13s %s copies, %s, %s errors\n", "since load",
		       counter(s, "copies").c_str(), counter(s, "bytes").c_str(),
		       counter(s, "errors").c_str());
	}
}

void print_devices(const std::vector<Device> &devs, int err)
{
	if (err) {
		printf("\ndevices: cannot list them: %s\n", strerror(-err));
		return;
	}
	if (devs.empty()) {
		printf("\ndevices: none (no habanalabs device, and habanalabs_sim "
		       "not loaded)\n");
		return;
	}
	auto holders = compute_holders(devs);
	Table t;
	t.column("DEVICE");
	t.column("NODES");
	t.column("DRIVER");
	t.column("TYPE");
	t.column("PCI");
	t.column("STATUS");
	t.column("IN USE");
	t.column("MEMORY USED", Table::Right);
	t.column("ACCESS");
	for (auto &d : devs) {
		std::string nodes = d.compute.path;
		if (!d.control.path.empty())
			nodes += " " + d.control.path;
		std::string in_use = d.in_use < 0 ? "?" : d.in_use ? "yes" : "no";
		if (holders.count(d.compute.rdev))
			in_use += ": " + holders[d.compute.rdev];
		std::string mem = "?";
		if (d.memory_used >= 0)
			mem = human_bytes(d.memory_used);
		if (d.memory_size >= 0)
			mem += " of " + human_bytes(d.memory_size);
		t.row({d.name, nodes, d.driver, d.type.empty() ? "?" : d.type,
		       d.pci_addr.empty() ? "?" : d.pci_addr,
		       d.status.empty() ? "?" : d.status, in_use, mem,
		       describe_access(d.compute)});
	}
	printf("\ndevices:\n");
	t.print(stdout, 2);
}

void json_module(JsonWriter &j, const ModuleStatus &m)
{
	j.key(m.name.c_str());
	j.begin_object();
	j.member("state", m.state);
	j.member("loaded", m.loaded());
	if (m.loaded()) {
		j.member("refcount", m.refcount);
		j.key("holders");
		j.begin_array();
		for (auto &h : m.holders)
			j.value(h);
		j.end_array();
		j.member("version", m.version.empty() ? nullptr : m.version.c_str());
		j.member("srcversion", m.srcversion.empty() ? nullptr : m.srcversion.c_str());
		j.member("build_id", m.build_id.empty() ? nullptr : m.build_id.c_str());
		j.member("loaded_from_installed_file", m.loaded_from_file);
		j.key("parameters");
		j.begin_object();
		for (auto &p : m.params)
			j.member(p.name.c_str(), p.value);
		j.end_object();
	}
	j.member("installed_file", m.file.empty() ? nullptr : m.file.c_str());
	j.member("installed_version",
		 m.file_version.empty() ? nullptr : m.file_version.c_str());
	j.end_object();
}

void json_access(JsonWriter &j, const NodeAccess &a)
{
	j.member("node", a.path);
	j.member("owner", a.owner);
	j.member("group", a.group);
	char mode[8];
	snprintf(mode, sizeof(mode), "%04o", a.mode);
	j.member("mode", mode);
}

void json_ipc(JsonWriter &j, const IpcState &s)
{
	j.key("ipc");
	j.begin_object();
	j.member("present", s.node_present);
	if (s.node_present)
		json_access(j, s.node);
	j.member("usable", s.have_info);
	if (s.open_error) {
		j.member("open_error", strerrorname_np(-s.open_error));
		std::string hint = access_hint(s.node, s.open_error);
		j.member("hint", hint.empty() ? nullptr : hint.c_str());
	}
	if (s.have_info) {
		j.member("abi_version", s.info.abi_version);
		j.key("features");
		j.begin_array();
		for (auto &f : feature_names(s.info.features))
			j.value(f);
		j.end_array();
		j.key("engines");
		j.begin_array();
		for (auto &e : engine_names(s.info.engines))
			j.value(e);
		j.end_array();
		DmaEngine e;
		j.key("dma_engine");
		if (dma_engine(s, &e)) {
			j.begin_object();
			j.member("driver", e.driver.c_str());
			j.member("device", e.device.c_str());
			j.member("channels", e.channels);
			j.end_object();
		} else {
			j.value(static_cast<const char *>(nullptr));
		}
		if (s.p2pdma >= 0)
			j.member("p2pdma", s.p2pdma == 1);
		j.key("limits");
		j.begin_object();
		j.member("max_regions", s.info.max_regions);
		j.member("max_channels", s.info.max_channels);
		j.member("max_batch", s.info.max_batch);
		j.member("chunk_size", s.info.chunk_size);
		j.end_object();
	}
	j.key("counters");
	j.begin_object();
	for (auto &c : s.counters)
		j.member(c.first.c_str(), c.second);
	j.end_object();
	j.end_object();
}

void json_devices(JsonWriter &j, const std::vector<Device> &devs)
{
	auto holders = compute_holders(devs);
	j.key("devices");
	j.begin_array();
	for (auto &d : devs) {
		j.begin_object();
		j.member("name", d.name);
		j.member("driver", d.driver);
		json_access(j, d.compute);
		j.member("control_node", d.control.path.empty() ? nullptr
								: d.control.path.c_str());
		j.member("type", d.type.empty() ? nullptr : d.type.c_str());
		j.member("pci_addr", d.pci_addr.empty() ? nullptr : d.pci_addr.c_str());
		j.member("status", d.status.empty() ? nullptr : d.status.c_str());
		j.key("in_use");
		if (d.in_use < 0)
			j.null();
		else
			j.value(d.in_use == 1);
		auto h = holders.find(d.compute.rdev);
		j.member("used_by", h == holders.end() ? nullptr : h->second.c_str());
		j.key("memory_used");
		if (d.memory_used < 0)
			j.null();
		else
			j.value(d.memory_used);
		j.key("memory_size");
		if (d.memory_size < 0)
			j.null();
		else
			j.value(d.memory_size);
		j.end_object();
	}
	j.end_array();
}

}  // namespace

int status_main(int argc, char **argv)
{
	bool help = false, json = false;
	OptionParser opts("status");
	opts.flag("help", 'h', &help);
	opts.flag("json", 0, &json);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		usage(stdout);
		return kExitOk;
	}
	if (!args.empty())
		return usage_error("status", "unexpected argument '" + args[0] + "'");

	int err = 0;
	auto kmod = KernelModules::open(&err);
	if (!kmod) {
		fprintf(stderr, "hl-ipc status: cannot start libkmod: %s\n",
			strerror(-err));
		return kExitFail;
	}
	std::vector<ModuleStatus> mods;
	for (const char *m : kModules)
		mods.push_back(kmod->status(m));
	IpcState ipc;
	if (mods[0].loaded())
		ipc = read_ipc_state();
	std::vector<Device> devs;
	int dev_err = list_devices(&devs);

	if (json) {
		JsonWriter j(stdout);
		j.begin_object();
		j.member("kernel", kernel_release());
		j.key("modules");
		j.begin_object();
		for (auto &m : mods)
			json_module(j, m);
		j.end_object();
		if (mods[0].loaded())
			json_ipc(j, ipc);
		json_devices(j, devs);
		j.end_object();
	} else {
		print_module(mods[0]);
		if (mods[0].loaded())
			print_ipc(ipc);
		print_module(mods[1]);
		print_devices(devs, dev_err);
	}
	if (!mods[0].loaded()) {
		if (!json)
			fprintf(stderr, "\nhl-ipc status: habanalabs_ipc is not loaded; "
					"load it with 'hl-ipc load' (or 'modprobe "
					"habanalabs_ipc')%s\n",
				mods[0].file.empty() ? ", after installing the "
						       "habanalabs-ipc-dkms package" : "");
		return kExitNotLoaded;
	}
	return ipc.have_info ? kExitOk : kExitFail;
}

}  // namespace hlipc
