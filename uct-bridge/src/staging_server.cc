// SPDX-License-Identifier: MIT
#include "staging_server.h"

#include <sched.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "clocks.h"

namespace gaudi_ipc {

namespace {

// Each lane holds two fds (its line and its initiator's pidfd).  The
// lanes of one interface take at most a quarter of the fd table, and
// those of one peer process a bounded number (a process has a lane per
// interface of its that moves data here), so that no peer can take the
// owner's fds or lock others out.
constexpr size_t kMaxLanes = 1024;
constexpr size_t kMinLanes = 16;
constexpr unsigned kLanesPerProcess = 32;
// Admissions taken per look, so that a crowd at the door cannot hold
// the serving thread.
constexpr int kAdmitsPerLook = 64;
// One turn of serving: UCX's async thread serves (and waits awake for
// pieces) at most this long, then gives the thread back, to come back
// at once if there is more (the kick): its other handlers and timers,
// and the interface's close, never wait longer.
constexpr uint64_t kTurnNs = 2000000;

size_t lane_cap()
{
	struct rlimit lim;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0 || lim.rlim_cur == RLIM_INFINITY)
		return kMaxLanes;
	return std::min(kMaxLanes, std::max<size_t>(kMinLanes, lim.rlim_cur / 4 / 2));
}

void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
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

int StagingServer::create(const Settings &s)
{
	set_ = s;
	max_lanes_ = lane_cap();
	kick_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
	if (!kick_.valid())
		return -errno;
	return mb_.create(s.slots, s.slot_size);
}

int StagingServer::listen(uint64_t nonce, std::string *why)
{
	nonce_ = nonce;
	return admission_.listen(nonce, why);
}

void StagingServer::admit(std::vector<int> *lines)
{
	std::lock_guard<std::mutex> l(mu_);
	for (int i = 0; i < kAdmitsPerLook; i++) {
		Admitted a;
		int rc = admission_.accept(&a);
		if (rc == -EAGAIN)
			return;
		if (rc < 0)
			continue;  // turned away: another user's, or gone already
		const ProcessKey who{a.process.pid(), a.process.start()};
		unsigned &of_process = per_process_[who];
		if (lanes_.size() >= max_lanes_ || of_process >= kLanesPerProcess ||
		    next_lane_ > wire::kMaxLane) {
			if (!of_process)
				per_process_.erase(who);
			continue;  // closed: the initiator hears it hang up
		}
		const uint32_t id = next_lane_++;
		const Geometry &g = mb_.geometry();
		Welcome w;
		w.magic = kWelcomeMagic;
		w.version = kWelcomeVersion;
		w.lane = id;
		w.slots = g.slots;
		w.slot_size = g.slot_size;
		w.nonce = nonce_;
		if (send_welcome(a.line.get(), w, mb_.fd()) < 0)
			continue;
		const int fd = a.line.get();
		by_line_[fd] = id;
		of_process++;
		lanes_[id] = Lane{std::move(a.line), std::move(a.process)};
		lines->push_back(fd);
	}
}

LineState StagingServer::line_event(int line)
{
	std::lock_guard<std::mutex> l(mu_);
	if (!by_line_.count(line))
		return LineState::Quiet;
	return drain_line(line);
}

void StagingServer::drop_lane(int line)
{
	std::lock_guard<std::mutex> l(mu_);
	auto it = by_line_.find(line);
	if (it == by_line_.end())
		return;
	// Its pieces being served end as FREE (finish() below).
	mb_.free_lane(it->second);
	auto lane = lanes_.find(it->second);
	if (lane != lanes_.end()) {
		const ProcessKey who{lane->second.process.pid(), lane->second.process.start()};
		auto n = per_process_.find(who);
		if (n != per_process_.end() && --n->second == 0)
			per_process_.erase(n);
		lanes_.erase(lane);
	}
	by_line_.erase(it);
}

std::vector<int> StagingServer::lines()
{
	std::lock_guard<std::mutex> l(mu_);
	std::vector<int> v;
	for (auto &kv : by_line_)
		v.push_back(kv.first);
	return v;
}

unsigned StagingServer::serve()
{
	// Progress calls this on every turn: with nothing posted, the lock
	// is taken (for the departed initiators' sweep) every 64th only.
	if (!has_posted() && (++idle_turns_ % 64))
		return 0;
	std::unique_lock<std::mutex> l(mu_, std::try_to_lock);
	return l.owns_lock() ? serve_locked() : 0;
}

unsigned StagingServer::serve_awake()
{
	std::lock_guard<std::mutex> l(mu_);
	if (!mb_.valid())
		return 0;
	// Awake from the first look on, serving included: a peer that claims
	// or posts a slot meanwhile need not ring (a system call per piece on
	// its side).
	mb_.set_awake(true);
	uint64_t now = hlipc::now_ns();
	const uint64_t turn_end = now + kTurnNs;
	if (!turn_pending_)
		served_at_ = now;  // woken: the waits count from now
	turn_pending_ = false;
	unsigned n = 0;
	for (;;) {
		if (mb_.has_posted()) {
			n += serve_locked();
			served_at_ = now = hlipc::now_ns();
		}
		// Awake until a piece is posted: while slots are being filled
		// up to the linger time, else up to the spin time, both counted
		// from the last piece served, so that a long transfer keeps the
		// server awake piece after piece, turn after turn.
		bool waited_out = false;
		for (unsigned i = 1; !mb_.has_posted() && now < turn_end; i++) {
			if (i % hlipc::kSpinTurnsPerClockRead) {
				cpu_relax();
				continue;
			}
			now = hlipc::now_ns();
			const uint64_t wait = mb_.any_claimed() ? set_.linger_ns : set_.spin_ns;
			if (now - served_at_ >= wait) {
				waited_out = true;
				break;
			}
			// A peer on this CPU (a loopback transfer) must get to run.
			sched_yield();
		}
		if (!waited_out && now >= turn_end) {
			// The turn is over with work left: give the thread back, and
			// be called again at once, still awake for the peers.
			turn_pending_ = true;
			(void)eventfd_write(kick_.get(), 1);
			return n;
		}
		if (!waited_out)
			continue;  // posted: serve it
		// Asleep, then one more look: a peer posts and then reads the
		// flag, so a post is either seen here or rung for.
		mb_.set_awake(false);
		if (!mb_.has_posted())
			return n;
		mb_.set_awake(true);
	}
}

void StagingServer::kicked()
{
	eventfd_t v;
	(void)eventfd_read(kick_.get(), &v);
}

unsigned StagingServer::serve_locked()
{
	if (!mb_.valid())
		return 0;
	// Take every posted slot, then move them: host memory at once, device
	// memory with one command submission per device for all of them.
	// The containers are kept from call to call (under mu_), with what
	// they allocated.
	std::vector<Item> &items = items_;
	items.clear();
	take_in_order(&items);
	if (!items.empty()) {
		for (auto &kv : copies_)
			kv.second.clear();
		for (Item &it : items)
			it.rc = it.req.error ? it.req.error : plan(it);
		for (auto &kv : copies_) {
			if (kv.second.empty())
				continue;
			int rc = engines_[kv.first]->dma.copy(kv.second, set_.dma_timeout_us);
			for (Item &it : items)
				if (it.dev == kv.first && it.rc == 0)
					it.rc = rc;
		}
		// Every piece has been moved (or failed): a deregistration may
		// go on.  Then the answers, all of them, and only then one ring
		// per lane that sleeps until one of these pieces is done: a lane
		// rung for its first piece before its second is marked done
		// could wake, find the second still served and sleep again,
		// with no ring left to come.
		rung_.clear();
		for (Item &it : items) {
			it.pin.reset();
			auto lane = lanes_.find(it.req.lane);
			it.deliver = lane != lanes_.end() && !lane->second.gone;
			mb_.finish(it.req, it.rc, it.deliver);
		}
		for (Item &it : items) {
			if (it.deliver && mb_.ring_wanted(it.req.slot) &&
			    std::find(rung_.begin(), rung_.end(), it.req.lane) == rung_.end()) {
				rung_.push_back(it.req.lane);
				ring_lane(it.req.lane);
			}
		}
		served_.fetch_add(items.size(), std::memory_order_relaxed);
	}
	sweep_departed();
	return static_cast<unsigned>(items.size());
}

void StagingServer::take_in_order(std::vector<Item> *items)
{
	// Every posted slot, looked at again until a look takes none more:
	// a piece posted before one this look took (into a slot the look had
	// passed already) is seen by the next look, since its post came
	// before the one seen here.  So the pieces taken hold every piece
	// their lanes posted before them, and moved in each lane's order
	// (sorted by its numbers) no later piece overtakes an earlier one,
	// in this call or across calls.  Once every slot is taken there can
	// be nothing else to take; a peer that keeps rewriting slots cannot
	// hold the loop for more looks than there are slots.
	const uint32_t slots = mb_.geometry().slots;
	for (;;) {
		const size_t before = items->size();
		for (uint32_t i = 0; i < slots; i++)
			if (auto r = mb_.take(i))
				items->push_back(Item{*r, 0, -1, false, Registry::Pin()});
		if (items->size() == before || items->size() >= slots)
			break;
	}
	if (items->size() < 2)
		return;  // (stable_sort would allocate its buffer even so)
	std::stable_sort(items->begin(), items->end(), [](const Item &a, const Item &b) {
		return a.req.lane != b.req.lane ? a.req.lane < b.req.lane : a.req.seq < b.req.seq;
	});
}

int StagingServer::plan(Item &it)
{
	const Request &r = it.req;
	int rc = Registry::get().pin(r.key, &it.pin);
	if (rc < 0)
		return rc;  // never registered here, or deregistered since
	const StagedRegion &reg = it.pin.region();
	if (r.offset > reg.length || r.length > reg.length - r.offset)
		return -ERANGE;
	if (r.op == SlotOp::Put && !reg.writable)
		return -EROFS;
	const uint64_t addr = reg.addr + r.offset;
	unsigned char *staging = mb_.staging(r.slot);
	if (!reg.device)
		return r.op == SlotOp::Put
			       ? host_copy(reinterpret_cast<void *>(addr), staging, r.length, true)
			       : host_copy(staging, reinterpret_cast<const void *>(addr),
					   r.length, false);
	const int dev = reg.dev;
	DeviceContext *dd = nullptr;
	if ((rc = dma_.get(dev, addr, r.length, reg.exported, &dd)) < 0)
		return rc;
	uint64_t base = 0;
	if ((rc = staging_on_.va(dev, *dd, mb_.staging_base(), mb_.staging_bytes(), &base)) < 0)
		return rc;
	const uint64_t sva = base + static_cast<uint64_t>(r.slot) * mb_.geometry().slot_size;
	copies_[dev].push_back(r.op == SlotOp::Put ? DmaCopy{addr, sva, r.length}
						   : DmaCopy{sva, addr, r.length});
	engines_[dev] = dd;
	it.dev = dev;
	return 0;
}

void StagingServer::ring_lane(uint32_t lane)
{
	auto it = lanes_.find(lane);
	if (it != lanes_.end() && !ring_line(it->second.line.get()))
		it->second.gone = true;
}

void StagingServer::sweep_departed()
{
	// An initiator whose line outlives it (a child it forked holds the
	// line) is noticed by its pidfd, at most once a second: its slots are
	// freed, and nothing is rung for it.
	const uint64_t now = hlipc::coarse_ns();
	if (now - last_sweep_ns_ < 1000000000ull)
		return;
	last_sweep_ns_ = now;
	for (auto &kv : lanes_) {
		if (!kv.second.gone && !kv.second.process.alive()) {
			kv.second.gone = true;
			mb_.free_lane(kv.first);
		}
	}
}

void StagingServer::shutdown()
{
	std::lock_guard<std::mutex> l(mu_);
	engines_.clear();
	staging_on_.reset();
	dma_ = DeviceContexts();
}

}  // namespace gaudi_ipc
