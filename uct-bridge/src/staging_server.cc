// SPDX-License-Identifier: MIT
#include "staging_server.h"

#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <map>
#include <vector>

#include "device_index.h"
#include "registry.h"

namespace gaudi_ipc {

namespace {

void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

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
			uint64_t dma_timeout_us, uint64_t linger_ns)
{
	dma_timeout_us_ = dma_timeout_us;
	int rc = mb_.create(slots, slot_size, nonce, linger_ns);
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

bool StagingServer::only_claimed() const
{
	bool claimed = false;
	for (uint32_t i = 0; i < mb_.slots(); i++) {
		uint32_t st = mb_.slot(i).state.load(std::memory_order_relaxed);
		if (st == kSlotPosted)
			return false;
		claimed |= st == kSlotClaimed;
	}
	return claimed;
}

unsigned StagingServer::serve()
{
	std::unique_lock<std::mutex> l(mu_, std::try_to_lock);
	return l.owns_lock() ? serve_locked() : 0;
}

unsigned StagingServer::serve_awake()
{
	std::lock_guard<std::mutex> l(mu_);
	unsigned n = 0;
	if (!mb_.valid())
		return 0;
	for (;;) {
		n += serve_locked();
		// The linger time counts from the last piece served: a long
		// transfer keeps the server awake piece after piece.
		const uint64_t until = now_ns() + mb_.linger_ns();
		mb_.set_owner_awake(true);
		for (unsigned i = 1; only_claimed() && now_ns() < until; i++) {
			// A peer on this CPU (a loopback transfer) must get to run.
			if (i % 64 == 0)
				sched_yield();
			else
				cpu_relax();
		}
		mb_.set_owner_awake(false);
		if (!has_posted())
			return n;
	}
}

unsigned StagingServer::serve_locked()
{
	if (!mb_.valid())
		return 0;
	// Take every posted slot, then move them: host memory at once, device
	// memory with one command submission per device for all of them.
	std::vector<Request> reqs;
	for (uint32_t i = 0; i < mb_.slots(); i++) {
		Slot &s = mb_.slot(i);
		uint32_t expect = kSlotPosted;
		if (s.state.load(std::memory_order_relaxed) != kSlotPosted ||
		    !s.state.compare_exchange_strong(expect, kSlotServing,
						     std::memory_order_acquire))
			continue;
		// Read the request once: the peer must not change it under us.
		Request r;
		r.slot = i;
		r.op = s.op;
		r.key = s.key;
		r.offset = s.offset;
		r.length = s.length;
		r.initiator_pid = s.initiator_pid.load(std::memory_order_relaxed);
		r.initiator_nonce = s.initiator_nonce;
		r.rc = 0;
		r.dev = -1;
		reqs.push_back(r);
	}
	if (!reqs.empty()) {
		std::map<int, std::vector<DmaCopy>> copies;
		std::map<int, DeviceDma *> engines;
		for (Request &r : reqs)
			r.rc = plan(r, &copies, &engines);
		for (auto &kv : copies) {
			int rc = engines[kv.first]->engine.copy(kv.second, dma_timeout_us_);
			for (Request &r : reqs)
				if (r.dev == kv.first && r.rc == 0)
					r.rc = rc;
		}
		for (const Request &r : reqs) {
			Slot &s = mb_.slot(r.slot);
			s.status.store(r.rc, std::memory_order_relaxed);
			s.state.store(kSlotDone, std::memory_order_release);
		}
		// One ring per initiator interface.
		for (size_t i = 0; i < reqs.size(); i++) {
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = reqs[j].initiator_pid == reqs[i].initiator_pid &&
				       reqs[j].initiator_nonce == reqs[i].initiator_nonce;
			if (!seen)
				Doorbell::ring(reqs[i].initiator_pid, reqs[i].initiator_nonce,
					       Bell::Completion);
		}
		served_.fetch_add(reqs.size(), std::memory_order_relaxed);
	}
	free_abandoned();
	return static_cast<unsigned>(reqs.size());
}

int StagingServer::plan(Request &r, std::map<int, std::vector<DmaCopy>> *copies,
			std::map<int, DeviceDma *> *engines)
{
	if ((r.op != kSlotPut && r.op != kSlotGet) || r.length == 0 ||
	    r.length > mb_.slot_size())
		return -EINVAL;
	auto reg = Registry::get().find(r.key);
	if (!reg)
		return -ENOENT;  // never registered here, or deregistered since
	if (r.offset > reg->length || r.length > reg->length - r.offset)
		return -ERANGE;
	if (r.op == kSlotPut && !reg->writable)
		return -EROFS;
	const uint64_t addr = reg->addr + r.offset;
	unsigned char *staging = mb_.staging(r.slot);
	if (!reg->device)
		return r.op == kSlotPut
			       ? host_copy(reinterpret_cast<void *>(addr), staging, r.length, true)
			       : host_copy(staging, reinterpret_cast<const void *>(addr),
					   r.length, false);
	const int dev = device_index(reg->bus);
	DeviceDma *dd = nullptr;
	int rc = dma_.get(dev, addr, r.length, &dd);
	if (rc < 0)
		return rc;
	uint64_t base = 0;
	rc = staging_on_.va(dev, *dd, mb_.staging_base(), mb_.staging_bytes(), &base);
	if (rc < 0)
		return rc;
	const uint64_t sva = base + static_cast<uint64_t>(r.slot) * mb_.slot_size();
	(*copies)[dev].push_back(r.op == kSlotPut ? DmaCopy{addr, sva, r.length}
						  : DmaCopy{sva, addr, r.length});
	(*engines)[dev] = dd;
	r.dev = dev;
	return 0;
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
