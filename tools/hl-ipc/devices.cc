// SPDX-License-Identifier: MIT
#include "devices.h"

#include <grp.h>
#include <libudev.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

namespace hlipc {

namespace {

struct UdevDeleter {
	void operator()(udev *u) const { udev_unref(u); }
	void operator()(udev_enumerate *e) const { udev_enumerate_unref(e); }
	void operator()(udev_device *d) const { udev_device_unref(d); }
};
template <typename T> using UdevPtr = std::unique_ptr<T, UdevDeleter>;

std::string attr(udev_device *d, const char *name)
{
	const char *v = udev_device_get_sysattr_value(d, name);
	std::string s = v ? v : "";
	while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
		s.pop_back();
	return s;
}

int64_t attr_num(udev_device *d, const char *name)
{
	std::string s = attr(d, name);
	if (s.empty())
		return -1;
	char *end;
	long long v = strtoll(s.c_str(), &end, 0);
	return *end ? -1 : v;
}

// The driver of the first parent that has one (the PCI device for real
// accelerators), or the module of the class for the emulated ones.
std::string driver_of(udev_device *d)
{
	const char *sub = udev_device_get_subsystem(d);
	if (sub && !strcmp(sub, "habanalabs_sim"))
		return "habanalabs_sim";
	for (udev_device *p = udev_device_get_parent(d); p;
	     p = udev_device_get_parent(p))
		if (const char *drv = udev_device_get_driver(p))
			return drv;
	return sub && !strcmp(sub, "habanalabs") ? "habanalabs" : "";
}

bool is_control(const std::string &sysname)
{
	return sysname.find("controlD") != std::string::npos;
}

}  // namespace

bool node_access(const std::string &path, NodeAccess *out)
{
	struct stat st;
	if (stat(path.c_str(), &st) < 0)
		return false;
	out->path = path;
	out->rdev = st.st_rdev;
	out->mode = st.st_mode & 07777;
	struct passwd *pw = getpwuid(st.st_uid);
	out->owner = pw ? pw->pw_name : std::to_string(st.st_uid);
	struct group *gr = getgrgid(st.st_gid);
	out->group = gr ? gr->gr_name : std::to_string(st.st_gid);
	return true;
}

std::string describe_access(const NodeAccess &a)
{
	char m[11] = "c---------";
	const char *rwx = "rwxrwxrwx";
	for (int i = 0; i < 9; i++)
		if (a.mode & (0400 >> i))
			m[i + 1] = rwx[i];
	return std::string(m) + " " + a.owner + ":" + a.group;
}

int list_devices(std::vector<Device> *out)
{
	out->clear();
	UdevPtr<udev> u(udev_new());
	if (!u)
		return -ENOMEM;
	UdevPtr<udev_enumerate> e(udev_enumerate_new(u.get()));
	if (!e)
		return -ENOMEM;
	udev_enumerate_add_match_subsystem(e.get(), "habanalabs_sim");
	udev_enumerate_add_match_subsystem(e.get(), "habanalabs");
	udev_enumerate_add_match_subsystem(e.get(), "accel");
	if (udev_enumerate_scan_devices(e.get()) < 0)
		return -EIO;

	// One device per (driver, PCI address): the compute and control
	// nodes of a device carry the same address.
	std::map<std::pair<std::string, std::string>, Device> devs;
	udev_list_entry *entry;
	udev_list_entry_foreach(entry, udev_enumerate_get_list_entry(e.get())) {
		UdevPtr<udev_device> d(udev_device_new_from_syspath(
			u.get(), udev_list_entry_get_name(entry)));
		if (!d || !udev_device_get_devnode(d.get()))
			continue;
		std::string drv = driver_of(d.get());
		if (drv != "habanalabs" && drv != "habanalabs_sim")
			continue;
		std::string sysname = udev_device_get_sysname(d.get());
		std::string pci = attr(d.get(), "pci_addr");
		Device &dev = devs[{drv, pci.empty() ? sysname : pci}];
		dev.driver = drv;
		dev.pci_addr = pci;
		NodeAccess a;
		node_access(udev_device_get_devnode(d.get()), &a);
		a.rdev = udev_device_get_devnum(d.get());
		if (is_control(sysname)) {
			dev.control = a;
			continue;
		}
		dev.compute = a;
		dev.name = sysname;
		dev.type = attr(d.get(), "device_type");
		dev.status = attr(d.get(), "status");
		int64_t in_use = attr_num(d.get(), "in_use");
		dev.in_use = in_use < 0 ? -1 : in_use != 0;
		dev.memory_used = attr_num(d.get(), "memory_used");
		dev.memory_size = attr_num(d.get(), "memory_size");
		dev.major = major(a.rdev);
		dev.kernel_index = minor(a.rdev) >> 1;
	}
	for (auto &kv : devs)
		if (!kv.second.name.empty())
			out->push_back(kv.second);
	std::sort(out->begin(), out->end(), [](const Device &a, const Device &b) {
		if (a.driver != b.driver)
			return a.driver < b.driver;
		if (a.name.size() != b.name.size())
			return a.name.size() < b.name.size();
		return a.name < b.name;
	});
	return 0;
}

std::string device_label(const std::vector<Device> &devs, unsigned kind,
			 unsigned major, unsigned index)
{
	if (kind == 0)
		return "host";
	for (auto &d : devs)
		if (d.major == major && d.kernel_index == index)
			return d.name;
	return std::to_string(kind) + ":" + std::to_string(major) + ":" +
	       std::to_string(index);
}

}  // namespace hlipc
