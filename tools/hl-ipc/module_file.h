// SPDX-License-Identifier: MIT
#pragma once
// A kernel module file as the kernel gets it: plain ELF, or compressed the
// way DKMS and Debian's kernels install it (".ko.xz" on 6.12).
#include <string>

namespace hlipc {

// The ELF image of the module file at path (at most max bytes of it), or
// empty when it cannot be read: missing, not ELF, corrupt, or compressed
// with a format other than xz (gzip and zstd modules are not read).
std::string read_module_image(const std::string &path, size_t max);

}  // namespace hlipc
