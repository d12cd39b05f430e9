// SPDX-License-Identifier: MIT
// Asks the kernel itself for a dma-buf memory region, with the uverbs
// ioctl that providers with dma-buf support issue (the method
// UVERBS_METHOD_REG_DMABUF_MR of the kernel's uapi), bypassing the
// userspace provider: this separates "the provider library lacks the
// call" from "the kernel driver lacks it".
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>

namespace rdmatest {

// 0 if the kernel registered the memory region (it is then released with
// the context), else -errno: -EOPNOTSUPP when the kernel driver has no
// dma-buf memory regions.  driver_id is the kernel driver's
// enum rdma_driver_id (the kernel refuses a request for another driver
// with -EINVAL); pd_handle the kernel's handle of the PD (ibv_pd::handle).
int kernel_reg_dmabuf_mr(ibv_context *ctx, uint32_t driver_id,
			 uint32_t pd_handle, int dmabuf_fd, uint64_t offset,
			 uint64_t length, uint64_t iova, uint32_t access);

}  // namespace rdmatest
