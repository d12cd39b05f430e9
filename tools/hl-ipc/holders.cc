// SPDX-License-Identifier: MIT
#include "holders.h"

#include <sys/stat.h>

#include <map>

#include "fdinfo.h"
#include "processes.h"
#include "uapi/habanalabs_ipc.h"

namespace hlipc {

namespace {

// Counts per (pid, what) so that a process with 40 dma-bufs is one line.
struct Tally {
	std::map<std::pair<pid_t, std::string>, int> n;
	std::map<pid_t, std::string> comm;
	void add(const OpenFile &f, const std::string &what)
	{
		n[{f.pid, what}]++;
		comm[f.pid] = f.comm;
	}
	Holders result(int hidden) const
	{
		Holders h;
		h.hidden = hidden;
		std::map<pid_t, Holder> by_pid;
		for (auto &kv : n) {
			Holder &x = by_pid[kv.first.first];
			x.pid = kv.first.first;
			x.comm = comm.at(x.pid);
			std::string w = kv.first.second;
			if (kv.second > 1)
				w = std::to_string(kv.second) + " x " + w;
			x.what += (x.what.empty() ? "" : ", ") + w;
		}
		for (auto &kv : by_pid)
			h.processes.push_back(kv.second);
		return h;
	}
};

bool exported_by(const std::string &fdinfo, const std::string &module)
{
	return fdinfo.find("exp_name:\t" + module + "\n") != std::string::npos;
}

}  // namespace

Holders find_holders(const std::string &module, const std::vector<Device> &devs)
{
	struct stat ipc;
	bool have_ipc = stat(HL_IPC_DEVICE_PATH, &ipc) == 0 && S_ISCHR(ipc.st_mode);
	Tally t;
	int hidden = for_each_open_file([&](const OpenFile &f) {
		if (S_ISCHR(f.st.st_mode)) {
			bool is_ipc = have_ipc && f.st.st_rdev == ipc.st_rdev;
			if (is_ipc && module == "habanalabs_ipc")
				t.add(f, HL_IPC_DEVICE_PATH);
			if (is_ipc && module == "habanalabs_sim") {
				// Regions on the sim's memory hold its dma-bufs.
				auto ctx = parse_fdinfo(read_fdinfo(f.pid, f.fd));
				for (auto &r : ctx.regions)
					if (r.dev_kind == HL_IPC_DEV_KIND_SIM &&
					    r.type == "dmabuf")
						t.add(f, "habanalabs_ipc region on its memory");
			}
			for (auto &d : devs) {
				if (d.driver != module)
					continue;
				if (f.st.st_rdev == d.compute.rdev)
					t.add(f, d.compute.path);
				else if (f.st.st_rdev == d.control.rdev)
					t.add(f, d.control.path);
			}
			return;
		}
		if (f.link.find("dmabuf") != std::string::npos &&
		    exported_by(read_fdinfo(f.pid, f.fd), module))
			t.add(f, "dma-buf");
	});
	return t.result(hidden);
}

Holders find_node_holders(dev_t rdev, const std::string &label)
{
	Tally t;
	int hidden = for_each_open_file([&](const OpenFile &f) {
		if (S_ISCHR(f.st.st_mode) && f.st.st_rdev == rdev)
			t.add(f, label);
	});
	return t.result(hidden);
}

std::string describe_holders(const Holders &h)
{
	std::string s;
	for (auto &p : h.processes)
		s += (s.empty() ? "" : "; ") + std::to_string(p.pid) + " (" + p.comm +
		     "): " + p.what;
	if (h.hidden)
		s += (s.empty() ? "" : "; ") + std::to_string(h.hidden) +
		     " processes of other users could not be inspected (run as root "
		     "to see them)";
	return s;
}

}  // namespace hlipc
