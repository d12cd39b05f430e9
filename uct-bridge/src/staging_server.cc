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
			uint64_t dma_timeout_us, uint64_t linger_ns, uint64_t spin_ns)
{
	dma_timeout_us_ = dma_timeout_us;
	spin_ns_ = spin_ns;
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

bool StagingServer::any_claimed() const
{
	for (uint32_t i = 0; i < mb_.slots(); i++)
		if (mb_.slot(i).state.load(std::memory_order_relaxed) == kSlotClaimed)
			return true;
	return false;
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
	// Awake from the first look on, serving included: a peer that claims
	// or posts a slot meanwhile need not ring (a system call per piece on
	// its side).
	mb_.set_owner_awake(true);
	for (;;) {
		n += serve_locked();
		// Awake until a piece is posted: while slots are being filled
		// up to the linger time, else up to the spin time, both counted
		// from the last piece served, so that a long transfer keeps the
		// server awake piece after piece.
		const uint64_t served_at = now_ns();
		for (unsigned i = 1; !has_posted(); i++) {
			const uint64_t wait = any_claimed() ? mb_.linger_ns() : spin_ns_;
			if (now_ns() - served_at >= wait)
				break;
			// A peer on this CPU (a loopback transfer) must get to run.
			if (i % 64 == 0)
				sched_yield();
			else
				cpu_relax();
		}
		if (has_posted())
			continue;
		// Asleep, then one more look: a peer posts and then reads the
		// flag, so a post is either seen here or rung for.
		mb_.set_owner_awake(false);
		if (!has_posted())
			return n;
		mb_.set_owner_awake(true);
	}
}

unsigned StagingServer::serve_locked()
{
	if (!mb_.valid())
		return 0;
	// Take every posted slot, then move them: host memory at once, device
	// memory with one command submission per device for all of them.
	// The containers are kept from call to call (under mu_), with what
	// they allocated.
	std::vector<Request> &reqs = reqs_;
	reqs.clear();
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
		r.ring = false;
		reqs.push_back(r);
	}
	if (!reqs.empty()) {
		std::map<int, std::vector<DmaCopy>> &copies = copies_;
		std::map<int, DeviceDma *> &engines = engines_;
		for (auto &kv : copies)
			kv.second.clear();
		for (Request &r : reqs)
			r.rc = plan(r, &copies, &engines);
		for (auto &kv : copies) {
			if (kv.second.empty())
				continue;
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
		// One ring per initiator interface that sleeps until one of
		// these slots is done.
		for (Request &r : reqs)
			r.ring = mb_.ring_wanted(r.slot);
		for (size_t i = 0; i < reqs.size(); i++) {
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = reqs[j].ring && reqs[j].initiator_pid == reqs[i].initiator_pid &&
				       reqs[j].initiator_nonce == reqs[i].initiator_nonce;
			if (reqs[i].ring && !seen)
				ring_initiator(reqs[i].initiator_pid, reqs[i].initiator_nonce);
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

void StagingServer::ring_initiator(uint32_t pid, uint64_t nonce)
{
	// Initiators come and go: the lines are few, and forgotten all at
	// once when there are too many.
	constexpr size_t kMaxLines = 64;
	const auto who = std::make_pair(pid, nonce);
	auto it = lines_.find(who);
	if (it == lines_.end()) {
		BellLine line;
		if (line.connect(pid, nonce, Bell::Completion) < 0)
			return;  // nobody listens: nobody to wake
		if (lines_.size() >= kMaxLines)
			lines_.clear();
		it = lines_.emplace(who, std::move(line)).first;
	}
	if (!it->second.ring())
		lines_.erase(it);
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
	engines_.clear();
	staging_on_.reset();
	dma_ = DeviceDmaSet();
}

}  // namespace gaudi_ipc
