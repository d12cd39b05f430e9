// SPDX-License-Identifier: MIT
// Two copies of libhlthunk in one process: this program uses the shared
// library, and a plugin loaded with dlopen() carries its own static copy
// (as a transport plugin may).  Each copy has its own caches and its own
// /dev/hl_ipc context; neither may make the other copy wrong memory:
//  - memory one copy registered stays mapped while it is registered (the
//    driver refuses the other copy's unmap: it is exported);
//  - the device context stays in place while one copy holds registrations
//    in it: the other copy's close and reopen gets EBUSY, never a new
//    context in which the first copy's addresses name other memory;
//  - once the first copy lets go (here: its next open finds the fd closed),
//    the device can be reopened, and the first copy's stale addresses fail.
// Runs in the VM with 'habanalabs_sim num_devices=2' and habanalabs_ipc.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "device_buffer.h"
#include "hlthunk.h"
#include "mapping.h"
#include "two_libs/plugin_api.h"

#ifndef PLUGIN_PATH
#error "PLUGIN_PATH must name the plugin module"
#endif

namespace {

constexpr uint64_t kSize = 64 * 1024;

// A CPU view of any mapped device memory, through this program's library.
struct View {
	int dmabuf = -1;
	hlipc::Mapping map;
	View(int fd, uint64_t va)
	{
		dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(
			fd, va, kSize, 0, O_RDWR | O_CLOEXEC);
		if (dmabuf >= 0)
			map = hlipc::Mapping::map(kSize, PROT_READ | PROT_WRITE,
						  MAP_SHARED, dmabuf, 0);
	}
	~View()
	{
		map.reset();
		if (dmabuf >= 0)
			close(dmabuf);
	}
	unsigned char *p() { return map.bytes(); }
};

}  // namespace

TEST(TwoLibraries, NeitherCopyMakesTheOtherCopyWrongMemory)
{
	void *so = dlopen(PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(so, nullptr) << dlerror();
	auto get = reinterpret_cast<plugin_api_fn>(dlsym(so, PLUGIN_API_SYMBOL));
	ASSERT_NE(get, nullptr);
	const plugin_api *pl = get();
	// The plugin's copy is private: it exports none of its symbols.
	EXPECT_EQ(dlsym(so, "hlthunk_open"), nullptr);

	int d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	int d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d0, 0);
	ASSERT_GE(d1, 0);

	// The plugin's memory on both devices, its channel, its copy.
	uint64_t ha, pa, hb, pb;
	ASSERT_EQ(pl->alloc_map(d0, kSize, &ha, &pa), 0);
	ASSERT_EQ(pl->alloc_map(d1, kSize, &hb, &pb), 0);
	{
		View a(d0, pa);
		ASSERT_NE(a.p(), nullptr);
		hlipc::fill_pattern(a.p(), kSize, 1);
	}
	uint32_t pch;
	ASSERT_EQ(pl->channel_create(d0, d1, &pch), 0);
	ASSERT_EQ(pl->copy(pch, d0, d1, pb, pa, kSize), 0);
	{
		View b(d1, pb);
		EXPECT_EQ(hlipc::check_pattern(b.p(), kSize, 1), -1);
	}

	// This program's copy cannot unmap what the plugin registered.
	EXPECT_EQ(hlthunk_memory_unmap(d0, pa), -EINVAL);
	// Both copies at work side by side, each on its own memory.
	hlipc::DeviceBuffer a, b;
	ASSERT_EQ(a.create(d0, kSize), 0);
	ASSERT_EQ(b.create(d1, kSize), 0);
	ASSERT_EQ(a.map_cpu(), 0);
	ASSERT_EQ(b.map_cpu(), 0);
	hlipc::fill_pattern(a.cpu(), kSize, 2);
	uint32_t ch;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), 0);
	ASSERT_EQ(hlthunk_ipc_channel_copy(ch, d0, d1, reinterpret_cast<void *>(b.va()),
					   reinterpret_cast<void *>(a.va()), kSize), 0);
	ASSERT_EQ(pl->copy(pch, d0, d1, pb, pa, kSize), 0);
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 2), -1);
	{
		View pv(d1, pb);
		EXPECT_EQ(hlipc::check_pattern(pv.p(), kSize, 1), -1);
	}
	EXPECT_EQ(hlthunk_ipc_channel_destroy(ch), 0);
	a.reset();
	b.reset();

	// This program closes device 0 and opens it again: the plugin's
	// registrations hold the context, so the open is refused rather than
	// handing out a new context in which the plugin's address pa would
	// name other memory.  The plugin's copies still move its memory.
	ASSERT_EQ(hlthunk_close(d0), 0);
	int again = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	EXPECT_EQ(again, -EBUSY) << "got fd " << again;
	if (again >= 0)
		hlthunk_close(again);
	EXPECT_EQ(pl->copy(pch, d0, d1, pb, pa, kSize), 0);

	// The plugin's next open finds the fd its memory was mapped on closed
	// and lets go; now the device opens again (likely on the same number,
	// with memory at the same address), and the plugin's old address is
	// refused instead of being taken for the new memory.
	int c = pl->open_control(1);
	ASSERT_GE(c, 0);
	again = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(again, 0) << hlthunk_ipc_last_error();
	hlipc::DeviceBuffer na;
	ASSERT_EQ(na.create(again, kSize), 0);
	ASSERT_EQ(na.map_cpu(), 0);
	hlipc::fill_pattern(na.cpu(), kSize, 3);
	{
		View pv(d1, pb);
		memset(pv.p(), 0, kSize);
	}
	EXPECT_EQ(pl->copy(pch, again, d1, pb, pa, kSize), -EFAULT);
	{
		View pv(d1, pb);
		for (uint64_t i = 0; i < kSize; i++)
			ASSERT_EQ(pv.p()[i], 0) << i;
	}
	na.reset();

	EXPECT_EQ(pl->channel_destroy(pch), 0);
	EXPECT_EQ(pl->unmap_free(d1, hb, pb), 0);
	pl->close(c);
	hlthunk_close(again);
	hlthunk_close(d1);
	// Not dlclose()d: a copy of the library keeps its state for the life
	// of the process (its registrations end with the process).
}
