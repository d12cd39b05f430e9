// SPDX-License-Identifier: MIT
// Sync-stream command submissions: signal CSs, wait CSs (plain and
// collective), and reserved ("encapsulated") signals (hl-thunk compatible).
#include <cstring>

#include "c_bridge.h"
#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"

using namespace hlthunk;

namespace {

constexpr const char *kWhat = "submitting a sync-stream command submission";

// Runs a CS whose only execute chunk is built here.  The driver answers
// with a status besides the return code; anything but success is -EINVAL,
// as in hl-thunk.
int run_cs(int fd, union hl_cs_args *a)
{
	int rc = hl_cs(fd, a);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, kWhat, rc);
	if (a->out.status != HL_CS_STATUS_SUCCESS)
		return c_fail(Op::DeviceIoctl, kWhat, -EINVAL);
	return 0;
}

void set_timeout(union hl_cs_args *a, uint32_t timeout)
{
	if (timeout) {
		a->in.cs_flags |= HL_CS_FLAGS_CUSTOM_TIMEOUT;
		a->in.timeout = timeout;
	}
}

int signal_cs(int fd, struct hlthunk_signal_in *in, struct hlthunk_signal_out *out,
	      uint32_t timeout)
{
	if (!in || !out)
		return c_return(-EINVAL);
	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = in->queue_index;
	union hl_cs_args a;
	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = reinterpret_cast<uintptr_t>(in->chunks_restore);
	a.in.num_chunks_restore = in->num_chunks_restore;
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(&chunk);
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = in->flags | HL_CS_FLAGS_SIGNAL;
	set_timeout(&a, timeout);
	if (int rc = run_cs(fd, &a))
		return rc;
	out->seq = a.out.seq;
	out->status = a.out.status;
	out->sob_base_addr_offset = a.out.sob_base_addr_offset;
	out->sob_count_before_submission = a.out.sob_count_before_submission;
	return 0;
}

// A wait CS for the one signal (or reserved signal) described by
// in->hlthunk_wait_for_signal.
int wait_cs(int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out,
	    uint32_t timeout, bool collective, bool encaps)
{
	if (!in || !out || !in->hlthunk_wait_for_signal)
		return c_return(-EINVAL);
	if (in->num_wait_for_signal != 1)
		return c_return(-EINVAL);
	auto *w = reinterpret_cast<const struct hlthunk_wait_for_signal_data *>(
		in->hlthunk_wait_for_signal);
	if (w->signal_seq_nr != 1)
		return c_return(-EINVAL);
	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.queue_index = w->queue_index;
	if (encaps) {
		chunk.encaps_signal_offset = w->encaps_signal_offset;
		chunk.encaps_signal_seq = w->encaps_signal_seq;
	} else {
		chunk.signal_seq_arr = reinterpret_cast<uintptr_t>(w->signal_seq_arr);
		chunk.num_signal_seq_arr = 1;
	}
	if (collective)
		chunk.collective_engine_id = w->collective_engine_id;
	union hl_cs_args a;
	memset(&a, 0, sizeof(a));
	a.in.chunks_restore = reinterpret_cast<uintptr_t>(in->chunks_restore);
	a.in.num_chunks_restore = in->num_chunks_restore;
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(&chunk);
	a.in.num_chunks_execute = 1;
	a.in.cs_flags = in->flags |
			(collective ? HL_CS_FLAGS_COLLECTIVE_WAIT : HL_CS_FLAGS_WAIT) |
			(encaps ? HL_CS_FLAGS_ENCAP_SIGNALS : 0);
	set_timeout(&a, timeout);
	if (int rc = run_cs(fd, &a))
		return rc;
	out->seq = a.out.seq;
	out->status = a.out.status;
	return 0;
}

}  // namespace

extern "C" int hlt_signal_submission_original(int fd, struct hlthunk_signal_in *in,
					      struct hlthunk_signal_out *out)
{
	return c_entry("hlthunk_signal_submission",
		       [&]() -> int { return signal_cs(fd, in, out, 0); });
}

extern "C" hlthunk_public int hlthunk_signal_submission(int fd,
							struct hlthunk_signal_in *in,
							struct hlthunk_signal_out *out)
{
	return hlt_functions()->fp_hlthunk_signal_submission(fd, in, out);
}

extern "C" int hlt_signal_submission_timeout_original(int fd,
						      struct hlthunk_signal_in *in,
						      struct hlthunk_signal_out *out,
						      uint32_t timeout)
{
	return c_entry("hlthunk_signal_submission_timeout",
		       [&]() -> int { return signal_cs(fd, in, out, timeout); });
}

extern "C" hlthunk_public int hlthunk_signal_submission_timeout(int fd,
								struct hlthunk_signal_in *in,
								struct hlthunk_signal_out *out,
								uint32_t timeout)
{
	return hlt_functions()->fp_hlthunk_signal_submission_timeout(fd, in, out, timeout);
}

extern "C" int hlt_wait_for_signal_original(int fd, struct hlthunk_wait_in *in,
					    struct hlthunk_wait_out *out)
{
	return c_entry("hlthunk_wait_for_signal", [&]() -> int {
		return wait_cs(fd, in, out, 0, false, false);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_signal(int fd, struct hlthunk_wait_in *in,
						      struct hlthunk_wait_out *out)
{
	return hlt_functions()->fp_hlthunk_wait_for_signal(fd, in, out);
}

extern "C" int hlt_wait_for_signal_timeout_original(int fd, struct hlthunk_wait_in *in,
						    struct hlthunk_wait_out *out,
						    uint32_t timeout)
{
	return c_entry("hlthunk_wait_for_signal_timeout", [&]() -> int {
		return wait_cs(fd, in, out, timeout, false, false);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_signal_timeout(int fd,
							      struct hlthunk_wait_in *in,
							      struct hlthunk_wait_out *out,
							      uint32_t timeout)
{
	return hlt_functions()->fp_hlthunk_wait_for_signal_timeout(fd, in, out, timeout);
}

extern "C" int hlt_wait_for_collective_original(int fd, struct hlthunk_wait_in *in,
						struct hlthunk_wait_out *out)
{
	return c_entry("hlthunk_wait_for_collective_signal", [&]() -> int {
		return wait_cs(fd, in, out, 0, true, false);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_collective_signal(int fd,
								 struct hlthunk_wait_in *in,
								 struct hlthunk_wait_out *out)
{
	return hlt_functions()->fp_hlthunk_wait_for_collective_sig(fd, in, out);
}

extern "C" int hlt_wait_for_collective_timeout_original(int fd,
							struct hlthunk_wait_in *in,
							struct hlthunk_wait_out *out,
							uint32_t timeout)
{
	return c_entry("hlthunk_wait_for_collective_signal_timeout", [&]() -> int {
		return wait_cs(fd, in, out, timeout, true, false);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_collective_signal_timeout(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out, uint32_t timeout)
{
	return hlt_functions()->fp_hlthunk_wait_for_collective_sig_timeout(fd, in, out, timeout);
}

extern "C" int hlt_wait_for_encaps_original(int fd, struct hlthunk_wait_in *in,
					    struct hlthunk_wait_out *out)
{
	return c_entry("hlthunk_wait_for_reserved_encaps_signals", [&]() -> int {
		return wait_cs(fd, in, out, 0, false, true);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_reserved_encaps_signals(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out)
{
	return hlt_functions()->fp_hlthunk_wait_for_reserved_encaps_signals(fd, in, out);
}

extern "C" int hlt_wait_for_encaps_collective_original(int fd,
						       struct hlthunk_wait_in *in,
						       struct hlthunk_wait_out *out)
{
	return c_entry("hlthunk_wait_for_reserved_encaps_collective_signals", [&]() -> int {
		return wait_cs(fd, in, out, 0, true, true);
	});
}

extern "C" hlthunk_public int hlthunk_wait_for_reserved_encaps_collective_signals(
	int fd, struct hlthunk_wait_in *in, struct hlthunk_wait_out *out)
{
	return hlt_functions()->fp_hlthunk_wait_for_collective_reserved_encap_sig(fd, in, out);
}

extern "C" int hlt_reserve_signals_original(int fd, struct hlthunk_sig_res_in *in,
					    struct hlthunk_sig_res_out *out)
{
	return c_entry("hlthunk_reserve_encaps_signals", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.encaps_signals_count = in->count;
		a.in.encaps_signals_q_idx = in->queue_index;
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = HL_CS_FLAGS_RESERVE_SIGNALS_ONLY;
		if (int rc = run_cs(fd, &a))
			return rc;
		out->handle.id = a.out.handle_id;
		out->handle.sob_base_addr_offset = a.out.sob_base_addr_offset;
		out->handle.count = a.out.count;
		out->status = a.out.status;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_reserve_encaps_signals(int fd,
							     struct hlthunk_sig_res_in *in,
							     struct hlthunk_sig_res_out *out)
{
	return hlt_functions()->fp_hlthunk_reserve_signals(fd, in, out);
}

extern "C" int hlt_unreserve_signals_original(int fd, struct reserve_sig_handle *handle,
					      uint32_t *status)
{
	return c_entry("hlthunk_unreserve_encaps_signals", [&]() -> int {
		if (!handle || !status)
			return c_return(-EINVAL);
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.encaps_sig_handle_id = handle->id;
		a.in.num_chunks_execute = 1;
		a.in.cs_flags = HL_CS_FLAGS_UNRESERVE_SIGNALS_ONLY;
		if (int rc = run_cs(fd, &a))
			return rc;
		*status = a.out.status;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_unreserve_encaps_signals(int fd,
							       struct reserve_sig_handle *handle,
							       uint32_t *status)
{
	return hlt_functions()->fp_hlthunk_unreserve_signals(fd, handle, status);
}

extern "C" int hlt_staged_cs_encaps_original(int fd, uint64_t handle_id,
					     struct hlthunk_cs_in *in,
					     struct hlthunk_cs_out *out)
{
	return c_entry("hlthunk_staged_command_submission_encaps_signals", [&]() -> int {
		if (!in || !out)
			return c_return(-EINVAL);
		if (!(in->flags & HL_CS_FLAGS_STAGED_SUBMISSION))
			return c_return(-EINVAL);
		union hl_cs_args a;
		memset(&a, 0, sizeof(a));
		a.in.encaps_sig_handle_id = static_cast<uint32_t>(handle_id);
		a.in.chunks_restore = reinterpret_cast<uintptr_t>(in->chunks_restore);
		a.in.chunks_execute = reinterpret_cast<uintptr_t>(in->chunks_execute);
		a.in.num_chunks_restore = in->num_chunks_restore;
		a.in.num_chunks_execute = in->num_chunks_execute;
		a.in.cs_flags = in->flags | HL_CS_FLAGS_ENCAP_SIGNALS;
		int rc = hl_cs(fd, &a);
		if (rc < 0)
			return c_fail(Op::DeviceIoctl, kWhat, rc);
		out->seq = a.out.seq;
		out->status = a.out.status;
		out->sob_count_before_submission = a.out.sob_count_before_submission;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_staged_command_submission_encaps_signals(
	int fd, uint64_t handle_id, struct hlthunk_cs_in *in, struct hlthunk_cs_out *out)
{
	return hlt_functions()->fp_hlthunk_staged_cs_encaps_signals(fd, handle_id, in, out);
}
