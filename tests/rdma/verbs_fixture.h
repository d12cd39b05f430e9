// SPDX-License-Identifier: MIT
// Shared set-up of the libhlthunk-verbs tests: one loopback connection on
// the verbs device and the device's DMA engine (through libhlthunk) to
// read and write device memory independently of the NIC.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "device_buffer.h"
#include "hlthunk_verbs.h"
#include "rdma_env.h"
#include "staged_dma.h"

namespace rdmatest {

class VerbsTest : public ::testing::Test {
protected:
	static void SetUpTestSuite();
	static void TearDownTestSuite();
	void SetUp() override;

	static Loopback &lb() { return *lb_; }
	static ibv_pd *pd() { return lb_->pd(); }
	static int fd() { return dev_fd(); }

	// Device memory <- host memory and back with the device's own DMA
	// engine (a command submission through libhlthunk).
	static void dma_to_device(uint64_t dev_va, const HostBuffer &h,
				  uint64_t len);
	static void dma_from_device(const HostBuffer &h, uint64_t dev_va,
				    uint64_t len);

	static std::unique_ptr<Loopback> lb_;
	static std::unique_ptr<hlipc::StagedDma> dma_;
};

// Registration that is deregistered at the end of the scope.
struct MrGuard {
	hlthunk_verbs_mr *mr = nullptr;
	~MrGuard() { reset(); }
	void reset()
	{
		if (mr) {
			EXPECT_EQ(hlthunk_verbs_dereg_mr(mr), 0)
				<< hlthunk_verbs_last_error();
		}
		mr = nullptr;
	}
	uint32_t rkey() const { return hlthunk_verbs_mr_ibv(mr)->rkey; }
	uint64_t iova() const { return hlthunk_verbs_mr_iova(mr); }
};

constexpr int kRemoteAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ;

inline uint64_t page_up(uint64_t n)
{
	return (n + 4095) / 4096 * 4096;
}

}  // namespace rdmatest
