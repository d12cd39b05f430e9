// SPDX-License-Identifier: MIT
// hlthunk_ipc_*: registered memory, cookies, channels and copies.
#include <fcntl.h>

#include <cstring>
#include <vector>

#include "c_return.h"
#include "dev_ioctl.h"
#include "fast_path.h"
#include "hlthunk.h"
#include "ipc_kernel.h"
#include "lib_state.h"
#include "unique_fd.h"

using namespace hlthunk;

namespace {

uint32_t region_flags(uint32_t access)
{
	uint32_t f = 0;
	if (access & HLTHUNK_IPC_ACCESS_READ)
		f |= HL_IPC_REGION_READ;
	if (access & HLTHUNK_IPC_ACCESS_WRITE)
		f |= HL_IPC_REGION_WRITE;
	if (access & HLTHUNK_IPC_ACCESS_ANY_USER)
		f |= HL_IPC_REGION_ANY_USER;
	return f;
}

constexpr uint32_t kAccessAll = HLTHUNK_IPC_ACCESS_READ |
				HLTHUNK_IPC_ACCESS_WRITE |
				HLTHUNK_IPC_ACCESS_ANY_USER;

// Opens /dev/hl_ipc if needed.  On failure the thread's last error already
// says why (module not loaded, permissions), and callers must not replace
// it with their own context.
int ensure_ipc()
{
	auto fd = LibState::get().ipc_fd();
	return fd ? 0 : fd.error();
}

// Runs f(ipc_fd) and reports a failure of f as `what` in context op.
template <typename F>
int with_ipc(Op op, const char *what, F f)
{
	auto fd = LibState::get().ipc_fd();
	if (!fd)
		return c_return(fd.error());  // last error set by ipc_fd()
	int rc = f(*fd);
	if (rc < 0)
		return c_fail(op, what, rc);
	return rc;
}

}  // namespace

extern "C" hlthunk_public int hlthunk_ipc_get_fd(void)
{
	return c_entry("hlthunk_ipc_get_fd", [&]() -> int {
		auto fd = LibState::get().ipc_fd();
		return fd ? *fd : c_return(fd.error());
	});
}

extern "C" hlthunk_public int hlthunk_ipc_query(struct hlthunk_ipc_info *info)
{
	return c_entry("hlthunk_ipc_query", [&]() -> int {
		if (!info)
			return c_return(-EINVAL);
		return with_ipc(Op::Generic, "querying /dev/hl_ipc", [&](int fd) {
			auto i = ipc::info(fd);
			if (!i)
				return i.error();
			memset(info, 0, sizeof(*info));
			info->abi_version = i->abi_version;
			info->lib_abi_version = HL_IPC_ABI_VERSION;
			info->features = i->features;
			info->max_regions = i->max_regions;
			info->max_channels = i->max_channels;
			info->max_batch = i->max_batch;
			info->chunk_size = i->chunk_size;
			return i->abi_version == HL_IPC_ABI_VERSION ? 0 : -EPROTO;
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_register_dmabuf(int dmabuf_fd,
							  int dev_fd,
							  uint32_t access,
							  hlthunk_ipc_cookie *cookie,
							  uint64_t *size)
{
	return c_entry("hlthunk_ipc_register_dmabuf", [&]() -> int {
		if (!cookie || (access & ~kAccessAll))
			return c_return(-EINVAL);
		uint32_t flags = region_flags(access);
		if (dev_fd == -1)
			flags |= HL_IPC_REGION_DEV_HOST;
		return with_ipc(Op::Register, "registering a dma-buf", [&](int fd) {
			auto r = ipc::register_dmabuf(fd, dmabuf_fd, dev_fd, flags);
			if (!r)
				return r.error();
			*cookie = r->cookie;
			if (size)
				*size = r->size;
			return 0;
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_register_host(void *addr,
							uint64_t size,
							uint32_t access,
							hlthunk_ipc_cookie *cookie)
{
	return c_entry("hlthunk_ipc_register_host", [&]() -> int {
		if (!cookie || (access & ~kAccessAll))
			return c_return(-EINVAL);
		return with_ipc(Op::Register, "registering host memory", [&](int fd) {
			auto r = ipc::register_user(
				fd, reinterpret_cast<uintptr_t>(addr), size,
				HL_IPC_FD_HOST,
				region_flags(access) | HL_IPC_REGION_DEV_HOST);
			if (!r)
				return r.error();
			*cookie = r->cookie;
			return 0;
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_register_device_memory(
	int fd, uint64_t addr, hlthunk_ipc_cookie *cookie, uint64_t *offset,
	uint64_t *size)
{
	return c_entry("hlthunk_ipc_register_device_memory", [&]() -> int {
		static const char what[] = "registering device memory";
		if (!cookie)
			return c_fail(Op::Register, what, -EINVAL);
		if (int rc = ensure_ipc())
			return c_return(rc);
		auto &st = LibState::get();
		auto n = st.node_of(fd);
		if (!n)
			return c_fail(Op::Register, what, n.error());
		auto r = st.regs().resolve(n->dev, fd, addr, 1, Access::ReadWrite);
		if (!r)
			return c_fail(Op::Register, what, r.error());
		*cookie = r->cookie;
		if (offset)
			*offset = r->offset;
		if (size)
			*size = r->desc.size;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_ipc_register_device_range(
	int fd, uint64_t addr, uint64_t size, uint32_t access,
	hlthunk_ipc_cookie *cookie, uint64_t *offset)
{
	return c_entry("hlthunk_ipc_register_device_range", [&]() -> int {
		static const char what[] = "registering a range of device memory";
		if (!cookie || (access & ~kAccessAll) || size == 0 || addr + size < addr)
			return c_fail(Op::Register, what, -EINVAL);
		if (int rc = ensure_ipc())
			return c_return(rc);
		auto &st = LibState::get();
		auto n = st.node_of(fd);
		if (!n)
			return c_fail(Op::Register, what, n.error());
		auto d = st.regs().lookup(n->dev, addr);
		if (!d || d->kind != MappingKind::Device)
			return c_fail(Op::Register, what, -EFAULT);
		if (addr + size > d->va + d->size)
			return c_fail(Op::Register, what, -ERANGE);
		// Whole pages: the driver exports page-aligned ranges.
		const PageSpan span = page_span(addr - d->va, size, d->size);
		// Through the memory's compute context (fd may be a control
		// node of the device).
		std::shared_ptr<UniqueFd> keep;
		auto cfd = st.regs().context_fd(*d, fd, &keep);
		if (!cfd)
			return c_fail(Op::Register, what, cfd.error());
		int export_fd = *cfd;
		int rc = hl_export_dmabuf(export_fd, d->va, span.len, span.first,
					  O_RDWR | O_CLOEXEC);
		if (rc < 0)
			return c_fail(Op::Register, what, rc);
		UniqueFd dmabuf(rc);
		return with_ipc(Op::Register, what, [&](int ipc_fd) {
			auto r = ipc::register_dmabuf(ipc_fd, dmabuf.get(), export_fd,
						      region_flags(access) |
							      HL_IPC_REGION_READ);
			if (!r)
				return r.error();
			*cookie = r->cookie;
			if (offset)
				*offset = addr - d->va - span.first;
			return 0;
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_deregister(hlthunk_ipc_cookie cookie)
{
	return c_entry("hlthunk_ipc_deregister", [&]() -> int {
		// A cookie of the registration cache: the cache lets go of it (and
		// registers the memory afresh, under a new cookie, if it is used
		// again) rather than keep a cookie the kernel no longer knows.
		if (LibState::get().regs().drop_cookie(cookie))
			return 0;
		return with_ipc(Op::Register, "deregistering a region", [&](int fd) {
			return ipc::deregister(fd, cookie).error();
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_import(int fd, hlthunk_ipc_cookie cookie,
						 uint64_t *addr, uint64_t *size)
{
	return c_entry("hlthunk_ipc_import", [&]() -> int {
		static const char what[] = "importing a cookie";
		if (!addr)
			return c_fail(Op::Import, what, -EINVAL);
		auto &st = LibState::get();
		auto n = st.node_of(fd);
		if (!n)
			return c_fail(Op::Import, what, n.error());
		return with_ipc(Op::Import, what, [&](int ipc_fd) {
			auto q = ipc::query(ipc_fd, cookie);
			if (!q)
				return q.error();
			uint64_t va = st.reserve_import_va(q->size);
			auto added = st.regs().add({n->dev, va, q->size,
						    MappingKind::Imported, 0, 0, cookie,
						    fd, n->file});
			if (!added)
				return added.error();
			*addr = va;
			if (size)
				*size = q->size;
			return 0;
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_unimport(int fd, uint64_t addr)
{
	return c_entry("hlthunk_ipc_unimport", [&]() -> int {
		static const char what[] = "forgetting an imported cookie";
		auto &st = LibState::get();
		auto n = st.node_of(fd);
		if (!n)
			return c_fail(Op::Import, what, n.error());
		auto d = st.regs().lookup(n->dev, addr);
		if (!d || d->kind != MappingKind::Imported || d->va != addr)
			return c_fail(Op::Import, what, -EINVAL);
		st.regs().remove_mapping(n->dev, addr);
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_ipc_channel_create(int src_fd, int dst_fd,
							 uint32_t *channel_id)
{
	return c_entry("hlthunk_ipc_channel_create", [&]() -> int {
		if (!channel_id)
			return c_fail(Op::ChannelCreate, "creating a channel", -EINVAL);
		if (int rc = ensure_ipc())
			return c_return(rc);
		auto &st = LibState::get();
		auto src = st.node_of(src_fd);
		if (!src)
			return c_fail(Op::ChannelCreate, "creating a channel (source fd)",
				      src.error());
		auto dst = st.node_of(dst_fd);
		if (!dst)
			return c_fail(Op::ChannelCreate,
				      "creating a channel (destination fd)", dst.error());
		auto id = st.channels().acquire(src->dev, dst->dev, src_fd, dst_fd);
		if (!id)
			return c_fail(Op::ChannelCreate, "creating a channel", id.error());
		*channel_id = *id;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_ipc_channel_destroy(uint32_t channel_id)
{
	return c_entry("hlthunk_ipc_channel_destroy", [&]() -> int {
		auto r = LibState::get().channels().release(channel_id);
		if (!r)
			return c_fail(Op::ChannelDestroy, "destroying a channel", r.error());
		return 0;
	});
}

namespace {

// The default TLS model with TLS descriptors (see CMakeLists.txt): no
// initial-exec, which would make dlopen() of the library fail once the
// process's static TLS space is used up.
thread_local FastPath fast;

// The slow half of a channel copy: checks the channel against the devices
// the fds are open on now, and resolves both ranges through the caches,
// filling the per-thread memo.  *use holds the kernel channel in flight.
__attribute__((noinline)) int prepare_copy(uint32_t channel_id, int src_fd,
					   int dst_fd, uint64_t dst,
					   uint64_t src, uint64_t length,
					   ChannelUse *use, uint64_t *sc,
					   uint64_t *so, uint64_t *dc,
					   uint64_t *dof)
{
	auto &st = LibState::get();
	auto u = st.channels().use(channel_id);
	if (!u)
		return u.error();
	*use = std::move(*u);
	KernelChannel *k = use->get();
	DeviceKey sdev = k->src, ddev = k->dst;
	KernelChannel *memo_k;
	DeviceKey ms, md;
	if (!fast.channel(channel_id, src_fd, dst_fd, &memo_k, &ms, &md) ||
	    memo_k != k) {
		auto sn = st.node_of(src_fd);
		if (!sn)
			return sn.error();
		auto dn = st.node_of(dst_fd);
		if (!dn)
			return dn.error();
		// The fds must name the channel's devices, in its direction.
		if (sdev != sn->dev || ddev != dn->dev)
			return -EINVAL;
		// Only if no channel went away since the memo was synced:
		// else the pointer may name a reused kernel channel.
		if (st.channels().generation() == fast.channel_generation())
			fast.set_channel(channel_id, src_fd, dst_fd, k, sdev, ddev);
	}
	struct {
		DeviceKey dev;
		int fd;
		uint64_t addr;
		bool write;
		uint64_t *cookie, *offset;
	} sides[2] = {{sdev, src_fd, src, false, sc, so},
		      {ddev, dst_fd, dst, true, dc, dof}};
	for (auto &side : sides) {
		if (fast.find(side.dev, side.addr, length, side.write,
			      side.cookie, side.offset))
			continue;
		auto r = st.regs().resolve(side.dev, side.fd, side.addr, length,
					   side.write ? Access::ReadWrite
						      : Access::Read);
		if (!r)
			return r.error();
		// Imported and host registrations serve both directions.
		bool rw = side.write || r->desc.kind != MappingKind::Device;
		fast.add(side.dev, r->desc.va, r->desc.size, rw, r->cookie);
		*side.cookie = r->cookie;
		*side.offset = r->offset;
	}
	return 0;
}

}  // namespace

extern "C" hlthunk_public int hlthunk_ipc_channel_copy(uint32_t channel_id,
						       int src_fd, int dst_fd,
						       void *dst, void *src,
						       size_t length)
{
	return c_entry("hlthunk_ipc_channel_copy", [&]() -> int {
		static const char what[] = "copying on a channel";
		if (__builtin_expect(length == 0, 0))
			return c_fail(Op::Copy, what, -EINVAL);
		auto &st = LibState::get();
		fast.sync(st.regs().generation(), st.channels().generation());

		// Fast path: the same channel and fds as a recent copy, ranges inside
		// memoised regions: no lock, no lookup in shared state.  The kernel
		// channel is held in flight, and the generation checked again after
		// that, so an id destroyed meanwhile is never used.
		uint64_t s = reinterpret_cast<uintptr_t>(src);
		uint64_t d = reinterpret_cast<uintptr_t>(dst);
		uint64_t sc, so, dc, dof;
		KernelChannel *k;
		DeviceKey sdev, ddev;
		ChannelUse use;
		if (__builtin_expect(fast.channel(channel_id, src_fd, dst_fd, &k,
						  &sdev, &ddev) &&
				     fast.find(sdev, s, length, false, &sc, &so) &&
				     fast.find(ddev, d, length, true, &dc, &dof),
				     1)) {
			k->inflight.fetch_add(1, std::memory_order_seq_cst);
			use = ChannelUse(k);
			if (__builtin_expect(st.channels().generation() !=
						     fast.channel_generation(),
					     0))
				use.reset();
		}
		if (__builtin_expect(!use.get(), 0)) {
			if (int rc = ensure_ipc())
				return c_return(rc);
			int rc = prepare_copy(channel_id, src_fd, dst_fd, d, s, length,
					      &use, &sc, &so, &dc, &dof);
			if (rc)
				return c_fail(Op::Copy, what, rc);
		}
		int fd = st.ipc_fd_fast();
		if (__builtin_expect(fd < 0, 0)) {
			auto r = st.ipc_fd();
			if (!r)
				return c_return(r.error());
			fd = *r;
		}
		uint64_t seq;
		int rc = ipc::copy_ioctl(fd, use->kid, 0, sc, so, dc, dof, length,
					 &seq);
		if (__builtin_expect(rc < 0, 0))
			return c_fail(Op::Copy, what, rc);
		return 0;
	});
}

namespace {

int submit(const struct hlthunk_ipc_copy *c, uint32_t flags, uint64_t *seq)
{
	if (!c || c->flags)
		return c_fail(Op::Copy, "copying by cookie", -EINVAL);
	auto use = LibState::get().channels().use(c->channel_id);
	if (!use)
		return c_fail(Op::Copy, "copying by cookie", use.error());
	return with_ipc(Op::Copy, "copying by cookie", [&](int fd) {
		auto r = ipc::copy(fd, (*use)->kid, flags, c->src_cookie,
				   c->src_offset, c->dst_cookie, c->dst_offset,
				   c->length);
		if (!r)
			return r.error();
		if (seq)
			*seq = *r;
		return 0;
	});
}

}  // namespace

extern "C" hlthunk_public int hlthunk_ipc_copy(const struct hlthunk_ipc_copy *copy)
{
	return c_entry("hlthunk_ipc_copy", [&]() -> int {
		return submit(copy, 0, nullptr);
	});
}

extern "C" hlthunk_public int hlthunk_ipc_copy_async(
	const struct hlthunk_ipc_copy *copy, uint64_t *seq)
{
	return c_entry("hlthunk_ipc_copy_async", [&]() -> int {
		if (!seq)
			return c_return(-EINVAL);
		return submit(copy, HL_IPC_COPY_ASYNC, seq);
	});
}

extern "C" hlthunk_public int hlthunk_ipc_copy_batch(
	const struct hlthunk_ipc_copy *copies, uint32_t count, uint64_t *seq)
{
	return c_entry("hlthunk_ipc_copy_batch", [&]() -> int {
		static const char what[] = "submitting a batch of copies";
		if (!copies || !seq || count == 0)
			return c_fail(Op::Copy, what, -EINVAL);
		auto max = LibState::get().max_batch();
		if (!max)
			return c_return(max.error());
		if (count > *max)
			return c_fail(Op::Copy, what, -E2BIG);
		// One kernel batch runs on one channel.
		std::vector<struct hl_ipc_copy_desc> descs(count);
		for (uint32_t i = 0; i < count; i++) {
			if (copies[i].channel_id != copies[0].channel_id || copies[i].flags)
				return c_fail(Op::Copy, what, -EINVAL);
			descs[i] = {};
			descs[i].src_cookie = copies[i].src_cookie;
			descs[i].src_offset = copies[i].src_offset;
			descs[i].dst_cookie = copies[i].dst_cookie;
			descs[i].dst_offset = copies[i].dst_offset;
			descs[i].length = copies[i].length;
		}
		auto use = LibState::get().channels().use(copies[0].channel_id);
		if (!use)
			return c_fail(Op::Copy, what, use.error());
		return with_ipc(Op::Copy, what, [&](int fd) {
			auto r = ipc::copy_batch(fd, (*use)->kid,
						 HL_IPC_COPY_ASYNC, descs.data(), count);
			if (!r)
				return r.error();
			*seq = *r;
			return static_cast<int>(count);
		});
	});
}

extern "C" hlthunk_public int hlthunk_ipc_wait(uint32_t channel_id, uint64_t seq,
					       uint64_t timeout_us)
{
	return c_entry("hlthunk_ipc_wait", [&]() -> int {
		int64_t ns = timeout_us > static_cast<uint64_t>(INT64_MAX / 1000)
				     ? HL_IPC_WAIT_INFINITE
				     : static_cast<int64_t>(timeout_us * 1000);
		// A wait is not held in flight (a destroy would wait for it while
		// it waits for the destroy's cancellations): the id is checked
		// before, and again after, so that a wait that raced with the
		// id's end and reached another channel under a reused kernel
		// number never reports its result.
		auto &ch = LibState::get().channels();
		auto use = ch.use(channel_id);
		if (!use)
			return c_fail(Op::Wait, "waiting for copies", use.error());
		uint32_t kid = (*use)->kid;
		use->reset();
		return with_ipc(Op::Wait, "waiting for copies", [&](int fd) {
			int rc = ipc::wait(fd, kid, seq, ns).error();
			if (!ch.live(channel_id))
				return -ENOENT;
			return rc;
		});
	});
}
