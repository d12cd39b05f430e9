// SPDX-License-Identifier: MIT
// Small numbers for devices (by PCI address) so the per-operation path
// compares integers, not strings: 0 is the host, 1.. devices in the order
// this process first met them.  Only devices that exist get a number, so
// the table is as long as the node has devices, whatever remote keys say.
#pragma once

#include <string>

namespace gaudi_ipc {

constexpr int kHostDevice = 0;
constexpr int kNoDevice = -1;

// The index of bus ("" or NULL: the host), a device this process maps
// memory of (libhlthunk told it so).
int device_index(const char *bus);
// The index of a bus string from outside (a remote key): kNoDevice unless
// a device of this node has that address (its control node opens).
int known_device_index(const char *bus);
// The bus of an index ("" for the host).
std::string device_bus(int index);

}  // namespace gaudi_ipc
