// SPDX-License-Identifier: MIT
// The fallback depends on the exporter: it needs a CPU mapping of the
// dma-buf whose pages the provider can pin.  For each exporter available
// in the guest the test finds out what the exporter offers on its own
// (can the dma-buf be mmap()ed; is that mapping VM_PFNMAP, which
// pin_user_pages refuses) and expects the library to follow:
//  - no mmap (hl_ipc_novmap: attach/map only, like the real habanalabs
//    dma-bufs): -EOPNOTSUPP naming the missing CPU mapping;
//  - a VM_PFNMAP mapping: -EOPNOTSUPP naming the unpinnable mapping;
//  - pinnable pages: a registration whose bytes the NIC writes and reads.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "ipc_util.h"
#include "verbs_fixture.h"

namespace rdmatest {
namespace {

using VerbsExporters = VerbsTest;

// The VmFlags of the mapping that contains p, from /proc/self/smaps.
std::string vm_flags_of(const void *p)
{
	std::ifstream f("/proc/self/smaps");
	std::string line;
	const auto a = reinterpret_cast<uintptr_t>(p);
	bool in = false;
	while (std::getline(f, line)) {
		unsigned long lo, hi;
		// Only a mapping's header line starts with "start-end".
		if (sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2)
			in = a >= lo && a < hi;
		else if (in && line.rfind("VmFlags:", 0) == 0)
			return line.substr(8) + " ";
	}
	return "";
}

enum class Expect { Registers, NoCpuMapping, Unpinnable };

Expect what_the_exporter_offers(int dmabuf, uint64_t len, std::string *flags)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	if (p == MAP_FAILED)
		return Expect::NoCpuMapping;
	*flags = vm_flags_of(p);
	munmap(p, len);
	// pin_user_pages() refuses VM_PFNMAP and VM_IO mappings.
	bool unpinnable = flags->find(" pf ") != std::string::npos ||
			  flags->find(" io ") != std::string::npos;
	return unpinnable ? Expect::Unpinnable : Expect::Registers;
}

void check_exporter(Loopback &lb, ibv_pd *pd, const char *name, int dmabuf,
		    uint64_t len, uint8_t *cpu_view)
{
	std::string flags;
	Expect e = what_the_exporter_offers(dmabuf, len, &flags);
	hlthunk_verbs_mr *mr = nullptr;
	int rc = hlthunk_verbs_reg_dmabuf(pd, dmabuf, 0, len, 0x10000,
					  kRemoteAccess, 0, &mr);
	std::string msg = rc ? hlthunk_verbs_last_error() : "";
	printf("[ info ] %s: mmap %s -> %s%s\n", name,
	       e == Expect::NoCpuMapping ? "refused"
					 : ("VmFlags" + flags).c_str(),
	       rc ? "" : hlthunk_verbs_path_name(hlthunk_verbs_mr_path(mr)),
	       msg.c_str());
	switch (e) {
	case Expect::NoCpuMapping:
		EXPECT_EQ(rc, -EOPNOTSUPP);
		EXPECT_NE(msg.find("no dma-buf memory regions"), std::string::npos);
		EXPECT_NE(msg.find("gives no CPU mapping"), std::string::npos) << msg;
		break;
	case Expect::Unpinnable:
		EXPECT_EQ(rc, -EOPNOTSUPP);
		EXPECT_NE(msg.find("cannot be pinned"), std::string::npos) << msg;
		break;
	case Expect::Registers: {
		ASSERT_EQ(rc, 0) << msg;
		EXPECT_EQ(hlthunk_verbs_mr_path(mr), HLTHUNK_VERBS_PATH_CPU_MAPPING);
		HostBuffer h;
		ASSERT_EQ(h.create(pd, -1, len), 0);
		hlipc::fill(h.data(), len, 91);
		EXPECT_EQ(lb.write(h.data(), h.lkey(), len, 0x10000,
				   hlthunk_verbs_mr_ibv(mr)->rkey),
			  IBV_WC_SUCCESS);
		if (cpu_view) {
			EXPECT_EQ(hlipc::check(cpu_view, len, 91), -1);
		}
		EXPECT_EQ(hlthunk_verbs_dereg_mr(mr), 0);
		break;
	}
	}
	if (rc != 0) {
		EXPECT_EQ(mr, nullptr);
	}
}

// Like the real habanalabs dma-bufs: no CPU access at all.
TEST_F(VerbsExporters, NoCpuAccess)
{
	int dev = open("/dev/hl_ipc_novmap", O_RDWR | O_CLOEXEC);
	ASSERT_GE(dev, 0) << "load tests/kmod/hl_ipc_novmap.ko";
	int dmabuf = ioctl(dev, 0);
	ASSERT_GE(dmabuf, 0);
	close(dev);
	std::string flags;
	ASSERT_EQ(what_the_exporter_offers(dmabuf, 4096, &flags),
		  Expect::NoCpuMapping);
	check_exporter(lb(), pd(), "hl_ipc_novmap", dmabuf, 4096, nullptr);
	close(dmabuf);
}

TEST_F(VerbsExporters, HabanalabsSim)
{
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 64 * 1024), 0);
	ASSERT_EQ(dev.map_cpu(), 0);
	int dmabuf = hlthunk_device_mapped_memory_export_dmabuf_fd(
		fd(), dev.va(), 64 * 1024, 0, O_RDWR | O_CLOEXEC);
	ASSERT_GE(dmabuf, 0);
	std::string flags;
	// The emulated device's mapping is made of ordinary pages.
	EXPECT_EQ(what_the_exporter_offers(dmabuf, 64 * 1024, &flags),
		  Expect::Registers)
		<< flags;
	check_exporter(lb(), pd(), "habanalabs_sim", dmabuf, 64 * 1024,
		       dev.cpu());
	close(dmabuf);
}

TEST_F(VerbsExporters, Vgem)
{
	if (!hlipc::kind_available(hlipc::Kind::Vgem))
		GTEST_SKIP() << "vgem is not loaded";
	hlipc::Buffer b;
	ASSERT_EQ(hlipc::alloc(hlipc::Kind::Vgem, 64 * 1024, &b), 0);
	check_exporter(lb(), pd(), "vgem", b.dmabuf, 64 * 1024, b.ptr);
}

TEST_F(VerbsExporters, Udmabuf)
{
	if (!hlipc::kind_available(hlipc::Kind::Udmabuf))
		GTEST_SKIP() << "this kernel has no udmabuf";
	hlipc::Buffer b;
	ASSERT_EQ(hlipc::alloc(hlipc::Kind::Udmabuf, 64 * 1024, &b), 0);
	check_exporter(lb(), pd(), "udmabuf", b.dmabuf, 64 * 1024, b.ptr);
}

}  // namespace
}  // namespace rdmatest
