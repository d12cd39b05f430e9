// SPDX-License-Identifier: GPL-2.0
// A Gaudi host as it is (pci_memory=1, run-vm --gaudi-host): each device
// is a PCI function whose BAR holds its memory, exported as the
// habanalabs driver exports it: peer to peer only, no CPU mapping.  On
// Debian's kernels (no CONFIG_PCI_P2PDMA) every importer is refused.
// The tests skip unless HL_GAUDI_HOST says the devices are such functions.
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim_util.h"
#include "vgem.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;

class GaudiHost : public LeakCheckedTest {
protected:
	void SetUp() override
	{
		if (!getenv("HL_GAUDI_HOST"))
			GTEST_SKIP() << "not a Gaudi-host guest (run-vm --gaudi-host)";
		LeakCheckedTest::SetUp();
	}
};

std::string link_target(const std::string &path)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path.c_str(), buf, sizeof(buf) - 1);
	if (n < 0)
		return "";
	buf[n] = 0;
	return buf;
}

// Host memory mapped into the device: what LIN_DMAs read and write.
struct HostBuf {
	HostBuf(Dev &d, size_t len) : d(d), len(len)
	{
		void *m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (m == MAP_FAILED)
			return;
		p = static_cast<uint8_t *>(m);
		if (d.map_host(p, len, &va))
			va = 0;
	}
	~HostBuf()
	{
		if (va)
			d.unmap(va);
		if (p)
			munmap(p, len);
	}
	bool ok() const { return p && va; }
	Dev &d;
	size_t len;
	uint8_t *p = nullptr;
	uint64_t va = 0;
};

}  // namespace

// The devices are the PCI functions: bus id and sysfs parent (and so the
// NUMA node a user finds there) are the function's, and the memory is its
// BAR.
TEST_F(GaudiHost, DevicesArePciFunctions)
{
	const int n = num_devices();
	ASSERT_EQ(n, atoi(getenv("HL_GAUDI_HOST")));
	for (int i = 0; i < n; i++) {
		const std::string bus = sysfs_attr(i, "pci_addr");
		const std::string dev = "/sys/class/habanalabs_sim/hlsim" + std::to_string(i) + "/device";
		EXPECT_EQ(link_target(dev).substr(link_target(dev).rfind('/') + 1), bus);
		EXPECT_EQ(read_file(dev + "/vendor"), "0x1af4") << "an ivshmem-plain function";
		EXPECT_EQ(read_file(dev + "/device"), "0x1110");
		// The device's memory is BAR 2: its size, as HW_IP_INFO says.
		const std::string res = read_file(dev + "/resource");
		unsigned long long start = 0, end = 0, flags = 0;
		size_t line = 0, pos = 0;
		for (; line < 2; line++)
			pos = res.find('\n', pos) + 1;
		ASSERT_EQ(sscanf(res.c_str() + pos, "%llx %llx %llx", &start, &end, &flags), 3);
		int fd = open(control_path(i).c_str(), O_RDONLY);
		ASSERT_GE(fd, 0);
		hl_info_hw_ip_info hw{};
		ASSERT_EQ(hw_ip_info(fd, &hw), 0);
		close(fd);
		EXPECT_EQ(hw.dram_size, end - start + 1);
		EXPECT_EQ(memory_size(i), end - start + 1);
	}
}

// The four operations of the driver's exporter: no mmap of the fd.
TEST_F(GaudiHost, ExportHasNoCpuMapping)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va;
	int fd;
	ASSERT_EQ(d.alloc_map(4 * kPage, &h, &va), 0);
	ASSERT_EQ(d.export_buf(va, 4 * kPage, 0, &fd), 0);
	for (int flags : {MAP_SHARED, MAP_PRIVATE}) {
		errno = 0;
		EXPECT_EQ(mmap(nullptr, 4 * kPage, PROT_READ, flags, fd, 0), MAP_FAILED);
		EXPECT_EQ(errno, EINVAL);
	}
	EXPECT_EQ(stats()["dmabuf_vmaps"], 0);
	close(fd);
}

// An importer that is not peer to peer (vgem's PRIME import attaches
// statically) is refused at map with the driver's EPERM, and nothing of
// the attachment stays.
TEST_F(GaudiHost, ImporterWithoutPeerToPeerRefused)
{
	int vgem = hlipc::open_vgem();
	if (vgem < 0 && !getenv("HL_SIM_REQUIRE_VGEM"))
		GTEST_SKIP() << "vgem not loaded";
	ASSERT_GE(vgem, 0);
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h, va;
	int fd;
	ASSERT_EQ(d.alloc_map(4 * kPage, &h, &va), 0);
	ASSERT_EQ(d.export_buf(va, 4 * kPage, 0, &fd), 0);
	uint32_t handle = 0;
	EXPECT_EQ(hlipc::vgem_import(vgem, fd, &handle), -EPERM);
	EXPECT_EQ(stats()["dmabuf_attachments_mapped"], 0);
	close(fd);
	close(vgem);
}

// The device's DMA engine reaches its memory: host to device, device to
// device, device to host, and the bytes arrive.
TEST_F(GaudiHost, DeviceMemoryMovesByDma)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	constexpr uint64_t kLen = 256 * kPage + 100;
	HostBuf in(d, 257 * kPage), out(d, 257 * kPage);
	ASSERT_TRUE(in.ok() && out.ok());
	fill_pattern(in.p, kLen, 41);
	uint64_t h1, va1, h2, va2;
	ASSERT_EQ(d.alloc_map(2 << 20, &h1, &va1), 0);
	ASSERT_EQ(d.alloc_map(2 << 20, &h2, &va2), 0);
	std::vector<uint32_t> w;
	put_lin_dma(w, va1 + 7, in.va, kLen);
	put_lin_dma(w, va2 + 3, va1 + 7, kLen);
	put_lin_dma(w, out.va, va2 + 3, kLen);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(check_pattern(out.p, kLen, 41), -1);
}

// Memory is the BAR's, given out zeroed, up to the BAR's size; 2 MiB
// pages come aligned.
TEST_F(GaudiHost, AllocationsAreZeroedAndBounded)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	const uint64_t size = memory_size(0);
	HostBuf out(d, 4 * kPage);
	ASSERT_TRUE(out.ok());
	uint64_t h, va, extra;
	ASSERT_EQ(d.alloc(size, &h), 0) << "the whole BAR";
	EXPECT_EQ(d.alloc(kPage, &extra), -ENOMEM) << "nothing past it";
	ASSERT_EQ(d.map(h, &va), 0);
	// Dirty the end of it, free it, and take it again.
	std::vector<uint32_t> w;
	HostBuf in(d, 4 * kPage);
	ASSERT_TRUE(in.ok());
	memset(in.p, 0xa5, 4 * kPage);
	put_lin_dma(w, va + size - 4 * kPage, in.va, 4 * kPage);
	ASSERT_EQ(d.run(w), 0);
	ASSERT_EQ(d.unmap(va), 0);
	ASSERT_EQ(d.free_handle(h), 0);
	ASSERT_EQ(d.alloc(size, &h, 2 << 20), 0) << "2 MiB pages fit the whole BAR";
	ASSERT_EQ(d.map(h, &va), 0);
	w.clear();
	put_lin_dma(w, out.va, va + size - 4 * kPage, 4 * kPage);
	ASSERT_EQ(d.run(w), 0);
	for (uint64_t i = 0; i < 4 * kPage; i++)
		ASSERT_EQ(out.p[i], 0) << "byte " << i << " of a fresh allocation";
	ASSERT_EQ(d.unmap(va), 0);
	ASSERT_EQ(d.free_handle(h), 0);
}
