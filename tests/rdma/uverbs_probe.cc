// SPDX-License-Identifier: MIT
#include "uverbs_probe.h"

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

namespace rdmatest {

namespace {

constexpr int kAttrs = 9;


void inline_attr(ib_uverbs_attr *a, uint16_t id, const void *v, uint16_t len)
{
	a->attr_id = id;
	a->len = len;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	memcpy(&a->data, v, len);  // up to 8 bytes travel inline
}

}  // namespace

int kernel_reg_dmabuf_mr(ibv_context *ctx, uint32_t driver_id,
			 uint32_t pd_handle, int dmabuf_fd, uint64_t offset,
			 uint64_t length, uint64_t iova, uint32_t access)
{
	// The header and its attributes, one block as the ioctl wants them.
	union {
		ib_uverbs_ioctl_hdr hdr;
		unsigned char bytes[sizeof(ib_uverbs_ioctl_hdr) +
				    kAttrs * sizeof(ib_uverbs_attr)];
	} c;
	memset(&c, 0, sizeof(c));
	c.hdr.length = sizeof(c);
	c.hdr.object_id = UVERBS_OBJECT_MR;
	c.hdr.method_id = UVERBS_METHOD_REG_DMABUF_MR;
	c.hdr.num_attrs = kAttrs;
	c.hdr.driver_id = driver_id;

	uint32_t lkey = 0, rkey = 0;
	ib_uverbs_attr *a = c.hdr.attrs;
	// The new object: an id attribute whose handle the kernel fills in.
	a->attr_id = UVERBS_ATTR_REG_DMABUF_MR_HANDLE;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a++;
	a->attr_id = UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->data = pd_handle;
	a++;
	inline_attr(a++, UVERBS_ATTR_REG_DMABUF_MR_OFFSET, &offset, 8);
	inline_attr(a++, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, &length, 8);
	inline_attr(a++, UVERBS_ATTR_REG_DMABUF_MR_IOVA, &iova, 8);
	uint32_t fd = static_cast<uint32_t>(dmabuf_fd);
	inline_attr(a++, UVERBS_ATTR_REG_DMABUF_MR_FD, &fd, 4);
	inline_attr(a++, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, &access, 4);
	a->attr_id = UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY;
	a->len = sizeof(lkey);
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->data = reinterpret_cast<uintptr_t>(&lkey);
	a++;
	a->attr_id = UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY;
	a->len = sizeof(rkey);
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->data = reinterpret_cast<uintptr_t>(&rkey);

	if (ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &c) < 0)
		return -errno;
	return 0;
}

}  // namespace rdmatest
