// SPDX-License-Identifier: MIT
// Small numbers for devices (by PCI address) so the per-operation path
// compares integers, not strings: 0 is the host, 1.. devices in the order
// this process first met them.
#pragma once

#include <string>

namespace gaudi_ipc {

constexpr int kHostDevice = 0;

// The index of bus ("" or NULL: the host).
int device_index(const char *bus);
// The bus of an index ("" for the host).
std::string device_bus(int index);

}  // namespace gaudi_ipc
