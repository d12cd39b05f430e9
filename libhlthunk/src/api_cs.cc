// SPDX-License-Identifier: MIT
// Command buffers and command submission (hl-thunk compatible).
#include <cstring>

#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"

using namespace hlthunk;

extern "C" hlthunk_public int hlthunk_request_command_buffer(int fd,
							     uint32_t cb_size,
							     uint64_t *cb_handle)
{
	return c_entry("hlthunk_request_command_buffer", [&]() -> int {
		if (!cb_handle)
			return c_return(-EINVAL);
		union hl_cb_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_CB_OP_CREATE;
		a.in.cb_size = cb_size;
		int rc = hl_cb(fd, &a);
		if (rc < 0)
			return c_fail(Op::DeviceIoctl, "creating a command buffer", rc);
		*cb_handle = a.out.cb_handle;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_destroy_command_buffer(int fd,
							     uint64_t cb_handle)
{
	return c_entry("hlthunk_destroy_command_buffer", [&]() -> int {
		union hl_cb_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_CB_OP_DESTROY;
		a.in.cb_handle = cb_handle;
		int rc = hl_cb(fd, &a);
		if (rc < 0)
			return c_fail(Op::DeviceIoctl, "destroying a command buffer", rc);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_command_submission(int fd,
							 struct hlthunk_cs_in *in,
							 struct hlthunk_cs_out *out)
{
	return c_entry("hlthunk_command_submission", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.chunks_restore = reinterpret_cast<uintptr_t>(in->chunks_restore);
		a.in.chunks_execute = reinterpret_cast<uintptr_t>(in->chunks_execute);
		a.in.num_chunks_restore = in->num_chunks_restore;
		a.in.num_chunks_execute = in->num_chunks_execute;
		a.in.cs_flags = in->flags;
		int rc = hl_cs(fd, &a);
		if (rc < 0)
			return c_fail(Op::DeviceIoctl, "submitting a command submission", rc);
		out->seq = a.out.seq;
		out->status = a.out.status;
		out->sob_count_before_submission = a.out.sob_count_before_submission;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
						  uint64_t timeout_us,
						  uint32_t *status)
{
	return c_entry("hlthunk_wait_for_cs", [&]() -> int {
		if (!status)
			return c_return(-EINVAL);
		union hl_wait_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.seq = seq;
		a.in.timeout_us = timeout_us;
		int rc = hl_wait_cs(fd, &a);
		// As in hl-thunk the status is written on failure too: the driver
		// reports HL_WAIT_CS_STATUS_ABORTED along with -EIO.
		*status = a.out.status;
		if (rc < 0)
			return c_fail(Op::DeviceIoctl, "waiting for a command submission", rc);
		return 0;
	});
}
