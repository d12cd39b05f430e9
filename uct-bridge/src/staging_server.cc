// SPDX-License-Identifier: MIT
#include "staging_server.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "device_index.h"
#include "registry.h"

namespace gaudi_ipc {

namespace {

uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
}

// Moves host memory of this process with the kernel's checks: memory the
// program unmapped (or made read-only) after registering it gives -EFAULT,
// not a crash of the serving thread.
int host_copy(void *dst, const void *src, uint64_t len, bool into_registered)
{
	struct iovec local{const_cast<void *>(src), len};
	struct iovec remote{dst, len};
	ssize_t n;
	if (into_registered) {
		n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
	} else {
		local.iov_base = dst;
		remote.iov_base = const_cast<void *>(src);
		n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	}
	if (n < 0)
		return -errno;
	return static_cast<uint64_t>(n) == len ? 0 : -EFAULT;
}

}  // namespace

int StagingServer::init(uint32_t slots, uint64_t slot_size, uint64_t nonce,
			uint64_t dma_timeout_us)
{
	dma_timeout_us_ = dma_timeout_us;
	int rc = mb_.create(slots, slot_size, nonce);
	if (rc < 0)
		return rc;
	return bell_.bind(nonce, Bell::Request);
}

bool StagingServer::has_posted() const
{
	for (uint32_t i = 0; i < mb_.slots(); i++)
		if (mb_.slot(i).state.load(std::memory_order_relaxed) == kSlotPosted)
			return true;
	return false;
}

unsigned StagingServer::serve(bool block)
{
	std::unique_lock<std::mutex> l(mu_, std::defer_lock);
	if (block)
		l.lock();
	else if (!l.try_lock())
		return 0;
	if (!mb_.valid())
		return 0;
	unsigned served = 0;
	for (uint32_t i = 0; i < mb_.slots(); i++) {
		Slot &s = mb_.slot(i);
		uint32_t expect = kSlotPosted;
		if (s.state.load(std::memory_order_relaxed) != kSlotPosted ||
		    !s.state.compare_exchange_strong(expect, kSlotServing,
						     std::memory_order_acquire))
			continue;
		// Read the request once: the peer must not change it under us.
		const uint32_t op = s.op;
		const uint64_t key = s.key, offset = s.offset, length = s.length;
		const uint32_t ipid = s.initiator_pid.load(std::memory_order_relaxed);
		const uint64_t inonce = s.initiator_nonce;
		int rc = execute(op, key, offset, length, i);
		s.status.store(rc, std::memory_order_relaxed);
		s.state.store(kSlotDone, std::memory_order_release);
		Doorbell::ring(ipid, inonce, Bell::Completion);
		served++;
	}
	free_abandoned();
	return served;
}

int StagingServer::execute(uint32_t op, uint64_t key, uint64_t offset,
			   uint64_t len, uint32_t slot)
{
	if ((op != kSlotPut && op != kSlotGet) || len == 0 || len > mb_.slot_size())
		return -EINVAL;
	auto r = Registry::get().find(key);
	if (!r)
		return -ENOENT;  // never registered here, or deregistered since
	if (offset > r->length || len > r->length - offset)
		return -ERANGE;
	if (op == kSlotPut && !r->writable)
		return -EROFS;
	const uint64_t addr = r->addr + offset;
	unsigned char *staging = mb_.staging(slot);
	if (!r->device)
		return op == kSlotPut
			       ? host_copy(reinterpret_cast<void *>(addr), staging, len, true)
			       : host_copy(staging, reinterpret_cast<const void *>(addr), len,
					   false);
	const int dev = device_index(r->bus);
	DeviceDma *dd = nullptr;
	int rc = dma_.get(dev, addr, len, &dd);
	if (rc < 0)
		return rc;
	uint64_t base = 0;
	rc = staging_on_.va(dev, *dd, mb_.staging_base(), mb_.staging_bytes(), &base);
	if (rc < 0)
		return rc;
	const uint64_t sva = base + static_cast<uint64_t>(slot) * mb_.slot_size();
	return op == kSlotPut ? dd->engine.copy(addr, sva, len, dma_timeout_us_)
			      : dd->engine.copy(sva, addr, len, dma_timeout_us_);
}

void StagingServer::free_abandoned()
{
	// Slots of initiators that died are nobody's: free them, at most
	// once a second (each check reads /proc).
	uint64_t now = now_ns();
	if (now - last_sweep_ns_ < 1000000000ull)
		return;
	last_sweep_ns_ = now;
	for (uint32_t i = 0; i < mb_.slots(); i++) {
		Slot &s = mb_.slot(i);
		uint32_t st = s.state.load(std::memory_order_acquire);
		if (st == kSlotFree || st == kSlotServing)
			continue;
		uint32_t pid = s.initiator_pid.load(std::memory_order_acquire);
		if (pid == 0)
			continue;  // just claimed: the claimer has not said who it is
		ProcessId who{pid, s.initiator_start};
		if (!process_alive(who))
			s.state.compare_exchange_strong(st, kSlotFree,
							std::memory_order_acq_rel);
	}
}

void StagingServer::shutdown()
{
	std::lock_guard<std::mutex> l(mu_);
	staging_on_.reset();
	dma_ = DeviceDmaSet();
}

}  // namespace gaudi_ipc
