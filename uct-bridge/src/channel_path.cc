// SPDX-License-Identifier: MIT
#include "channel_path.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "device_index.h"
#include "device_nodes.h"
#include "memh.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// The one place a copy by cookie is put together.
struct hlthunk_ipc_copy make_copy(uint32_t channel, bool get, uint64_t local_cookie,
				  uint64_t local_off, uint64_t remote_cookie,
				  uint64_t remote_off, uint64_t len)
{
	struct hlthunk_ipc_copy c;
	memset(&c, 0, sizeof(c));
	c.channel_id = channel;
	c.src_cookie = get ? remote_cookie : local_cookie;
	c.src_offset = get ? remote_off : local_off;
	c.dst_cookie = get ? local_cookie : remote_cookie;
	c.dst_offset = get ? local_off : remote_off;
	c.length = len;
	return c;
}

uint64_t remote_offset(const Target &t)
{
	return t.rk->f.cookie_offset + t.offset();
}

uint64_t local_offset(const Memh &m, const void *buffer)
{
	return m.local_cookie_offset + (reinterpret_cast<uintptr_t>(buffer) - m.addr);
}

}  // namespace

ChannelPath::~ChannelPath()
{
	for (auto &kv : channels_)
		if (kv.second.id)
			(void)hlthunk_ipc_channel_destroy(kv.second.id);
	if (bounce_cookie_)
		(void)hlthunk_ipc_deregister(bounce_cookie_);
}

ucs_status_t ChannelPath::init(ucs_ternary_auto_value_t mode)
{
	if (mode == UCS_NO)
		return UCS_OK;
	struct hlthunk_ipc_info info;
	int rc = hlthunk_ipc_query(&info);
	if (rc < 0) {
		if (mode == UCS_YES) {
			ucs_error("gaudi_ipc: channels required (UCX_GAUDI_IPC_CHANNELS=y) "
				  "but unusable: %s", library_message(rc));
			return UCS_ERR_NO_DEVICE;
		}
		ucs_debug("gaudi_ipc: no channels, staged path only: %s", library_message(rc));
		return UCS_OK;
	}
	on_ = true;
	// The bounce buffer of short and buffered copies: registered once, so
	// those copies are one ioctl.
	bounce_ = hlipc::Mapping::map(set_.bcopy_size + kPackRoom, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!bounce_.valid())
		return UCS_ERR_NO_MEMORY;
	rc = hlthunk_ipc_register_host(bounce_.bytes(), set_.bcopy_size,
				       HLTHUNK_IPC_ACCESS_READ | HLTHUNK_IPC_ACCESS_WRITE,
				       &bounce_cookie_);
	if (rc < 0) {
		bounce_cookie_ = 0;
		ucs_debug("gaudi_ipc: bounce buffer not registered, short and buffered "
			  "copies take the staged path: %s", library_message(rc));
	}
	return UCS_OK;
}

int ChannelPath::event_fd() const
{
	return on_ && set_.async_copies ? hlthunk_ipc_get_fd() : -1;
}

ChannelQueue *ChannelPath::channel(int src, int dst)
{
	for (const Memo &m : memo_)
		if (m.src == src && m.dst == dst)
			return m.ch;
	Memo &m = memo_[memo_next_];
	memo_next_ ^= 1;
	m = Memo{src, dst, lookup(src, dst)};
	return m.ch;
}

ChannelQueue *ChannelPath::lookup(int src, int dst)
{
	auto key = std::make_pair(src, dst);
	auto it = channels_.find(key);
	if (it != channels_.end())
		return it->second.id ? &it->second : nullptr;
	ChannelQueue q;
	int fds[2] = {-1, -1};
	uint32_t flags = 0;
	const int devs[2] = {src, dst};
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++) {
		if (devs[i] == kHostDevice) {
			flags |= i == 0 ? HLTHUNK_IPC_CHANNEL_SRC_HOST : HLTHUNK_IPC_CHANNEL_DST_HOST;
			continue;
		}
		fds[i] = DeviceNodes::get().control_fd(device_bus(devs[i]));
		if (fds[i] < 0)
			rc = fds[i];
	}
	if (rc == 0)
		rc = hlthunk_ipc_channel_create_ex(fds[0], fds[1], flags, &q.id);
	if (rc < 0) {
		q.id = 0;
		q.error = rc;
		ucs_diag("gaudi_ipc: no channel %s -> %s, that pair takes the staged path: %s",
			 src ? device_bus(src).c_str() : "host",
			 dst ? device_bus(dst).c_str() : "host", library_message(rc));
	}
	auto &slot = channels_.emplace(key, std::move(q)).first->second;
	return slot.id ? &slot : nullptr;
}

bool ChannelPath::reaches(Route &, const RemoteKey &rk, const Local &local)
{
	if (!on_ || !rk.channel_ok)
		return false;
	if (!local.iov)
		return bounce_cookie_ && pair(local.get, kHostDevice, rk.dev);
	if (!local.cookies)
		return false;
	for (size_t i = 0; i < local.iovcnt; i++) {
		if (!uct_iov_get_length(&local.iov[i]))
			continue;
		const auto *m = static_cast<const Memh *>(local.iov[i].memh);
		if (!pair(local.get, m->dev, rk.dev))
			return false;
	}
	return true;
}

const char *ChannelPath::why_not(const Route &, const RemoteKey &rk, const Local &local) const
{
	if (!on_)
		return "channels are off here";
	if (!rk.channel_ok)
		return "channels cannot use the remote key (no cookie, or one this process "
		       "may not use)";
	if (!local.iov && !bounce_cookie_)
		return "the bounce buffer is not registered for channels";
	if (local.iov && !local.cookies)
		return "the local memory is not registered for channels";
	return "no channel joins the local and the remote device";
}

ucs_status_t ChannelPath::failure(const ProcessId &peer, int rc, const char *what)
{
	// The kernel says why; but a peer that exited explains any failure
	// on its memory (its regions were revoked with it).
	if (!process_alive(peer)) {
		peer_failed(peer, UCS_ERR_CONNECTION_RESET);
		return UCS_ERR_CONNECTION_RESET;
	}
	ucs_error("gaudi_ipc: %s: %s", what, library_message(rc));
	return status_from_errno(rc);
}

ucs_status_t ChannelPath::bounce_copy(bool get, uint64_t len, const Route &r, const Target &t)
{
	ChannelQueue *ch = pair(get, kHostDevice, t.rk->dev);
	if (!ch)
		return UCS_ERR_UNREACHABLE;
	struct hlthunk_ipc_copy c = make_copy(ch->id, get, bounce_cookie_, 0, t.rk->f.cookie,
					      remote_offset(t), len);
	int rc = hlthunk_ipc_copy(&c);
	return rc < 0 ? failure(r.peer, rc, get ? "get through the bounce buffer"
					       : "put through the bounce buffer")
		      : UCS_OK;
}

ucs_status_t ChannelPath::put_short(Route &r, const Target &t, const void *buffer,
				    unsigned length)
{
	memcpy(bounce_.bytes(), buffer, length);
	return bounce_copy(false, length, r, t);
}

ucs_status_t ChannelPath::get_short(Route &r, const Target &t, void *buffer, unsigned length)
{
	ucs_status_t st = bounce_copy(true, length, r, t);
	if (st == UCS_OK)
		memcpy(buffer, bounce_.bytes(), length);
	return st;
}

ssize_t ChannelPath::put_bcopy(Route &r, const Target &t, uct_pack_callback_t pack, void *arg)
{
	const size_t len = pack(bounce_.bytes(), arg);
	ucs_status_t st = check_packed(len, set_.bcopy_size, t);
	if (st == UCS_OK && len)
		st = bounce_copy(false, len, r, t);
	if (st != UCS_OK)
		return st;
	return static_cast<ssize_t>(len);
}

ucs_status_t ChannelPath::get_bcopy(Route &r, const Target &t, uct_unpack_callback_t unpack,
				    void *arg, size_t length, uct_completion_t *)
{
	ucs_status_t st = bounce_copy(true, length, r, t);
	if (st == UCS_OK)
		unpack(arg, bounce_.bytes(), length);
	return st;
}

ucs_status_t ChannelPath::zcopy(Route &r, const Target &t, const Local &local, uint64_t total,
				uct_completion_t *comp)
{
	const bool get = local.get;
	const bool sync = total <= set_.sync_copy_max;
	if (sync && local.iovcnt == 1) {
		// The case that dominates latency: one copy inside the call.
		const uct_iov_t &v = local.iov[0];
		const auto *m = static_cast<const Memh *>(v.memh);
		ChannelQueue *ch = pair(get, m->dev, t.rk->dev);
		if (!ch)
			return UCS_ERR_UNREACHABLE;
		struct hlthunk_ipc_copy c =
			make_copy(ch->id, get, m->local_cookie, local_offset(*m, v.buffer),
				  t.rk->f.cookie, remote_offset(t), total);
		int rc = hlthunk_ipc_copy(&c);
		return rc < 0 ? failure(r.peer, rc, get ? "get on a channel" : "put on a channel")
			      : UCS_OK;
	}
	const bool segments = !sync && !set_.async_copies;
	ChannelOp *op = nullptr;
	auto start = [&] {
		op = pool_.take();
		op->home = this;
		ops_.begin(op, r, comp);
	};
	if (segments)
		start();
	uint64_t roff = remote_offset(t);
	for (size_t i = 0; i < local.iovcnt; i++) {
		const uct_iov_t &v = local.iov[i];
		const uint64_t len = uct_iov_get_length(&v);
		if (!len)
			continue;
		const auto *m = static_cast<const Memh *>(v.memh);
		ChannelQueue *ch = pair(get, m->dev, t.rk->dev);
		if (!ch) {  // reaches() made them all: a channel that went away
			if (!op)
				return UCS_ERR_UNREACHABLE;
			InFlight::fail(op, UCS_ERR_UNREACHABLE);
			break;
		}
		struct hlthunk_ipc_copy c = make_copy(ch->id, get, m->local_cookie,
						      local_offset(*m, v.buffer), t.rk->f.cookie,
						      roff, len);
		roff += len;
		if (segments) {
			op->copies.push_back(c);
			continue;
		}
		uint64_t seq = 0;
		// A full kernel queue is waited out inside libhlthunk, which
		// restarts the ioctl.
		int rc = sync ? hlthunk_ipc_copy(&c) : hlthunk_ipc_copy_async(&c, &seq);
		if (rc == 0 && !sync) {
			if (!op)
				start();
			op->parts++;
			ch->parts.emplace_back(seq, op);
			continue;
		}
		if (rc < 0) {
			ucs_status_t st = failure(r.peer, rc, get ? "get on a channel" : "put on a channel");
			if (!op)
				return st;
			// Copies already queued end the operation, with this error.
			InFlight::fail(op, st);
			break;
		}
	}
	if (!op)
		return UCS_OK;
	if (segments)
		segments_.push_back(op);
	else
		ops_.started(op);
	return UCS_INPROGRESS;
}

unsigned ChannelPath::progress()
{
	if (segments_.empty() && !set_.async_copies)
		return 0;
	return continue_segments() + reap();
}

unsigned ChannelPath::reap()
{
	unsigned n = 0;
	for (auto &kv : channels_) {
		ChannelQueue &q = kv.second;
		// Copies of one channel complete in order: look at the oldest.
		while (!q.parts.empty()) {
			auto part = q.parts.front();
			int rc = hlthunk_ipc_wait(q.id, part.first, 0);
			if (rc == -ETIMEDOUT)
				break;
			q.parts.pop_front();
			ops_.part_done(part.second,
				       rc < 0 ? failure(part.second->peer, rc, "copy on a channel")
					      : UCS_OK);
			n++;
		}
	}
	return n;
}

unsigned ChannelPath::continue_segments()
{
	// One segment per call, oldest operation first: progress stays short.
	if (segments_.empty())
		return 0;
	ChannelOp *op = segments_.front();
	if (op->status == UCS_OK) {
		struct hlthunk_ipc_copy c = op->copies[op->copy_index];
		const uint64_t n = std::min(set_.seg_size, c.length - op->copy_done);
		c.src_offset += op->copy_done;
		c.dst_offset += op->copy_done;
		c.length = n;
		int rc = hlthunk_ipc_copy(&c);
		if (rc < 0)
			InFlight::fail(op, failure(op->peer, rc, "copy on a channel"));
		op->copy_done += n;
		if (op->copy_done == op->copies[op->copy_index].length) {
			op->copy_index++;
			op->copy_done = 0;
		}
	}
	if (op->status != UCS_OK || op->copy_index == op->copies.size()) {
		segments_.pop_front();
		ops_.started(op);
	}
	return 1;
}

bool ChannelPath::has_work(bool)
{
	if (!segments_.empty())
		return true;
	for (auto &kv : channels_) {
		auto &q = kv.second;
		if (!q.parts.empty() && hlthunk_ipc_wait(q.id, q.parts.front().first, 0) != -ETIMEDOUT)
			return true;
	}
	return false;
}

void ChannelPath::cancel(const Route &r)
{
	for (ChannelOp *op : segments_)
		if (op->route == &r)
			InFlight::fail(op, UCS_ERR_CANCELED);
}

bool ChannelPath::drain()
{
	for (ChannelOp *op : segments_) {
		InFlight::fail(op, UCS_ERR_CANCELED);
		ops_.started(op);
	}
	segments_.clear();
	reap();
	for (auto &kv : channels_)
		if (!kv.second.parts.empty())
			return true;
	return false;
}

}  // namespace gaudi_ipc
