// SPDX-License-Identifier: GPL-2.0
// Raw-ioctl helpers for the habanalabs_sim tests: no library in between.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "habanalabs_abi.h"
#include "habanalabs_extra.h"

namespace simtest {

std::string compute_path(int idx);
std::string control_path(int idx);
std::string sysfs_attr(int idx, const std::string &name);
std::string read_file(const std::string &path);
bool write_file(const std::string &path, const std::string &value);
int num_devices();
uint64_t memory_size(int idx);
// debugfs live object counters, name -> count
std::map<std::string, long> stats();
// sum of all live object counters
long live_objects();
int module_refcnt();
void set_cs_delay_ms(unsigned int ms);
// A writable module parameter, by name.
void set_sim_param(const std::string &name, unsigned long value);
// A count of debugfs "events", or -1.
long sim_event(const std::string &name);

// Returns 0 or -errno.
int xioctl(int fd, unsigned long cmd, void *arg);
// HL_INFO_HW_IP_INFO of an open node: 0 or -errno.
int hw_ip_info(int fd, hl_info_hw_ip_info *hw);
// HL_INFO_CS_COUNTERS of fd's open: all 0 if the query fails.
hl_info_cs_counters cs_counters(int fd);

// One open of a compute node.
class Dev {
public:
	explicit Dev(int idx = 0);
	~Dev();
	Dev(const Dev &) = delete;
	Dev &operator=(const Dev &) = delete;

	int fd() const { return fd_; }
	int open_errno() const { return err_; }
	void close_fd();

	int mem(hl_mem_args *a) { return xioctl(fd_, DRM_IOCTL_HL_MEMORY, a); }
	int alloc(uint64_t size, uint64_t *handle, uint64_t page_size = 0,
		  uint32_t flags = 0);
	int free_handle(uint64_t handle);
	int map(uint64_t handle, uint64_t *va, uint64_t hint = 0,
		uint32_t flags = 0);
	int map_host(const void *p, uint64_t len, uint64_t *va,
		     uint64_t hint = 0, uint32_t flags = HL_MEM_USERPTR);
	int unmap(uint64_t va);
	int export_buf(uint64_t va, uint64_t size, uint64_t offset, int *fd,
		       uint32_t flags = 02 /* O_RDWR */ | 02000000 /* O_CLOEXEC */);
	// alloc + map in one go (asserts nothing; returns 0 or -errno)
	int alloc_map(uint64_t size, uint64_t *handle, uint64_t *va);

	// Kernel-allocated CBs (HL_IOCTL_CB): no Gaudi2 user queue takes them.
	int cb_create(uint32_t size, uint64_t *handle);
	int cb_destroy(uint64_t handle);
	// A user-allocated CB holding words, as Gaudi2's queues take them:
	// pages of this process mapped into the device; *va is its device
	// address.  It stays until cb_free() or the Dev goes.
	int cb_with(const std::vector<uint32_t> &words, uint64_t *va);
	int cb_free(uint64_t va);

	// A timeout_s other than 0 asks for it (HL_CS_FLAGS_CUSTOM_TIMEOUT).
	int cs(const std::vector<hl_cs_chunk> &chunks, uint64_t *seq,
	       uint32_t flags = 0, uint32_t timeout_s = 0);
	// One chunk of a user CB at device address va.
	int cs_one(uint64_t va, uint32_t cb_size, uint64_t *seq,
		   uint32_t queue = GAUDI2_QUEUE_ID_PDMA_0_0);
	int wait(uint64_t seq, uint64_t timeout_us, uint32_t *status,
		 uint32_t *flags = nullptr);
	// Builds a CB of the words, submits it and waits for completion.
	int run(const std::vector<uint32_t> &words);

private:
	int fd_ = -1;
	int err_ = 0;
	// User CBs: device address -> (host pages, their length).  Threads
	// share a Dev (the stress tests).
	std::mutex cbs_lock_;
	std::map<uint64_t, std::pair<void *, size_t>> user_cbs_;
};

// The chunk of a user CB (HL_CS_CHUNK_FLAGS_USER_ALLOC_CB) at device
// address va.
hl_cs_chunk user_chunk(uint64_t va, uint32_t cb_size,
		       uint32_t queue = GAUDI2_QUEUE_ID_PDMA_0_0);

// Packet builders (little-endian 32-bit words).
void put_lin_dma(std::vector<uint32_t> &w, uint64_t dst, uint64_t src,
		 uint32_t size, uint32_t extra_ctl = 0);
void put_nop(std::vector<uint32_t> &w);
uint32_t lin_dma_ctl();
// A packet's control word: opcode and message barrier.
uint32_t ctl(uint32_t opcode);
void put_msg_long(std::vector<uint32_t> &w, uint64_t addr, uint32_t value,
		  uint32_t extra_ctl = 0);
void put_msg_short(std::vector<uint32_t> &w, uint32_t base, uint32_t offset,
		   uint32_t value);
// A SOB write through base 1: set (or add) a 15-bit value.
void put_sob(std::vector<uint32_t> &w, uint32_t sob, uint32_t value, bool add);
// A monitor register through base 0 (offsets from MON_PAY_ADDRL_0).
void put_mon(std::vector<uint32_t> &w, uint32_t reg0, uint32_t mon,
	     uint32_t value);
// Monitor mon writes data to addr once SOB sob >= val (or == val); with
// config GAUDI2_MON_CFG_CQ_EN, addr is a completion queue's id.
void put_monitor(std::vector<uint32_t> &w, uint32_t mon, uint64_t addr,
		 uint32_t data, uint32_t sob, uint32_t val, bool equal = false,
		 uint32_t config = 0);

// A dma-buf fd mapped into memory; unmaps and closes when destroyed.
class Mapping {
public:
	Mapping(int fd, size_t len, int prot = 3 /* PROT_READ|PROT_WRITE */);
	~Mapping();
	Mapping(const Mapping &) = delete;
	Mapping &operator=(const Mapping &) = delete;
	uint8_t *data() const { return static_cast<uint8_t *>(p_); }
	bool ok() const { return ok_; }
	int error() const { return err_; }

private:
	void *p_ = nullptr;
	size_t len_;
	bool ok_ = false;
	int err_ = 0;
};

// Device memory: allocated on a device, mapped into its VA space,
// exported as a dma-buf and mapped into this process.  ok() says whether
// all of that worked; release() gives it back in reverse order, and the
// destructor does so if the test did not.  The Dev must outlive it.
class DevBuf {
public:
	DevBuf(Dev &d, uint64_t size);
	~DevBuf();
	DevBuf(const DevBuf &) = delete;
	DevBuf &operator=(const DevBuf &) = delete;
	bool ok() const { return map_ && map_->ok(); }
	uint8_t *data() const { return map_->data(); }
	// 0, or the first error of unmapping and freeing (-errno); a second
	// call does nothing.
	int release();
	// Only this process's side: the CPU mapping and the dma-buf fd.
	void release_host();

	uint64_t handle = 0, va = 0, size = 0;
	int fd = -1;

private:
	Dev &d_;
	std::unique_ptr<Mapping> map_;
};

void fill_pattern(uint8_t *p, size_t len, uint32_t seed);
// Index of the first mismatch, or -1.
long check_pattern(const uint8_t *p, size_t len, uint32_t seed);

// A test that starts with no live object of the module and leaves none:
// a leak fails the test that made it.  CS delays are off.
class LeakCheckedTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		set_cs_delay_ms(0);
		ASSERT_EQ(live_objects(), 0) << "objects left by an earlier test";
	}
	void TearDown() override
	{
		for (auto &kv : stats())
			EXPECT_EQ(kv.second, 0) << "leaked " << kv.first;
	}
};

} // namespace simtest
