// SPDX-License-Identifier: MIT
#include "ipc_state.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sysfs.h"

namespace hlipc {

namespace {

const char *const kCounters[] = {
	"contexts", "regions", "channels", "jobs", "pinned_bytes",
	"copies", "bytes", "errors",
};

std::string user_name()
{
	struct passwd *pw = getpwuid(geteuid());
	return pw ? pw->pw_name : std::to_string(geteuid());
}

}  // namespace

IpcState read_ipc_state()
{
	IpcState s;
	s.node_present = node_access(HL_IPC_DEVICE_PATH, &s.node);
	int fd = ::open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		s.open_error = -errno;
	} else {
		memset(&s.info, 0, sizeof(s.info));
		if (ioctl(fd, HL_IPC_IOCTL_INFO, &s.info) == 0)
			s.have_info = true;
		::close(fd);
	}
	for (const char *c : kCounters) {
		uint64_t v;
		if (read_u64(std::string("/sys/class/misc/hl_ipc/stats/") + c, &v))
			s.counters.emplace_back(c, static_cast<int64_t>(v));
	}
	s.dma_engine = read_attr("/sys/class/misc/hl_ipc/engine/dma");
	uint64_t p2p;
	if (read_u64("/sys/class/misc/hl_ipc/engine/p2pdma", &p2p))
		s.p2pdma = p2p ? 1 : 0;
	return s;
}

bool dma_engine(const IpcState &s, DmaEngine *out)
{
	char driver[64], device[64];
	unsigned n = 0;
	if (sscanf(s.dma_engine.c_str(), "dma %63s %63s %u", driver, device, &n) != 3)
		return false;
	out->driver = driver;
	out->device = device;
	out->channels = n;
	return true;
}

std::vector<std::string> feature_names(uint64_t f)
{
	static const std::pair<uint64_t, const char *> names[] = {
		{HL_IPC_FEAT_DMABUF, "dmabuf"},
		{HL_IPC_FEAT_USER_MEM, "user-memory"},
		{HL_IPC_FEAT_ASYNC, "async"},
		{HL_IPC_FEAT_BATCH, "batch"},
		{HL_IPC_FEAT_ANY_USER, "any-user"},
		{HL_IPC_FEAT_QUERY, "query"},
	};
	std::vector<std::string> out;
	for (auto &n : names) {
		if (f & n.first)
			out.push_back(n.second);
		f &= ~n.first;
	}
	for (int b = 0; b < 64; b++)
		if (f & (1ull << b))
			out.push_back("bit" + std::to_string(b));
	return out;
}

std::vector<std::string> engine_names(uint32_t e)
{
	std::vector<std::string> out;
	if (e & HL_IPC_ENGINE_CPU)
		out.push_back("cpu");
	if (e & HL_IPC_ENGINE_DMA)
		out.push_back("dma");
	e &= ~(HL_IPC_ENGINE_CPU | HL_IPC_ENGINE_DMA);
	for (int b = 0; b < 32; b++)
		if (e & (1u << b))
			out.push_back("bit" + std::to_string(b));
	return out;
}

std::string access_hint(const NodeAccess &a, int err)
{
	if (err != -EACCES && err != -EPERM)
		return "";
	std::string who = user_name();
	if (a.group != "root" && (a.mode & 060) == 060)
		return a.path + " is " + describe_access(a) + ": add " + who +
		       " to group '" + a.group + "' (usermod -aG " + a.group +
		       " " + who + ", then log in again)";
	return a.path + " is " + describe_access(a) +
	       ": the udev rules of hl-ipc-tools, which give it to group '" +
	       kAccessGroup + "', are not installed or not applied (install "
	       "the package, or run 'udevadm trigger'), then add " + who +
	       " to group '" + kAccessGroup + "'";
}

std::string access_hint(const std::string &path, int err)
{
	NodeAccess a;
	if (!node_access(path, &a))
		return "";
	return access_hint(a, err);
}

}  // namespace hlipc
