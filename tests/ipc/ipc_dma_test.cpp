// SPDX-License-Identifier: GPL-2.0
// The DMA engine (hl_ipc_dma.c), with the stand-in engine hl_ipc_testdma
// on QEMU's edu function (run-vm --dma-engine): copies of every kind of
// memory through it (engine=dma), a descriptor that fails, an engine that
// stalls past dma_timeout_ms, a copier killed, a region deregistered and
// the engine unbound in the middle of copies, many channels at once.
// Every copy ends with a clear error and nothing is written after it.
//
// P2p: device memory that only a PCI function can reach (habanalabs_sim
// pci_memory=1, run-vm --gaudi-host): copied device to device by the
// engine where the kernel allows peer to peer (CONFIG_PCI_P2PDMA, and
// the functions behind one switch: run-vm --p2p-switch), refused at
// registration with EOPNOTSUPP where it does not.
#include <gtest/gtest.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "habanalabs_abi.h"
#include "ipc_util.h"
#include "sim_buffer.h"
#include "sim_counters.h"
#include "sim_device_memory.h"
#include "test_exporter.h"

using namespace hlipc;
using hltest::SimDeviceMemory;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr size_t MiB = 1 << 20;
const std::string kEngineDir = "/sys/module/hl_ipc_testdma/";
const std::string kDriverDir = "/sys/bus/pci/drivers/hl_ipc_testdma/";

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::string s;
	std::getline(f, s);
	return s;
}

bool write_file(const std::string &path, const std::string &v)
{
	std::ofstream f(path);
	f << v;
	f.flush();
	return f.good();
}

std::string engine_line()
{
	return read_file("/sys/class/misc/hl_ipc/engine/dma");
}

// A parameter of the stand-in engine, for the lifetime of the object.
class EngineParam {
public:
	EngineParam(const char *name, const std::string &v)
		: path_(kEngineDir + "parameters/" + name), old_(read_file(path_))
	{
		write_file(path_, v);
	}
	~EngineParam() { write_file(path_, old_); }
	EngineParam(const EngineParam &) = delete;
	EngineParam &operator=(const EngineParam &) = delete;

private:
	std::string path_, old_;
};

// The PCI function the stand-in engine is bound to, or "".
std::string engine_function()
{
	std::string fn;
	DIR *d = opendir(kDriverDir.c_str());
	if (!d)
		return fn;
	while (struct dirent *e = readdir(d))
		if (strchr(e->d_name, ':'))
			fn = e->d_name;
	closedir(d);
	return fn;
}

// Anonymous memory registered in a context.
struct Mem {
	uint8_t *p = nullptr;
	size_t len = 0;
	uint64_t cookie = 0;
	int fd;
	Mem(int ctx, size_t n) : len(n), fd(ctx)
	{
		void *m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		p = static_cast<uint8_t *>(m);
		memset(p, 0, n);
		if (reg_user(ctx, p, n, RW, &cookie))
			cookie = 0;
	}
	~Mem()
	{
		if (cookie)
			dereg(fd, cookie);
		if (p)
			munmap(p, len);
	}
	bool ok() const { return cookie != 0; }
	Mem(const Mem &) = delete;
	Mem &operator=(const Mem &) = delete;
};

int copy_async(const Ctx &c, uint64_t src, uint64_t soff, uint64_t dst, uint64_t doff,
	       uint64_t len)
{
	uint64_t seq = 0;
	int ret = copy(c.fd, c.ch, src, soff, dst, doff, len, HL_IPC_COPY_ASYNC, &seq);
	if (ret)
		return ret;
	int32_t status = 1;
	ret = wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status);
	return ret ? ret : status;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class Dma : public testing::Test {
protected:
	void SetUp() override
	{
		if (!getenv("HL_DMA_ENGINE"))
			GTEST_SKIP() << "no stand-in DMA engine in this guest (run-vm --dma-engine)";
		ASSERT_TRUE(live_counters_are(0, 0, 0, 0)) << "a previous test leaked";
		ASSERT_EQ(engine_line().rfind("dma hl_ipc_testdma ", 0), 0u)
			<< "habanalabs_ipc has no engine: " << engine_line();
	}
	void TearDown() override { EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000)); }

	ParamScope engine_{"engine", "dma"};
};

TEST_F(Dma, EngineIsListed)
{
	hl_ipc_info i{};
	Ctx c;
	ASSERT_EQ(info(c.fd, &i), 0);
	EXPECT_TRUE(i.engines & HL_IPC_ENGINE_CPU);
	EXPECT_TRUE(i.engines & HL_IPC_ENGINE_DMA) << "INFO does not list the DMA engine";
	// "dma <driver> <device> <channels>": the stand-in has four.
	EXPECT_EQ(engine_line(), "dma hl_ipc_testdma " + engine_function() + " 4");
	// The engine parameter takes its three words only.
	for (const char *bad : {"", "gpu", "dma2", "CPU!"}) {
		write_param("engine", bad);
		EXPECT_EQ(read_param("engine"), "dma") << "engine=" << bad << " was taken";
	}
	// With an IOMMU the engine's addresses are translated (a DMA domain,
	// not identity), so a wrong mapping faults instead of working.
	const std::string type =
		read_file("/sys/bus/pci/devices/" + engine_function() + "/iommu_group/type");
	if (getenv("HL_IOMMU"))
		EXPECT_EQ(type.rfind("DMA", 0), 0u) << "IOMMU domain: '" << type << "'";
	else
		EXPECT_EQ(type, "") << "an IOMMU nobody asked for";
}

// Odd sizes at odd offsets, sync and async: every byte arrives, none
// around the range is touched, and the bytes are counted as the engine's.
TEST_F(Dma, CopiesUserMemory)
{
	Ctx c;
	Mem a(c.fd, 8 * MiB), b(c.fd, 8 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 7);
	const long dma0 = stat("dma_bytes");
	uint64_t sum = 0;
	uint32_t seed = 100;
	for (bool async : {false, true})
		for (size_t len : {size_t{1}, size_t{4095}, size_t{65536 + 3}, 4 * MiB - 5}) {
			const size_t so = 4096 * 3 + 11, doff = 4096 + 5;
			fill(a.p + so, len, ++seed);
			memset(b.p, 0xee, b.len);
			int ret = async ? copy_async(c, a.cookie, so, b.cookie, doff, len)
					: copy(c.fd, c.ch, a.cookie, so, b.cookie, doff, len);
			ASSERT_EQ(ret, 0) << len << " bytes, async " << async;
			EXPECT_EQ(check(b.p + doff, len, seed), -1) << len;
			EXPECT_EQ(b.p[doff - 1], 0xee) << len;
			EXPECT_EQ(b.p[doff + len], 0xee) << len;
			sum += len;
		}
	EXPECT_EQ(stat("dma_bytes") - dma0, static_cast<long>(sum))
		<< "not every byte went through the engine";
}

// habanalabs_sim memory exported as a dma-buf (RAM devices: the exporter
// maps it for any device), to and from user memory.
TEST_F(Dma, CopiesDeviceMemory)
{
	if (getenv("HL_GAUDI_HOST") || !sim_available())
		GTEST_SKIP() << "needs habanalabs_sim's RAM devices (P2p.* tests the others)";
	Ctx c;
	Buffer dev;
	ASSERT_EQ(alloc(Kind::Sim, 4 * MiB, &dev), 0);
	ASSERT_EQ(reg(c.fd, &dev), 0);
	Mem a(c.fd, 4 * MiB), b(c.fd, 4 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 21);
	const long dma0 = stat("dma_bytes");
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, dev.cookie, 100, 3 * MiB + 1), 0);
	EXPECT_EQ(check(dev.ptr + 100, 3 * MiB + 1, 21), -1) << "device memory as the CPU sees it";
	ASSERT_EQ(copy_async(c, dev.cookie, 100, b.cookie, 0, 3 * MiB + 1), 0);
	EXPECT_EQ(check(b.p, 3 * MiB + 1, 21), -1);
	EXPECT_EQ(stat("dma_bytes") - dma0, static_cast<long>(2 * (3 * MiB + 1)));
	dereg(c.fd, dev.cookie);
	dev.cookie = 0;
}

// Within one region, overlapping both ways: memmove's result.
TEST_F(Dma, OverlappingCopyIsAMove)
{
	Ctx c;
	Mem a(c.fd, 4 * MiB);
	ASSERT_TRUE(a.ok());
	std::vector<uint8_t> ref(a.len);
	for (long shift : {4096L + 7, -(4096L * 5 + 3)}) {
		fill(a.p, a.len, 31);
		memcpy(ref.data(), a.p, a.len);
		const size_t len = 2 * MiB + 77;
		const size_t so = 1 * MiB, doff = so + shift;
		memmove(ref.data() + doff, ref.data() + so, len);
		ASSERT_EQ(copy(c.fd, c.ch, a.cookie, so, a.cookie, doff, len), 0) << shift;
		EXPECT_EQ(memcmp(ref.data(), a.p, a.len), 0) << "shift " << shift;
	}
}

// A descriptor fails: the copy fails with EIO, and the engine goes on.
TEST_F(Dma, FailedDescriptorFailsTheCopy)
{
	Ctx c;
	Mem a(c.fd, 4 * MiB), b(c.fd, 4 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 41);
	const long errors = stat("errors");
	{
		EngineParam fail("fail_after", "2");
		EXPECT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), -EIO);
		EXPECT_EQ(copy_async(c, a.cookie, 0, b.cookie, 0, a.len), 0)
			<< "fail_after fails one descriptor only";
	}
	EXPECT_EQ(stat("errors") - errors, 1);
	EXPECT_EQ(check(b.p, b.len, 41), -1);
	fill(a.p, a.len, 42);
	{
		EngineParam fail("fail_after", "1");
		EXPECT_EQ(copy_async(c, a.cookie, 0, b.cookie, 0, a.len), -EIO);
	}
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), 0);
	EXPECT_EQ(check(b.p, b.len, 42), -1);
}

// The engine stalls past dma_timeout_ms: ETIMEDOUT, and what was left on
// the engine is gone when the copy returns (nothing written later).
TEST_F(Dma, StalledEngineTimesOut)
{
	Ctx c;
	Mem a(c.fd, 4 * MiB), b(c.fd, 4 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 51);
	ParamScope timeout("dma_timeout_ms", "200");
	std::vector<uint8_t> after;
	{
		EngineParam stall("stall_ms", "400");
		const auto t0 = std::chrono::steady_clock::now();
		EXPECT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), -ETIMEDOUT);
		EXPECT_LT(seconds_since(t0), 30.0);
		after.assign(b.p, b.p + b.len);
		EXPECT_EQ(copy_async(c, a.cookie, 0, b.cookie, 0, a.len), -ETIMEDOUT);
	}
	usleep(1000 * 1000);
	EXPECT_EQ(memcmp(after.data(), b.p, b.len), 0) << "written after the copy failed";
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), 0);
	EXPECT_EQ(check(b.p, b.len, 51), -1);
}

// The exporter moves the memory (move_notify) while a copy out of it waits
// for the engine: the copy fails with EIO, nothing of it runs later, and
// the next copy maps the memory again and succeeds.
TEST_F(Dma, MovedExportStopsTheCopy)
{
	TestExporter exp;
	if (!exp.available())
		GTEST_SKIP() << "hl_ipc_testexp not loaded";
	exp.gate(true);
	const int buf = exp.create(HL_TESTEXP_GATED, 4 * MiB);
	ASSERT_GE(buf, 0);
	Ctx c;
	uint64_t k = 0;
	ASSERT_EQ(reg_dmabuf(c.fd, buf, RW, &k), 0);
	Mem a(c.fd, 4 * MiB), b(c.fd, 4 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 91);
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, k, 0, a.len), 0);
	int ret = 1;
	std::vector<uint8_t> after;
	{
		EngineParam stall("stall_ms", "300");
		std::thread copier([&] { ret = copy(c.fd, c.ch, k, 0, b.cookie, 0, a.len); });
		usleep(450 * 1000);
		EXPECT_EQ(exp.move(buf), 0);
		copier.join();
		after.assign(b.p, b.p + b.len);
	}
	EXPECT_EQ(ret, -EIO) << "a copy across a move";
	usleep(700 * 1000);
	EXPECT_EQ(memcmp(after.data(), b.p, b.len), 0) << "written after the copy failed";
	ASSERT_EQ(copy(c.fd, c.ch, k, 0, b.cookie, 0, a.len), 0) << "mapped again after the move";
	EXPECT_EQ(check(b.p, b.len, 91), -1);
	EXPECT_EQ(dereg(c.fd, k), 0);
	close(buf);
}

// A process killed in the middle of its copy through a slow engine dies
// at once, and leaves nothing behind.
TEST_F(Dma, CopierKilledMidCopy)
{
	EngineParam stall("stall_ms", "200");
	int go[2];
	ASSERT_EQ(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		Ctx c;
		Mem a(c.fd, 16 * MiB), b(c.fd, 16 * MiB);
		char x = a.ok() && b.ok() ? 'y' : 'n';
		(void)!write(go[1], &x, 1);
		copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len);  // 16 descriptors: 3.2 s
		_exit(3);
	}
	close(go[1]);
	char x = 0;
	ASSERT_EQ(read(go[0], &x, 1), 1);
	close(go[0]);
	ASSERT_EQ(x, 'y');
	usleep(500 * 1000);
	const auto t0 = std::chrono::steady_clock::now();
	kill(pid, SIGKILL);
	int st = 0;
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "status " << st;
	EXPECT_LT(seconds_since(t0), 2.0) << "the kill waited for the copy";
}

// Deregistered while a copy out of it waits for the engine: the copy ends
// with ENOENT and the deregistration returns within one descriptor.
TEST_F(Dma, DeregistrationDuringCopy)
{
	EngineParam stall("stall_ms", "300");
	Ctx c;
	Mem b(c.fd, 16 * MiB);
	uint8_t *p = static_cast<uint8_t *>(
		mmap(nullptr, 16 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ASSERT_NE(p, MAP_FAILED);
	uint64_t k = 0;
	ASSERT_EQ(reg_user(c.fd, p, 16 * MiB, RW, &k), 0);
	ASSERT_TRUE(b.ok());
	uint64_t seq = 0;
	ASSERT_EQ(copy(c.fd, c.ch, k, 0, b.cookie, 0, 16 * MiB, HL_IPC_COPY_ASYNC, &seq), 0);
	usleep(500 * 1000);
	const auto t0 = std::chrono::steady_clock::now();
	EXPECT_EQ(dereg(c.fd, k), 0);
	EXPECT_LT(seconds_since(t0), 2.0) << "deregistration waited for the whole copy";
	int32_t status = 0;
	ASSERT_EQ(wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
	EXPECT_EQ(status, -ENOENT);
	munmap(p, 16 * MiB);
}

// Six channels of six contexts copy at once through the engine's four
// channels: every copy is whole.
TEST_F(Dma, ManyChannelsShareTheEngine)
{
	constexpr int kThreads = 6, kRounds = 4;
	std::atomic<int> bad{0};
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([t, &bad] {
			Ctx c;
			Mem a(c.fd, 2 * MiB), b(c.fd, 2 * MiB);
			if (!a.ok() || !b.ok()) {
				bad++;
				return;
			}
			for (int r = 0; r < kRounds; r++) {
				const uint32_t seed = 1000 + t * 10 + r;
				fill(a.p, a.len, seed);
				int ret = r % 2 ? copy_async(c, a.cookie, 0, b.cookie, 0, a.len)
						: copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len);
				if (ret || check(b.p, b.len, seed) != -1)
					bad++;
			}
		});
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(bad.load(), 0);
}

// The engine goes away (unbound, as a hot unplug) in the middle of copies:
// they end with ENODEV, copies that need it are refused with EOPNOTSUPP
// while it is gone, and it is used again once it is back.  Last: it
// changes the guest's devices.
TEST_F(Dma, ZzEngineUnboundMidCopy)
{
	const std::string fn = engine_function();
	ASSERT_FALSE(fn.empty());
	Ctx c;
	Mem a(c.fd, 16 * MiB), b(c.fd, 16 * MiB);
	ASSERT_TRUE(a.ok() && b.ok());
	fill(a.p, a.len, 61);
	int ret = 1;
	{
		EngineParam stall("stall_ms", "200");
		std::thread copier([&] { ret = copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len); });
		usleep(600 * 1000);
		ASSERT_TRUE(write_file(kDriverDir + "unbind", fn));
		copier.join();
	}
	EXPECT_EQ(ret, -ENODEV);
	EXPECT_EQ(engine_line(), "none");
	EXPECT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), -EOPNOTSUPP);
	{
		// The CPU copies as ever when it may.
		ParamScope cpu("engine", "auto");
		EXPECT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), 0);
	}
	ASSERT_TRUE(write_file(kDriverDir + "bind", fn));
	fill(a.p, a.len, 62);
	ASSERT_EQ(copy(c.fd, c.ch, a.cookie, 0, b.cookie, 0, a.len), 0);
	EXPECT_EQ(check(b.p, b.len, 62), -1);
	EXPECT_EQ(engine_line(), "dma hl_ipc_testdma " + fn + " 4");
}

// ---- device memory only a PCI function reaches -------------------------

// Whether the kernel lets the engine and the devices reach each other:
// it must have CONFIG_PCI_P2PDMA, and (drivers/pci/p2pdma.c) either one
// switch above them all, or a host bridge it trusts: none of QEMU's, but
// any on an AMD CPU of family 0x17 or later (KVM on such a host).
bool kernel_allows_p2p()
{
	if (read_file("/sys/class/misc/hl_ipc/engine/p2pdma") != "1")
		return false;
	if (getenv("HL_P2P_SWITCH"))
		return true;
	std::ifstream f("/proc/cpuinfo");
	std::string line;
	bool amd = false;
	while (std::getline(f, line)) {
		if (line.rfind("vendor_id", 0) == 0)
			amd = line.find("AuthenticAMD") != std::string::npos;
		if (line.rfind("cpu family", 0) == 0)
			return amd && std::stoi(line.substr(line.find(':') + 1)) >= 0x17;
	}
	return false;
}

class P2p : public testing::Test {
protected:
	void SetUp() override
	{
		if (!getenv("HL_GAUDI_HOST") || !getenv("HL_DMA_ENGINE"))
			GTEST_SKIP() << "needs run-vm --gaudi-host and --dma-engine";
		expect_copy_ = kernel_allows_p2p();
		printf("peer to peer: %s (p2pdma %s, %s)\n", expect_copy_ ? "allowed" : "refused",
		       read_file("/sys/class/misc/hl_ipc/engine/p2pdma").c_str(),
		       getenv("HL_P2P_SWITCH") ? "one switch" : "root bus");
		ASSERT_TRUE(live_counters_are(0, 0, 0, 0)) << "a previous test leaked";
	}
	void TearDown() override { EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000)); }
	bool expect_copy_ = false;
};

// Host memory to device 0, device 0 to device 1 (one copy, function to
// function through the switch), device 1 back to host memory: the bytes
// make the round trip, all of them by the engine.
TEST_F(P2p, DeviceToDeviceInOneCopy)
{
	if (!expect_copy_)
		GTEST_SKIP() << "this guest's kernel or topology refuses peer to peer";
	constexpr size_t kLen = 8 * MiB;
	SimDeviceMemory d0(0, kLen), d1(1, kLen);
	ASSERT_EQ(d0.err(), 0);
	ASSERT_EQ(d1.err(), 0);
	Ctx c;
	uint64_t k0 = 0, k1 = 0;
	ASSERT_EQ(reg_dmabuf(c.fd, d0.dmabuf(), RW, &k0), 0);
	ASSERT_EQ(reg_dmabuf(c.fd, d1.dmabuf(), RW, &k1), 0);
	Mem in(c.fd, kLen), out(c.fd, kLen);
	ASSERT_TRUE(in.ok() && out.ok());
	fill(in.p, kLen, 71);
	const long dma0 = stat("dma_bytes");
	ASSERT_EQ(copy(c.fd, c.ch, in.cookie, 0, k0, 0, kLen), 0);
	ASSERT_EQ(copy_async(c, k0, 4096 + 5, k1, 4096 + 5, kLen - 8192), 0);
	ASSERT_EQ(copy(c.fd, c.ch, k1, 0, out.cookie, 0, kLen), 0);
	EXPECT_EQ(check_range(out.p, 4096 + 5, kLen - 4096 + 5, 71), -1) << "device to device";
	EXPECT_EQ(stat("dma_bytes") - dma0, static_cast<long>(3 * kLen - 8192));
	EXPECT_EQ(dereg(c.fd, k0), 0);
	EXPECT_EQ(dereg(c.fd, k1), 0);
}

// The exporter lets go of device 1's memory in the middle of a copy into
// it (unmapped, freed, its dma-buf fd and device closed): the region's
// dma-buf keeps the memory until the region goes, so the copy completes,
// and then everything is released, sim objects included.
TEST_F(P2p, ExporterLetsGoMidCopy)
{
	if (!expect_copy_)
		GTEST_SKIP() << "this guest's kernel or topology refuses peer to peer";
	constexpr size_t kLen = 8 * MiB;
	const auto before = hltest::sim_memory_counters();
	{
		Ctx c;
		uint64_t k0 = 0, k1 = 0;
		SimDeviceMemory d0(0, kLen);
		auto d1 = std::make_unique<SimDeviceMemory>(1, kLen);
		ASSERT_EQ(d0.err(), 0);
		ASSERT_EQ(d1->err(), 0);
		ASSERT_EQ(reg_dmabuf(c.fd, d0.dmabuf(), RW, &k0), 0);
		ASSERT_EQ(reg_dmabuf(c.fd, d1->dmabuf(), RW, &k1), 0);
		Mem in(c.fd, kLen), out(c.fd, kLen);
		ASSERT_TRUE(in.ok() && out.ok());
		fill(in.p, kLen, 81);
		ASSERT_EQ(copy(c.fd, c.ch, in.cookie, 0, k0, 0, kLen), 0);
		int ret = 1;
		{
			EngineParam stall("stall_ms", "100");
			std::thread copier([&] { ret = copy(c.fd, c.ch, k0, 0, k1, 0, kLen); });
			usleep(250 * 1000);
			d1.reset();
			copier.join();
		}
		EXPECT_EQ(ret, 0) << "the copy into memory its exporter let go of";
		ASSERT_EQ(copy(c.fd, c.ch, k1, 0, out.cookie, 0, kLen), 0);
		EXPECT_EQ(check(out.p, kLen, 81), -1);
		EXPECT_EQ(dereg(c.fd, k1), 0);
		EXPECT_EQ(dereg(c.fd, k0), 0);
	}
	EXPECT_TRUE(hltest::sim_counters_return_to(before, 10000))
		<< hltest::counters_str(hltest::sim_memory_counters());
}

// Where the kernel refuses peer to peer (no CONFIG_PCI_P2PDMA, or no
// switch between the functions), registering such memory says so.
TEST_F(P2p, RefusedWhereTheKernelForbidsIt)
{
	if (expect_copy_)
		GTEST_SKIP() << "this guest allows peer to peer";
	SimDeviceMemory d0(0, MiB);
	ASSERT_EQ(d0.err(), 0);
	Ctx c;
	uint64_t k = 0;
	EXPECT_EQ(reg_dmabuf(c.fd, d0.dmabuf(), RW, &k), -EOPNOTSUPP);
}

}  // namespace
