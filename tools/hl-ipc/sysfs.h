// SPDX-License-Identifier: MIT
// Reading small kernel files (sysfs, procfs).
#pragma once

#include <cstdint>
#include <string>

namespace hlipc {

// The whole file, up to max bytes; empty if it cannot be read.
std::string read_blob(const std::string &path, size_t max = 1 << 16);
// The file's first line without the newline; empty if it cannot be read.
std::string read_attr(const std::string &path);
// read_attr as a number; false if missing or not a number.
bool read_u64(const std::string &path, uint64_t *out);

}  // namespace hlipc
