// SPDX-License-Identifier: MIT
// Who keeps one of our modules in use: the processes with its files open
// (device nodes, dma-bufs it exported, habanalabs_ipc regions on its
// memory), for the messages of 'hl-ipc unload' and 'hl-ipc bench'.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "devices.h"

namespace hlipc {

struct Holder {
	pid_t pid;
	std::string comm;
	std::string what;  // "/dev/hl_ipc", "/dev/hlsim0", "2 dma-bufs", ...
};

struct Holders {
	std::vector<Holder> processes;
	int hidden = 0;  // processes this user could not inspect
};

// Processes holding module (habanalabs_ipc or habanalabs_sim) in use.
Holders find_holders(const std::string &module, const std::vector<Device> &devs);
// Processes with the node rdev open.
Holders find_node_holders(dev_t rdev, const std::string &label);

// "123 (python3): /dev/hl_ipc; 456 (demo): /dev/hlsim0" plus a note about
// processes that could not be inspected.
std::string describe_holders(const Holders &h);

}  // namespace hlipc
