// SPDX-License-Identifier: GPL-2.0
// Which command buffers each queue takes, as on Gaudi2: user-allocated
// CBs named by their device address (HL_CS_CHUNK_FLAGS_USER_ALLOC_CB) on
// the queues whose engine the device has; kernel CB handles, the driver's
// CPU queue and unknown queues are refused (validate_queue_index()), and
// so are CBs the queue cannot fetch (gaudi2_validate_cb_address()).
#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;

class SimQueues : public LeakCheckedTest {};

int submit_wait(Dev &d, const hl_cs_chunk &c)
{
	uint64_t seq;
	uint32_t st = ~0u;
	int rc = d.cs({c}, &seq);
	if (rc)
		return rc;
	rc = d.wait(seq, 30ull * 1000 * 1000, &st);
	if (rc)
		return rc;
	return st == HL_WAIT_CS_STATUS_COMPLETED ? 0 : -ETIME;
}

}  // namespace

// A user CB runs from host memory mapped into the device and from device
// memory, at any 8-byte offset, on each queue Gaudi2 opens to users.
TEST_F(SimQueues, UserCbsRunFromHostAndDeviceMemory)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf src(d, 4 * kPage), cbmem(d, kPage);
	ASSERT_TRUE(src.ok() && cbmem.ok());
	fill_pattern(src.data(), 4 * kPage, 3);
	std::vector<uint8_t> host(4 * kPage);
	uint64_t hva;
	ASSERT_EQ(d.map_host(host.data(), host.size(), &hva), 0);

	const uint32_t queues[] = {GAUDI2_QUEUE_ID_PDMA_0_0,
				   GAUDI2_QUEUE_ID_PDMA_0_1,
				   GAUDI2_QUEUE_ID_PDMA_1_0};
	for (unsigned i = 0; i < 3; i++) {
		std::vector<uint32_t> w;
		put_nop(w);
		put_lin_dma(w, hva + i * kPage, src.va + i * kPage, kPage);
		uint64_t cb;
		ASSERT_EQ(d.cb_with(w, &cb), 0);
		EXPECT_EQ(submit_wait(d, user_chunk(cb, w.size() * 4, queues[i])), 0)
			<< "queue " << queues[i];
		EXPECT_EQ(d.cb_free(cb), 0);
		EXPECT_EQ(memcmp(host.data() + i * kPage, src.data() + i * kPage,
				 kPage), 0) << "queue " << queues[i];
	}

	// The CB in device memory, 8 bytes into the allocation.
	std::vector<uint32_t> w;
	put_lin_dma(w, hva + 3 * kPage, src.va + 3 * kPage, kPage);
	memcpy(cbmem.data() + 8, w.data(), w.size() * 4);
	EXPECT_EQ(submit_wait(d, user_chunk(cbmem.va + 8, w.size() * 4)), 0);
	EXPECT_EQ(memcmp(host.data(), src.data(), 4 * kPage), 0);

	// An empty CB at an address the queue can fetch completes.
	EXPECT_EQ(submit_wait(d, user_chunk(cbmem.va, 0)), 0);

	EXPECT_EQ(d.unmap(hva), 0);
	EXPECT_EQ(src.release(), 0);
	EXPECT_EQ(cbmem.release(), 0);
}

// What Gaudi2 refuses is refused, with the driver's errno and counter,
// and nothing runs.
TEST_F(SimQueues, KernelCbsAndClosedQueuesAreRefused)
{
	Dev d(0);
	ASSERT_GE(d.fd(), 0);
	DevBuf src(d, kPage);
	ASSERT_TRUE(src.ok());
	fill_pattern(src.data(), kPage, 8);
	std::vector<uint8_t> host(kPage, 0xcc);
	uint64_t hva;
	ASSERT_EQ(d.map_host(host.data(), host.size(), &hva), 0);
	std::vector<uint32_t> w;
	put_lin_dma(w, hva, src.va, kPage);
	const uint32_t sz = w.size() * 4;

	// The same packets in a kernel CB, named by its handle.
	uint64_t kcb;
	ASSERT_EQ(d.cb_create(sz, &kcb), 0);
	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d.fd(), static_cast<off_t>(kcb));
	ASSERT_NE(p, MAP_FAILED);
	memcpy(p, w.data(), sz);
	uint64_t ucb;
	ASSERT_EQ(d.cb_with(w, &ucb), 0);

	hl_info_cs_counters c0 = cs_counters(d.fd());
	uint64_t seq;
	// validate_queue_index(): validation drops.
	hl_cs_chunk kernel = user_chunk(kcb, sz);
	kernel.cs_chunk_flags = 0;
	for (uint32_t q : {GAUDI2_QUEUE_ID_PDMA_0_0, GAUDI2_QUEUE_ID_PDMA_1_0,
			   GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0}) {
		kernel.queue_index = q;
		EXPECT_EQ(d.cs({kernel}, &seq), -EINVAL)
			<< "queue " << q << " doesn't support kernel CB";
	}
	EXPECT_EQ(d.cs_one(ucb, sz, &seq, GAUDI2_QUEUE_ID_CPU_PQ), -EINVAL)
		<< "restricted for the kernel driver";
	EXPECT_EQ(d.cs_one(ucb, sz, &seq, GAUDI2_QUEUE_ID_SIZE), -EINVAL)
		<< "no such queue";
	hl_info_cs_counters c1 = cs_counters(d.fd());
	EXPECT_EQ(c1.ctx_validation_drop_cnt, c0.ctx_validation_drop_cnt + 5);
	EXPECT_EQ(c1.ctx_parsing_drop_cnt, c0.ctx_parsing_drop_cnt);

	// gaudi2_cs_parser(): parsing drops.  Queues not enabled for users:
	// the other PDMA streams, and engines the device lacks.
	int parsing = 0;
	for (uint32_t q : {GAUDI2_QUEUE_ID_PDMA_0_2, GAUDI2_QUEUE_ID_PDMA_0_3,
			   GAUDI2_QUEUE_ID_PDMA_1_1, GAUDI2_QUEUE_ID_PDMA_1_2,
			   GAUDI2_QUEUE_ID_PDMA_1_3, GAUDI2_QUEUE_ID_DCORE0_MME_0_0,
			   GAUDI2_QUEUE_ID_DCORE1_TPC_0_0, GAUDI2_QUEUE_ID_NIC_0_0,
			   GAUDI2_QUEUE_ID_ROT_1_3}) {
		EXPECT_EQ(d.cs_one(ucb, sz, &seq, q), -EINVAL) << "queue " << q;
		parsing++;
	}
	// CBs the queue cannot fetch: EFAULT.
	EXPECT_EQ(d.cs_one(kcb, sz, &seq), -EFAULT)
		<< "a kernel CB's handle is no device address";
	EXPECT_EQ(d.cs_one(0x1000, sz, &seq), -EFAULT) << "outside every range";
	EXPECT_EQ(d.cs_one(ucb + 64 * kPage, sz, &seq), -EFAULT) << "unmapped";
	EXPECT_EQ(d.cs_one(ucb + kPage - 8, sz, &seq), -EFAULT)
		<< "runs past the end of its mapping";
	EXPECT_EQ(d.cs_one(~0ull - 8, sz, &seq), -EFAULT) << "wraps";
	parsing += 5;
	hl_info_cs_counters c2 = cs_counters(d.fd());
	EXPECT_EQ(c2.ctx_validation_drop_cnt, c1.ctx_validation_drop_cnt);
	EXPECT_EQ(c2.ctx_parsing_drop_cnt, c1.ctx_parsing_drop_cnt + parsing);
	for (uint8_t v : host)
		ASSERT_EQ(v, 0xcc) << "a refused CS ran";

	// The same packets as a user CB run.
	EXPECT_EQ(submit_wait(d, user_chunk(ucb, sz)), 0);
	EXPECT_EQ(memcmp(host.data(), src.data(), kPage), 0);

	munmap(p, kPage);
	EXPECT_EQ(d.cb_destroy(kcb), 0);
	EXPECT_EQ(d.cb_free(ucb), 0);
	EXPECT_EQ(d.unmap(hva), 0);
	EXPECT_EQ(src.release(), 0);
}
