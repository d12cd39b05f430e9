// SPDX-License-Identifier: MIT
// Byte counts on command lines and in tables: "64K", "4M,16M", "1 MiB".
// Shared by hl-ipc and the transport's benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hlipc {

// A byte count with an optional K, M or G suffix (powers of 1024, "KiB"
// and "KB" spellings too).
bool parse_size(const std::string &s, uint64_t *out);

// A comma-separated list of byte counts, each in 1..max; false on an empty
// list or a bad item.
bool parse_size_list(const std::string &list, uint64_t max, std::vector<uint64_t> *out);

// "64 KiB", "1 MiB", "3 B": the largest unit that divides s exactly.
std::string size_label(uint64_t s);

}  // namespace hlipc
