// SPDX-License-Identifier: MIT
// What the kernel says of a dma-buf fd (/proc/self/fdinfo): that it is one
// and how large it is.
#pragma once

#include <cstdint>

#include "result.h"

namespace hlthunk_verbs {

// The size of the dma-buf behind fd; -EBADF when fd is not open, -EINVAL
// when it is not a dma-buf.
hlthunk::Result<uint64_t> dmabuf_size(int fd);

}  // namespace hlthunk_verbs
