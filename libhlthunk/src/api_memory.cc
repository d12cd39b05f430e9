// SPDX-License-Identifier: MIT
// Device memory: allocate, map, unmap, free, export (hl-thunk compatible).
// Every mapping is recorded in the registration cache so channel copies can
// name memory by device address; unmap and free invalidate it.
#include <fcntl.h>

#include <cstring>

#include "alloc_span.h"
#include "c_bridge.h"
#include "c_return.h"
#include "dev_ioctl.h"
#include "hlthunk.h"
#include "info_query.h"
#include "lib_state.h"

using namespace hlthunk;

namespace {

int mem_ioctl(int fd, union hl_mem_args *a, const char *what)
{
	int rc = hl_memory(fd, a);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, what, rc);
	return rc;
}

int free_ioctl(int fd, uint64_t handle)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = handle;
	return hl_memory(fd, &a);
}

int unmap_ioctl(int fd, uint64_t va)
{
	union hl_mem_args a;
	memset(&a, 0, sizeof(a));
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	return hl_memory(fd, &a);
}

// The MAP ioctl of a, then record(state, node, va) notes the new mapping
// in the cache of the device fd's node (a fd of no node has none).  A
// mapping that cannot be recorded is undone: 0, as for a failed ioctl.
template <typename Record>
uint64_t map_recorded(int fd, union hl_mem_args *a, const char *what, Record record)
{
	if (mem_ioctl(fd, a, what) < 0)
		return 0;
	uint64_t va = a->out.device_virt_addr;
	Undo undo([&] { (void)unmap_ioctl(fd, va); });
	auto &st = LibState::get();
	auto n = st.node_of(fd);
	if (n && !record(st, *n, va))
		return 0;
	undo.dismiss();
	return va;
}

// The bytes the driver maps for this allocation (see alloc_span.h).
std::optional<uint64_t> mapped_size(int fd, uint64_t size, uint64_t page_size)
{
	struct hl_info_hw_ip_info hw;
	struct hl_info_dev_memalloc_page_sizes orders;
	if (info_query(fd, HL_INFO_HW_IP_INFO, &hw) < 0)
		return std::nullopt;
	if (info_query(fd, HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, &orders) < 0)
		orders.page_order_bitmask = 0;
	uint64_t def = hw.device_mem_alloc_default_page_size ?
			       hw.device_mem_alloc_default_page_size : hw.dram_page_size;
	return allocation_span(size, page_size, def, orders.page_order_bitmask);
}

}  // namespace

extern "C" hlthunk_public uint64_t hlthunk_device_memory_alloc(
	int fd, uint64_t size, uint64_t page_size, bool contiguous, bool shared)
{
	return c_entry_value<uint64_t>(0, "hlthunk_device_memory_alloc", [&]() -> uint64_t {
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_ALLOC;
		a.in.alloc.mem_size = size;
		a.in.alloc.page_size = page_size;
		a.in.flags = (contiguous ? HL_MEM_CONTIGUOUS : 0) |
			     (shared ? HL_MEM_SHARED : 0);
		if (mem_ioctl(fd, &a, "allocating device memory") < 0)
			return 0;
		uint64_t handle = a.out.handle;
		Undo undo([&] { free_ioctl(fd, handle); });
		// Mappings cover whole pages, and dma-bufs are exported
		// page-aligned.
		auto &st = LibState::get();
		if (auto n = st.node_of(fd)) {
			if (auto span = mapped_size(fd, size, page_size))
				st.note_alloc(n->dev, handle, *span);
		}
		undo.dismiss();
		return handle;
	});
}

extern "C" hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle)
{
	return c_entry("hlthunk_device_memory_free", [&]() -> int {
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_FREE;
		a.in.free.handle = handle;
		int rc = mem_ioctl(fd, &a, "freeing device memory");
		if (rc < 0)
			return rc;
		auto &st = LibState::get();
		if (auto n = st.node_of(fd)) {
			st.regs().remove_handle(n->dev, handle);
			st.forget_alloc(n->dev, handle);
		}
		return 0;
	});
}

extern "C" hlthunk_public uint64_t hlthunk_device_memory_map(int fd,
							     uint64_t handle,
							     uint64_t hint_addr)
{
	return c_entry_value<uint64_t>(0, "hlthunk_device_memory_map", [&]() -> uint64_t {
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_MAP;
		a.in.map_device.handle = handle;
		a.in.map_device.hint_addr = hint_addr;
		return map_recorded(fd, &a, "mapping device memory",
				    [&](LibState &st, const FdNode &n, uint64_t va) {
			// Allocations made by another library instance (or
			// before fork by a handle we never saw) have no known
			// size: such a mapping is usable by everything but the
			// channel calls, and what the cache remembered at that
			// address is stale all the same.
			auto size = st.alloc_size(n.dev, handle);
			if (!size) {
				st.regs().evict(n.dev, va, 1);
				return true;
			}
			auto added = st.regs().add({n.dev, va, *size, MappingKind::Device,
						    handle, 0, 0, fd, n.file});
			if (!added)
				c_fail(Op::DeviceIoctl, "recording a device mapping",
				       added.error());
			return bool(added);
		});
	});
}

extern "C" uint64_t hlt_host_memory_map_flags_original(int fd,
							 void *host_virt_addr,
							 uint64_t hint_addr,
							 uint64_t host_size,
							 uint32_t flags)
{
	return c_entry_value<uint64_t>(0, "hlthunk_host_memory_map", [&]() -> uint64_t {
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_MAP;
		a.in.flags = flags | HL_MEM_USERPTR;
		a.in.map_host.host_virt_addr = reinterpret_cast<uintptr_t>(host_virt_addr);
		a.in.map_host.hint_addr = hint_addr;
		a.in.map_host.mem_size = host_size;
		return map_recorded(fd, &a, "mapping host memory",
				    [&](LibState &st, const FdNode &n, uint64_t va) {
			// Registered now (inside add), so the registration pins
			// the pages the driver just pinned; if /dev/hl_ipc
			// cannot register them, the mapping still serves DMA and
			// copies on it say why.
			auto added = st.regs().add({n.dev, va, host_size, MappingKind::Host,
						    0, reinterpret_cast<uintptr_t>(host_virt_addr),
						    0, fd, n.file});
			if (!added)
				c_fail(Op::DeviceIoctl, "recording a host mapping",
				       added.error());
			return bool(added);
		});
	});
}

extern "C" hlthunk_public uint64_t hlthunk_host_memory_map_flags(int fd,
								 void *host_virt_addr,
								 uint64_t hint_addr,
								 uint64_t host_size,
								 uint32_t flags)
{
	return hlt_functions()->fp_hlthunk_host_memory_map_flags(fd, host_virt_addr, hint_addr,
						      host_size, flags);
}

extern "C" uint64_t hlt_host_memory_map_original(int fd, void *host_virt_addr,
						  uint64_t hint_addr,
						  uint64_t host_size)
{
	return hlt_host_memory_map_flags_original(fd, host_virt_addr, hint_addr,
						  host_size, 0);
}

extern "C" hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
							   uint64_t hint_addr,
							   uint64_t host_size)
{
	return hlt_functions()->fp_hlthunk_host_memory_map(fd, host_virt_addr, hint_addr, host_size);
}

extern "C" int hlt_memory_unmap_original(int fd, uint64_t device_virt_addr)
{
	return c_entry("hlthunk_memory_unmap", [&]() -> int {
		auto &st = LibState::get();
		auto n = st.node_of(fd);
		std::optional<MappingDesc> dropped;
		// Device memory: the driver refuses to unmap memory that is exported,
		// and the cache's registration holds an export.  Let go of it first,
		// and put the mapping back if the driver still refuses.  Host memory
		// is not exported: drop it only once unmapped, so a failed unmap never
		// has to pin its pages again.
		if (n) {
			auto d = st.regs().lookup(n->dev, device_virt_addr);
			if (d && d->va == device_virt_addr && d->kind == MappingKind::Device)
				dropped = st.regs().remove_mapping(n->dev, device_virt_addr);
		}
		int rc = unmap_ioctl(fd, device_virt_addr);
		if (rc < 0) {
			if (dropped) {
				// If even this fails, the mapping is only unknown
				// to the channel calls (-EFAULT): report the
				// driver's error all the same.
				try {
					(void)st.regs().add(*dropped);
				} catch (...) {
				}
			}
			return c_fail(Op::DeviceIoctl, "unmapping device memory", rc);
		}
		if (n && !dropped) {
			auto d = st.regs().lookup(n->dev, device_virt_addr);
			if (d && d->va == device_virt_addr && d->kind != MappingKind::Imported)
				st.regs().remove_mapping(n->dev, device_virt_addr);
		}
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr)
{
	return hlt_functions()->fp_hlthunk_memory_unmap(fd, device_virt_addr);
}

namespace {

int export_dmabuf(int fd, uint64_t addr, uint64_t size, uint64_t offset,
		  uint32_t flags)
{
	int rc = hl_export_dmabuf(fd, addr, size, offset, flags);
	if (rc < 0)
		return c_fail(Op::DeviceIoctl, "exporting device memory as a dma-buf", rc);
	return rc;
}

}  // namespace

// As hl-thunk: the fd is always read-write and close-on-exec; flags are
// accepted only as exactly that (the dma-buf of device memory is for
// importers that write as well as read).
extern "C" hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(
	int fd, uint64_t addr, uint64_t size, uint64_t offset, uint32_t flags)
{
	return c_entry("hlthunk_device_mapped_memory_export_dmabuf_fd", [&]() -> int {
		if (flags != (O_RDWR | O_CLOEXEC))
			return c_fail(Op::DeviceIoctl, "exporting device memory as a dma-buf",
				      -EINVAL);
		return export_dmabuf(fd, addr, size, offset, flags);
	});
}

extern "C" hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(
	int fd, uint64_t addr, uint64_t size, uint32_t flags)
{
	(void)flags;  // documented as unused by hl-thunk, which ignores it
	return c_entry("hlthunk_device_memory_export_dmabuf_fd", [&]() -> int {
		// On the devices of this generation the memory is named by its
		// mapped device address (the driver's export takes a VA).
		return export_dmabuf(fd, addr, size, 0, O_RDWR | O_CLOEXEC);
	});
}

extern "C" hlthunk_public int hlthunk_get_dev_memalloc_page_orders(int fd,
								   uint64_t *page_order_bitmask)
{
	return c_entry("hlthunk_get_dev_memalloc_page_orders", [&]() -> int {
		if (!page_order_bitmask)
			return c_return(-EINVAL);
		struct hl_info_dev_memalloc_page_sizes p;
		int rc = info_query(fd, HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES, &p);
		if (rc < 0)
			return c_return(rc);
		*page_order_bitmask = p.page_order_bitmask;
		return 0;
	});
}

extern "C" int hlt_get_hw_block_original(int fd, uint64_t block_address,
					 uint32_t *block_size, uint64_t *handle)
{
	return c_entry("hlthunk_get_hw_block", [&]() -> int {
		if (!block_size || !handle)
			return c_return(-EINVAL);
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_MAP_BLOCK;
		a.in.map_block.block_addr = block_address;
		int rc = hl_memory(fd, &a);
		if (rc < 0)
			return c_return(rc);
		*handle = a.out.block_handle;
		*block_size = a.out.block_size;
		return 0;
	});
}

extern "C" hlthunk_public int hlthunk_get_hw_block(int fd, uint64_t block_address,
						   uint32_t *block_size, uint64_t *handle)
{
	return hlt_functions()->fp_hlthunk_get_hw_block(fd, block_address, block_size, handle);
}

extern "C" hlthunk_public int hlthunk_allocate_timestamp_elements(int fd,
								  uint32_t elements_num,
								  uint64_t *handle)
{
	return c_entry("hlthunk_allocate_timestamp_elements", [&]() -> int {
		if (!handle)
			return c_return(-EINVAL);
		union hl_mem_args a;
		memset(&a, 0, sizeof(a));
		a.in.op = HL_MEM_OP_TS_ALLOC;
		a.in.num_of_elements = elements_num;
		int rc = hl_memory(fd, &a);
		// As hl-thunk, the handle is written whatever the outcome.
		*handle = a.out.handle;
		return rc < 0 ? c_return(rc) : 0;
	});
}
