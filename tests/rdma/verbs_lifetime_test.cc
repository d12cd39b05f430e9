// SPDX-License-Identifier: MIT
// The lifetime rule: a registration holds a reference on the exported
// memory, and, as on the real habanalabs driver, exported memory stays
// mapped (the driver refuses to unmap it, and so to free it) and the
// compute context it lives in stays open (the dma-buf holds its file)
// until the registration ends.  Closing the device fd or the process
// exiting while a registration exists is allowed: the memory stays
// reachable by the NIC until the registration ends, and then all of it is
// released.  Checked against the emulated device's own object counters
// and charged memory.
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <fcntl.h>
#include <thread>
#include <vector>

#include "sim_counters.h"
#include "verbs_fixture.h"

namespace rdmatest {
namespace {

class VerbsLifetime : public VerbsTest {
protected:
	void SetUp() override
	{
		VerbsTest::SetUp();
		base_ = hltest::sim_counters();
		base_used_ = sim_memory_used();
	}
	void TearDown() override
	{
		EXPECT_TRUE(hltest::sim_counters_return_to(
			hltest::sim_memory_counters(base_), 5000))
			<< "device memory, mappings or dma-bufs leaked";
		EXPECT_EQ(sim_memory_used(), base_used_);
	}
	std::map<std::string, long> base_;
	long base_used_ = 0;
};

// Unmaps and frees dev once no registration holds it: the driver refuses
// to unmap exported memory, and a dead process's registrations are torn
// down by the kernel a little later.
void release_when_unregistered(hlipc::DeviceBuffer &dev)
{
	int rc = 0;
	for (int i = 0; i < 5000; i++) {
		rc = dev.try_reset();
		if (rc != -EINVAL)
			break;
		usleep(1000);
	}
	EXPECT_EQ(rc, 0) << "still exported after 5 s";
}

// Write and read back through a registration.
void round_trip(Loopback &lb, ibv_pd *pd, int fd, MrGuard &mr, uint64_t len,
		uint32_t seed)
{
	HostBuffer src, dst;
	ASSERT_EQ(src.create(pd, fd, len), 0);
	ASSERT_EQ(dst.create(pd, fd, len), 0);
	hlipc::fill_pattern(src.data(), len, seed);
	ASSERT_EQ(lb.write(src.data(), src.lkey(), len, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
	ASSERT_EQ(lb.read(dst.data(), dst.lkey(), len, mr.iova(), mr.rkey()),
		  IBV_WC_SUCCESS);
	EXPECT_EQ(hlipc::check_pattern(dst.data(), len, seed), -1);
}

TEST_F(VerbsLifetime, UnmapRefusedWhileRegistered)
{
	const uint64_t len = 256 * 1024;
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), len), 0);
	MrGuard mr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), dev.va(), len,
						  kRemoteAccess, 0, &mr.mr),
		  0)
		<< hlthunk_verbs_last_error();
	// The driver refuses to unmap exported memory; it stays mapped and
	// allocated, and the NIC reaches it.
	EXPECT_EQ(dev.try_reset(), -EINVAL);
	auto now = hltest::sim_counters();
	EXPECT_EQ(now["mappings"], base_["mappings"] + 1);
	EXPECT_EQ(now["dmabufs"], base_["dmabufs"] + 1);
	EXPECT_EQ(sim_memory_used(), base_used_ + static_cast<long>(len));
	round_trip(lb(), pd(), fd(), mr, len, 77);

	// While it lives, the exporter cannot be unloaded under it.
	EXPECT_NE(syscall(SYS_delete_module, "habanalabs_sim", O_NONBLOCK), 0);
	EXPECT_EQ(errno, EWOULDBLOCK);
	mr.reset();
	EXPECT_EQ(dev.try_reset(), 0) << "unmapped once the registration ended";
}

TEST_F(VerbsLifetime, CloseDeviceWhileRegistered)
{
	const uint64_t len = 64 * 1024;
	TearDownTestSuite();  // the DMA command buffer lives in the context
	uint64_t handle = hlthunk_device_memory_alloc(fd(), len, 0, false, false);
	ASSERT_NE(handle, 0u);
	uint64_t va = hlthunk_device_memory_map(fd(), handle, 0);
	ASSERT_NE(va, 0u);
	MrGuard mr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(pd(), fd(), va, len,
						  kRemoteAccess, 0, &mr.mr),
		  0)
		<< hlthunk_verbs_last_error();
	// Closing the device fd does not end its context while the
	// registration's dma-buf holds it: the memory stays, and the device
	// cannot be opened again meanwhile.
	close_dev_fd();
	auto now = hltest::sim_counters();
	EXPECT_EQ(now["contexts"], base_["contexts"]);
	EXPECT_EQ(now["allocations"], base_["allocations"] + 1);
	int busy = open("/dev/hlsim0", O_RDWR | O_CLOEXEC);
	EXPECT_LT(busy, 0);
	EXPECT_EQ(errno, EBUSY);
	if (busy >= 0)
		close(busy);
	// The registration ends: the context, and all it owned, with it.
	mr.reset();
	now = hltest::sim_counters();
	EXPECT_EQ(now["contexts"], base_["contexts"] - 1);
	EXPECT_EQ(now["allocations"], base_["allocations"]);
	ASSERT_GE(fd(), 0) << "the device opens again";
	SetUpTestSuite();
}

// A PD cannot be deallocated under a registration; afterwards it can.
TEST_F(VerbsLifetime, PdWithRegistrationIsNotDeallocated)
{
	ibv_pd *own = ibv_alloc_pd(lb().ctx());
	ASSERT_NE(own, nullptr);
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), 4096), 0);
	hlthunk_verbs_mr *mr = nullptr;
	ASSERT_EQ(hlthunk_verbs_reg_device_memory(own, fd(), dev.va(), 4096,
						  kRemoteAccess, 0, &mr),
		  0)
		<< hlthunk_verbs_last_error();
	EXPECT_EQ(ibv_dealloc_pd(own), EBUSY);
	EXPECT_EQ(hlthunk_verbs_dereg_mr(mr), 0);
	EXPECT_EQ(ibv_dealloc_pd(own), 0);
}

// A process that exits (or is killed with RDMA in flight) without
// deregistering: the kernel ends its registrations, and the memory is
// released once its owner frees it.
void child_registers(int fd, uint64_t va, uint64_t len,
		     bool post_and_wait_for_kill, int ready_fd)
{
	Loopback lb;  // a context of the child's own
	std::string why;
	if (lb.open(&why))
		_exit(2);
	hlthunk_verbs_mr *mr = nullptr;
	if (hlthunk_verbs_reg_device_memory(lb.pd(), fd, va, len, kRemoteAccess,
					    0, &mr))
		_exit(3);
	if (post_and_wait_for_kill) {
		HostBuffer src;  // not mapped for the device
		if (src.create(lb.pd(), -1, len))
			_exit(4);
		// Keep the NIC busy: writes until killed.
		char c = 1;
		if (write(ready_fd, &c, 1) != 1)
			_exit(5);
		for (;;)
			lb.write(src.data(), src.lkey(), len,
				 hlthunk_verbs_mr_iova(mr),
				 hlthunk_verbs_mr_ibv(mr)->rkey);
	}
	_exit(0);  // no deregistration
}

TEST_F(VerbsLifetime, ProcessExitsWithoutDeregistering)
{
	const uint64_t len = 1 << 20;
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), len), 0);
	fflush(nullptr);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		child_registers(fd(), dev.va(), len, false, -1);
	int st = 0;
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
	release_when_unregistered(dev);
}

TEST_F(VerbsLifetime, KilledWithRdmaInFlight)
{
	const uint64_t len = 4 << 20;
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), len), 0);
	int p[2];
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	fflush(nullptr);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		child_registers(fd(), dev.va(), len, true, p[1]);
	close(p[1]);
	char c = 0;
	ASSERT_EQ(read(p[0], &c, 1), 1) << "the child could not register";
	close(p[0]);
	usleep(200 * 1000);  // let a few writes run
	kill(pid, SIGKILL);
	int st = 0;
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(st));
	// Freed once the child's registration is torn down.
	release_when_unregistered(dev);
}

// Threads registering and deregistering ranges of one allocation while
// the allocation is unmapped and freed under them: the driver unmaps it
// only at a moment no registration holds it; each call either registers
// (and the registration works to the end) or says the memory is gone, and
// once the unmap is done every call says so.
TEST_F(VerbsLifetime, ConcurrentRegistrationsAndFree)
{
	constexpr int kThreads = 4, kMaxRounds = 2000;
	const uint64_t len = kThreads * 8192;
	hlipc::DeviceBuffer dev;
	ASSERT_EQ(dev.create(fd(), len), 0);
	const uint64_t va = dev.va();
	std::atomic<int> failures{0}, registered{0}, gone{0};
	std::atomic<bool> freed{false};
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&, t] {
			for (int r = 0; r < kMaxRounds; r++) {
				bool after = freed.load();
				hlthunk_verbs_mr *mr = nullptr;
				int rc = hlthunk_verbs_reg_device_memory(
					pd(), fd(), va + t * 8192 + r % 4096,
					4096, kRemoteAccess, 0, &mr);
				if (rc == 0) {
					registered++;
					if (after)
						failures++;
					if (hlthunk_verbs_dereg_mr(mr))
						failures++;
				} else if (rc == -EFAULT || rc == -EINVAL) {
					// Gone: EFAULT, or EINVAL from the
					// driver when the unmap lands between
					// the lookup and the export.
					gone++;
					if (after)
						break;
				} else {
					failures++;
					printf("rc %d: %s\n", rc,
					       hlthunk_verbs_last_error());
				}
			}
		});
	while (registered.load() < 4 * kThreads)
		std::this_thread::yield();
	// Between two registrations the memory is not exported.
	int rc;
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
	while ((rc = dev.try_reset()) == -EINVAL &&
	       std::chrono::steady_clock::now() < end)
		std::this_thread::yield();
	EXPECT_EQ(rc, 0);
	freed = true;
	for (auto &t : ts)
		t.join();
	EXPECT_EQ(failures.load(), 0);
	EXPECT_GE(gone.load(), 1);
	printf("[ info ] %d registrations, %d refused as gone\n",
	       registered.load(), gone.load());
}

}  // namespace
}  // namespace rdmatest
