// SPDX-License-Identifier: MIT
// hlthunk_ipc_* calls for transports that move other programs' memory (the
// UCT bridge): which device maps an address, channels with a host end, and
// what a peer's cookie names.
#include <algorithm>
#include <cstring>
#include <string>

#include "c_return.h"
#include "dev_discovery.h"
#include "hlthunk.h"
#include "ipc_kernel.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

// The host as a channel end.  No device kind is negative.
constexpr DeviceKey kHostKey{-1, 0};

constexpr uint32_t kChannelFlagsAll = HLTHUNK_IPC_CHANNEL_SRC_HOST |
				      HLTHUNK_IPC_CHANNEL_DST_HOST;

// The fd a mapping was made on, if it is still open on the same node (the
// program may have closed it, and the number may name another file now),
// and the device's PCI address: from the library's per-device-number cache
// while the fd is open, else from udev.
void describe(const MappingDesc &d, struct hlthunk_ipc_mem_info *info)
{
	std::string bus;
	auto n = LibState::get().node_of(d.fd);
	if (n && n->file == d.file) {
		info->fd = d.fd;
		bus = n->pci_bus;
	} else {
		info->fd = -1;
		if (auto node = node_of_devnum(d.file.rdev))
			bus = node->pci_bus;
	}
	memcpy(info->pci_bus_id, bus.c_str(),
	       std::min(bus.size(), sizeof(info->pci_bus_id) - 1));
}

}  // namespace

extern "C" hlthunk_public int hlthunk_ipc_lookup_address(
	uint64_t addr, uint64_t size, struct hlthunk_ipc_mem_info *info)
{
	return c_entry("hlthunk_ipc_lookup_address", [&]() -> int {
		static const char what[] = "looking up which device maps an address";
		if (!info || size == 0 || addr + size < addr)
			return c_fail(Op::Generic, what, -EINVAL);
		auto holders = LibState::get().regs().holders_of(addr, size);
		if (holders.empty())
			return c_fail(Op::Generic, what, -ENOENT);
		if (holders.size() > 1)
			return c_fail(Op::Generic, what, -EEXIST);
		const auto &h = holders.front();
		if (!h.fits)
			return c_fail(Op::Generic, what, -ERANGE);
		memset(info, 0, sizeof(*info));
		describe(h.desc, info);
		info->kind = h.desc.kind == MappingKind::Device
				     ? HLTHUNK_IPC_MEM_DEVICE
				     : HLTHUNK_IPC_MEM_HOST_MAPPED;
		info->base = h.desc.va;
		info->size = h.desc.size;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_ipc_channel_create_ex(int src_fd, int dst_fd,
							    uint32_t flags,
							    uint32_t *channel_id)
{
	return c_entry("hlthunk_ipc_channel_create_ex", [&]() -> int {
		static const char what[] = "creating a channel";
		bool src_host = flags & HLTHUNK_IPC_CHANNEL_SRC_HOST;
		bool dst_host = flags & HLTHUNK_IPC_CHANNEL_DST_HOST;
		if (!channel_id || (flags & ~kChannelFlagsAll) ||
		    (src_host && src_fd != -1) || (dst_host && dst_fd != -1))
			return c_fail(Op::ChannelCreate, what, -EINVAL);
		auto &st = LibState::get();
		auto ipc = st.ipc_fd();
		if (!ipc)
			return c_return(ipc.error());  // last error set by ipc_fd()
		DeviceKey src = kHostKey, dst = kHostKey;
		if (!src_host) {
			auto n = st.node_of(src_fd);
			if (!n)
				return c_fail(Op::ChannelCreate,
					      "creating a channel (source fd)", n.error());
			src = n->dev;
		}
		if (!dst_host) {
			auto n = st.node_of(dst_fd);
			if (!n)
				return c_fail(Op::ChannelCreate,
					      "creating a channel (destination fd)",
					      n.error());
			dst = n->dev;
		}
		// The cache creates the channel through these fds; -1 (the
		// host) is passed to the kernel with the host flag.
		auto id = st.channels().acquire(src, dst, src_host ? -1 : src_fd,
						dst_host ? -1 : dst_fd);
		if (!id)
			return c_fail(Op::ChannelCreate, what, id.error());
		*channel_id = *id;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_ipc_query_cookie(
	hlthunk_ipc_cookie cookie, struct hlthunk_ipc_region_info *info)
{
	return c_entry("hlthunk_ipc_query_cookie", [&]() -> int {
		static const char what[] = "querying a cookie";
		if (!info)
			return c_fail(Op::Import, what, -EINVAL);
		auto fd = LibState::get().ipc_fd();
		if (!fd)
			return c_return(fd.error());  // last error set by ipc_fd()
		auto q = ipc::query(*fd, cookie);
		if (!q)
			return c_fail(Op::Import, what, q.error());
		memset(info, 0, sizeof(*info));
		info->size = q->size;
		if (q->region_flags & HL_IPC_REGION_READ)
			info->access |= HLTHUNK_IPC_ACCESS_READ;
		if (q->region_flags & HL_IPC_REGION_WRITE)
			info->access |= HLTHUNK_IPC_ACCESS_WRITE;
		if (q->region_flags & HL_IPC_REGION_ANY_USER)
			info->access |= HLTHUNK_IPC_ACCESS_ANY_USER;
		info->dev_kind = q->dev_kind;
		info->dev_major = q->dev_major;
		info->dev_index = q->dev_index;
		return 0;
	});
}
