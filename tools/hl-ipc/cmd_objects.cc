// SPDX-License-Identifier: MIT
// hl-ipc channels / regions: what each process has open in
// habanalabs_ipc now, from the fdinfo of its /dev/hl_ipc files.
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "commands.h"
#include "devices.h"
#include "fdinfo.h"
#include "json_writer.h"
#include "processes.h"
#include "table.h"
#include "uapi/habanalabs_ipc.h"

namespace hlipc {

namespace {

enum class What { Channels, Regions };

void usage(FILE *f, What w)
{
	if (w == What::Channels)
		fprintf(f,
			"usage: hl-ipc channels [--pid PID] [--json]\n"
			"\n"
			"Lists the channels open now, per process and /dev/hl_ipc file:\n"
			"the devices each joins, copies submitted and completed, whether\n"
			"one is running, and the copies, bytes and errors so far.\n");
	else
		fprintf(f,
			"usage: hl-ipc regions [--pid PID] [--json]\n"
			"\n"
			"Lists the memory regions registered now, per process and\n"
			"/dev/hl_ipc file: cookie, kind (dma-buf or user memory), access,\n"
			"size, pinned host memory, and the device the memory belongs to.\n");
	fprintf(f,
		"\n"
		"Other users' processes are shown to root only.\n"
		"\n"
		"options:\n"
		"  --pid PID    only that process\n"
		"  --json       JSON on stdout instead of the table\n"
		"  -h, --help   this text\n"
		"\n"
		"exit status: 0 listed (possibly nothing), 1 error, 2 bad command\n"
		"line, 3 habanalabs_ipc is not loaded.\n");
}

struct OpenContext {
	pid_t pid;
	std::string comm;
	int fd;
	IpcContext ctx;
};

std::string dev_name(const std::vector<Device> &devs, const DevRef &d)
{
	return device_label(devs, d.kind, d.major, d.index);
}

std::string hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%016" PRIx64, v);
	return b;
}

void print_channels(const std::vector<OpenContext> &ctxs,
		    const std::vector<Device> &devs)
{
	Table t;
	t.column("PID", Table::Right);
	t.column("COMMAND");
	t.column("FD", Table::Right);
	t.column("CHANNEL", Table::Right);
	t.column("FROM");
	t.column("TO");
	t.column("SUBMITTED", Table::Right);
	t.column("COMPLETED", Table::Right);
	t.column("RUNNING");
	t.column("COPIES", Table::Right);
	t.column("BYTES", Table::Right);
	t.column("ERRORS", Table::Right);
	for (auto &c : ctxs)
		for (auto &ch : c.ctx.channels)
			t.row({std::to_string(c.pid), c.comm, std::to_string(c.fd),
			       std::to_string(ch.id), dev_name(devs, ch.src),
			       dev_name(devs, ch.dst), std::to_string(ch.submitted),
			       std::to_string(ch.completed), ch.busy ? "yes" : "no",
			       std::to_string(ch.copies), human_bytes(ch.bytes),
			       std::to_string(ch.errors)});
	if (t.empty())
		printf("no channels are open\n");
	else
		t.print(stdout);
}

void print_regions(const std::vector<OpenContext> &ctxs,
		   const std::vector<Device> &devs)
{
	Table t;
	t.column("PID", Table::Right);
	t.column("COMMAND");
	t.column("FD", Table::Right);
	t.column("COOKIE");
	t.column("KIND");
	t.column("ACCESS");
	t.column("SIZE", Table::Right);
	t.column("PINNED", Table::Right);
	t.column("DEVICE");
	for (auto &c : ctxs)
		for (auto &r : c.ctx.regions)
			t.row({std::to_string(c.pid), c.comm, std::to_string(c.fd),
			       hex(r.cookie), r.type, region_access(r.flags),
			       human_bytes(r.size), human_bytes(r.pinned),
			       dev_name(devs, r.dev)});
	if (t.empty())
		printf("no regions are registered\n");
	else
		t.print(stdout);
}

void json_dev(JsonWriter &j, const char *key, const std::vector<Device> &devs,
	      const DevRef &d)
{
	j.member(key, dev_name(devs, d));
}

void print_json(What w, const std::vector<OpenContext> &ctxs,
		const std::vector<Device> &devs, int hidden)
{
	JsonWriter j(stdout);
	j.begin_object();
	j.member("uninspected_processes", hidden);
	j.key(w == What::Channels ? "channels" : "regions");
	j.begin_array();
	for (auto &c : ctxs) {
		if (w == What::Channels) {
			for (auto &ch : c.ctx.channels) {
				j.begin_object();
				j.member("pid", static_cast<int>(c.pid));
				j.member("command", c.comm);
				j.member("fd", c.fd);
				j.member("id", ch.id);
				json_dev(j, "from", devs, ch.src);
				json_dev(j, "to", devs, ch.dst);
				j.member("submitted", ch.submitted);
				j.member("completed", ch.completed);
				j.member("running", ch.busy);
				j.member("copies", ch.copies);
				j.member("bytes", ch.bytes);
				j.member("errors", ch.errors);
				j.end_object();
			}
		} else {
			for (auto &r : c.ctx.regions) {
				j.begin_object();
				j.member("pid", static_cast<int>(c.pid));
				j.member("command", c.comm);
				j.member("fd", c.fd);
				j.member("cookie", hex(r.cookie));
				j.member("kind", r.type);
				j.member("writable", (r.flags & HL_IPC_REGION_WRITE) != 0);
				j.member("any_user", (r.flags & HL_IPC_REGION_ANY_USER) != 0);
				j.member("size", r.size);
				j.member("pinned", r.pinned);
				json_dev(j, "device", devs, r.dev);
				j.end_object();
			}
		}
	}
	j.end_array();
	j.end_object();
}

int objects_main(What w, int argc, char **argv)
{
	const char *cmd = w == What::Channels ? "channels" : "regions";
	bool help = false, json = false;
	std::string pid_arg;
	OptionParser opts(cmd);
	opts.flag("help", 'h', &help);
	opts.flag("json", 0, &json);
	opts.value("pid", 0, &pid_arg);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		usage(stdout, w);
		return kExitOk;
	}
	if (!args.empty())
		return usage_error(cmd, "unexpected argument '" + args[0] + "'");
	pid_t only = 0;
	if (!pid_arg.empty()) {
		char *end;
		long v = strtol(pid_arg.c_str(), &end, 10);
		if (*end || v <= 0 || v > (1 << 22))
			return usage_error(cmd, "--pid needs a process id, not '" +
							pid_arg + "'");
		only = static_cast<pid_t>(v);
	}

	struct stat ipc;
	if (stat(HL_IPC_DEVICE_PATH, &ipc) < 0 || !S_ISCHR(ipc.st_mode)) {
		fprintf(stderr, "hl-ipc %s: %s does not exist: habanalabs_ipc is not "
				"loaded ('hl-ipc load')\n", cmd, HL_IPC_DEVICE_PATH);
		return kExitNotLoaded;
	}
	std::vector<OpenContext> ctxs;
	bool no_fdinfo = false;
	int hidden = for_each_open_file([&](const OpenFile &f) {
		if (!S_ISCHR(f.st.st_mode) || f.st.st_rdev != ipc.st_rdev)
			return;
		if (only && f.pid != only)
			return;
		OpenContext c{f.pid, f.comm, f.fd, parse_fdinfo(read_fdinfo(f.pid, f.fd))};
		if (!c.ctx.valid)
			no_fdinfo = true;
		ctxs.push_back(std::move(c));
	});
	if (hidden < 0) {
		fprintf(stderr, "hl-ipc %s: cannot read /proc: %s\n", cmd,
			strerror(-hidden));
		return kExitFail;
	}
	if (no_fdinfo) {
		fprintf(stderr, "hl-ipc %s: the loaded habanalabs_ipc does not list "
				"its objects in fdinfo (an older version?)\n", cmd);
		return kExitFail;
	}
	std::vector<Device> devs;
	list_devices(&devs);
	if (json) {
		print_json(w, ctxs, devs, hidden);
	} else {
		if (w == What::Channels)
			print_channels(ctxs, devs);
		else
			print_regions(ctxs, devs);
		if (hidden)
			fprintf(stderr, "hl-ipc %s: %d processes of other users could "
					"not be inspected (run as root to see them)\n",
				cmd, hidden);
	}
	return kExitOk;
}

}  // namespace

int channels_main(int argc, char **argv)
{
	return objects_main(What::Channels, argc, argv);
}

int regions_main(int argc, char **argv)
{
	return objects_main(What::Regions, argc, argv);
}

}  // namespace hlipc
