// SPDX-License-Identifier: MIT
#include "verbs_fixture.h"

#include <string>

#include "dmabuf_interposer.h"

namespace rdmatest {

std::unique_ptr<Loopback> VerbsTest::lb_;
std::unique_ptr<hlipc::StagedDma> VerbsTest::dma_;

void VerbsTest::SetUpTestSuite()
{
	if (!lb_) {
		auto lb = std::make_unique<Loopback>();
		std::string why;
		int rc = lb->open(&why);
		ASSERT_EQ(rc, 0) << "verbs device: " << why
				 << " (is soft-RoCE up? see tests/rdma/soft-roce.sh)";
		lb_ = std::move(lb);
	}
	ASSERT_GE(dev_fd(), 0) << "no emulated Gaudi device (habanalabs_sim)";
	if (!dma_) {
		auto d = std::make_unique<hlipc::StagedDma>();
		ASSERT_EQ(d->init(dev_fd()), 0);
		dma_ = std::move(d);
	}
}

void VerbsTest::TearDownTestSuite()
{
	// The command buffer lives in the device context: drop it before a
	// test suite that closes the device.
	dma_.reset();
}

void VerbsTest::SetUp()
{
	interposer_reset();
}

void VerbsTest::dma_to_device(uint64_t dev_va, const HostBuffer &h,
			      uint64_t len)
{
	ASSERT_EQ(dma_->copy(dev_va, h.dev_va(), len), 0);
}

void VerbsTest::dma_from_device(const HostBuffer &h, uint64_t dev_va,
				uint64_t len)
{
	ASSERT_EQ(dma_->copy(h.dev_va(), dev_va, len), 0);
}

}  // namespace rdmatest
