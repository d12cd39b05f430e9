// SPDX-License-Identifier: GPL-2.0
// Completion queues, user interrupts and timestamp buffers, as hl-thunk's
// Gaudi2 tests use them: a CB configures a completion queue and arms a
// monitor that writes to it and raises a user interrupt through the MSI-X
// doorbell; WAIT_CS sleeps on the interrupt until a counter reaches its
// target, and a registration writes the time into a timestamp buffer.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint32_t kSob = 600;	// user SOBs start at 413, monitors at 289
constexpr uint32_t kMon = 400;
constexpr uint32_t kCq = 2;	// the first user completion queue
constexpr uint32_t kIrq = 48;	// the first user interrupt
constexpr uint64_t kLong = 20 * 1000 * 1000;	// us: a wait that must not time out

// A CB created with HL_CB_FLAGS_MAP and mapped into this process: the
// counters WAIT_CS reads by handle, at a device address a CQ can use.
struct CqCb {
	explicit CqCb(Dev &d, uint32_t size = kPage) : d(d), size(size)
	{
		hl_cb_args a{};
		a.in.op = HL_CB_OP_CREATE;
		a.in.cb_size = size;
		a.in.flags = HL_CB_FLAGS_MAP;
		if (xioctl(d.fd(), DRM_IOCTL_HL_CB, &a))
			return;
		handle = a.out.cb_handle;
		a = {};
		a.in.op = HL_CB_OP_INFO;
		a.in.cb_handle = handle;
		a.in.flags = HL_CB_FLAGS_GET_DEVICE_VA;
		if (xioctl(d.fd(), DRM_IOCTL_HL_CB, &a))
			return;
		va = a.out.device_va;
		void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       d.fd(), handle);
		if (p != MAP_FAILED)
			words = static_cast<volatile uint64_t *>(p);
	}
	~CqCb()
	{
		if (words)
			munmap(const_cast<uint64_t *>(words), size);
		destroy();
	}
	int destroy()
	{
		if (!handle)
			return 0;
		hl_cb_args a{};
		a.in.op = HL_CB_OP_DESTROY;
		a.in.cb_handle = handle;
		handle = 0;
		return xioctl(d.fd(), DRM_IOCTL_HL_CB, &a);
	}
	bool ok() const { return words && va; }
	Dev &d;
	uint32_t size;
	uint64_t handle = 0, va = 0;
	volatile uint64_t *words = nullptr;
};

// MSG_LONGs that set up completion queue cq at base, raising irq.
void put_cq_config(std::vector<uint32_t> &w, uint32_t cq, uint64_t base,
		   uint32_t size_log2, uint32_t irq, bool inc_mode)
{
	auto reg = [&](uint32_t reg0, uint32_t value) {
		put_msg_long(w, GAUDI2_CFG_BASE + reg0 + 4 * cq, value);
	};
	reg(GAUDI2_SM_CQ_BASE_ADDR_L_0, static_cast<uint32_t>(base));
	reg(GAUDI2_SM_CQ_BASE_ADDR_H_0, static_cast<uint32_t>(base >> 32));
	reg(GAUDI2_SM_CQ_SIZE_LOG2_0, size_log2);
	reg(GAUDI2_SM_CQ_PI_0, 0);
	const uint64_t db = GAUDI2_CFG_BASE + GAUDI2_PCIE_MSIX_DB;
	reg(GAUDI2_SM_CQ_LBW_ADDR_L_0, static_cast<uint32_t>(db));
	reg(GAUDI2_SM_CQ_LBW_ADDR_H_0, static_cast<uint32_t>(db >> 32));
	reg(GAUDI2_SM_CQ_LBW_DATA_0, irq);
	reg(GAUDI2_SM_CQ_INC_MODE_0, inc_mode);
}

// A monitor armed on a SOB already at 1: it fires at once, writing
// payload to completion queue cq and, with lbw, raising its interrupt.
void put_cq_fire(std::vector<uint32_t> &w, uint32_t cq, uint32_t payload,
		 bool lbw = true)
{
	put_sob(w, kSob, 1, false);
	put_monitor(w, kMon, cq, payload, kSob, 1, false,
		    GAUDI2_MON_CFG_CQ_EN | (lbw ? GAUDI2_MON_CFG_LBW_EN : 0));
}

// WAIT_CS on interrupt irq for the counter at (handle, offset).
int wait_cq(Dev &d, uint32_t irq, uint64_t handle, uint64_t offset,
	    uint64_t target, uint64_t timeout_us, uint32_t *status,
	    uint64_t *stamp = nullptr)
{
	hl_wait_cs_args a{};
	a.in.cq_counters_handle = handle;
	a.in.cq_counters_offset = offset;
	a.in.target = target;
	a.in.interrupt_timeout_us = timeout_us;
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
		     (irq << 20);
	int rc = xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &a);
	*status = a.out.status;
	if (stamp)
		*stamp = (a.out.flags & HL_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD) ?
				 a.out.timestamp_nsec : 0;
	return rc;
}

int register_ts(Dev &d, uint32_t irq, uint64_t cq_handle, uint64_t cq_off,
		uint64_t target, uint64_t ts_handle, uint64_t ts_off)
{
	hl_wait_cs_args a{};
	a.in.cq_counters_handle = cq_handle;
	a.in.cq_counters_offset = cq_off;
	a.in.target = target;
	a.in.timestamp_handle = ts_handle;
	a.in.timestamp_offset = ts_off;
	a.in.interrupt_timeout_us = 1;
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
		     HL_WAIT_CS_FLAGS_REGISTER_INTERRUPT | (irq << 20);
	int rc = xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &a);
	if (!rc && a.out.status != HL_WAIT_CS_STATUS_COMPLETED)
		return -EPROTO;
	return rc;
}

int ts_alloc(Dev &d, uint32_t n, uint64_t *handle)
{
	hl_mem_args m{};
	m.in.op = HL_MEM_OP_TS_ALLOC;
	m.in.num_of_elements = n;
	int rc = d.mem(&m);
	if (!rc)
		*handle = m.out.handle;
	return rc;
}

class SimIrq : public LeakCheckedTest {};

}  // namespace

// HW_IP_INFO names the user interrupts, as the driver does for Gaudi2.
TEST_F(SimIrq, InfoNamesTheUserInterrupts)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	hl_info_hw_ip_info hw;
	ASSERT_EQ(hw_ip_info(d.fd(), &hw), 0);
	EXPECT_EQ(hw.first_available_interrupt_id, kIrq);
	EXPECT_EQ(hw.number_of_user_interrupts, 64);
}

// A monitor writes its payload to the completion queue and raises the
// queue's interrupt: a WAIT_CS asleep on it wakes with the time of the
// interrupt.  Without LBW_EN the queue is written but nothing is raised.
TEST_F(SimIrq, MonitorWritesTheQueueAndWakesTheWaiter)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());

	std::vector<uint32_t> setup;
	put_cq_config(setup, kCq, cq.va, 2, kIrq, false);
	ASSERT_EQ(d.run(setup), 0);

	// Without LBW_EN: written, no interrupt, so the waiter times out.
	std::vector<uint32_t> quiet;
	put_cq_fire(quiet, kCq, 7, false);
	std::atomic<int> rc1{1};
	uint32_t st1 = ~0u;
	std::thread t1([&] { rc1 = wait_cq(d, kIrq, cq.handle, 0, 8, 300000, &st1); });
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	ASSERT_EQ(d.run(quiet), 0);
	t1.join();
	EXPECT_EQ(rc1, 0);
	EXPECT_EQ(st1, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	EXPECT_EQ(cq.words[0], 7u);

	// With it: the sleeping waiter wakes.
	std::atomic<int> rc{1};
	uint32_t st = ~0u;
	uint64_t stamp = 0;
	std::thread t([&] { rc = wait_cq(d, kIrq, cq.handle, 0, 100, kLong, &st, &stamp); });
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	timespec before;
	clock_gettime(CLOCK_MONOTONIC, &before);
	std::vector<uint32_t> fire;
	put_cq_fire(fire, kCq, 101);
	ASSERT_EQ(d.run(fire), 0);
	t.join();
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(cq.words[0], 101u) << "a 32-bit entry at the queue's base";
	EXPECT_GE(stamp, (uint64_t)before.tv_sec * 1000000000ull + before.tv_nsec)
		<< "the time of the interrupt";

	// Already at the target: at once, with or without a timeout.
	uint32_t s2 = ~0u;
	EXPECT_EQ(wait_cq(d, kIrq, cq.handle, 0, 101, 0, &s2, &stamp), 0);
	EXPECT_EQ(s2, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_NE(stamp, 0u);
	EXPECT_EQ(wait_cq(d, kIrq, cq.handle, 0, 102, 0, &s2), 0);
	EXPECT_EQ(s2, (uint32_t)HL_WAIT_CS_STATUS_BUSY) << "a poll";
	// The "any CQ interrupt" id sees every user interrupt.
	std::thread t3([&] {
		rc = wait_cq(d, 0xfff, cq.handle, 0, 200, kLong, &st);
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	fire.clear();
	put_cq_fire(fire, kCq, 200);
	ASSERT_EQ(d.run(fire), 0);
	t3.join();
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
}

// In 32-bit mode the queue is a ring of 2^SIZE_LOG2 bytes of entries at
// the producer index; in 64-bit mode each payload adds to one counter.
TEST_F(SimIrq, QueueModes)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	volatile uint32_t *e = reinterpret_cast<volatile uint32_t *>(cq.words);

	std::vector<uint32_t> w;
	put_cq_config(w, kCq, cq.va, 3, kIrq, false);	// two entries
	for (uint32_t v = 1; v <= 3; v++)
		put_cq_fire(w, kCq, v);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(e[0], 3u) << "the third entry wrapped to the first";
	EXPECT_EQ(e[1], 2u);
	EXPECT_EQ(e[2], 0u) << "past the ring";

	w.clear();
	put_cq_config(w, kCq + 1, cq.va + 64, 3, kIrq, true);
	put_cq_fire(w, kCq + 1, 0);
	for (int i = 0; i < 3; i++)
		put_cq_fire(w, kCq + 1, 1);
	put_cq_fire(w, kCq + 1, 0x7fff);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(cq.words[8], 3u + 0x7fff);

	// A queue whose base is not mapped loses the write, counted.
	long lost = sim_event("sm_lost_writes");
	w.clear();
	put_cq_config(w, kCq + 2, 0x208000000000ull, 3, kIrq, false);
	put_cq_fire(w, kCq + 2, 1);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(sim_event("sm_lost_writes"), lost + 1);
	// A doorbell write of another vector is no user interrupt: counted.
	long irq_lost = sim_event("irq_lost");
	w.clear();
	put_cq_config(w, kCq, cq.va, 3, 21, false);
	put_cq_fire(w, kCq, 1);
	ASSERT_EQ(d.run(w), 0);
	EXPECT_EQ(sim_event("irq_lost"), irq_lost + 1);
}

// A wait on a u64 at a user address is read again at each interrupt.
TEST_F(SimIrq, WaitOnAUserAddress)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(p, MAP_FAILED);
	memset(p, 0, kPage);
	uint64_t va = 0;
	ASSERT_EQ(d.map_host(p, kPage, &va), 0);

	std::vector<uint32_t> setup;
	put_cq_config(setup, kCq, va, 3, kIrq + 5, true);
	ASSERT_EQ(d.run(setup), 0);

	auto wait_user = [&](uint64_t target, uint64_t timeout, uint32_t *st) {
		hl_wait_cs_args a{};
		a.in.addr = reinterpret_cast<uintptr_t>(p);
		a.in.target = target;
		a.in.interrupt_timeout_us = timeout;
		a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | ((kIrq + 5) << 20);
		int rc = xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &a);
		*st = a.out.status;
		return rc;
	};
	std::atomic<int> rc{1};
	uint32_t st = ~0u;
	// Two interrupts: the first leaves the counter short of the target.
	std::thread t([&] { rc = wait_user(2, kLong, &st); });
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	for (int i = 0; i < 2; i++) {
		std::vector<uint32_t> fire;
		put_cq_fire(fire, kCq, 1);
		ASSERT_EQ(d.run(fire), 0);
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	t.join();
	EXPECT_EQ(rc, 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_COMPLETED);
	EXPECT_EQ(*static_cast<volatile uint64_t *>(p), 2u);

	EXPECT_EQ(wait_user(3, 1000, &st), 0);
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);
	EXPECT_EQ(d.unmap(va), 0);
	munmap(p, kPage);
	hl_wait_cs_args a{};
	a.in.addr = reinterpret_cast<uintptr_t>(p);
	a.in.target = 1;
	a.in.interrupt_timeout_us = 1000;
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | (kIrq << 20);
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &a), -EFAULT);
}

// A timestamp registration: the time is written when the interrupt finds
// the counter at the target, or at once if it is there; registering an
// element again replaces its registration; one left at close goes.
TEST_F(SimIrq, TimestampRegistrations)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	uint64_t tsh = 0;
	ASSERT_EQ(ts_alloc(d, 10, &tsh), 0);
	EXPECT_EQ(stats()["timestamp_buffers"], 1);
	void *tsp = mmap(nullptr, 10 * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			 MAP_SHARED, d.fd(), tsh);
	ASSERT_NE(tsp, MAP_FAILED);
	volatile uint64_t *ts = static_cast<volatile uint64_t *>(tsp);
	EXPECT_EQ(mmap(nullptr, kPage, PROT_READ, MAP_SHARED, d.fd(), tsh), MAP_FAILED)
		<< "mapped once, as the driver";
	EXPECT_EQ(errno, EINVAL);

	std::vector<uint32_t> setup;
	put_cq_config(setup, kCq, cq.va, 2, kIrq, false);
	ASSERT_EQ(d.run(setup), 0);

	ASSERT_EQ(register_ts(d, kIrq, cq.handle, 0, 100, tsh, 0), 0);
	ASSERT_EQ(register_ts(d, kIrq, cq.handle, 0, 500, tsh, 2), 0);
	ASSERT_EQ(register_ts(d, kIrq, cq.handle, 0, 400, tsh, 2), 0);
	EXPECT_EQ(stats()["timestamp_registrations"], 2) << "element 2 replaced";
	// At the target already (0 >= 0): written at once, not registered.
	ASSERT_EQ(register_ts(d, kIrq, cq.handle, 1, 0, tsh, 1), 0);
	EXPECT_NE(ts[1], 0u);
	EXPECT_EQ(stats()["timestamp_registrations"], 2);
	EXPECT_EQ(ts[0], 0u);

	std::vector<uint32_t> fire;
	put_cq_fire(fire, kCq, 101);
	ASSERT_EQ(d.run(fire), 0);
	EXPECT_NE(ts[0], 0u) << "fired at 101 >= 100";
	EXPECT_EQ(ts[2], 0u) << "101 < 400";
	EXPECT_EQ(stats()["timestamp_registrations"], 1);
	EXPECT_GE(ts[0], ts[1]);

	// Another interrupt id does not fire it.
	fire.clear();
	put_cq_config(fire, kCq, cq.va, 2, kIrq + 1, false);
	put_cq_fire(fire, kCq, 450);
	ASSERT_EQ(d.run(fire), 0);
	EXPECT_EQ(ts[2], 0u);
	EXPECT_EQ(stats()["timestamp_registrations"], 1);

	// The CQ's CB destroyed while registered: the registration keeps it
	// until the open closes, which drops it.
	ASSERT_EQ(cq.destroy(), 0);
	EXPECT_EQ(stats()["command_buffers"], 1);
	munmap(const_cast<uint64_t *>(cq.words), cq.size);
	cq.words = nullptr;
	munmap(tsp, 10 * sizeof(uint64_t));
	d.close_fd();
	EXPECT_EQ(stats()["timestamp_registrations"], 0);
	EXPECT_EQ(stats()["command_buffers"], 0);
	EXPECT_EQ(stats()["timestamp_buffers"], 0);
}

// A mapping of a timestamp buffer keeps its open (the vma holds the
// file), and it is mapped whole.
TEST_F(SimIrq, TimestampBufferMappingKeepsItsOpen)
{
	void *tsp;
	{
		Dev d(0);
		ASSERT_GE(d.fd(), 0);
		uint64_t tsh = 0;
		ASSERT_EQ(ts_alloc(d, 3, &tsh), 0);
		EXPECT_EQ(mmap(nullptr, 2 * kPage, PROT_READ, MAP_SHARED, d.fd(), tsh),
			  MAP_FAILED) << "all of it, no more";
		tsp = mmap(nullptr, 24, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd(), tsh);
		ASSERT_NE(tsp, MAP_FAILED);
	}
	static_cast<volatile uint64_t *>(tsp)[2] = 5;
	EXPECT_EQ(stats()["timestamp_buffers"], 1);
	EXPECT_EQ(stats()["contexts"], 1);
	munmap(tsp, 24);
	EXPECT_EQ(stats()["timestamp_buffers"], 0);
	EXPECT_EQ(stats()["contexts"], 0);
}

// Cuts a mapping of four pages into four pieces: mprotect() of page 1
// cuts [0] [1] [2-3], mremap() of page 3 cuts [2] [3] and moves [3].
// Returns where [3] went, or nullptr.
static uint8_t *split_and_move(uint8_t *p)
{
	if (mprotect(p + kPage, kPage, PROT_READ))
		return nullptr;
	void *spot = mmap(nullptr, kPage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (spot == MAP_FAILED)
		return nullptr;
	void *moved = mremap(p + 3 * kPage, kPage, kPage, MREMAP_MAYMOVE | MREMAP_FIXED, spot);
	return moved == spot ? static_cast<uint8_t *>(moved) : nullptr;
}

// A mapping that munmap() or mprotect() of a part splits, or mremap()
// moves, holds the buffer once per piece: the open's handle names it
// until the last piece and the open are gone, whatever order they go in.
TEST_F(SimIrq, TimestampBufferMappingSplitAndMoved)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	constexpr uint32_t kElems = 4 * kPage / sizeof(uint64_t);
	uint64_t tsh = 0;
	ASSERT_EQ(ts_alloc(d, kElems, &tsh), 0);
	auto *p = static_cast<uint8_t *>(mmap(nullptr, 4 * kPage, PROT_READ | PROT_WRITE,
					      MAP_SHARED, d.fd(), tsh));
	ASSERT_NE(p, MAP_FAILED);
	uint8_t *spot = split_and_move(p);
	ASSERT_NE(spot, nullptr);
	auto *moved = reinterpret_cast<volatile uint64_t *>(spot);
	EXPECT_EQ(mremap(p, kPage, 2 * kPage, MREMAP_MAYMOVE), MAP_FAILED)
		<< "it does not grow";

	ASSERT_EQ(munmap(p, kPage), 0);
	ASSERT_EQ(munmap(p + 2 * kPage, kPage), 0);
	ASSERT_EQ(munmap(p + kPage, kPage), 0);
	ASSERT_EQ(stats()["timestamp_buffers"], 1) << "freed with a piece still mapped";

	// The last piece still maps the buffer, and the handle still names it.
	std::vector<uint32_t> setup;
	put_cq_config(setup, kCq, cq.va, 2, kIrq, false);
	ASSERT_EQ(d.run(setup), 0);
	const uint32_t last = kElems - 1;
	ASSERT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, tsh, last), 0);
	std::vector<uint32_t> fire;
	put_cq_fire(fire, kCq, 1);
	ASSERT_EQ(d.run(fire), 0);
	EXPECT_NE(moved[kPage / sizeof(uint64_t) - 1], 0u) << "stamped through the moved piece";

	ASSERT_EQ(munmap(spot, kPage), 0);
	EXPECT_EQ(stats()["timestamp_buffers"], 1) << "the open's handle holds it";
	EXPECT_EQ(mmap(nullptr, 4 * kPage, PROT_READ, MAP_SHARED, d.fd(), tsh), MAP_FAILED)
		<< "still mapped once only";
	// The CQ's mapping holds the file open too.
	munmap(const_cast<uint64_t *>(cq.words), cq.size);
	cq.words = nullptr;
	d.close_fd();
	EXPECT_EQ(stats()["timestamp_buffers"], 0);
}

// A kernel-allocated CB's mapping, split and moved the same way, keeps
// the CB until its last piece goes.
TEST_F(SimIrq, CbMappingSplitAndMoved)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	uint64_t h = 0;
	ASSERT_EQ(d.cb_create(4 * kPage, &h), 0);
	auto *p = static_cast<uint8_t *>(mmap(nullptr, 4 * kPage, PROT_READ | PROT_WRITE,
					      MAP_SHARED, d.fd(), h));
	ASSERT_NE(p, MAP_FAILED);
	uint8_t *spot = split_and_move(p);
	ASSERT_NE(spot, nullptr);
	volatile uint8_t *moved = spot;
	ASSERT_EQ(d.cb_destroy(h), 0);
	ASSERT_EQ(munmap(p, 3 * kPage), 0);
	EXPECT_EQ(stats()["command_buffers"], 1) << "the moved piece holds it";
	moved[0] = 1;
	ASSERT_EQ(munmap(spot, kPage), 0);
	EXPECT_EQ(stats()["command_buffers"], 0);
}

// Bad input gets the driver's errnos and changes nothing.
TEST_F(SimIrq, BadInput)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	uint32_t st;

	// Interrupt ids: decoders (none enabled), the driver's, out of range.
	for (uint32_t id : {0u, 9u, 10u, 47u, kIrq + 64, 0xffdu})
		EXPECT_EQ(wait_cq(d, id, cq.handle, 0, 1, 1000, &st), -EINVAL) << id;
	EXPECT_EQ(wait_cq(d, 0xffe, cq.handle, 0, 1, 1000, &st), 0)
		<< "any decoder interrupt: none comes";
	EXPECT_EQ(st, (uint32_t)HL_WAIT_CS_STATUS_BUSY);

	hl_wait_cs_args a{};
	a.in.cq_counters_handle = cq.handle;
	a.in.target = 1;
	a.in.flags = HL_WAIT_CS_FLAGS_INTERRUPT | HL_WAIT_CS_FLAGS_INTERRUPT_KERNEL_CQ |
		     (kIrq << 20) | 0x40;
	EXPECT_EQ(xioctl(d.fd(), DRM_IOCTL_HL_WAIT_CS, &a), -EINVAL) << "reserved bit";

	// Counters: not a CB, past its end, an overflowing offset.
	EXPECT_EQ(wait_cq(d, kIrq, cq.va, 0, 1, 1000, &st), -EINVAL);
	EXPECT_EQ(wait_cq(d, kIrq, 0, 0, 1, 1000, &st), -EINVAL);
	EXPECT_EQ(wait_cq(d, kIrq, cq.handle, kPage / 8, 1, 1000, &st), -EINVAL);
	EXPECT_EQ(wait_cq(d, kIrq, cq.handle, ~0ull, 1, 1000, &st), -EINVAL);
	EXPECT_EQ(wait_cq(d, kIrq, cq.handle, 1ull << 61, 1, 1000, &st), -EINVAL);

	// Timestamp buffers: sizes, handles, elements.
	uint64_t tsh = 0, other = 0;
	EXPECT_EQ(ts_alloc(d, 0, &tsh), -EINVAL);
	EXPECT_EQ(ts_alloc(d, TS_MAX_ELEMENTS_NUM + 1, &tsh), -EINVAL);
	EXPECT_EQ(ts_alloc(d, ~0u, &tsh), -EINVAL);
	ASSERT_EQ(ts_alloc(d, 4, &tsh), 0);
	EXPECT_EQ(ts_alloc(d, TS_MAX_ELEMENTS_NUM, &other), -ENOSPC)
		<< "an open's elements are bounded";
	EXPECT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, tsh, 4), -EINVAL);
	EXPECT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, tsh, ~0ull), -EINVAL);
	EXPECT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, cq.handle, 0), -EINVAL);
	EXPECT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, tsh + kPage, 0), -EINVAL);
	EXPECT_EQ(register_ts(d, kIrq, cq.handle, 0, 1, tsh | 8, 0), -EINVAL);
	EXPECT_EQ(register_ts(d, kIrq, tsh, 0, 1, tsh, 0), -EINVAL);
	EXPECT_EQ(register_ts(d, 3, cq.handle, 0, 1, tsh, 0), -EINVAL);
	EXPECT_EQ(stats()["timestamp_registrations"], 0);

	// Another open's handles name nothing here.
	Dev d1(1);
	ASSERT_GE(d1.fd(), 0);
	EXPECT_EQ(register_ts(d1, kIrq, cq.handle, 0, 1, tsh, 0), -EINVAL);
	EXPECT_EQ(wait_cq(d1, kIrq, cq.handle, 0, 1, 1000, &st), -EINVAL);
	EXPECT_EQ(mmap(nullptr, kPage, PROT_READ, MAP_SHARED, d1.fd(), tsh), MAP_FAILED);

	// A control node: no waits, no timestamp buffers.
	int c = open(control_path(0).c_str(), O_RDWR);
	ASSERT_GE(c, 0);
	EXPECT_EQ(xioctl(c, DRM_IOCTL_HL_WAIT_CS, &a), -ENOTTY);
	close(c);
}

// A signal ends a wait with EINTR; a wait on another thread's open is
// not disturbed by its close (the ioctl holds the file).
TEST_F(SimIrq, SignalEndsAWait)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	struct sigaction sa{}, old{};
	sa.sa_handler = [](int) {};
	ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);	// no SA_RESTART

	std::atomic<int> rc{1};
	uint32_t st = ~0u;
	std::atomic<bool> started{false};
	std::thread t([&] {
		started = true;
		rc = wait_cq(d, kIrq, cq.handle, 0, 1, kLong, &st);
	});
	while (!started)
		std::this_thread::yield();
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	auto t0 = std::chrono::steady_clock::now();
	pthread_kill(t.native_handle(), SIGUSR1);
	t.join();
	EXPECT_EQ(rc, -EINTR);
	EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
	sigaction(SIGUSR1, &old, nullptr);
}

// Ten threads, each with its own queue and interrupt, wait for every
// value of a 64-bit counter that ten CSs raise one by one, as hl-thunk's
// test_wait_for_interrupt_multi_thread does; one more waits in vain.
TEST_F(SimIrq, ManyWaitersManyQueues)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	constexpr int kQueues = 4, kTarget = 5;
	CqCb cq(d);
	ASSERT_TRUE(cq.ok());
	std::vector<uint32_t> setup;
	for (int q = 0; q < kQueues; q++)
		put_cq_config(setup, kCq + q, cq.va + 8 * q, 3, kIrq + q, true);
	ASSERT_EQ(d.run(setup), 0);

	std::atomic<int> bad{0};
	std::vector<std::thread> waiters;
	for (int q = 0; q < kQueues; q++)
		for (int v = 1; v <= kTarget + 1; v++)
			waiters.emplace_back([&, q, v] {
				uint32_t st = ~0u;
				int rc = wait_cq(d, kIrq + q, cq.handle, q, v,
						 v > kTarget ? 500000 : kLong, &st);
				uint32_t want = v > kTarget ? HL_WAIT_CS_STATUS_BUSY :
							      HL_WAIT_CS_STATUS_COMPLETED;
				if (rc || st != want)
					bad++;
			});
	std::this_thread::sleep_for(std::chrono::milliseconds(100));
	std::vector<std::thread> triggers;
	for (int q = 0; q < kQueues; q++)
		triggers.emplace_back([&, q] {
			for (int i = 0; i < kTarget; i++) {
				std::vector<uint32_t> w;
				put_sob(w, kSob + q, 1, false);
				put_monitor(w, kMon + q, kCq + q, 1, kSob + q, 1, false,
					    GAUDI2_MON_CFG_CQ_EN | GAUDI2_MON_CFG_LBW_EN);
				if (d.run(w))
					bad++;
			}
		});
	for (auto &t : triggers)
		t.join();
	for (auto &t : waiters)
		t.join();
	EXPECT_EQ(bad, 0);
	for (int q = 0; q < kQueues; q++)
		EXPECT_EQ(cq.words[q], (uint64_t)kTarget);
}
