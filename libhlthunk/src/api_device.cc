// SPDX-License-Identifier: MIT
// Opening, closing and describing devices (hl-thunk compatible calls).
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "c_return.h"
#include "dev_discovery.h"
#include "dev_ioctl.h"
#include "hlthunk.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

enum hlthunk_device_name name_of_pci_id(uint32_t id)
{
	switch (id) {
	case 0x0001:
		return HLTHUNK_DEVICE_GOYA;
	case 0x1000:
	case 0x1010:
		return HLTHUNK_DEVICE_GAUDI;
	case HL_PCI_DEVICE_ID_GAUDI2:
		return HLTHUNK_DEVICE_GAUDI2;
	default:
		return HLTHUNK_DEVICE_INVALID;
	}
}

Result<struct hl_info_hw_ip_info> hw_ip(int fd)
{
	struct hl_info_hw_ip_info hw;
	struct hl_info_args a;
	memset(&hw, 0, sizeof(hw));
	memset(&a, 0, sizeof(a));
	a.op = HL_INFO_HW_IP_INFO;
	a.return_pointer = reinterpret_cast<uintptr_t>(&hw);
	a.return_size = sizeof(hw);
	int rc = hl_info(fd, &a);
	if (rc < 0)
		return Err{rc};
	return hw;
}

bool matches(int fd, enum hlthunk_device_name want)
{
	if (want == HLTHUNK_DEVICE_DONT_CARE)
		return true;
	auto hw = hw_ip(fd);
	return hw && name_of_pci_id(hw->device_id) == want;
}

Result<int> open_node(const DeviceNode &n)
{
	int fd = ::open(n.path.c_str(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno_err();
	return fd;
}

// Opens the first node accepted by pick; -EBUSY if every candidate was
// busy (exclusive compute open), else the last error or -ENODEV.
template <typename Pick>
int open_first(Pick pick, enum hlthunk_device_name want, const char *what)
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
		if (matches(*fd, want)) {
			// A new compute context: whatever the library
			// remembered of an earlier one of this device is stale.
			if (!n.name.control)
				st.forget_context(DeviceKey{
					static_cast<int>(n.name.kind()),
					n.name.index});
			return *fd;
		}
		::close(*fd);
	}
	if (busy)
		err = -EBUSY;
	return c_fail(Op::OpenDevice, what, err);
}

}  // namespace

extern "C" hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
					   const char *busid)
{
	return c_entry("hlthunk_open", [&]() -> int {
		if (device_name >= HLTHUNK_DEVICE_MAX || device_name == HLTHUNK_DEVICE_INVALID)
			return c_fail(Op::OpenDevice, "opening a device", -EINVAL);
		std::string bus = busid ? busid : "";
		if (bus.size() == 7)  // "bb:dd.f" without the domain
			bus = "0000:" + bus;
		return open_first(
			[&](const DeviceNode &n) {
				return !n.name.control && (bus.empty() || n.pci_bus == bus);
			},
			busid ? HLTHUNK_DEVICE_DONT_CARE : device_name,
			"opening a device");
	});
}

extern "C" hlthunk_public int hlthunk_open_control(int dev_id, const char *busid)
{
	return c_entry("hlthunk_open_control", [&]() -> int {
		if (!busid && dev_id < 0)
			return c_fail(Op::OpenDevice, "opening a control node", -EINVAL);
		std::string bus = busid ? busid : "";
		if (bus.size() == 7)
			bus = "0000:" + bus;
		return open_first(
			[&](const DeviceNode &n) {
				if (!n.name.control)
					return false;
				return busid ? n.pci_bus == bus : n.name.index == dev_id;
			},
			HLTHUNK_DEVICE_DONT_CARE, "opening a control node");
	});
}

extern "C" hlthunk_public int hlthunk_close(int fd)
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

extern "C" hlthunk_public int hlthunk_get_device_count(
	enum hlthunk_device_name device_name)
{
	return c_entry("hlthunk_get_device_count", [&]() -> int {
		if (device_name >= HLTHUNK_DEVICE_MAX || device_name == HLTHUNK_DEVICE_INVALID)
			return c_return(-EINVAL);
		auto nodes = discover_nodes();
		if (!nodes)
			return c_fail(Op::Discover, "finding devices", nodes.error());
		int count = 0;
		for (auto &n : *nodes) {
			if (n.name.control)
				continue;
			if (device_name == HLTHUNK_DEVICE_DONT_CARE) {
				count++;
				continue;
			}
			// Ask the control node: the compute node may be open elsewhere.
			DeviceNode ctl = n;
			ctl.name.control = true;
			ctl.path = node_path(ctl.name);
			auto fd = open_node(ctl);
			if (!fd)
				fd = open_node(n);
			if (!fd)
				continue;
			count += matches(*fd, device_name);
			::close(*fd);
		}
		return count;
	});
}

extern "C" hlthunk_public int hlthunk_get_hw_ip_info(int fd,
						     struct hlthunk_hw_ip_info *out)
{
	return c_entry("hlthunk_get_hw_ip_info", [&]() -> int {
		if (!out)
			return c_return(-EINVAL);
		auto hw = hw_ip(fd);
		if (!hw)
			return c_fail(Op::DeviceIoctl, "reading the device's hw ip info",
				      hw.error());
		memset(out, 0, sizeof(*out));
		out->sram_base_address = hw->sram_base_address;
		out->dram_base_address = hw->dram_base_address;
		out->dram_size = hw->dram_size;
		out->sram_size = hw->sram_size;
		out->num_of_events = hw->num_of_events;
		out->device_id = hw->device_id;
		out->cpld_version = hw->cpld_version;
		out->psoc_pci_pll_nr = hw->psoc_pci_pll_nr;
		out->psoc_pci_pll_nf = hw->psoc_pci_pll_nf;
		out->psoc_pci_pll_od = hw->psoc_pci_pll_od;
		out->psoc_pci_pll_div_factor = hw->psoc_pci_pll_div_factor;
		out->tpc_enabled_mask = hw->tpc_enabled_mask;
		out->dram_enabled = hw->dram_enabled;
		memcpy(out->cpucp_version, hw->cpucp_version, sizeof(out->cpucp_version));
		out->module_id = hw->module_id;
		memcpy(out->card_name, hw->card_name, sizeof(out->card_name));
		out->decoder_enabled_mask = hw->decoder_enabled_mask;
		out->mme_master_slave_mode = hw->mme_master_slave_mode;
		out->tpc_enabled_mask_ext = hw->tpc_enabled_mask_ext;
		out->dram_page_size = hw->dram_page_size;
		out->first_available_interrupt_id = hw->first_available_interrupt_id;
		out->edma_enabled_mask = hw->edma_enabled_mask;
		out->server_type = hw->server_type;
		out->number_of_user_interrupts = hw->number_of_user_interrupts;
		out->device_mem_alloc_default_page_size =
			hw->device_mem_alloc_default_page_size;
		out->security_enabled = hw->security_enabled;
		out->revision_id = hw->revision_id;
		out->tpc_interrupt_id = hw->tpc_interrupt_id;
		out->engine_core_interrupt_reg_addr = hw->engine_core_interrupt_reg_addr;
		out->rotator_enabled_mask = hw->rotator_enabled_mask;
		out->reserved_dram_size = hw->reserved_dram_size;
		return 0;
	});
}

extern "C" hlthunk_public enum hlthunk_device_name
hlthunk_get_device_name_from_fd(int fd)
{
	return c_entry_value(HLTHUNK_DEVICE_INVALID, "hlthunk_get_device_name_from_fd",
				     [&]() -> enum hlthunk_device_name {
		auto hw = hw_ip(fd);
		if (!hw) {
			c_return(hw.error());
			return HLTHUNK_DEVICE_INVALID;
		}
		return name_of_pci_id(hw->device_id);
	});
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
		if (n->pci_bus.size() + 1 > static_cast<size_t>(len))
			return c_return(-ERANGE);
		memcpy(pci_bus_id, n->pci_bus.c_str(), n->pci_bus.size() + 1);
		return 0;
	});
}
