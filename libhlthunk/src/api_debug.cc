// SPDX-License-Identifier: MIT
// Debugging and control of a device: the DEBUG ioctl, the driver's debugfs
// window on the device's address space, event notification through an
// eventfd, and engine commands (hl-thunk compatible).
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "c_bridge.h"
#include "c_return.h"
#include "dev_discovery.h"
#include "dev_ioctl.h"
#include "hlthunk.h"
#include "unique_fd.h"

using namespace hlthunk;

namespace {

// Where the driver of this node keeps its debugfs files.
std::string debugfs_dir(const DeviceNode &n)
{
	switch (n.name.style) {
	case NodeStyle::Accel:
		return "/sys/kernel/debug/accel/" + std::to_string(n.name.index);
	case NodeStyle::Legacy:
		return "/sys/kernel/debug/habanalabs/hl" + std::to_string(n.name.index);
	case NodeStyle::Sim:
		return "/sys/kernel/debug/habanalabs_sim/hlsim" +
		       std::to_string(n.name.index);
	}
	return {};
}

// Writes s and its NUL, as the driver's debugfs parsers expect.
int put(int fd, const char *s)
{
	size_t n = strlen(s) + 1;
	ssize_t w = pwrite(fd, s, n, 0);
	if (w < 0)
		return -errno;
	return static_cast<size_t>(w) == n ? 0 : -EIO;
}

int set_address(struct hlthunk_debugfs *d, uint64_t addr)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	return put(d->addr_fd, buf);
}

int cs_command(int fd, union hl_cs_args *a)
{
	int rc = hl_cs(fd, a);
	return rc < 0 ? c_return(rc) : 0;
}

}  // namespace

extern "C" hlthunk_public int hlthunk_debug(int fd, struct hl_debug_args *debug)
{
	return c_entry("hlthunk_debug", [&]() -> int {
		if (!debug)
			return c_return(-EINVAL);
		int rc = hl_ioctl(fd, DRM_IOCTL_HL_DEBUG, HL_LEGACY_IOCTL_DEBUG, debug);
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" hlthunk_public int hlthunk_debugfs_open(int fd, struct hlthunk_debugfs *debugfs)
{
	return c_entry("hlthunk_debugfs_open", [&]() -> int {
		if (!debugfs)
			return c_return(-EINVAL);
		auto n = node_of_fd(fd);
		if (!n)
			return c_return(-ENODEV);
		std::string dir = debugfs_dir(*n);
		// As hl-thunk: a file that cannot be opened (debugfs not
		// mounted, not root) is -EPERM.
		UniqueFd addr(::open((dir + "/addr").c_str(), O_WRONLY | O_CLOEXEC));
		if (!addr.valid())
			return c_return(-EPERM);
		UniqueFd data(::open((dir + "/data32").c_str(), O_RDWR | O_CLOEXEC));
		if (!data.valid())
			return c_return(-EPERM);
		UniqueFd gate(::open((dir + "/clk_gate").c_str(), O_RDWR | O_CLOEXEC));
		if (!gate.valid())
			return c_return(-EPERM);
		// Clock gating is turned off while the window is open (register
		// access needs the clocks) and restored at close.
		char saved[sizeof(debugfs->clk_gate_val)] = {};
		if (pread(gate.get(), saved, sizeof(saved) - 1, 0) < 0)
			return c_return(-EIO);
		if (put(gate.get(), "0") < 0)
			return c_return(-EIO);
		memcpy(debugfs->clk_gate_val, saved, sizeof(saved));
		debugfs->addr_fd = addr.release();
		debugfs->data_fd = data.release();
		debugfs->clk_gate_fd = gate.release();
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_debugfs_read(struct hlthunk_debugfs *debugfs,
						   uint64_t full_address, uint32_t *val)
{
	return c_entry("hlthunk_debugfs_read", [&]() -> int {
		if (!debugfs || !val)
			return c_return(-EINVAL);
		if (int rc = set_address(debugfs, full_address))
			return c_return(rc);
		char value[64] = {};
		if (pread(debugfs->data_fd, value, sizeof(value) - 1, 0) < 0)
			return c_return(-errno);
		*val = static_cast<uint32_t>(strtoul(value, nullptr, 16));
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_debugfs_write(struct hlthunk_debugfs *debugfs,
						    uint64_t full_address, uint32_t val)
{
	return c_entry("hlthunk_debugfs_write", [&]() -> int {
		if (!debugfs)
			return c_return(-EINVAL);
		if (int rc = set_address(debugfs, full_address))
			return c_return(rc);
		char buf[16];
		snprintf(buf, sizeof(buf), "0x%x", val);
		int rc = put(debugfs->data_fd, buf);
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" hlthunk_public int hlthunk_debugfs_close(struct hlthunk_debugfs *debugfs)
{
	return c_entry("hlthunk_debugfs_close", [&]() -> int {
		if (!debugfs)
			return c_return(-EINVAL);
		int rc = 0;
		if (debugfs->addr_fd >= 0)
			::close(debugfs->addr_fd);
		if (debugfs->data_fd >= 0)
			::close(debugfs->data_fd);
		if (debugfs->clk_gate_fd >= 0) {
			debugfs->clk_gate_val[sizeof(debugfs->clk_gate_val) - 1] = 0;
			if (put(debugfs->clk_gate_fd, debugfs->clk_gate_val) < 0)
				rc = -EIO;
			::close(debugfs->clk_gate_fd);
		}
		debugfs->addr_fd = debugfs->data_fd = debugfs->clk_gate_fd = -1;
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" hlthunk_public int hlthunk_notifier_create(int fd)
{
	return c_entry("hlthunk_notifier_create", [&]() -> int {
		UniqueFd efd(eventfd(0, EFD_CLOEXEC));
		if (!efd.valid())
			return c_return(-errno);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_REGISTER_EVENTFD;
		a.eventfd = static_cast<uint32_t>(efd.get());
		int rc = hl_info(fd, &a);
		if (rc < 0)
			return c_return(rc);
		return efd.release();
	});
}

extern "C" hlthunk_public int hlthunk_notifier_release(int fd, int handle)
{
	return c_entry("hlthunk_notifier_release", [&]() -> int {
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_UNREGISTER_EVENTFD;
		a.eventfd = static_cast<uint32_t>(handle);
		int rc = hl_info(fd, &a);
		if (rc < 0)
			return c_return(rc);
		if (::close(handle) < 0)
			return c_return(-errno);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_notifier_recv(int fd, int handle,
						    uint64_t *notifier_events,
						    uint64_t *notifier_cnt,
						    uint32_t flags, uint32_t timeout)
{
	(void)flags;  // reserved, as in hl-thunk
	return c_entry("hlthunk_notifier_recv", [&]() -> int {
		if (!notifier_events || !notifier_cnt)
			return c_return(-EINVAL);
		*notifier_cnt = 0;
		struct pollfd p = {handle, POLLIN, 0};
		int timeout_ms = timeout > INT32_MAX ? INT32_MAX : static_cast<int>(timeout);
		int n;
		do {
			n = poll(&p, 1, timeout_ms);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return c_return(-errno);
		if (n == 0)
			return 0;  // no notification in time
		uint64_t cnt;
		ssize_t r = read(handle, &cnt, sizeof(cnt));
		if (r < 0)
			return c_return(-errno);
		if (r != sizeof(cnt))
			return c_return(-EIO);
		struct hl_info_args a;
		memset(&a, 0, sizeof(a));
		a.op = HL_INFO_GET_EVENTS;
		a.return_pointer = reinterpret_cast<uintptr_t>(notifier_events);
		a.return_size = sizeof(*notifier_events);
		int rc = hl_info(fd, &a);
		if (rc < 0)
			return c_return(rc);
		*notifier_cnt = cnt;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_engine_cores_set_mode(int fd,
							    const uint32_t *core_ids,
							    uint32_t num_cores,
							    uint32_t mode)
{
	return c_entry("hlthunk_engine_cores_set_mode", [&]() -> int {
		if (!core_ids || (mode != HL_ENGINE_CORE_RUN && mode != HL_ENGINE_CORE_HALT))
			return c_return(-EINVAL);
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.engine_cores = reinterpret_cast<uintptr_t>(core_ids);
		a.in.num_engine_cores = num_cores;
		a.in.core_command = mode;
		a.in.cs_flags = HL_CS_FLAGS_ENGINE_CORE_COMMAND;
		return cs_command(fd, &a);
	});
}

extern "C" int hlt_engines_command(int fd, const uint32_t *engine_ids,
				   uint32_t num_engines, int command)
{
	return c_entry("hlthunk_engines_command", [&]() -> int {
		if (!engine_ids)
			return c_return(-EINVAL);
		switch (command) {
		case HL_ENGINE_CORE_HALT:
		case HL_ENGINE_CORE_RUN:
		case HL_ENGINE_STALL:
		case HL_ENGINE_RESUME:
			break;
		default:
			return c_return(-EINVAL);
		}
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.engines = reinterpret_cast<uintptr_t>(engine_ids);
		a.in.num_engines = num_engines;
		a.in.engine_command = static_cast<uint32_t>(command);
		a.in.cs_flags = HL_CS_FLAGS_ENGINES_COMMAND;
		return cs_command(fd, &a);
	});
}
