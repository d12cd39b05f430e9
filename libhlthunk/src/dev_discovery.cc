// SPDX-License-Identifier: MIT
#include "dev_discovery.h"

#include <libudev.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

namespace hlthunk {

namespace {

struct UdevDeleter {
	void operator()(udev *u) const { udev_unref(u); }
	void operator()(udev_enumerate *e) const { udev_enumerate_unref(e); }
	void operator()(udev_device *d) const { udev_device_unref(d); }
};
template <typename T>
using UdevPtr = std::unique_ptr<T, UdevDeleter>;

// libudev initialises process-wide state lazily without locking (seen by
// ThreadSanitizer in udev_new): all use of it goes through this lock.
// Discovery is rare and never on a copy path.
std::mutex udev_mu;

// accel nodes belong to any accelerator driver: keep habanalabs' only.
bool is_habanalabs_accel(udev_device *d)
{
	for (udev_device *p = udev_device_get_parent(d); p;
	     p = udev_device_get_parent(p)) {
		const char *drv = udev_device_get_driver(p);
		if (drv)
			return !strcmp(drv, "habanalabs");
	}
	return false;
}

// The PCI address: a pci_addr attribute on the node or a parent (what the
// habanalabs driver and habanalabs_sim publish), else the PCI parent.
std::string pci_bus_of(udev_device *d)
{
	for (udev_device *p = d; p; p = udev_device_get_parent(p)) {
		const char *a = udev_device_get_sysattr_value(p, "pci_addr");
		if (a && *a) {
			std::string s(a);
			while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
				s.pop_back();
			return s;
		}
		const char *sub = udev_device_get_subsystem(p);
		if (sub && !strcmp(sub, "pci"))
			return udev_device_get_sysname(p);
	}
	return {};
}

std::optional<DeviceNode> node_from_udev(udev_device *d)
{
	const char *devname = udev_device_get_devnode(d);
	if (!devname)
		return std::nullopt;
	auto n = parse_node_name(devname);
	if (!n)
		return std::nullopt;
	if (n->style == NodeStyle::Accel && !is_habanalabs_accel(d))
		return std::nullopt;
	const char *type = udev_device_get_sysattr_value(d, "device_type");
	std::string t = type ? type : "";
	while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
		t.pop_back();
	return DeviceNode{*n, devname, pci_bus_of(d), t};
}

}  // namespace

Result<std::vector<DeviceNode>> discover_nodes()
{
	auto filter = parse_kind_filter(getenv("HLTHUNK_DEVICE_KIND"));
	if (!filter)
		return Err{-EINVAL};
	std::lock_guard<std::mutex> l(udev_mu);

	UdevPtr<udev> u(udev_new());
	if (!u)
		return Err{-ENOMEM};
	UdevPtr<udev_enumerate> e(udev_enumerate_new(u.get()));
	if (!e)
		return Err{-ENOMEM};
	// Match by node name rather than by class: the sim's class and the
	// accel class differ, the names are what the library understands.
	if (filter->real) {
		udev_enumerate_add_match_sysname(e.get(), "accel*");
		udev_enumerate_add_match_sysname(e.get(), "hl[0-9]*");
		udev_enumerate_add_match_sysname(e.get(), "hl_controlD*");
	}
	if (filter->sim)
		udev_enumerate_add_match_sysname(e.get(), "hlsim*");
	if (udev_enumerate_scan_devices(e.get()) < 0)
		return Err{-EIO};

	std::vector<DeviceNode> nodes;
	udev_list_entry *entry;
	udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e.get())) {
		UdevPtr<udev_device> d(udev_device_new_from_syspath(
			u.get(), udev_list_entry_get_name(entry)));
		if (!d)
			continue;
		auto n = node_from_udev(d.get());
		if (!n)
			continue;
		if (n->name.kind() == DeviceKind::Sim ? !filter->sim : !filter->real)
			continue;
		nodes.push_back(std::move(*n));
	}
	std::sort(nodes.begin(), nodes.end(), [](auto &a, auto &b) {
		if (a.name.style != b.name.style)
			return a.name.style < b.name.style;
		if (a.name.index != b.name.index)
			return a.name.index < b.name.index;
		return a.name.control < b.name.control;
	});
	return nodes;
}

Result<DeviceNode> node_of_fd(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return errno_err();
	if (!S_ISCHR(st.st_mode))
		return Err{-ENOTTY};
	return node_of_devnum(st.st_rdev);
}

Result<DeviceNode> node_of_devnum(uint64_t rdev)
{
	std::lock_guard<std::mutex> l(udev_mu);
	UdevPtr<udev> u(udev_new());
	if (!u)
		return Err{-ENOMEM};
	UdevPtr<udev_device> d(
		udev_device_new_from_devnum(u.get(), 'c', static_cast<dev_t>(rdev)));
	if (!d)
		return Err{-ENOTTY};
	auto n = node_from_udev(d.get());
	if (!n)
		return Err{-ENOTTY};
	return *n;
}

void discovery_fork_lock()
{
	udev_mu.lock();
}

void discovery_fork_unlock()
{
	udev_mu.unlock();
}

}  // namespace hlthunk
