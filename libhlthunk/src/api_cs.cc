// SPDX-License-Identifier: MIT
// Command buffers, command submission and the waits of HL_IOCTL_WAIT_CS
// (hl-thunk compatible).
#include <climits>
#include <cstring>

#include "c_bridge.h"
#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"

using namespace hlthunk;

namespace {

int create_cb(int fd, uint32_t cb_size, uint32_t flags, uint64_t *cb_handle,
	      const char *what)
{
	if (!cb_handle)
		return c_return(-EINVAL);
	union hl_cb_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = cb_size;
	a.in.flags = flags;
	int rc = hl_cb(fd, &a);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, what, rc);
	*cb_handle = a.out.cb_handle;
	return 0;
}

// HL_CB_OP_INFO; the answer is a usage count or, with
// HL_CB_FLAGS_GET_DEVICE_VA, the CB's device address.
int cb_info(int fd, uint64_t cb_handle, uint32_t flags, union hl_cb_args *a)
{
	memset(a, 0, sizeof(*a));
	a->in.op = HL_CB_OP_INFO;
	a->in.cb_handle = cb_handle;
	a->in.flags = flags;
	return hl_cb(fd, a);
}

// An execute CS (restore chunks too), with an optional timeout in seconds
// and, for a staged CS, the sequence number of its first part.
int submit_cs(int fd, const struct hlthunk_cs_in *in, struct hlthunk_cs_out *out,
	      uint64_t seq, uint32_t timeout)
{
	union hl_cs_args a;
	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = reinterpret_cast<uintptr_t>(in->chunks_restore);
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(in->chunks_execute);
	a.in.num_chunks_restore = in->num_chunks_restore;
	a.in.num_chunks_execute = in->num_chunks_execute;
	a.in.cs_flags = in->flags;
	a.in.seq = seq;
	if (timeout) {
		a.in.cs_flags |= HL_CS_FLAGS_CUSTOM_TIMEOUT;
		a.in.timeout = timeout;
	}
	int rc = hl_cs(fd, &a);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, "submitting a command submission", rc);
	out->seq = a.out.seq;
	out->status = a.out.status;
	out->sob_count_before_submission = a.out.sob_count_before_submission;
	return 0;
}

int staged_cs(int fd, uint64_t sequence, struct hlthunk_cs_in *in,
	      struct hlthunk_cs_out *out, uint32_t timeout)
{
	if (!in || !out)
		return c_return(-EINVAL);
	// A part of a staged CS must say so (as hl-thunk checks).
	if (!(in->flags & HL_CS_FLAGS_STAGED_SUBMISSION))
		return c_return(-EINVAL);
	return submit_cs(fd, in, out, sequence, timeout);
}

// HL_IOCTL_WAIT_CS for one CS; the status is written on failure too (the
// driver reports HL_WAIT_CS_STATUS_ABORTED with -EIO).
int wait_cs(int fd, uint64_t seq, uint64_t timeout_us, uint32_t *status,
	    uint64_t *timestamp)
{
	union hl_wait_cs_args a;
	memset(&a, 0, sizeof(a));
	a.in.seq = seq;
	a.in.timeout_us = timeout_us;
	int rc = hl_wait_cs(fd, &a);
	*status = a.out.status;
	if (timestamp && (a.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = a.out.timestamp_nsec;
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, "waiting for a command submission", rc);
	return 0;
}

int wait_multi(int fd, const struct hlthunk_wait_multi_cs_in *in,
	       struct hlthunk_wait_multi_cs_out *out, uint64_t *timestamp)
{
	union hl_wait_cs_args a;
	memset(&a, 0, sizeof(a));
	a.in.seq = reinterpret_cast<uintptr_t>(in->seq);
	a.in.seq_arr_len = static_cast<uint8_t>(in->seq_len);
	a.in.timeout_us = in->timeout_us;
	a.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	// The driver takes at most HL_WAIT_MULTI_CS_LIST_MAX_LEN; a longer
	// list must not be cut to 8 bits silently.
	if (in->seq_len > UINT8_MAX)
		return c_return(-EINVAL);
	int rc = hl_wait_cs(fd, &a);
	out->status = a.out.status;
	if (rc == 0) {
		out->seq_set = a.out.cs_completion_map;
		out->completed = static_cast<uint8_t>(
			__builtin_popcount(a.out.cs_completion_map));
	}
	if (timestamp && (a.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = a.out.timestamp_nsec;
	return rc < 0 ? c_return(rc) : 0;
}

// The interrupt id in the wait flags; all ones means any interrupt.
uint32_t interrupt_flags(uint32_t interrupt_id)
{
	if (interrupt_id == UINT32_MAX)
		return HL_WAIT_CS_FLAGS_INTERRUPT_MASK;
	return (interrupt_id << __builtin_ctz(HL_WAIT_CS_FLAGS_INTERRUPT_MASK)) &
	       HL_WAIT_CS_FLAGS_INTERRUPT_MASK;
}

int wait_interrupt(int fd, union hl_wait_cs_args *a, uint32_t *status,
		   uint64_t *timestamp)
{
	int rc = hl_wait_cs(fd, a);
	*status = a->out.status;
	if (timestamp && (a->out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD))
		*timestamp = a->out.timestamp_nsec;
	return rc < 0 ? c_return(rc) : 0;
}

}  // namespace

extern "C" hlthunk_public int hlthunk_request_command_buffer(int fd,
							     uint32_t cb_size,
							     uint64_t *cb_handle)
{
	return c_entry("hlthunk_request_command_buffer", [&]() -> int {
		return create_cb(fd, cb_size, 0, cb_handle, "creating a command buffer");
	});
}

extern "C" hlthunk_public int hlthunk_request_mapped_command_buffer(int fd,
								    uint32_t cb_size,
								    uint64_t *cb_handle)
{
	return c_entry("hlthunk_request_mapped_command_buffer", [&]() -> int {
		return create_cb(fd, cb_size, HL_CB_FLAGS_MAP, cb_handle,
				 "creating a mapped command buffer");
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

extern "C" hlthunk_public int hlthunk_get_cb_usage_count(int fd,
							 uint64_t cb_handle,
							 uint32_t *usage_cnt)
{
	return c_entry("hlthunk_get_cb_usage_count", [&]() -> int {
		if (!usage_cnt)
			return c_return(-EINVAL);
		union hl_cb_args a;
		int rc = cb_info(fd, cb_handle, 0, &a);
		if (rc < 0)
			return c_return(rc);
		*usage_cnt = a.out.usage_cnt;
		return 0;
	});
}

extern "C" int hlt_mapped_cb_device_va_original(int fd, uint64_t cb_handle,
						uint64_t *device_va)
{
	return c_entry("hlthunk_get_mapped_cb_device_va_by_handle", [&]() -> int {
		if (!device_va)
			return c_return(-EINVAL);
		union hl_cb_args a;
		int rc = cb_info(fd, cb_handle, HL_CB_FLAGS_GET_DEVICE_VA, &a);
		if (rc < 0)
			return c_return(rc);
		*device_va = a.out.device_va;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_mapped_cb_device_va_by_handle(int fd,
									uint64_t cb_handle,
									uint64_t *device_va)
{
	return hlt_functions()->fp_hlthunk_get_mapped_cb_device_va_by_handle(fd, cb_handle, device_va);
}

extern "C" int hlt_command_submission_original(int fd, struct hlthunk_cs_in *in,
					       struct hlthunk_cs_out *out)
{
	return c_entry("hlthunk_command_submission", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		return submit_cs(fd, in, out, 0, 0);
	});
}

extern "C" hlthunk_public int hlthunk_command_submission(int fd,
							 struct hlthunk_cs_in *in,
							 struct hlthunk_cs_out *out)
{
	return hlt_functions()->fp_hlthunk_command_submission(fd, in, out);
}

extern "C" int hlt_command_submission_timeout_original(int fd,
						       struct hlthunk_cs_in *in,
						       struct hlthunk_cs_out *out,
						       uint32_t timeout)
{
	return c_entry("hlthunk_command_submission_timeout", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		return submit_cs(fd, in, out, 0, timeout);
	});
}

extern "C" hlthunk_public int hlthunk_command_submission_timeout(int fd,
								 struct hlthunk_cs_in *in,
								 struct hlthunk_cs_out *out,
								 uint32_t timeout)
{
	return hlt_functions()->fp_hlthunk_command_submission_timeout(fd, in, out, timeout);
}

extern "C" int hlt_staged_cs_original(int fd, uint64_t sequence,
				      struct hlthunk_cs_in *in,
				      struct hlthunk_cs_out *out)
{
	return c_entry("hlthunk_staged_command_submission", [&]() -> int {
		return staged_cs(fd, sequence, in, out, 0);
	});
}

extern "C" hlthunk_public int hlthunk_staged_command_submission(int fd, uint64_t sequence,
								struct hlthunk_cs_in *in,
								struct hlthunk_cs_out *out)
{
	return hlt_functions()->fp_hlthunk_staged_command_submission(fd, sequence, in, out);
}

extern "C" int hlt_staged_cs_timeout_original(int fd, uint64_t sequence,
					      struct hlthunk_cs_in *in,
					      struct hlthunk_cs_out *out,
					      uint32_t timeout)
{
	return c_entry("hlthunk_staged_command_submission_timeout", [&]() -> int {
		return staged_cs(fd, sequence, in, out, timeout);
	});
}

extern "C" hlthunk_public int hlthunk_staged_command_submission_timeout(
	int fd, uint64_t sequence, struct hlthunk_cs_in *in, struct hlthunk_cs_out *out,
	uint32_t timeout)
{
	return hlt_functions()->fp_hlthunk_staged_cs_timeout(fd, sequence, in, out, timeout);
}

extern "C" hlthunk_public int hlthunk_cs_flush_pci_hbw_writes(int fd)
{
	return c_entry("hlthunk_cs_flush_pci_hbw_writes", [&]() -> int {
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.cs_flags = HL_CS_FLAGS_FLUSH_PCI_HBW_WRITES;
		int rc = hl_cs(fd, &a);
		return rc < 0 ? c_return(rc) : 0;
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
						  uint64_t timeout_us,
						  uint32_t *status)
{
	return c_entry("hlthunk_wait_for_cs", [&]() -> int {
		if (!status)
			return c_return(-EINVAL);
		return wait_cs(fd, seq, timeout_us, status, nullptr);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_cs_with_timestamp(int fd, uint64_t seq,
								 uint64_t timeout_us,
								 uint32_t *status,
								 uint64_t *timestamp)
{
	return c_entry("hlthunk_wait_for_cs_with_timestamp", [&]() -> int {
		if (!status || !timestamp)
			return c_return(-EINVAL);
		return wait_cs(fd, seq, timeout_us, status, timestamp);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_multi_cs(int fd,
							struct hlthunk_wait_multi_cs_in *in,
							struct hlthunk_wait_multi_cs_out *out)
{
	return c_entry("hlthunk_wait_for_multi_cs", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		return wait_multi(fd, in, out, nullptr);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_multi_cs_with_timestamp(
	int fd, struct hlthunk_wait_multi_cs_in *in,
	struct hlthunk_wait_multi_cs_out *out, uint64_t *timestamp)
{
	return c_entry("hlthunk_wait_for_multi_cs_with_timestamp", [&]() -> int {
		if (!in || !out || !timestamp)
			return c_return(-EINVAL);
		*timestamp = 0;
		return wait_multi(fd, in, out, timestamp);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_interrupt_with_timestamp(
	int fd, void *addr, uint64_t target_value, uint32_t interrupt_id,
	uint64_t timeout_us, uint32_t *status, uint64_t *timestamp)
{
	return c_entry("hlthunk_wait_for_interrupt", [&]() -> int {
		if (!addr || !status)
			return c_return(-EINVAL);
		union hl_wait_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.addr = reinterpret_cast<uintptr_t>(addr);
		a.in.target = target_value;
		a.in.interrupt_timeout_us = timeout_us;
		a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | interrupt_flags(interrupt_id);
		return wait_interrupt(fd, &a, status, timestamp);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_interrupt(int fd, void *addr,
							 uint64_t target_value,
							 uint32_t interrupt_id,
							 uint64_t timeout_us,
							 uint32_t *status)
{
	return hlthunk_wait_for_interrupt_with_timestamp(fd, addr, target_value,
							 interrupt_id, timeout_us,
							 status, nullptr);
}

extern "C" hlthunk_public int hlthunk_wait_for_interrupt_by_handle_with_timestamp(
	int fd, uint64_t cq_counters_handle, uint64_t cq_counters_offset,
	uint64_t target_value, uint32_t interrupt_id, uint64_t timeout_us,
	uint32_t *status, uint64_t *timestamp)
{
	return c_entry("hlthunk_wait_for_interrupt_by_handle", [&]() -> int {
		if (!status)
			return c_return(-EINVAL);
		union hl_wait_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.cq_counters_handle = cq_counters_handle;
		a.in.cq_counters_offset = cq_counters_offset;
		a.in.target = target_value;
		a.in.interrupt_timeout_us = timeout_us;
		a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT |
			     HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
			     interrupt_flags(interrupt_id);
		return wait_interrupt(fd, &a, status, timestamp);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_interrupt_by_handle(
	int fd, uint64_t cq_counters_handle, uint64_t cq_counters_offset,
	uint64_t target_value, uint32_t interrupt_id, uint64_t timeout_us,
	uint32_t *status)
{
	return hlthunk_wait_for_interrupt_by_handle_with_timestamp(
		fd, cq_counters_handle, cq_counters_offset, target_value,
		interrupt_id, timeout_us, status, nullptr);
}

extern "C" hlthunk_public int hlthunk_register_timestamp_interrupt(
	int fd, uint32_t interrupt_id, uint64_t cq_counters_handle,
	uint64_t cq_counters_offset, uint64_t target_value,
	uint64_t timestamps_handle, uint64_t timestamps_offset)
{
	return c_entry("hlthunk_register_timestamp_interrupt", [&]() -> int {
		union hl_wait_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.cq_counters_handle = cq_counters_handle;
		a.in.cq_counters_offset = cq_counters_offset;
		a.in.target = target_value;
		a.in.timestamp_handle = timestamps_handle;
		a.in.timestamp_offset = timestamps_offset;
		// Any non-zero timeout: registration does not wait.
		a.in.interrupt_timeout_us = 0xff;
		a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT |
			     HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
			     HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT |
			     interrupt_flags(interrupt_id);
		int rc = hl_wait_cs(fd, &a);
		return rc < 0 ? c_return(rc) : 0;
	});
}
