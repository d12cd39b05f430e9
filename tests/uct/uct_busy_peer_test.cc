// SPDX-License-Identifier: MIT
// A peer of the same user that keeps an owner busy: one that posts cheap
// pieces without pause, and one that opens connection after connection.
// Neither may hold UCX's async thread (the owner's timers keep firing,
// its interface closes at once) nor take the owner's fds (it can still
// open files, and others are still admitted), even with its fd table
// full.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucs/async/async_fwd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bridge_fixture.h"
#include "hostile.h"

namespace uct_test {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace
}  // namespace uct_test

// UCX's timers count its own clock's ticks (ucs/time/time.h, not installed).
extern "C" double ucs_get_cpu_clocks_per_sec();

namespace uct_test {
namespace {

double seconds_since(Clock::time_point t0)
{
	return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The longest time between two ticks of a timer on UCX's async thread.
struct TimerGaps {
	std::atomic<int64_t> last{0};
	std::atomic<int64_t> longest{0};
	std::atomic<unsigned> ticks{0};
	static int64_t now_ns()
	{
		return std::chrono::duration_cast<std::chrono::nanoseconds>(
			       Clock::now().time_since_epoch())
			.count();
	}
	static void tick(int, ucs_event_set_types_t, void *arg)
	{
		auto *g = static_cast<TimerGaps *>(arg);
		const int64_t t = now_ns(), before = g->last.exchange(t);
		g->ticks++;
		if (before && t - before > g->longest)
			g->longest = t - before;
	}
	void restart()
	{
		last = now_ns();
		longest = 0;
		ticks = 0;
	}
	// In seconds, the time since the last tick counted too.
	double longest_until_now() const
	{
		return std::max<int64_t>(longest, now_ns() - last) / 1e9;
	}
};

// A peer holds a slot claimed, as if it were filling it, and posts, for
// five seconds, a piece the owner answers at once (a key it never
// registered) into every other slot, each again as soon as it is
// answered.  The owner waits awake for a claimed slot (here up to a
// second, its own setting): a 5 ms timer on UCX's async thread must keep
// ticking, and the interface must close at once while the flood goes on.
// (A flood held the thread for all of it: no tick in 3 s; a turn of
// serving is 2 ms, so some 600 ticks come; the bound of 60 leaves room
// for a loaded host, whose guest stalls for up to a second now and
// then.)
TEST_F(Hostile, BusyPeerCannotHoldTheAsyncThread)
{
	auto owner = std::make_unique<Iface>(Config{{"CHANNELS", "n"}, {"SERVE_LINGER", "1s"}});
	ASSERT_EQ(owner->open_status(), UCS_OK);
	TimerGaps gaps;
	int timer = -1;
	ASSERT_EQ(ucs_async_add_timer(UCS_ASYNC_MODE_THREAD_SPINLOCK,
				      static_cast<ucs_time_t>(ucs_get_cpu_clocks_per_sec() * 0.005),
				      TimerGaps::tick, &gaps, owner->async(), &timer),
		  UCS_OK);
	Peer flooder(-1);
	ASSERT_TRUE(flooder.ok());
	// The same timer without a flood, for the log: what this host's noise is.
	gaps.restart();
	usleep(1000 * 1000);
	const double quiet = gaps.longest_until_now();
	const unsigned quiet_ticks = gaps.ticks;
	ASSERT_TRUE(flooder.post(kFlood, 5000, 0, 0, 0, 0, owner->address()));
	// The flood starts once the owner admitted the flooder.
	usleep(500 * 1000);
	gaps.restart();
	usleep(3000 * 1000);
	const double longest = gaps.longest_until_now();
	const unsigned flood_ticks = gaps.ticks;
	ucs_async_remove_handler(timer, 1);
	const auto t0 = Clock::now();
	owner.reset();
	const double closing = seconds_since(t0);
	PeerMsg r = flooder.reply();
	printf("%llu pieces posted; a 5 ms timer ticked %u times in 3 s (%u in 1 s without the "
	       "flood), its longest gap %.3f s (%.3f s); closing took %.3f s\n",
	       static_cast<unsigned long long>(r.a), flood_ticks, quiet_ticks, longest, quiet,
	       closing);
	EXPECT_EQ(r.status, 0) << "the flooder was not admitted";
	EXPECT_GT(r.a, 100u) << "the flood was not served: it measured nothing";
	// Held, the thread runs no timer for all of the flood; a loaded host
	// stalls the whole guest now and then, but not for most of 3 s.
	EXPECT_GE(flood_ticks, 60u) << "the flood held UCX's async thread";
	EXPECT_LT(closing, 2.0) << "closing the interface waited for the flood";
}

// A same-user process that opens connections to the owner's admission
// socket and never lets go, from its own fd table.
class Connector {
public:
	Connector(const std::string &path, int count)
	{
		int pfd[2];
		if (pipe(pfd) < 0)
			return;
		sockaddr_un sa;
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
		// Only system calls in the child: this process has threads.
		pid_ = fork();
		if (pid_ == 0) {
			struct rlimit lim;
			if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
				lim.rlim_cur = lim.rlim_max;
				setrlimit(RLIMIT_NOFILE, &lim);
			}
			int made = 0;
			for (int i = 0, tries = 0; i < count && tries < 200000; tries++) {
				int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
				if (s < 0)
					break;
				if (connect(s, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) == 0) {
					made++;
					i++;
					continue;
				}
				close(s);
				if (errno != EAGAIN)
					break;
				usleep(1000);  // the owner's backlog is full: wait for it
			}
			(void)!write(pfd[1], &made, sizeof(made));
			for (;;)
				pause();
		}
		close(pfd[1]);
		struct pollfd p = {pfd[0], POLLIN, 0};
		if (pid_ > 0 && poll(&p, 1, static_cast<int>(120000 * timeout_factor())) == 1)
			(void)!read(pfd[0], &made_, sizeof(made_));
		close(pfd[0]);
	}
	~Connector()
	{
		if (pid_ > 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
	}
	int made() const { return made_; }

private:
	pid_t pid_ = -1;
	int made_ = 0;
};

// This process, a stranger to the owner until now, puts into its memory.
void honest_put(Peer &owner)
{
	Iface i(Config{{"CHANNELS", "n"}, {"PEER_TIMEOUT", "5s"}});
	ASSERT_EQ(i.open_status(), UCS_OK);
	uct_ep_h ep = nullptr;
	ASSERT_EQ(i.connect(owner.address(), &ep), UCS_OK);
	constexpr uint64_t kLen = 65536;
	RemoteBuffer r = remote_buffer(owner, 0, kLen);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, kLen);
	Registration reg(local.addr(), kLen);
	fill(local.cpu(), kLen, 91, 0);
	EXPECT_EQ(zcopy(i, ep, false, local, 0, reg.memh(), r.addr, rk.rkey(), kLen), UCS_OK)
		<< "an honest initiator was not admitted";
	EXPECT_EQ(owner.call(kCheck, r.id, 91, 0, kLen, 0).a, 0u);
	uct_ep_destroy(ep);
}

// Waits until pid's fd count has not changed for half a second.
int settled_fds(pid_t pid)
{
	int n = count_fds(pid);
	const Deadline d(10);
	for (int same = 0; same < 5 && !d.passed(); usleep(100 * 1000)) {
		const int now = count_fds(pid);
		same = now == n ? same + 1 : 0;
		n = now;
	}
	return n;
}

// 700 connections from one process: the owner keeps its fds (a bounded
// number of lanes per peer process), admits others, and with its fd
// table full neither spins on the connections it cannot take nor keeps
// them waiting once it has fds again.
TEST_F(Hostile, FdExhaustingPeer)
{
	Peer owner(-1, false, {"UCX_GAUDI_IPC_CHANNELS=n"});
	ASSERT_TRUE(owner.ok());
	const std::string path = admission_socket_of(owner.pid());
	ASSERT_FALSE(path.empty()) << "no admission socket of the owner";
	const int base = settled_fds(owner.pid());
	{
		Connector crowd(path, 700);
		EXPECT_GE(crowd.made(), 100) << "the crowd could not connect";
		const int fds = settled_fds(owner.pid());
		printf("owner: %d fds before, %d with 700 connections of one process\n", base, fds);
		EXPECT_LE(fds, base + 128) << "one peer process took the owner's fds";
		honest_put(owner);

		// The owner's table full, more connections wait at its door: its
		// threads must not spin on them.
		PeerMsg full = owner.call(kFds, 1);
		ASSERT_EQ(full.status, 0);
		const long hz = sysconf(_SC_CLK_TCK);
		const auto t0 = helper_thread_ticks(owner.pid());
		Connector more(path, 20);
		usleep(1500 * 1000);
		const uint64_t spent = ticks_since(t0, helper_thread_ticks(owner.pid()));
		printf("owner's helper threads with a full fd table: %llu ticks in 1.5 s (%ld a "
		       "second)\n",
		       static_cast<unsigned long long>(spent), hz);
		// A thread spinning on the socket takes a whole CPU (150 ticks);
		// refusing the 20 takes a few, tens on a debug kernel.
		EXPECT_LE(spent, static_cast<uint64_t>(hz / 2)) << "it spun on its admission socket";
		ASSERT_EQ(owner.call(kFds, 0).status, 0);
	}
	honest_put(owner);
}

}  // namespace
}  // namespace uct_test
