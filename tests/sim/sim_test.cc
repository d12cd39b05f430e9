// SPDX-License-Identifier: GPL-2.0
// habanalabs_sim through its raw ioctls: nodes, INFO, MEMORY, dma-buf,
// CB, CS/LIN_DMA and WAIT_CS, bad input, and process death.  Runs in the
// VM with the module loaded (see CMakeLists.txt).
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <pthread.h>
#include <thread>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <regex>
#include <vector>

#include "sim_util.h"
#include "vgem.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;
// First device VA of device memory (hw_ip_info.dram_base_address).
constexpr uint64_t SIM_VA_GUESS = 0x100000000000ull;

// Every test starts and ends with no live object in the module.
class Sim : public ::testing::Test {
protected:
	void SetUp() override
	{
		set_cs_delay_ms(0);
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
	}
	void TearDown() override
	{
		set_cs_delay_ms(0);
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
};

// ---- nodes, sysfs -----------------------------------------------------

TEST_F(Sim, NodesMirrorLegacyNaming)
{
	int n = num_devices();
	ASSERT_GE(n, 1);
	struct stat st0;
	ASSERT_EQ(stat(compute_path(0).c_str(), &st0), 0);
	for (int i = 0; i < n; i++) {
		struct stat sc, sk;
		ASSERT_EQ(stat(compute_path(i).c_str(), &sc), 0) << i;
		ASSERT_EQ(stat(control_path(i).c_str(), &sk), 0) << i;
		EXPECT_TRUE(S_ISCHR(sc.st_mode));
		EXPECT_TRUE(S_ISCHR(sk.st_mode));
		EXPECT_EQ(major(sc.st_rdev), major(st0.st_rdev));
		EXPECT_EQ(major(sk.st_rdev), major(st0.st_rdev));
		EXPECT_EQ(minor(sc.st_rdev), 2u * i);
		EXPECT_EQ(minor(sk.st_rdev), 2u * i + 1);
	}
	EXPECT_NE(access(compute_path(n).c_str(), F_OK), 0);
}

TEST_F(Sim, SysfsAttributes)
{
	std::regex bus("0000:[0-9a-f]{2}:00\\.0");
	std::vector<std::string> seen;
	for (int i = 0; i < num_devices(); i++) {
		EXPECT_EQ(sysfs_attr(i, "device_type"), "GAUDI2");
		std::string pci = sysfs_attr(i, "pci_addr");
		EXPECT_TRUE(std::regex_match(pci, bus)) << pci;
		for (auto &s : seen)
			EXPECT_NE(s, pci);
		seen.push_back(pci);
		EXPECT_GT(memory_size(i), 0u);
		EXPECT_EQ(sysfs_attr(i, "memory_used"), "0");
		EXPECT_EQ(sysfs_attr(i, "status"), "operational");
		EXPECT_EQ(sysfs_attr(i, "device_index"), std::to_string(i));
		// the control node's device carries the same attributes
		EXPECT_EQ(read_file("/sys/class/habanalabs_sim/hlsim_controlD" +
				    std::to_string(i) + "/pci_addr"),
			  pci);
	}
}

// ---- open rules ---------------------------------------------------------

TEST_F(Sim, ComputeNodeIsExclusive)
{
	{
		Dev a(0);
		ASSERT_GE(a.fd(), 0) << strerror(a.open_errno());
		EXPECT_EQ(sysfs_attr(0, "in_use"), "1");
		Dev b(0);
		EXPECT_LT(b.fd(), 0);
		EXPECT_EQ(b.open_errno(), EBUSY);
		if (num_devices() > 1) {
			Dev c(1);
			EXPECT_GE(c.fd(), 0) << "devices are independent";
		}
		EXPECT_EQ(stats()["contexts"], 1);
	}
	EXPECT_EQ(sysfs_attr(0, "in_use"), "0");
	Dev again(0);
	EXPECT_GE(again.fd(), 0);
}

TEST_F(Sim, ControlNodeManyOpensInfoOnly)
{
	Dev owner(0);
	ASSERT_GE(owner.fd(), 0);
	int c1 = open(control_path(0).c_str(), O_RDWR | O_CLOEXEC);
	int c2 = open(control_path(0).c_str(), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(c1, 0);
	ASSERT_GE(c2, 0);

	hl_info_hw_ip_info hw{};
	hl_info_args ia{};
	ia.op = HL_INFO_HW_IP_INFO;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&hw);
	ia.return_size = sizeof(hw);
	EXPECT_EQ(xioctl(c1, DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_EQ(hw.device_id, HL_PCI_DEVICE_ID_GAUDI2);
	hl_info_device_status ds{};
	ds.status = 77;
	ia.op = HL_INFO_DEVICE_STATUS;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&ds);
	ia.return_size = sizeof(ds);
	EXPECT_EQ(xioctl(c2, DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_EQ(ds.status, (uint32_t)HL_DEVICE_STATUS_OPERATIONAL);

	// Everything but INFO is refused, as by the real driver.
	hl_mem_args ma{};
	ma.in.op = HL_MEM_OP_ALLOC;
	ma.in.alloc.mem_size = kPage;
	EXPECT_EQ(xioctl(c1, DRM_IOCTL_HL_MEMORY, &ma), -ENOTTY);
	hl_cb_args ca{};
	ca.in.op = HL_CB_OP_CREATE;
	ca.in.cb_size = kPage;
	EXPECT_EQ(xioctl(c1, DRM_IOCTL_HL_CB, &ca), -ENOTTY);
	hl_cs_args csa{};
	EXPECT_EQ(xioctl(c1, DRM_IOCTL_HL_CS, &csa), -ENOTTY);
	hl_wait_cs_args wa{};
	EXPECT_EQ(xioctl(c1, DRM_IOCTL_HL_WAIT_CS, &wa), -ENOTTY);
	void *p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, c1, 0);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(stats()["contexts"], 1) << "control opens are not contexts";
	close(c1);
	close(c2);
}

// ---- INFO ---------------------------------------------------------------

TEST_F(Sim, InfoHwIpAndUsage)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	hl_info_hw_ip_info hw{};
	hl_info_args ia{};
	ia.op = HL_INFO_HW_IP_INFO;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&hw);
	ia.return_size = sizeof(hw);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_EQ(hw.device_id, HL_PCI_DEVICE_ID_GAUDI2);
	EXPECT_EQ(hw.dram_size, memory_size(0));
	EXPECT_NE(hw.dram_base_address, 0u);
	EXPECT_EQ(hw.dram_enabled, 1);
	EXPECT_EQ(hw.device_mem_alloc_default_page_size, kPage);

	// The legacy 'H' numbering reaches the same handler.
	hl_info_hw_ip_info hw2{};
	ia.return_pointer = reinterpret_cast<uintptr_t>(&hw2);
	ASSERT_EQ(xioctl(d.fd(), HL_LEGACY_IOCTL_INFO, &ia), 0);
	EXPECT_EQ(memcmp(&hw, &hw2, sizeof(hw)), 0);

	// return_size limits what is written.
	uint8_t small[16];
	memset(small, 0xa5, sizeof(small));
	ia.return_pointer = reinterpret_cast<uintptr_t>(small);
	ia.return_size = 8;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_EQ(small[8], 0xa5);
	EXPECT_EQ(small[15], 0xa5);

	uint64_t h, va;
	ASSERT_EQ(d.alloc_map(3 * kPage, &h, &va), 0);
	hl_info_dram_usage du{};
	ia.op = HL_INFO_DRAM_USAGE;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&du);
	ia.return_size = sizeof(du);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_EQ(du.ctx_dram_mem, 3 * kPage);
	EXPECT_EQ(du.dram_free_mem, memory_size(0) - 3 * kPage);
	EXPECT_EQ(sysfs_attr(0, "memory_used"), std::to_string(3 * kPage));

	hl_info_dev_memalloc_page_sizes ps{};
	ia.op = HL_INFO_DEV_MEM_ALLOC_PAGE_SIZES;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&ps);
	ia.return_size = sizeof(ps);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &ia), 0);
	EXPECT_TRUE(ps.page_order_bitmask & (1ull << 12));
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.free_handle(h), 0);
}

TEST_F(Sim, InfoBadInput)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	hl_info_device_status ds{};
	hl_info_args ia{};
	ia.op = HL_INFO_DEVICE_STATUS;
	ia.return_pointer = reinterpret_cast<uintptr_t>(&ds);
	ia.return_size = sizeof(ds);
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &ia), 0);

	hl_info_args b = ia;
	b.return_pointer = 0;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &b), -EINVAL);
	b = ia;
	b.return_size = 0;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &b), -EINVAL);
	b = ia;
	b.op = 1000;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &b), -EINVAL);
	b = ia;
	b.pad = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &b), -EINVAL);
	b = ia;
	b.return_pointer = 8; // unmapped user address
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_INFO, &b), -EFAULT);
	EXPECT_EQ(ioctl(d.fd(), DRM_IOCTL_HL_INFO, nullptr), -1);
	EXPECT_EQ(errno, EFAULT);
	// Not one of ours: a different command number or a different size.
	EXPECT_EQ(xioctl(d.fd(), _IOWR('d', 0x40 + 0x05, hl_info_args), &b),
		  -ENOTTY);
	EXPECT_EQ(xioctl(d.fd(), _IOWR('d', 0x40, uint64_t), &b), -ENOTTY);
	char buf[8];
	EXPECT_EQ(read(d.fd(), buf, sizeof(buf)), -1);
}

// ---- MEMORY ---------------------------------------------------------------

TEST_F(Sim, AllocMapUnmapFree)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h1, h2, va1, va2;
	ASSERT_EQ(d.alloc(5 * kPage + 1, &h1), 0);
	ASSERT_EQ(d.alloc(kPage, &h2, 0, HL_MEM_CONTIGUOUS), 0);
	EXPECT_NE(h1, h2);
	EXPECT_EQ(sysfs_attr(0, "memory_used"), std::to_string(7 * kPage))
		<< "sizes round up to the page size";
	ASSERT_EQ(d.map(h1, &va1), 0);
	ASSERT_EQ(d.map(h2, &va2), 0);
	EXPECT_NE(va1, va2);
	EXPECT_EQ(va1 % kPage, 0u);
	EXPECT_TRUE(va2 >= va1 + 6 * kPage || va1 >= va2 + kPage);
	// A handle may be mapped twice, at different addresses.
	uint64_t va3;
	ASSERT_EQ(d.map(h2, &va3), 0);
	EXPECT_NE(va3, va2);
	auto s = stats();
	EXPECT_EQ(s["allocations"], 2);
	EXPECT_EQ(s["mappings"], 3);
	EXPECT_EQ(d.unmap(va3), 0);
	EXPECT_EQ(d.unmap(va1), 0);
	EXPECT_EQ(d.unmap(va2), 0);
	EXPECT_EQ(d.free_handle(h1), 0);
	EXPECT_EQ(d.free_handle(h2), 0);
	EXPECT_EQ(sysfs_attr(0, "memory_used"), "0");

	// 2 MiB pages: size rounds to 2 MiB, VA aligned to 2 MiB.
	uint64_t hb, vab;
	ASSERT_EQ(d.alloc(kPage, &hb, 2 << 20), 0);
	EXPECT_EQ(sysfs_attr(0, "memory_used"), std::to_string(2 << 20));
	ASSERT_EQ(d.map(hb, &vab), 0);
	EXPECT_EQ(vab % (2 << 20), 0u);
	EXPECT_EQ(d.unmap(vab), 0);
	EXPECT_EQ(d.free_handle(hb), 0);
}

TEST_F(Sim, MapHints)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va, va2;
	ASSERT_EQ(d.alloc(2 * kPage, &h), 0);
	ASSERT_EQ(d.map(h, &va), 0);
	uint64_t hint = va + (64 << 20);
	ASSERT_EQ(d.map(h, &va2, hint, HL_MEM_FORCE_HINT), 0);
	EXPECT_EQ(va2, hint);
	uint64_t va3 = 0;
	// Occupied or unaligned hints: advice without FORCE_HINT ...
	ASSERT_EQ(d.map(h, &va3, hint), 0);
	EXPECT_NE(va3, hint);
	EXPECT_EQ(d.unmap(va3), 0);
	// ... and an error with it.
	EXPECT_EQ(d.map(h, &va3, hint, HL_MEM_FORCE_HINT), -EINVAL);
	EXPECT_EQ(d.map(h, &va3, hint + (8 << 20) + 1, HL_MEM_FORCE_HINT),
		  -EINVAL);
	EXPECT_EQ(d.map(h, &va3, 0x1000, HL_MEM_FORCE_HINT), -EINVAL)
		<< "outside the DRAM VA range";
	EXPECT_EQ(d.unmap(va2), 0);
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.free_handle(h), 0);
}

TEST_F(Sim, MemoryBadInput)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va, x;
	EXPECT_EQ(d.alloc(0, &x), -EINVAL);
	EXPECT_EQ(d.alloc(kPage, &x, 3000), -EINVAL) << "not a power of 2";
	EXPECT_EQ(d.alloc(kPage, &x, 8192), -EINVAL) << "unsupported size";
	EXPECT_EQ(d.alloc(kPage, &x, 0, HL_MEM_SHARED), -EINVAL);
	EXPECT_EQ(d.alloc(kPage, &x, 0, 0x80000000u), -EINVAL);

	ASSERT_EQ(d.alloc(kPage, &h), 0);
	EXPECT_EQ(d.free_handle(0), -EINVAL);
	EXPECT_EQ(d.free_handle(h + 1000), -EINVAL);
	EXPECT_EQ(d.free_handle(1ull << 40), -EINVAL);
	EXPECT_EQ(d.map(h + 1000, &x), -EINVAL);
	EXPECT_EQ(d.map(0, &x), -EINVAL);
	EXPECT_EQ(d.map(h, &x, 0, HL_MEM_PREFETCH), -EINVAL);
	ASSERT_EQ(d.map(h, &va), 0);
	EXPECT_EQ(d.free_handle(h), -EINVAL) << "mapped: unmap first";
	EXPECT_EQ(d.unmap(va + kPage), -EINVAL);
	EXPECT_EQ(d.unmap(0), -EINVAL);
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.unmap(va), -EINVAL) << "double unmap";
	EXPECT_EQ(d.free_handle(h), 0);
	EXPECT_EQ(d.free_handle(h), -EINVAL) << "double free";

	hl_mem_args a{};
	a.in.op = 77;
	EXPECT_EQ(d.mem(&a), -ENOTTY) << "unknown op";
	a = {};
	a.in.op = HL_MEM_OP_MAP_BLOCK;
	EXPECT_EQ(d.mem(&a), -EINVAL) << "no block to map";
	a = {};
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = kPage;
	a.in.num_of_elements = 1;
	EXPECT_EQ(d.mem(&a), -EINVAL) << "reserved field";
	a = {};
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = 1;
	a.in.flags = 1;
	EXPECT_EQ(d.mem(&a), -EINVAL);
	EXPECT_EQ(ioctl(d.fd(), DRM_IOCTL_HL_MEMORY, (void *)8), -1);
	EXPECT_EQ(errno, EFAULT);

	// userptr
	std::vector<uint8_t> buf(3 * kPage);
	EXPECT_EQ(d.map_host(buf.data(), 0, &x), -EINVAL);
	EXPECT_EQ(d.map_host(nullptr, kPage, &x), -EINVAL);
	EXPECT_EQ(d.map_host((void *)0x10000, kPage, &x), -EFAULT)
		<< "not mapped in the process";
	EXPECT_EQ(d.map_host((void *)~0xfffull, kPage * 2, &x), -EINVAL)
		<< "wraps";
	EXPECT_EQ(d.map_host(buf.data(), kPage, &x, 0,
			     HL_MEM_USERPTR | HL_MEM_CONTIGUOUS),
		  -EINVAL);
	EXPECT_EQ(live_objects(), 1) << "only the context";
}

TEST_F(Sim, UserptrMapping)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::vector<uint8_t> buf(3 * kPage + 100);
	uint8_t *p = buf.data() + 10; // deliberately unaligned
	uint64_t va;
	ASSERT_EQ(d.map_host(p, 2 * kPage + 50, &va), 0);
	EXPECT_EQ(va % kPage, reinterpret_cast<uintptr_t>(p) % kPage)
		<< "the VA keeps the offset in the page";
	auto s = stats();
	EXPECT_EQ(s["userptrs"], 1);
	EXPECT_EQ(s["mappings"], 1);
	int fd;
	EXPECT_EQ(d.export_buf(va & ~(kPage - 1), kPage, 0, &fd), -EINVAL)
		<< "host memory cannot be exported";
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(stats()["userptrs"], 0);
}

TEST_F(Sim, MemoryExhaustion)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t total = memory_size(0), h, h2, x, va;
	EXPECT_EQ(d.alloc(total + kPage, &x), -ENOMEM);
	EXPECT_EQ(d.alloc(~0ull - 10, &x), -ENOMEM);
	ASSERT_EQ(d.alloc(total - kPage, &h), 0);
	ASSERT_EQ(d.alloc(kPage, &h2), 0);
	EXPECT_EQ(d.alloc(kPage, &x), -ENOMEM);
	EXPECT_EQ(d.alloc(1, &x), -ENOMEM);
	EXPECT_EQ(d.free_handle(h2), 0);

	// Exported memory stays mapped, and so charged, until its dma-buf
	// is gone (as the real driver: no UNMAP, hence no FREE, meanwhile).
	ASSERT_EQ(d.alloc(kPage, &h2), 0);
	ASSERT_EQ(d.map(h2, &va), 0);
	int fd;
	ASSERT_EQ(d.export_buf(va, kPage, 0, &fd), 0);
	EXPECT_EQ(d.unmap(va), -EINVAL);
	EXPECT_EQ(d.free_handle(h2), -EINVAL);
	EXPECT_EQ(d.alloc(kPage, &x), -ENOMEM);
	close(fd);
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.free_handle(h2), 0);
	EXPECT_EQ(d.alloc(kPage, &h2), 0) << "released with the dma-buf";
	EXPECT_EQ(d.free_handle(h2), 0);
	EXPECT_EQ(d.free_handle(h), 0);
	// Other devices have their own memory.
	EXPECT_EQ(sysfs_attr(0, "memory_used"), "0");
}

// ---- dma-buf export -------------------------------------------------------

TEST_F(Sim, ExportMmapAndBounds)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va;
	ASSERT_EQ(d.alloc_map(8 * kPage, &h, &va), 0);
	int fd = -1, fd2 = -1;
	ASSERT_EQ(d.export_buf(va, 8 * kPage, 0, &fd), 0);
	ASSERT_GE(fd, 0);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(d.export_buf(va, 2 * kPage, 3 * kPage, &fd2, 02), 0);
	EXPECT_FALSE(fcntl(fd2, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(lseek(fd, 0, SEEK_END), (off_t)(8 * kPage));
	EXPECT_EQ(lseek(fd2, 0, SEEK_END), (off_t)(2 * kPage));
	EXPECT_EQ(stats()["dmabufs"], 2);
	{
		Mapping m(fd, 8 * kPage), m2(fd2, 2 * kPage);
		ASSERT_TRUE(m.ok()) << strerror(m.error());
		ASSERT_TRUE(m2.ok()) << strerror(m2.error());
		for (size_t i = 0; i < 8 * kPage; i++)
			ASSERT_EQ(m.data()[i], 0) << "fresh memory is zeroed";
		fill_pattern(m.data(), 8 * kPage, 1);
		// The second export is a window at offset 3 pages.
		EXPECT_EQ(memcmp(m2.data(), m.data() + 3 * kPage, 2 * kPage), 0);
		// A private mapping of device memory is refused.
		void *p = mmap(nullptr, kPage, PROT_READ, MAP_PRIVATE, fd, 0);
		EXPECT_EQ(p, MAP_FAILED);
		// Beyond the end.
		p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd2, 2 * kPage);
		EXPECT_EQ(p, MAP_FAILED);
		// An offset inside the buffer works.
		p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, fd, 7 * kPage);
		ASSERT_NE(p, MAP_FAILED);
		EXPECT_EQ(memcmp(p, m.data() + 7 * kPage, kPage), 0);
		munmap(p, kPage);
	}
	close(fd2);

	int x;
	EXPECT_EQ(d.export_buf(va + 1, kPage, 0, &x), -EINVAL) << "addr";
	EXPECT_EQ(d.export_buf(va + kPage, kPage, 0, &x), -EINVAL)
		<< "not the start of a mapping";
	EXPECT_EQ(d.export_buf(va, 0, 0, &x), -EINVAL) << "size 0";
	EXPECT_EQ(d.export_buf(va, 100, 0, &x), -EINVAL) << "size unaligned";
	EXPECT_EQ(d.export_buf(va, kPage, 10, &x), -EINVAL) << "offset";
	EXPECT_EQ(d.export_buf(va, 9 * kPage, 0, &x), -EINVAL) << "too big";
	EXPECT_EQ(d.export_buf(va, 2 * kPage, 7 * kPage, &x), -EINVAL)
		<< "past the end";
	EXPECT_EQ(d.export_buf(va, kPage, ~0ull & ~(kPage - 1), &x), -EINVAL)
		<< "offset overflow";
	EXPECT_EQ(d.export_buf(va, kPage, 0, &x, 02 | 0100 /* O_CREAT */),
		  -EINVAL)
		<< "flags";
	EXPECT_EQ(d.export_buf(0x1000, kPage, 0, &x), -EINVAL) << "unmapped";
	EXPECT_EQ(stats()["dmabufs"], 1);

	// As the real driver: exported memory cannot be unmapped (nor, being
	// mapped, freed) while a dma-buf of it lives; a CPU mapping of the
	// dma-buf counts as one.
	EXPECT_EQ(d.unmap(va), -EINVAL) << "exported";
	EXPECT_EQ(d.free_handle(h), -EINVAL) << "still mapped";
	{
		Mapping m(fd, 8 * kPage);
		ASSERT_TRUE(m.ok());
		EXPECT_EQ(check_pattern(m.data(), 8 * kPage, 1), -1);
		close(fd);
		EXPECT_EQ(d.unmap(va), -EINVAL) << "mmap holds the dma-buf";
	}
	EXPECT_EQ(stats()["dmabufs"], 0);
	ASSERT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.export_buf(va, kPage, 0, &x), -EINVAL) << "unmapped now";
	ASSERT_EQ(d.free_handle(h), 0);
	auto s = stats();
	EXPECT_EQ(s["allocations"], 0);
	EXPECT_EQ(s["buffer_objects"], 0);
}

TEST_F(Sim, DmabufHoldsModule)
{
	int fd;
	int base = module_refcnt();
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		EXPECT_GT(module_refcnt(), base) << "open node pins the module";
		uint64_t h, va;
		ASSERT_EQ(d.alloc_map(kPage, &h, &va), 0);
		ASSERT_EQ(d.export_buf(va, kPage, 0, &fd), 0);
	}
	// Device closed: the dma-buf alone still holds memory and module, and,
	// as with the real driver, the compute file it came from, so the
	// context stays and the device cannot be opened again meanwhile.
	EXPECT_GT(module_refcnt(), base);
	EXPECT_EQ(stats()["dmabufs"], 1);
	EXPECT_EQ(stats()["contexts"], 1);
	{
		Dev busy(0);
		EXPECT_LT(busy.fd(), 0);
		EXPECT_EQ(busy.open_errno(), EBUSY);
	}
	close(fd);
	EXPECT_EQ(stats()["contexts"], 0);
	EXPECT_EQ(module_refcnt(), base);
	Dev again(0);
	EXPECT_GE(again.fd(), 0);
}

// CPU access brackets (DMA_BUF_IOCTL_SYNC -> begin/end_cpu_access).
TEST_F(Sim, DmabufCpuAccessSync)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va;
	ASSERT_EQ(d.alloc_map(2 * kPage, &h, &va), 0);
	int fd;
	ASSERT_EQ(d.export_buf(va, 2 * kPage, 0, &fd), 0);
	{
		Mapping m(fd, 2 * kPage);
		ASSERT_TRUE(m.ok());
		struct dma_buf_sync sync{};
		sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW;
		EXPECT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), 0);
		fill_pattern(m.data(), 2 * kPage, 3);
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
		EXPECT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), 0);
		sync.flags = 0x100; // not a sync flag: the core refuses it
		EXPECT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &sync), -EINVAL);
	}
	close(fd);
	EXPECT_EQ(d.unmap(va), 0);
	EXPECT_EQ(d.free_handle(h), 0);
}

// ---- an in-kernel importer: vgem (PRIME import maps an attachment) ----------

TEST_F(Sim, VgemImportsExport)
{
	int vgem = hlipc::open_vgem();
	if (vgem < 0 && !getenv("HL_SIM_REQUIRE_VGEM"))
		GTEST_SKIP() << "vgem not loaded";
	ASSERT_GE(vgem, 0) << "vgem required but not found";
	uint64_t h, va;
	int fd;
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		ASSERT_EQ(d.alloc_map(4 * kPage, &h, &va), 0);
		ASSERT_EQ(d.export_buf(va, 3 * kPage, kPage, &fd), 0);
		Mapping m(fd, 3 * kPage);
		ASSERT_TRUE(m.ok());
		fill_pattern(m.data(), 3 * kPage, 8);
	}
	uint32_t handle = 0;
	ASSERT_EQ(hlipc::vgem_import(vgem, fd, &handle), 0);
	EXPECT_NE(handle, 0u);
	auto s = stats();
	EXPECT_EQ(s["dmabuf_attachments_mapped"], 1)
		<< "vgem maps its attachment to an sg table at import";
	// vgem's GEM object now holds the dma-buf: our fd is not needed.  The
	// dma-buf holds the compute file it came from, as on the real driver.
	close(fd);
	s = stats();
	EXPECT_EQ(s["dmabufs"], 1);
	EXPECT_EQ(s["contexts"], 1);
	EXPECT_EQ(hlipc::vgem_close(vgem, handle), 0);
	close(vgem);
	// TearDown: attachment unmapped, dma-buf and memory released.
}

// ---- command buffers -------------------------------------------------------

TEST_F(Sim, CommandBuffers)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t cb, cb2;
	ASSERT_EQ(d.cb_create(100, &cb), 0);
	ASSERT_EQ(d.cb_create(0, &cb2), 0) << "rounded up to a page";
	EXPECT_NE(cb, cb2);
	EXPECT_EQ(stats()["command_buffers"], 2);

	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d.fd(), (off_t)cb);
	ASSERT_NE(p, MAP_FAILED) << strerror(errno);
	memset(p, 0x5a, kPage);
	hl_cb_args a{};
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = cb;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), 0);
	// As the driver: the CSs in flight that use it (none), not its mmaps.
	EXPECT_EQ(a.out.usage_cnt, 0u);
	a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), -EINVAL) << "not mapped";

	// Destroyed while mmapped: the mapping stays valid until munmap.
	EXPECT_EQ(d.cb_destroy(cb), 0);
	EXPECT_EQ(d.cb_destroy(cb), -EINVAL) << "double destroy";
	EXPECT_EQ(static_cast<uint8_t *>(p)[kPage - 1], 0x5a);
	EXPECT_EQ(stats()["command_buffers"], 2);
	munmap(p, kPage);
	EXPECT_EQ(stats()["command_buffers"], 1);

	// Bad input.
	uint64_t x;
	EXPECT_EQ(d.cb_create(HL_MAX_CB_SIZE + 1, &x), -EINVAL);
	a = {};
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = kPage;
	a.in.flags = 0x100;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), -EINVAL);
	a.in.flags = HL_CB_FLAGS_MAP | 0x100;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), -EINVAL);
	a = {};
	a.in.op = 9;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), -ENOTTY);
	EXPECT_EQ(d.cb_destroy(0), -EINVAL);
	EXPECT_EQ(d.cb_destroy(cb2 + kPage * 1000), -EINVAL);
	EXPECT_EQ(d.cb_destroy(cb2 + 1), -EINVAL);
	a = {};
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = cb;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), -EINVAL);
	// mmap: wrong size, unknown handle, not a CB offset.
	p = mmap(nullptr, 2 * kPage, PROT_READ, MAP_SHARED, d.fd(), (off_t)cb2);
	EXPECT_EQ(p, MAP_FAILED);
	p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, d.fd(), (off_t)cb);
	EXPECT_EQ(p, MAP_FAILED);
	p = mmap(nullptr, kPage, PROT_READ, MAP_SHARED, d.fd(), 0);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(d.cb_destroy(cb2), 0);
}

// A CB created with HL_CB_FLAGS_MAP is also mapped into the device's
// address space, as the driver's cb_map_mem() maps it: the queues run it
// by that address (the user-CB rule), the address is not the user's to
// unmap or export, and it goes with DESTROY.
TEST_F(Sim, MappedCbRunsByItsDeviceAddress)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	std::vector<uint32_t> host(kPage / 4, 0);
	uint64_t hva;
	ASSERT_EQ(d.map_host(host.data(), kPage, &hva), 0);

	hl_cb_args a{};
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = 100;
	a.in.flags = HL_CB_FLAGS_MAP;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), 0);
	uint64_t cb = a.out.cb_handle;
	EXPECT_EQ(stats()["mappings"], 2);
	auto *p = static_cast<uint32_t *>(mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
					       MAP_SHARED, d.fd(), (off_t)cb));
	ASSERT_NE(p, MAP_FAILED) << strerror(errno);
	// MSG_LONG: 0x600d to the first host word.
	const uint32_t w[4] = {0x600d,
			       (GAUDI2_PACKET_MSG_LONG << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
				       GAUDI2_PKT_CTL_MB_MASK,
			       static_cast<uint32_t>(hva), static_cast<uint32_t>(hva >> 32)};
	memcpy(p, w, sizeof(w));

	a = {};
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = cb;
	a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), 0);
	uint64_t dva = a.out.device_va;
	EXPECT_NE(dva, 0u);
	a = {};
	a.in.op = HL_CB_OP_INFO;
	a.in.cb_handle = cb;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), 0);
	EXPECT_EQ(a.out.usage_cnt, 0u);

	uint64_t seq;
	uint32_t st = ~0u;
	ASSERT_EQ(d.cs_one(dva, sizeof(w), &seq), 0);
	ASSERT_EQ(d.wait(seq, 30ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(host[0], 0x600du);
	// By its handle it is still a kernel CB, which no queue takes.
	hl_cs_chunk k{};
	k.cb_handle = cb;
	k.cb_size = sizeof(w);
	EXPECT_EQ(d.cs({k}, &seq), -EINVAL);

	hl_mem_args m{};
	m.in.op = HL_MEM_OP_UNMAP;
	m.in.unmap.device_virt_addr = dva;
	EXPECT_EQ(d.mem(&m), -EINVAL) << "the CB's address unmapped by the user";
	int fd;
	EXPECT_EQ(d.export_buf(dva, kPage, 0, &fd), -EINVAL);

	EXPECT_EQ(d.cb_destroy(cb), 0);
	EXPECT_EQ(stats()["mappings"], 1);
	EXPECT_EQ(d.cs_one(dva, sizeof(w), &seq), -EFAULT) << "run after DESTROY";
	munmap(p, kPage);
	EXPECT_EQ(d.unmap(hva), 0);

	// A mapped CB left to the close goes with the context.
	a = {};
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = 3 * kPage;
	a.in.flags = HL_CB_FLAGS_MAP;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CB, &a), 0);
}

// ---- CS / LIN_DMA -----------------------------------------------------------

TEST_F(Sim, LinDmaRoundTrip)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	const uint64_t n = 5 * kPage;
	DevBuf a(d, n), b(d, n);
	ASSERT_TRUE(a.ok() && b.ok());
	std::vector<uint8_t> host(n + 64), host2(n + 64);
	uint8_t *hp = host.data() + 7; // unaligned host buffer
	uint64_t hva, hva2;
	ASSERT_EQ(d.map_host(hp, n, &hva), 0);
	ASSERT_EQ(d.map_host(host2.data(), n, &hva2), 0);

	// device -> host: pattern written through the dma-buf mmap
	fill_pattern(a.data(), n, 11);
	std::vector<uint32_t> w;
	put_lin_dma(w, hva, a.va, n);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(check_pattern(hp, n, 11), -1);

	// host -> device
	fill_pattern(hp, n, 22);
	w.clear();
	put_lin_dma(w, b.va, hva, n);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(check_pattern(b.data(), n, 22), -1);

	// device -> device, several packets and NOPs, odd offsets/sizes
	// that cross pages
	memset(a.data(), 0, n);
	w.clear();
	put_nop(w);
	put_lin_dma(w, a.va + 3, b.va + 3, 2 * kPage + 5);
	put_nop(w);
	put_lin_dma(w, a.va + 3 * kPage, b.va + 3 * kPage, 0); // no-op
	put_lin_dma(w, a.va + 4 * kPage, b.va + 4 * kPage, kPage);
	ASSERT_EQ(d.run(w), 0);
	const uint8_t *pa = a.data(), *pb = b.data();
	for (uint64_t i = 0; i < n; i++) {
		bool copied = (i >= 3 && i < 3 + 2 * kPage + 5) ||
			      i >= 4 * kPage;
		ASSERT_EQ(pa[i], copied ? pb[i] : 0) << "byte " << i;
	}

	// device -> host via the second host buffer, then compare
	w.clear();
	put_lin_dma(w, hva2, b.va, n);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(memcmp(host2.data(), b.data(), n), 0);

	// Several chunks on different PDMA queues in one CS.
	memset(hp, 0, n);
	std::vector<uint32_t> w1, w2;
	put_lin_dma(w1, hva, b.va, kPage);
	put_lin_dma(w2, hva + kPage, b.va + kPage, kPage);
	uint64_t cb1, cb2, seq;
	ASSERT_EQ(d.cb_with(w1, &cb1), 0);
	ASSERT_EQ(d.cb_with(w2, &cb2), 0);
	hl_cs_chunk c[2] = {
		user_chunk(cb1, w1.size() * 4, GAUDI2_QUEUE_ID_PDMA_0_0),
		user_chunk(cb2, w2.size() * 4, GAUDI2_QUEUE_ID_PDMA_1_0),
	};
	ASSERT_EQ(d.cs({c[0], c[1]}, &seq, HL_CS_FLAGS_TIMESTAMP), 0);
	uint32_t st, fl;
	ASSERT_EQ(d.wait(seq, 10000000, &st, &fl), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	// Done or not when the wait came, a recent CS has its fence.
	EXPECT_EQ(fl, (uint32_t)HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	EXPECT_EQ(memcmp(hp, b.data(), 2 * kPage), 0);
	EXPECT_EQ(d.cb_free(cb1), 0);
	EXPECT_EQ(d.cb_free(cb2), 0);

	EXPECT_EQ(d.unmap(hva), 0);
	EXPECT_EQ(d.unmap(hva2), 0);
	EXPECT_EQ(a.release(), 0);
	EXPECT_EQ(b.release(), 0);
}

// LIN_DMA's ENDIAN field swaps the bytes of each 16-, 32- or 64-bit
// element (1, 2, 3), across page ends of source and destination.
TEST_F(Sim, LinDmaSwapsBytes)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	const size_t len = 3 * kPage;
	std::vector<uint8_t> src(len + 8), dst(len + 8);
	fill_pattern(src.data(), src.size(), 9);
	uint64_t sva, dva;
	ASSERT_EQ(d.map_host(src.data(), src.size(), &sva), 0);
	ASSERT_EQ(d.map_host(dst.data(), dst.size(), &dva), 0);
	for (uint32_t mode = 1; mode <= 3; mode++) {
		const size_t elem = size_t(1) << mode;
		const size_t n = len - 8;	// a multiple of every element
		std::fill(dst.begin(), dst.end(), 0);
		std::vector<uint32_t> w;
		put_lin_dma(w, dva + 5, sva + 3, n,
			    mode << GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT);
		ASSERT_EQ(d.run(w), 0) << "element " << elem;
		for (size_t i = 0; i < n; i++) {
			size_t from = 3 + (i / elem) * elem + (elem - 1 - i % elem);
			ASSERT_EQ(dst[5 + i], src[from]) << "element " << elem << " byte " << i;
		}
		EXPECT_EQ(dst[4], 0) << "written before the destination";
		EXPECT_EQ(dst[5 + n], 0) << "written past the destination";
	}
	EXPECT_EQ(d.unmap(sva), 0);
	EXPECT_EQ(d.unmap(dva), 0);
}

TEST_F(Sim, CsBadInputTouchesNothing)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, 2 * kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint8_t> host(2 * kPage, 0xcc);
	uint64_t hva;
	ASSERT_EQ(d.map_host(host.data(), host.size(), &hva), 0);
	fill_pattern(a.data(), 2 * kPage, 5);

	auto expect_cs = [&](const std::vector<uint32_t> &w, int err,
			     const char *what) {
		uint64_t cb, seq;
		ASSERT_EQ(d.cb_with(w, &cb), 0);
		EXPECT_EQ(d.cs_one(cb, w.size() * 4, &seq), err) << what;
		EXPECT_EQ(d.cb_free(cb), 0);
	};
	std::vector<uint32_t> w;
	w = {0, 0x1f << GAUDI2_PKT_CTL_OPCODE_SHIFT};
	expect_cs(w, -EINVAL, "unknown opcode");
	w = {0, GAUDI2_PACKET_REPEAT << GAUDI2_PKT_CTL_OPCODE_SHIFT, 0, 0};
	expect_cs(w, -EINVAL, "unsupported packet");
	w.clear();
	put_lin_dma(w, hva, a.va, 64);
	w.resize(4);
	expect_cs(w, -EINVAL, "truncated LIN_DMA");
	w.clear();
	put_lin_dma(w, hva, a.va, 64, GAUDI2_PKT_LIN_DMA_CTL_MEMSET_MASK);
	expect_cs(w, -EINVAL, "memset");
	w.clear();
	put_lin_dma(w, hva, a.va, 60, 3u << GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT);
	expect_cs(w, -EINVAL, "64-bit byte swap of a size not a multiple of 8");
	w.clear();
	put_lin_dma(w, hva, a.va, 64, 0x20);
	expect_cs(w, -EINVAL, "reserved ctl bit");
	w = {0, (GAUDI2_PACKET_NOP << GAUDI2_PKT_CTL_OPCODE_SHIFT) | 1};
	expect_cs(w, -EINVAL, "reserved NOP bit");
	w.clear();
	put_lin_dma(w, hva, a.va + 2 * kPage, 64);
	expect_cs(w, -EFAULT, "src just past its mapping");
	w.clear();
	put_lin_dma(w, hva, a.va + kPage, kPage + 1);
	expect_cs(w, -EFAULT, "src past the end of its mapping");
	w.clear();
	put_lin_dma(w, hva + 2 * kPage, a.va, 2 * kPage);
	expect_cs(w, -EFAULT, "dst past the pages of the userptr");
	w.clear();
	put_lin_dma(w, hva, 0x1000, 64);
	expect_cs(w, -EFAULT, "unmapped src");
	w.clear();
	put_lin_dma(w, 0xdead0000ull, a.va, 64);
	expect_cs(w, -EFAULT, "unmapped dst");
	w.clear();
	put_lin_dma(w, hva, a.va - 64, 128);
	expect_cs(w, -EFAULT, "src starts before the mapping");
	w.clear();
	put_lin_dma(w, hva, ~0ull - 10, 64);
	expect_cs(w, -EFAULT, "address wraps");
	w.clear();
	put_lin_dma(w, hva, a.va, 64);
	put_lin_dma(w, hva, a.va + 5 * kPage, 64);
	expect_cs(w, -EFAULT, "a good packet then a bad one: nothing runs");

	// Chunk and CS level errors.
	w.clear();
	put_lin_dma(w, hva, a.va, 64);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	uint32_t sz = w.size() * 4;
	EXPECT_EQ(d.cs_one(cb, sz, &seq, GAUDI2_QUEUE_ID_DCORE0_TPC_0_0), -EINVAL)
		<< "a queue of an engine the device lacks";
	EXPECT_EQ(d.cs_one(cb + (1000 << 12), sz, &seq), -EFAULT) << "unmapped CB";
	EXPECT_EQ(d.cs_one(cb, kPage + 8, &seq), -EFAULT) << "cb_size > CB";
	EXPECT_EQ(d.cs_one(cb, sz - 8, &seq), -EINVAL) << "cut packet";
	hl_cs_chunk c = user_chunk(cb, sz);
	hl_cs_chunk bad = c;
	bad.pad[9] = 1;
	EXPECT_EQ(d.cs({bad}, &seq), -EINVAL) << "chunk pad";
	bad = c;
	bad.cs_chunk_flags = 0;
	EXPECT_EQ(d.cs({bad}, &seq), -EINVAL) << "kernel CB";
	EXPECT_EQ(d.cs({}, &seq), -EINVAL) << "no chunks";
	std::vector<hl_cs_chunk> many(HL_MAX_JOBS_PER_CS + 1, c);
	EXPECT_EQ(d.cs(many, &seq), -EINVAL) << "too many chunks";
	EXPECT_EQ(d.cs({c}, &seq, HL_CS_FLAGS_ENCAP_SIGNALS), -EINVAL) << "flags";
	EXPECT_EQ(d.cs({c}, &seq, 0x80000000u), -EINVAL) << "unknown flag";
	hl_cs_args ca{};
	ca.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	ca.in.num_chunks_execute = 1;
	ca.in.pad[3] = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), -EINVAL) << "pad";
	ca.in.pad[3] = 0;
	ca.in.num_chunks_restore = HL_MAX_JOBS_PER_CS + 1;
	ca.in.chunks_restore = reinterpret_cast<uintptr_t>(&c);
	ca.in.cs_flags = HL_CS_FLAGS_FORCE_RESTORE;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), -EINVAL) << "too many restore chunks";
	ca.in.num_chunks_restore = 1;
	ca.in.chunks_restore = 16;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), -EFAULT) << "restore chunks ptr";
	ca.in.num_chunks_restore = 0;
	ca.in.cs_flags = 0;
	ca.in.chunks_execute = 16;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_CS, &ca), -EFAULT) << "chunks ptr";

	// CS on a CB that is no longer mapped.
	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(d.cs({c}, &seq), -EFAULT) << "freed CB";

	// Nothing of the above ran.
	for (uint8_t v : host)
		ASSERT_EQ(v, 0xcc);
	EXPECT_EQ(check_pattern(a.data(), 2 * kPage, 5), -1);
	EXPECT_EQ(stats()["command_submissions"], 0);

	// A CS after a failed one still works and gets the next sequence.
	w.clear();
	put_lin_dma(w, hva, a.va, 2 * kPage);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(memcmp(host.data(), a.data(), 2 * kPage), 0);

	// The memory behind a freed handle cannot be reached any more.
	DevBuf gone(d, kPage);
	ASSERT_TRUE(gone.ok());
	uint64_t gone_va = gone.va;
	EXPECT_EQ(gone.release(), 0);
	w.clear();
	put_lin_dma(w, hva, gone_va, 64);
	expect_cs(w, -EFAULT, "freed memory");

	EXPECT_EQ(d.unmap(hva), 0);
	EXPECT_EQ(a.release(), 0);
}

TEST_F(Sim, WaitCs)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint32_t st = 99, fl = 99;
	EXPECT_EQ(d.wait(1, 0, &st), -EINVAL) << "nothing submitted yet";
	EXPECT_EQ(d.wait(0, 0, &st), -EINVAL) << "seq 0";

	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va + 2048, a.va, 1024);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);

	// Slow the engine: a poll and a short wait see BUSY.
	set_cs_delay_ms(3000);
	ASSERT_EQ(d.cs_one(cb, w.size() * 4, &seq), 0);
	EXPECT_EQ(stats()["command_submissions"], 1);
	EXPECT_EQ(d.wait(seq, 0, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	EXPECT_EQ(d.wait(seq, 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	EXPECT_EQ(d.wait(seq + 1, 0, &st), -EINVAL) << "unknown sequence";
	EXPECT_EQ(d.wait(seq, 20 * 1000 * 1000, &st, &fl), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(fl & HL_WAIT_CS_STATUS_FLAG_GONE, 0u);
	set_cs_delay_ms(0);

	// A completed CS keeps its fence: waits answer as at completion.
	EXPECT_EQ(d.wait(seq, 0, &st, &fl), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(fl, 0u);
	EXPECT_EQ(stats()["command_submissions"], 0);

	// Sequence numbers grow by one per CS.
	uint64_t seq2;
	ASSERT_EQ(d.cs_one(cb, w.size() * 4, &seq2), 0);
	EXPECT_EQ(seq2, seq + 1);
	EXPECT_EQ(d.wait(seq2, 10000000, &st), 0);

	// Bad input.
	hl_wait_cs_args wa{};
	wa.in.seq = seq;
	wa.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), -EINVAL)
		<< "interrupt 0 is a decoder's, and no decoder is enabled";
	wa = {};
	wa.in.seq = seq;
	wa.in.flags = HL_WAIT_CS_FLAGS_MULTI_CS;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), -EPERM)
		<< "Gaudi2 has no multi-CS wait";
	wa = {};
	wa.in.seq = seq;
	wa.in.flags = 0x40;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), -EINVAL);
	wa = {};
	wa.in.seq = seq;
	wa.in.timestamp_offset = 8;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), -EINVAL);
	wa = {};
	wa.in.seq = seq;
	wa.in.pad[0] = 1;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), -EINVAL);

	// The legacy numbering works for CS and WAIT_CS too.
	hl_cs_chunk c = user_chunk(cb, w.size() * 4);
	hl_cs_args ca{};
	ca.in.chunks_execute = reinterpret_cast<uintptr_t>(&c);
	ca.in.num_chunks_execute = 1;
	ASSERT_EQ(xioctl(d.fd(), HL_LEGACY_IOCTL_CS, &ca), 0);
	wa = {};
	wa.in.seq = ca.out.seq;
	wa.in.timeout_us = 10000000;
	ASSERT_EQ(xioctl(d.fd(), HL_LEGACY_IOCTL_WAIT_CS, &wa), 0);
	EXPECT_EQ(wa.out.status, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);

	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(a.release(), 0);
}

// As the real driver: the last 64 CSs keep their fences, older
// timestamped ones an outcome that one wait takes, the rest are gone.
TEST_F(Sim, WaitCsOnOlderCompletedCs)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va + 2048, a.va, 1024);
	uint64_t cb;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	hl_cs_chunk c = user_chunk(cb, w.size() * 4);

	uint64_t plain, stamped, seq = 0;
	uint32_t st, fl;
	ASSERT_EQ(d.cs({c}, &plain), 0);
	ASSERT_EQ(d.cs({c}, &stamped, HL_CS_FLAGS_TIMESTAMP), 0);
	ASSERT_EQ(d.wait(stamped, 10000000, &st), 0);
	for (int i = 0; i < 63; i++) {
		ASSERT_EQ(d.cs({c}, &seq), 0);
		ASSERT_EQ(d.wait(seq, 10000000, &st), 0);
	}
	// stamped + 63 == seq: still among the last 64, any number of waits.
	hl_wait_cs_args wa{};
	for (int i = 0; i < 2; i++) {
		wa = {};
		wa.in.seq = stamped;
		ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), 0);
		EXPECT_EQ(wa.out.status, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
		EXPECT_EQ(wa.out.flags,
			  (uint32_t)HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	}
	uint64_t ts = wa.out.timestamp_nsec;
	EXPECT_GT(ts, 0u);
	EXPECT_EQ(d.wait(plain, 0, &st, &fl), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(fl, (uint32_t)HL_WAIT_CS_STATUS_FLAG_GONE) << "65 CSs ago";

	// One more CS: the timestamped one answers once from its outcome.
	ASSERT_EQ(d.cs({c}, &seq), 0);
	ASSERT_EQ(d.wait(seq, 10000000, &st), 0);
	wa = {};
	wa.in.seq = stamped;
	ASSERT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &wa), 0);
	EXPECT_EQ(wa.out.status, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(wa.out.flags, (uint32_t)HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD);
	EXPECT_EQ(wa.out.timestamp_nsec, ts);
	EXPECT_EQ(d.wait(stamped, 0, &st, &fl), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(fl, (uint32_t)HL_WAIT_CS_STATUS_FLAG_GONE) << "taken";

	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(a.release(), 0);
}

// One CS may hold at most 65536 distinct commands in kernel memory; a run
// of the same LIN_DMA is one of them however long, and runs as often as
// the CB repeats it.
TEST_F(Sim, CsPacketLimit)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	for (int i = 0; i < 65536; i++)
		put_lin_dma(w, a.va + 2048 + i % 1024, a.va + i % 1024, 1);
	fill_pattern(a.data(), 1024, 4);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(memcmp(a.data() + 2048, a.data(), 1024), 0);
	put_lin_dma(w, a.va + 2048, a.va, 1);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	EXPECT_EQ(d.cs_one(cb, w.size() * 4, &seq), -EINVAL);
	// The same packets split over two chunks count together.
	hl_cs_chunk c = user_chunk(cb, 40000 * 24);
	EXPECT_EQ(d.cs({c, c}, &seq), -EINVAL);
	EXPECT_EQ(d.cb_free(cb), 0);

	// 100001 times the same in-place swap of 16-bit elements (an odd
	// number: swapped), NOPs between some; then, after another command,
	// 100000 times (even: as it was).  Three commands in all.
	std::vector<uint32_t> r;
	const uint32_t swap16 = 1u << GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT;
	for (int i = 0; i < 100001; i++) {
		put_lin_dma(r, a.va + 3072, a.va + 3072, 8, swap16);
		if (i % 1000 == 0)
			put_nop(r);
	}
	put_lin_dma(r, a.va + 3584, a.va + 3072, 8);
	for (int i = 0; i < 100000; i++)
		put_lin_dma(r, a.va + 3072, a.va + 3072, 8, swap16);
	const uint8_t orig[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	const uint8_t swapped[8] = {2, 1, 4, 3, 6, 5, 8, 7};
	memcpy(a.data() + 3072, orig, 8);
	ASSERT_EQ(d.run(r), 0);
	EXPECT_EQ(memcmp(a.data() + 3584, swapped, 8), 0)
		<< "the first run was not repeated 100001 times";
	EXPECT_EQ(memcmp(a.data() + 3072, swapped, 8), 0)
		<< "the second run was not repeated 100000 times";
	EXPECT_EQ(a.release(), 0);
}

// A run of the same copy between pages that do not overlap gives the
// same bytes once as a thousand times, so it runs once: a bandwidth
// test's CS of 819 GB completes well within a 20 s timeout.  Identity
// is the pages: the same host page mapped at two device addresses is
// one page, and an in-place swap through the two runs every time (an
// even count leaves it as it was).
TEST_F(Sim, RepeatedCopiesBetweenDistinctPagesRunOnce)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, 8 << 20);
	ASSERT_TRUE(a.ok());
	fill_pattern(a.data(), 4 << 20, 12);
	std::vector<uint32_t> w;
	for (int i = 0; i < 200000; i++)
		put_lin_dma(w, a.va + (4 << 20), a.va, 4 << 20);
	uint64_t cb;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	uint64_t seq;
	ASSERT_EQ(d.cs({user_chunk(cb, static_cast<uint32_t>(w.size() * 4))}, &seq, 0, 20), 0);
	uint32_t st = ~0u;
	EXPECT_EQ(d.wait(seq, 60ull * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(check_pattern(a.data() + (4 << 20), 4 << 20, 12), -1);
	EXPECT_EQ(d.cb_free(cb), 0);

	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	const uint8_t orig[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	memcpy(p, orig, 8);
	uint64_t va1, va2;
	ASSERT_EQ(d.map_host(p, kPage, &va1), 0);
	ASSERT_EQ(d.map_host(p, kPage, &va2), 0);
	ASSERT_NE(va1, va2);
	std::vector<uint32_t> r;
	const uint32_t swap16 = 1u << GAUDI2_PKT_LIN_DMA_CTL_ENDIAN_SHIFT;
	for (int i = 0; i < 1000; i++)
		put_lin_dma(r, va2, va1, 8, swap16);
	ASSERT_EQ(d.run(r), 0);
	EXPECT_EQ(memcmp(p, orig, 8), 0) << "swapped 1000 times through two mappings";
	EXPECT_EQ(d.unmap(va1), 0);
	EXPECT_EQ(d.unmap(va2), 0);
	munmap(p, kPage);
	EXPECT_EQ(a.release(), 0);
}

// The device sees a userptr mapping's whole pages, as the MMU maps them:
// bytes before and after the range the user named, in its first and last
// page, are reached too (hl-thunk's dma_perf runs a CB a few bytes past
// its allocation); the next page is not.
TEST_F(Sim, UserptrMappingCoversWholePages)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	void *p = mmap(nullptr, 3 * kPage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	uint8_t *page = static_cast<uint8_t *>(p) + kPage;
	fill_pattern(page, kPage, 44);
	uint64_t va;
	ASSERT_EQ(d.map_host(page + 100, 200, &va), 0);
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va, va - 100, kPage);		// the whole page
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(check_pattern(a.data(), kPage, 44), -1);
	w.clear();
	put_lin_dma(w, a.va, va - 101, 8);		// the page before
	EXPECT_EQ(d.run(w), -EFAULT);
	w.clear();
	put_lin_dma(w, a.va, va - 100 + kPage - 4, 8);	// into the next
	EXPECT_EQ(d.run(w), -EFAULT);
	EXPECT_EQ(d.unmap(va), 0);
	munmap(p, 3 * kPage);
	EXPECT_EQ(a.release(), 0);
}

// A long CB is read in windows (64 KiB) at submission: a bad packet far
// into it, one cut by the CB's end, and one straddling a window's end are
// found as in a short CB, and nothing runs; a STOP far into it ends it.
TEST_F(Sim, LongCbIsCheckedToItsEnd)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	fill_pattern(a.data(), 2048, 9);
	memset(a.data() + 2048, 0, 2048);
	// 10000 distinct copies (240000 bytes: four windows), then the tail.
	auto body = [&] {
		std::vector<uint32_t> w;
		for (int i = 0; i < 10000; i++)
			put_lin_dma(w, a.va + 2048 + i % 2048, a.va + i % 2048, 1);
		return w;
	};
	auto submit = [&](const std::vector<uint32_t> &w) {
		uint64_t cb, seq;
		uint32_t st = 0;
		EXPECT_EQ(d.cb_with(w, &cb), 0);
		int rc = d.cs_one(cb, w.size() * 4, &seq);
		if (!rc)
			rc = d.wait(seq, 30ull * 1000 * 1000, &st);
		EXPECT_EQ(d.cb_free(cb), 0);
		return rc ? rc : (st == HL_WAIT_CS_STATUS_COMPLETED ? 0 : -ETIME);
	};
	std::vector<uint32_t> w = body();
	w.push_back(0);
	w.push_back(0x1f << GAUDI2_PKT_CTL_OPCODE_SHIFT);
	EXPECT_EQ(submit(w), -EINVAL) << "unknown opcode at the end";
	w = body();
	put_lin_dma(w, a.va + 2048, a.va, 8);
	w.resize(w.size() - 2);
	EXPECT_EQ(submit(w), -EINVAL) << "LIN_DMA cut by the CB's end";
	for (uint8_t v : std::vector<uint8_t>(a.data() + 2048, a.data() + 4096))
		ASSERT_EQ(v, 0) << "a refused CS ran";
	// 2730 LIN_DMAs end 16 bytes before the first window's end: the next
	// one straddles it.  A bad ctl bit there is found.
	const uint32_t extras[] = {GAUDI2_PKT_LIN_DMA_CTL_MEMSET_MASK, 0};
	for (uint32_t extra : extras) {
		w.clear();
		for (int i = 0; i < 2730; i++)
			put_lin_dma(w, a.va + 2048 + i % 2048, a.va + i % 2048, 1);
		put_lin_dma(w, a.va + 2048, a.va, 1, extra);
		for (int i = 0; i < 100; i++)
			put_lin_dma(w, a.va + 2048 + i, a.va + i, 1);
		EXPECT_EQ(submit(w), extra ? -EINVAL : 0)
			<< "LIN_DMA straddling a window's end, ctl " << extra;
	}
	w = body();
	w.push_back(0);
	w.push_back(GAUDI2_PACKET_STOP << GAUDI2_PKT_CTL_OPCODE_SHIFT);
	w.push_back(0);
	w.push_back(0x1f << GAUDI2_PKT_CTL_OPCODE_SHIFT);
	EXPECT_EQ(submit(w), 0) << "STOP far into the CB: the rest is not read";
	EXPECT_EQ(memcmp(a.data() + 2048, a.data(), 2048), 0);
	EXPECT_EQ(a.release(), 0);
}

static void on_sigusr1(int) {}

TEST_F(Sim, InflightLimitAndInterruptedWait)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va + 64, a.va, 64);
	uint64_t cb, seq = 0, first = 0;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	set_cs_delay_ms(60 * 1000);

	// At most 64 CSs in flight per context (Gaudi2), then EAGAIN.
	int rc = 0, accepted = 0;
	while (accepted < 1000) {
		rc = d.cs_one(cb, w.size() * 4, &seq);
		if (rc)
			break;
		if (!accepted)
			first = seq;
		accepted++;
	}
	EXPECT_EQ(rc, -EAGAIN);
	EXPECT_EQ(accepted, 64);
	EXPECT_EQ(stats()["command_submissions"], 64);

	// A signal ends a wait with EINTR.
	struct sigaction sa{}, old{};
	sa.sa_handler = on_sigusr1;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
	std::atomic<int> wait_rc{1};
	uint32_t st;
	std::thread t([&] { wait_rc = d.wait(first, 30ull * 1000 * 1000, &st); });
	// Signal until the wait returns: a signal that arrives before the
	// thread is inside the ioctl only runs the handler.
	while (wait_rc == 1) {
		pthread_kill(t.native_handle(), SIGUSR1);
		usleep(100 * 1000);
	}
	t.join();
	sigaction(SIGUSR1, &old, nullptr);
	EXPECT_EQ(wait_rc.load(), -EINTR);

	// Closing the device aborts all 64 at once (not 64 minutes).
	EXPECT_EQ(d.cb_free(cb), 0);
	a.release_host();
	auto t0 = std::chrono::steady_clock::now();
	d.close_fd();
	a.va = a.handle = 0;  // they went with the device fd
	auto secs = std::chrono::duration_cast<std::chrono::seconds>(
		std::chrono::steady_clock::now() - t0).count();
	EXPECT_LT(secs, 20);
}

// A submitter to a full context sleeps a little for room before EAGAIN,
// and a CS that completes meanwhile makes room for it.  The emulated
// engine is a CPU: hl-thunk retries EAGAIN at once, and submitters that
// returned at once would spin and take that CPU from the engine.
TEST_F(Sim, FullContextSubmitterSleepsForRoom)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, kPage);
	ASSERT_TRUE(a.ok());
	std::vector<uint32_t> w;
	put_lin_dma(w, a.va + 64, a.va, 64);
	uint64_t cb, seq = 0;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	// Each CS waits this long before it runs, one after another.
	set_cs_delay_ms(300);
	int accepted = 0;
	while (accepted < 64 && d.cs_one(cb, w.size() * 4, &seq) == 0)
		accepted++;
	ASSERT_EQ(accepted, 64);

	// The first CS completes 300 ms after it was submitted: until then
	// each attempt sleeps about 20 ms before its EAGAIN, so a retry loop
	// makes a few attempts, not thousands.
	auto t0 = std::chrono::steady_clock::now();
	int refused = 0, rc;
	while ((rc = d.cs_one(cb, w.size() * 4, &seq)) == -EAGAIN && refused < 100000)
		refused++;
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - t0).count();
	EXPECT_EQ(rc, 0);
	EXPECT_LT(refused, 100) << "in " << ms << " ms";
	if (refused) {
		EXPECT_GE(ms / refused, 10) << refused << " attempts in " << ms << " ms";
	}

	// Closing aborts the rest at once.
	EXPECT_EQ(d.cb_free(cb), 0);
	a.release_host();
	d.close_fd();
	a.va = a.handle = 0;
}

TEST_F(Sim, UnmapDuringInflightCsIsSafe)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf a(d, 4 * kPage);
	ASSERT_TRUE(a.ok());
	fill_pattern(a.data(), 4 * kPage, 9);
	std::vector<uint8_t> host(4 * kPage);
	uint64_t hva;
	ASSERT_EQ(d.map_host(host.data(), host.size(), &hva), 0);
	std::vector<uint32_t> w;
	put_lin_dma(w, hva, a.va, 4 * kPage);
	uint64_t cb, seq;
	ASSERT_EQ(d.cb_with(w, &cb), 0);
	// Long enough for the steps below even on a loaded host.
	set_cs_delay_ms(3000);
	ASSERT_EQ(d.cs_one(cb, w.size() * 4, &seq), 0);
	// Pull everything away under the CS: it holds its own references.
	EXPECT_EQ(d.cb_free(cb), 0);
	EXPECT_EQ(d.unmap(hva), 0);
	EXPECT_EQ(a.release(), 0);
	EXPECT_GE(stats()["buffer_objects"], 2);
	uint32_t st;
	EXPECT_EQ(d.wait(seq, 20 * 1000 * 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	// The pinned host pages were written even though unmapped.
	EXPECT_EQ(check_pattern(host.data(), 4 * kPage, 9), -1);
}

// ---- process death ---------------------------------------------------------

static int send_fd(int sock, int fd)
{
	char c = 'x';
	struct iovec iov = {&c, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u{};
	struct msghdr msg{};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec iov = {&c, 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u{};
	struct msghdr msg{};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

// The child owns a device with everything live, hands one dma-buf to the
// parent and is killed with a CS in flight.
TEST_F(Sim, ProcessDeathReleasesEverything)
{
	int sv[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	const uint64_t n = 16 * kPage;
	set_cs_delay_ms(60 * 1000);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		Dev d(0);
		uint64_t h, va, h2, va2, hva, cb, kcb, seq;
		int fd, fd2;
		if (d.fd() < 0 || d.alloc_map(n, &h, &va) ||
		    d.alloc_map(n, &h2, &va2) ||
		    d.export_buf(va, n, 0, &fd) ||
		    d.export_buf(va2, kPage, kPage, &fd2))
			_exit(10);
		Mapping m(fd, n);
		if (!m.ok())
			_exit(11);
		fill_pattern(m.data(), n, 77);
		void *host = mmap(nullptr, n, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (host == MAP_FAILED || d.map_host(host, n, &hva))
			_exit(12);
		std::vector<uint32_t> w;
		put_lin_dma(w, hva, va, n);
		put_lin_dma(w, va2, va, n);
		if (d.cb_with(w, &cb) || d.cb_create(kPage, &kcb))
			_exit(13);
		void *cbp = mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
				 MAP_SHARED, d.fd(), (off_t)kcb);
		if (cbp == MAP_FAILED)
			_exit(14);
		if (d.cs_one(cb, w.size() * 4, &seq))
			_exit(15);
		if (send_fd(sv[1], fd))
			_exit(16);
		char c;
		// wait to be killed
		while (read(sv[1], &c, 1) != 0)
			;
		_exit(17);
	}
	close(sv[1]);
	int dfd = recv_fd(sv[0]);
	ASSERT_GE(dfd, 0) << "child failed";
	auto s = stats();
	EXPECT_EQ(s["contexts"], 1);
	EXPECT_EQ(s["command_submissions"], 1);
	EXPECT_EQ(s["userptrs"], 2) << "the host buffer and the CB";
	EXPECT_EQ(s["dmabufs"], 2);
	EXPECT_EQ(s["command_buffers"], 1);
	EXPECT_EQ(sysfs_attr(0, "in_use"), "1");

	ASSERT_EQ(kill(pid, SIGKILL), 0);
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
	close(sv[0]);
	set_cs_delay_ms(0);

	// As on the real driver, the dma-buf we hold keeps the dead owner's
	// compute file, so its context lives on (and the device stays taken)
	// until the dma-buf goes; the other dma-buf died with the child.
	s = stats();
	EXPECT_EQ(s["contexts"], 1);
	EXPECT_EQ(s["dmabufs"], 1);
	EXPECT_EQ(sysfs_attr(0, "in_use"), "1");
	{
		Mapping m(dfd, n, PROT_READ);
		ASSERT_TRUE(m.ok());
		EXPECT_EQ(check_pattern(m.data(), n, 77), -1)
			<< "the dma-buf outlives its exporter";
	}
	{
		Dev busy(0);
		EXPECT_EQ(busy.open_errno(), EBUSY);
	}
	// The last reference: the in-flight CS is aborted (the 60 s delay
	// does not elapse) and the context and all it owned are gone.
	close(dfd);
	s = stats();
	EXPECT_EQ(s["contexts"], 0);
	EXPECT_EQ(s["command_submissions"], 0);
	EXPECT_EQ(s["userptrs"], 0);
	EXPECT_EQ(s["mappings"], 0);
	EXPECT_EQ(s["allocations"], 0);
	EXPECT_EQ(s["command_buffers"], 0);
	EXPECT_EQ(s["dmabufs"], 0);
	EXPECT_EQ(s["buffer_objects"], 0);
	EXPECT_EQ(sysfs_attr(0, "in_use"), "0");
	EXPECT_EQ(sysfs_attr(0, "memory_used"), "0");
	Dev again(0);
	EXPECT_GE(again.fd(), 0) << "device reusable after the owner died";
}

// Killed while the engine is copying (no artificial delay): the copy
// stops early or completes, and everything is released either way.
TEST_F(Sim, KillDuringLargeCopy)
{
	int sv[2];
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	const uint64_t n = std::min<uint64_t>(24ull << 20, memory_size(0) / 3);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		Dev d(0);
		uint64_t h1, va1, h2, va2, cb, seq;
		if (d.fd() < 0 || d.alloc_map(n, &h1, &va1) ||
		    d.alloc_map(n, &h2, &va2))
			_exit(10);
		std::vector<uint32_t> w;
		put_lin_dma(w, va2, va1, static_cast<uint32_t>(n));
		put_lin_dma(w, va1, va2, static_cast<uint32_t>(n));
		if (d.cb_with(w, &cb))
			_exit(11);
		for (int i = 0; i < 8; i++)
			if (d.cs_one(cb, w.size() * 4, &seq))
				_exit(12);
		char c = 'r';
		if (write(sv[1], &c, 1) != 1)
			_exit(13);
		pause();
		_exit(14);
	}
	close(sv[1]);
	char c;
	ASSERT_EQ(read(sv[0], &c, 1), 1) << "child failed";
	// Whether the copies are still running now depends on the speed of
	// the guest: both outcomes must release everything.
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status));
	close(sv[0]);
	EXPECT_EQ(sysfs_attr(0, "memory_used"), "0");
}

// A process that exits normally without cleaning up anything.
TEST_F(Sim, ExitWithoutCleanup)
{
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		Dev *d = new Dev(0);
		uint64_t h, va, cb, seq;
		int fd;
		std::vector<uint8_t> *buf = new std::vector<uint8_t>(8 * kPage);
		uint64_t hva;
		if (d->fd() < 0 || d->alloc_map(8 * kPage, &h, &va) ||
		    d->export_buf(va, 8 * kPage, 0, &fd) ||
		    d->map_host(buf->data(), buf->size(), &hva))
			_exit(1);
		std::vector<uint32_t> w;
		put_lin_dma(w, hva, va, 8 * kPage);
		if (d->cb_with(w, &cb) || d->cs_one(cb, w.size() * 4, &seq))
			_exit(2);
		_exit(0); // everything still open and mapped
	}
	int status;
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	// TearDown checks that every counter is back to zero.
}

// ---- stress ----------------------------------------------------------------

static int stress_worker(int dev, int iters, uint32_t seed)
{
	Dev d(dev);
	if (d.fd() < 0)
		return 1;
	std::vector<uint8_t> host(64 * kPage);
	uint64_t hva;
	if (d.map_host(host.data(), host.size(), &hva))
		return 2;
	uint32_t r = seed;
	auto rnd = [&r]() {
		r = r * 1103515245u + 12345u;
		return r >> 8;
	};
	for (int i = 0; i < iters; i++) {
		uint64_t pages = 1 + rnd() % 64, h, va;
		uint64_t n = pages * kPage;
		if (d.alloc_map(n, &h, &va))
			return 3;
		uint64_t off = (rnd() % pages) * kPage;
		uint64_t len = n - off;
		int fd;
		if (d.export_buf(va, len, off, &fd))
			return 4;
		{
			Mapping m(fd, len);
			if (!m.ok())
				return 5;
			m.data()[0] = static_cast<uint8_t>(i);
			m.data()[len - 1] = static_cast<uint8_t>(i + 1);
			if (i % 8 == 0) {
				std::vector<uint32_t> w;
				put_lin_dma(w, hva, va + off, len);
				if (d.run(w))
					return 6;
				if (host[0] != static_cast<uint8_t>(i) ||
				    host[len - 1] != static_cast<uint8_t>(i + 1))
					return 7;
			}
		}
		// Exported memory cannot be unmapped (real driver semantics):
		// alternate between trying first and closing the dma-buf first.
		if (!(i & 1) && d.unmap(va) != -EINVAL)
			return 8;
		close(fd);
		if (d.unmap(va) || d.free_handle(h))
			return 8;
	}
	return d.unmap(hva) ? 9 : 0;
}

// Threads of one process share a context: its locking under contention,
// with one more thread throwing invalid handles and addresses at it.
TEST_F(Sim, StressThreadsShareOneContext)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	const int kThreads = 4, kIters = 100;
	std::atomic<bool> stop{false};
	std::atomic<int> failures{0};
	auto worker = [&](int id) {
		std::vector<uint8_t> host(8 * kPage);
		uint64_t hva;
		if (d.map_host(host.data(), host.size(), &hva)) {
			failures++;
			return;
		}
		for (int i = 0; i < kIters; i++) {
			uint64_t h, va, n = (1 + (i + id) % 8) * kPage;
			int fd;
			if (d.alloc_map(n, &h, &va) ||
			    d.export_buf(va, n, 0, &fd)) {
				failures++;
				break;
			}
			{
				Mapping m(fd, n);
				if (!m.ok()) {
					failures++;
				} else {
					m.data()[n - 1] = static_cast<uint8_t>(i + id);
					std::vector<uint32_t> w;
					put_lin_dma(w, hva, va + n - 1, 1);
					if (d.run(w) || host[0] != m.data()[n - 1])
						failures++;
				}
			}
			close(fd);
			if (d.unmap(va) || d.free_handle(h))
				failures++;
		}
		if (d.unmap(hva))
			failures++;
	};
	auto vandal = [&]() {
		uint32_t r = 99;
		while (!stop) {
			r = r * 1103515245u + 12345u;
			// Never valid: handles and CB ids far above those
			// in use, unaligned VAs, sequences not issued yet.
			uint64_t x = (1u << 20) + r % 64, seq;
			uint32_t st;
			if (d.free_handle(x) != -EINVAL ||
			    d.unmap(SIM_VA_GUESS + x * kPage + 1) != -EINVAL ||
			    d.cs_one((x | (2ull << 47)) << 12, 24, &seq) !=
				    -EFAULT ||
			    d.wait(1ull << 40, 0, &st) != -EINVAL)
				failures++;
		}
	};
	std::vector<std::thread> ts;
	for (int i = 0; i < kThreads; i++)
		ts.emplace_back(worker, i);
	std::thread v(vandal);
	for (auto &t : ts)
		t.join();
	stop = true;
	v.join();
	EXPECT_EQ(failures.load(), 0);
}

TEST_F(Sim, StressProcessesPerDevice)
{
	int ndev = std::min(num_devices(), 4);
	int iters = 1000;
	if (const char *e = getenv("HL_SIM_STRESS_ITERS"))
		iters = atoi(e);
	std::vector<pid_t> pids;
	for (int i = 0; i < ndev; i++) {
		pid_t pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(stress_worker(i, iters, 1234 + i));
		pids.push_back(pid);
	}
	for (size_t i = 0; i < pids.size(); i++) {
		int status;
		ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0) << "worker " << i;
	}
	for (int i = 0; i < ndev; i++)
		EXPECT_EQ(sysfs_attr(i, "memory_used"), "0");
}

} // namespace
