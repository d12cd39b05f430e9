// SPDX-License-Identifier: MIT
// The project's fd owner (common/include/hl/unique_fd.h), under the name
// the library's code uses.
#pragma once

#include "hl/unique_fd.h"

namespace hlthunk {

using hl::UniqueFd;

}  // namespace hlthunk
