// SPDX-License-Identifier: MIT
// Device node names: which device and which node an fd or path names.
//
//   real, current kernels  /dev/accel/accel<N>    /dev/accel/accel_controlD<N>
//   real, legacy           /dev/hl<N>             /dev/hl_controlD<N>
//   emulated               /dev/hlsim<N>          /dev/hlsim_controlD<N>
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hlthunk {

enum class NodeStyle {
	Accel,   // real habanalabs on the accel subsystem
	Legacy,  // real habanalabs, own char devices (older kernels)
	Sim,     // habanalabs_sim
};

// Which devices the library looks at (HLTHUNK_DEVICE_KIND).
enum class DeviceKind { Real = 0, Sim = 1 };

struct NodeName {
	NodeStyle style;
	int index;     // N in the name
	bool control;  // control node (shared) rather than compute (exclusive)

	DeviceKind kind() const
	{
		return style == NodeStyle::Sim ? DeviceKind::Sim : DeviceKind::Real;
	}
	bool operator==(const NodeName &o) const
	{
		return style == o.style && index == o.index && control == o.control;
	}
};

// Parses a node path or udev DEVNAME ("/dev/hl0", "accel/accel0", "hlsim1").
// Anything else, including trailing junk or a negative or huge index, is
// std::nullopt.
std::optional<NodeName> parse_node_name(std::string_view path);

// The /dev path of a node.
std::string node_path(const NodeName &n);

// Which kinds HLTHUNK_DEVICE_KIND lets the library use: "real", "sim" or
// "all" (default, also for an unset or empty value).  std::nullopt for an
// unknown value, which callers report as -EINVAL.
struct KindFilter {
	bool real;
	bool sim;
};
std::optional<KindFilter> parse_kind_filter(const char *value);

}  // namespace hlthunk
