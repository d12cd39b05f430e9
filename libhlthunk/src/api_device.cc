// SPDX-License-Identifier: MIT
// Opening, closing and describing devices (hl-thunk compatible calls).
//
// A compute node admits one open at a time, and an open of it creates a
// context (and on some ASICs resets parts of the device on release), so it
// is opened only to be handed to the caller: what a device is (its type,
// module id, PCI address) is learnt from its control node or from sysfs.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "c_bridge.h"
#include "c_return.h"
#include "dev_discovery.h"
#include "hlthunk.h"
#include "habanalabs_extra.h"
#include "info_query.h"
#include "lib_state.h"
#include "unique_fd.h"

using namespace hlthunk;

namespace {

enum hlthunk_device_name name_of_pci_id(uint32_t id)
{
	switch (id) {
	case HL_PCI_DEVICE_ID_GOYA:
		return HLTHUNK_DEVICE_GOYA;
	case HL_PCI_DEVICE_ID_GAUDI:
	case HL_PCI_DEVICE_ID_GAUDI_SEC:
		return HLTHUNK_DEVICE_GAUDI;
	case HL_PCI_DEVICE_ID_GAUDI2:
		return HLTHUNK_DEVICE_GAUDI2;
	default:
		return HLTHUNK_DEVICE_INVALID;
	}
}

// The driver's sysfs device_type, for a device whose control node this
// process may not open.
enum hlthunk_device_name name_of_sysfs_type(const std::string &t)
{
	if (t == "GOYA")
		return HLTHUNK_DEVICE_GOYA;
	if (t == "GAUDI" || t == "GAUDI SEC")
		return HLTHUNK_DEVICE_GAUDI;
	if (t.rfind("GAUDI2", 0) == 0)
		return HLTHUNK_DEVICE_GAUDI2;
	return HLTHUNK_DEVICE_INVALID;
}

DeviceNode control_of(const DeviceNode &n)
{
	DeviceNode c = n;
	c.name.control = true;
	c.path = node_path(c.name);
	return c;
}

Result<UniqueFd> open_node(const DeviceNode &n)
{
	int fd = ::open(n.path.c_str(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno_err();
	return UniqueFd(fd);
}

// What the device's control node reports: never its compute node.
Result<struct hl_info_hw_ip_info> hw_ip_of_device(const DeviceNode &n)
{
	auto c = open_node(control_of(n));
	if (!c)
		return Err{c.error()};
	return hw_ip_of(c->get());
}

enum hlthunk_device_name asic_of(const DeviceNode &n)
{
	auto hw = hw_ip_of_device(n);
	if (hw)
		return name_of_pci_id(hw->device_id);
	return name_of_sysfs_type(n.device_type);
}

bool bad_name(int name)
{
	return name < 0 || name >= HLTHUNK_DEVICE_MAX || name == HLTHUNK_DEVICE_INVALID;
}

// "bb:dd.f" is "0000:bb:dd.f".
std::string full_bus_id(const char *busid)
{
	std::string bus = busid;
	if (bus.size() == 7)
		bus = "0000:" + bus;
	return bus;
}

// Opens the first node accepted by pick: -EBUSY if every candidate was
// busy (the driver's exclusive compute open), else the last error or
// -ENODEV.
template <typename Pick>
int open_first(Pick pick, const char *what)
{
	auto nodes = discover_nodes();
	if (!nodes)
		return c_fail(Op::Discover, "finding devices", nodes.error());
	auto &st = LibState::get();
	// Contexts the program closed with close(2) are still held open by
	// what the library registered in them: let go of them first.
	st.sweep_closed();
	int err = -ENODEV;
	bool busy = false;
	for (auto &n : *nodes) {
		if (!pick(n))
			continue;
		auto fd = open_node(n);
		if (!fd) {
			busy |= fd.error() == -EBUSY;
			err = fd.error();
			continue;
		}
		// A new compute context: whatever the library remembered of an
		// earlier one of this device is stale.
		if (!n.name.control)
			st.forget_context(DeviceKey{static_cast<int>(n.name.kind()),
						    n.name.index});
		return fd->release();
	}
	if (busy)
		err = -EBUSY;
	return c_fail(Op::OpenDevice, what, err);
}

// The compute node of the device whose control node reports module_id.
int open_by_module(uint32_t module_id, bool control, const char *what)
{
	return open_first(
		[&](const DeviceNode &n) {
			if (n.name.control != control)
				return false;
			auto hw = hw_ip_of_device(n);
			return hw && hw->module_id == module_id;
		},
		what);
}

}  // namespace

extern "C" int hlt_open(int device_name, const char *busid)
{
	return c_entry("hlthunk_open", [&]() -> int {
		static const char what[] = "opening a device";
		if (!busid && bad_name(device_name))
			return c_fail(Op::OpenDevice, what, -EINVAL);
		if (busid) {
			std::string bus = full_bus_id(busid);
			return open_first(
				[&](const DeviceNode &n) {
					return !n.name.control && n.pci_bus == bus;
				},
				what);
		}
		return open_first(
			[&](const DeviceNode &n) {
				return !n.name.control &&
				       (device_name == HLTHUNK_DEVICE_DONT_CARE ||
					asic_of(n) == device_name);
			},
			what);
	});
}

extern "C" hlthunk_public int hlthunk_open_by_module_id(uint32_t module_id)
{
	return c_entry("hlthunk_open_by_module_id", [&]() -> int {
		return open_by_module(module_id, false, "opening a device by module id");
	});
}

extern "C" hlthunk_public int hlthunk_open_control(int dev_id, const char *busid)
{
	return c_entry("hlthunk_open_control", [&]() -> int {
		if (!busid && dev_id < 0)
			return c_fail(Op::OpenDevice, "opening a control node", -EINVAL);
		std::string bus = busid ? full_bus_id(busid) : "";
		return open_first(
			[&](const DeviceNode &n) {
				if (!n.name.control)
					return false;
				return busid ? n.pci_bus == bus : n.name.index == dev_id;
			},
			"opening a control node");
	});
}

extern "C" int hlt_open_control_by_name(int device_name, const char *busid)
{
	return c_entry("hlthunk_open_control_by_name", [&]() -> int {
		static const char what[] = "opening a control node";
		if (busid)
			return hlthunk_open_control(0, busid);
		if (bad_name(device_name))
			return c_fail(Op::OpenDevice, what, -EINVAL);
		return open_first(
			[&](const DeviceNode &n) {
				return n.name.control &&
				       (device_name == HLTHUNK_DEVICE_DONT_CARE ||
					asic_of(n) == device_name);
			},
			what);
	});
}

extern "C" hlthunk_public int hlthunk_open_control_by_module_id(uint32_t module_id)
{
	return c_entry("hlthunk_open_control_by_module_id", [&]() -> int {
		return open_by_module(module_id, true,
				      "opening a control node by module id");
	});
}

extern "C" hlthunk_public int hlthunk_open_control_by_bus_id(const char *busid)
{
	return c_entry("hlthunk_open_control_by_bus_id", [&]() -> int {
		if (!busid)
			return c_fail(Op::OpenDevice, "opening a control node", -EINVAL);
		return hlthunk_open_control(0, busid);
	});
}

extern "C" int hlt_close_original(int fd)
{
	return c_entry("hlthunk_close", [&]() -> int {
		auto &st = LibState::get();
		// Its context ends with this close (unless the program holds
		// another fd of it): forget its mappings, which also lets go of
		// the registrations that would keep it open.  The fd is closed
		// even if that fails: what stays behind is checked before use
		// and let go of at the next open.
		try {
			if (auto n = st.node_of(fd)) {
				if (n->compute())
					st.forget_context(n->dev);
				st.regs().remove_origin(fd, n->file);
			}
		} catch (...) {
		}
		if (::close(fd) < 0)
			return c_return(-errno);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_close(int fd)
{
	return hlt_functions()->fp_hlthunk_close(fd);
}

extern "C" int hlt_device_count(int device_name)
{
	return c_entry("hlthunk_get_device_count", [&]() -> int {
		if (bad_name(device_name))
			return c_return(-EINVAL);
		auto nodes = discover_nodes();
		if (!nodes)
			return c_fail(Op::Discover, "finding devices", nodes.error());
		int count = 0;
		for (auto &n : *nodes)
			if (!n.name.control &&
			    (device_name == HLTHUNK_DEVICE_DONT_CARE ||
			     asic_of(n) == device_name))
				count++;
		return count;
	});
}

extern "C" hlthunk_public uint32_t hlthunk_get_device_id_from_fd(int fd)
{
	return c_entry_value<uint32_t>(0, "hlthunk_get_device_id_from_fd",
				       [&]() -> uint32_t {
		auto hw = hw_ip_of(fd);
		if (!hw) {
			c_return(hw.error());
			return 0;
		}
		return hw->device_id;
	});
}

extern "C" hlthunk_public enum hlthunk_device_name
hlthunk_get_device_name_from_fd(int fd)
{
	auto id = hlthunk_get_device_id_from_fd(fd);
	return id ? name_of_pci_id(id) : HLTHUNK_DEVICE_INVALID;
}

extern "C" hlthunk_public int hlthunk_get_pci_bus_id_from_fd(int fd,
							     char *pci_bus_id,
							     int len)
{
	return c_entry("hlthunk_get_pci_bus_id_from_fd", [&]() -> int {
		if (!pci_bus_id || len <= 0)
			return c_return(-EINVAL);
		auto n = node_of_fd(fd);
		if (!n)
			return c_return(n.error());
		if (n->pci_bus.empty())
			return c_return(-ENODEV);
		// hl-thunk copies what fits, without the NUL if it does not;
		// a clear error instead of an unterminated string.
		if (n->pci_bus.size() + 1 > static_cast<size_t>(len))
			return c_return(-ERANGE);
		memcpy(pci_bus_id, n->pci_bus.c_str(), n->pci_bus.size() + 1);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_device_index_from_pci_bus_id(const char *busid)
{
	return c_entry("hlthunk_get_device_index_from_pci_bus_id", [&]() -> int {
		if (!busid)
			return c_return(-EINVAL);
		std::string bus = full_bus_id(busid);
		auto nodes = discover_nodes();
		if (!nodes)
			return c_fail(Op::Discover, "finding devices", nodes.error());
		for (auto &n : *nodes)
			if (!n.name.control && n.pci_bus == bus)
				return n.name.index;
		return c_return(-ENODEV);
	});
}
