// SPDX-License-Identifier: MIT
#include "node_name.h"

#include <gtest/gtest.h>

using namespace hlthunk;

TEST(NodeName, ParsesEveryStyle)
{
	struct {
		const char *path;
		NodeName want;
	} cases[] = {
		{"/dev/accel/accel0", {NodeStyle::Accel, 0, false}},
		{"/dev/accel/accel_controlD7", {NodeStyle::Accel, 7, true}},
		{"accel/accel12", {NodeStyle::Accel, 12, false}},  // udev DEVNAME
		{"/dev/hl3", {NodeStyle::Legacy, 3, false}},
		{"/dev/hl_controlD3", {NodeStyle::Legacy, 3, true}},
		{"hl_controlD0", {NodeStyle::Legacy, 0, true}},
		{"/dev/hlsim0", {NodeStyle::Sim, 0, false}},
		{"/dev/hlsim_controlD1", {NodeStyle::Sim, 1, true}},
		{"hlsim15", {NodeStyle::Sim, 15, false}},
	};
	for (auto &c : cases) {
		auto n = parse_node_name(c.path);
		ASSERT_TRUE(n.has_value()) << c.path;
		EXPECT_EQ(*n, c.want) << c.path;
		// Round trip through the /dev path.
		EXPECT_EQ(parse_node_name(node_path(*n)), n) << c.path;
	}
	EXPECT_EQ(parse_node_name("/dev/hlsim1")->kind(), DeviceKind::Sim);
	EXPECT_EQ(parse_node_name("/dev/hl1")->kind(), DeviceKind::Real);
	EXPECT_EQ(parse_node_name("/dev/accel/accel1")->kind(), DeviceKind::Real);
	EXPECT_EQ(node_path({NodeStyle::Sim, 2, true}), "/dev/hlsim_controlD2");
}

TEST(NodeName, RejectsOtherNames)
{
	const char *bad[] = {
		"", "/dev/", "/dev/hl", "/dev/hl_ipc", "/dev/hlsim",
		"/dev/hlsim_controlD", "/dev/hl0x", "/dev/hl-1", "/dev/hl01",
		"/dev/hl12345", "/dev/accel0", "/dev/accel/accel", "/dev/null",
		"/dev/dri/renderD128", "/dev/hl_controlD", "/dev/hlsim_control1",
		"/dev/accel/accel_controlDx", "/dev/hl 1", "hl1/",
	};
	for (auto p : bad)
		EXPECT_FALSE(parse_node_name(p).has_value()) << p;
}

TEST(KindFilter, ParsesTheEnvironmentValue)
{
	auto all = parse_kind_filter(nullptr);
	ASSERT_TRUE(all);
	EXPECT_TRUE(all->real && all->sim);
	EXPECT_TRUE(parse_kind_filter("")->sim);
	EXPECT_TRUE(parse_kind_filter("all")->real);
	auto sim = parse_kind_filter("sim");
	EXPECT_TRUE(sim->sim && !sim->real);
	auto real = parse_kind_filter("real");
	EXPECT_TRUE(real->real && !real->sim);
	EXPECT_FALSE(parse_kind_filter("gaudi"));
	EXPECT_FALSE(parse_kind_filter("SIM"));
}
