// SPDX-License-Identifier: GPL-2.0
// Races on purpose: many threads on one /dev/hl_ipc fd and several
// processes on shared ids and cookies, each doing whatever ioctl comes
// next (create, destroy, register, deregister, copy, wait, close), for
// HL_STRESS_SECONDS (default 20) per test.  Results are whatever the
// races make them; what is checked is that nothing but documented errnos
// comes back, that the live counters return to zero, and (by the
// harness) that the kernel log stays clean, which on the debug kernel
// includes KASAN and lockdep.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "ipc_util.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr size_t BUF = 1 << 20;

double stress_seconds()
{
	const char *s = getenv("HL_STRESS_SECONDS");
	double v = s ? atof(s) : 20.0;
	return v > 0 ? v : 20.0;
}

using Clock = std::chrono::steady_clock;

Clock::time_point deadline(double seconds)
{
	return Clock::now() +
	       std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool time_left(Clock::time_point end)
{
	return Clock::now() < end;
}

// Errnos a racing call may legitimately return.
bool documented(int ret)
{
	static const std::set<int> ok = {0,	    -ENOENT, -EINVAL, -ERANGE, -ECANCELED,
					 -ETIMEDOUT, -EAGAIN, -ENOSPC, -EROFS,  -EBADF,
					 -EINTR};
	return ok.count(ret) != 0;
}

// The race from the report: one thread creates host-to-host channels,
// another destroys whatever ids it can guess, both on one fd.
TEST(Stress, ChannelCreateDestroyRace)
{
	int fd = open_ipc();
	ASSERT_GE(fd, 0);
	auto end = deadline(stress_seconds() / 2);
	std::atomic<uint32_t> last{1};
	std::atomic<long> created{0}, destroyed{0}, bad{0};
	std::thread creator([&] {
		while (time_left(end)) {
			uint32_t id;
			int ret = chan_create(fd, &id);
			if (!ret) {
				last = id;
				created++;
			} else if (ret != -ENOSPC) {
				bad++;
			}
		}
	});
	std::vector<std::thread> destroyers;
	for (int t = 0; t < 2; t++)
		destroyers.emplace_back([&, t] {
			while (time_left(end)) {
				uint32_t base = last.load();
				for (uint32_t id = base > 2 ? base - 2 : 1; id <= base + 2; id++) {
					int ret = chan_destroy(fd, id + static_cast<uint32_t>(t));
					if (!ret)
						destroyed++;
					else if (ret != -ENOENT)
						bad++;
				}
			}
		});
	creator.join();
	for (auto &t : destroyers)
		t.join();
	EXPECT_EQ(bad, 0);
	EXPECT_GT(created, 0);
	EXPECT_GT(destroyed, 0);
	close(fd);
	EXPECT_TRUE(live_counters_are(0, 0, 0, 0));
	fprintf(stderr, "created %ld channels, destroyed %ld\n", created.load(),
		destroyed.load());
}

// Shared state of the threads of one context.
struct Shared {
	int fd = -1;
	uint8_t *mem = nullptr;		// BUF bytes per slot
	static constexpr int SLOTS = 8;
	std::atomic<uint64_t> cookies[SLOTS];
	std::atomic<uint32_t> channels[SLOTS];
	std::atomic<uint64_t> seqs[SLOTS];
	std::atomic<long> ops{0}, bad{0};
};

// One random operation on shared ids and cookies of ctx (may be another
// process's cookies in foreign[]).
void random_op(Shared &s, std::mt19937_64 &rng, const std::atomic<uint64_t> *foreign, int nforeign)
{
	int slot = static_cast<int>(rng() % Shared::SLOTS);
	auto cookie = [&]() -> uint64_t {
		if (foreign && rng() % 3 == 0)
			return foreign[rng() % static_cast<unsigned>(nforeign)].load();
		return s.cookies[rng() % Shared::SLOTS].load();
	};
	int ret = 0;
	switch (rng() % 10) {
	case 0: {
		uint32_t id;
		ret = chan_create(s.fd, &id);
		if (!ret) {
			uint32_t old = s.channels[slot].exchange(id);
			if (old)
				chan_destroy(s.fd, old);
		}
		break;
	}
	case 1:
		ret = chan_destroy(s.fd, s.channels[slot].load());
		break;
	case 2: {
		uint64_t c;
		ret = reg_user(s.fd, s.mem + static_cast<size_t>(slot) * BUF, BUF, RW | HL_IPC_REGION_ANY_USER,
			       &c);
		if (!ret) {
			uint64_t old = s.cookies[slot].exchange(c);
			if (old)
				dereg(s.fd, old);
		}
		break;
	}
	case 3:
		ret = dereg(s.fd, cookie());
		break;
	case 4:
	case 5:
	case 6: {
		uint64_t seq = 0;
		size_t len = 1 + rng() % (BUF / 2);
		uint32_t fl = rng() % 2 ? HL_IPC_COPY_ASYNC : 0;
		ret = copy(s.fd, s.channels[slot].load(), cookie(), rng() % (BUF / 2), cookie(),
			   rng() % (BUF / 2), len, fl, &seq);
		if (seq)
			s.seqs[slot] = seq;
		break;
	}
	case 7: {
		int32_t st;
		ret = wait(s.fd, s.channels[slot].load(), s.seqs[slot].load(),
			   static_cast<int64_t>(rng() % 2 ? 0 : 1000000), &st);
		break;
	}
	case 8: {
		hl_ipc_copy_desc d[3];
		for (auto &x : d) {
			x = {};
			x.src_cookie = cookie();
			x.dst_cookie = cookie();
			x.src_offset = rng() % BUF;
			x.dst_offset = rng() % BUF;
			x.length = 1 + rng() % 65536;
		}
		hl_ipc_copy_batch b{};
		b.channel_id = s.channels[slot].load();
		b.flags = HL_IPC_COPY_ASYNC;
		b.descs = reinterpret_cast<uintptr_t>(d);
		b.count = 3;
		ret = xioctl(s.fd, HL_IPC_IOCTL_COPY_BATCH, &b);
		break;
	}
	case 9: {
		hl_ipc_region_query q{};
		q.cookie = cookie();
		ret = xioctl(s.fd, HL_IPC_IOCTL_REGION_QUERY, &q);
		break;
	}
	}
	s.ops++;
	if (!documented(ret)) {
		s.bad++;
		fprintf(stderr, "undocumented result %d (%s)\n", ret, strerror(-ret));
	}
}

TEST(Stress, ManyThreadsOneFd)
{
	Shared s;
	s.fd = open_ipc();
	ASSERT_GE(s.fd, 0);
	void *m = mmap(nullptr, BUF * Shared::SLOTS, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(m, MAP_FAILED);
	s.mem = static_cast<uint8_t *>(m);
	for (int i = 0; i < Shared::SLOTS; i++) {
		s.cookies[i] = 0;
		s.channels[i] = 0;
		s.seqs[i] = 1;
	}
	auto end = deadline(stress_seconds());
	std::vector<std::thread> threads;
	for (int t = 0; t < 8; t++)
		threads.emplace_back([&, t] {
			std::mt19937_64 rng(1234 + t);
			while (time_left(end))
				random_op(s, rng, nullptr, 0);
		});
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(s.bad, 0);
	fprintf(stderr, "%ld operations\n", s.ops.load());
	close(s.fd);
	munmap(m, BUF * Shared::SLOTS);
	EXPECT_TRUE(live_counters_are(0, 0, 0, 0));
}

// Processes share their cookies through shared memory, use each other's,
// race to deregister them (only owners may), close and reopen their
// contexts, and one of them is killed now and then in the middle.  Their
// regions are of one shared mapping, so that regions of different
// processes share pages and copies between them are planned from the
// pages while their regions are revoked.
TEST(Stress, ProcessesOnSharedCookies)
{
	constexpr int PROCS = 4;
	auto *pub = static_cast<std::atomic<uint64_t> *>(
		mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	ASSERT_NE(pub, MAP_FAILED);
	void *mem = mmap(nullptr, BUF * Shared::SLOTS, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(mem, MAP_FAILED);
	constexpr int NPUB = PROCS * Shared::SLOTS;
	for (int i = 0; i < NPUB; i++)
		new (&pub[i]) std::atomic<uint64_t>(0);
	double secs = stress_seconds();
	auto end = deadline(secs);
	auto worker = [&](int p, unsigned seed) {
		Shared s;
		s.mem = static_cast<uint8_t *>(mem);
		std::mt19937_64 rng(seed);
		while (time_left(end)) {
			s.fd = open_ipc();
			if (s.fd < 0)
				return 2;
			for (int i = 0; i < Shared::SLOTS; i++) {
				s.cookies[i] = 0;
				s.channels[i] = 0;
				s.seqs[i] = 1;
			}
			std::vector<std::thread> threads;
			for (int t = 0; t < 3; t++)
				threads.emplace_back([&, t] {
					std::mt19937_64 r(rng() + static_cast<unsigned>(t));
					for (int i = 0; i < 400 && time_left(end); i++) {
						random_op(s, r, pub, NPUB);
						int slot = static_cast<int>(r() % Shared::SLOTS);
						pub[p * Shared::SLOTS + slot] = s.cookies[slot].load();
					}
				});
			for (auto &t : threads)
				t.join();
			close(s.fd);
		}
		return s.bad ? 3 : 0;
	};
	std::vector<pid_t> pids(PROCS);
	unsigned seed = 99;
	auto spawn = [&](int p) {
		unsigned sd = seed++;
		pid_t pid = fork();
		if (pid == 0)
			_exit(worker(p, sd));
		pids[p] = pid;
	};
	for (int p = 0; p < PROCS; p++)
		spawn(p);
	int kills = 0, failures = 0;
	// Kill one worker now and then, mid-copy or wherever it is.
	while (time_left(end)) {
		std::this_thread::sleep_for(std::chrono::milliseconds(700));
		int p = kills % PROCS;
		kill(pids[p], SIGKILL);
		int st;
		waitpid(pids[p], &st, 0);
		kills++;
		if (time_left(end))
			spawn(p);
		else
			pids[p] = 0;
	}
	for (pid_t pid : pids) {
		if (!pid)
			continue;
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			failures++;
	}
	EXPECT_EQ(failures, 0);
	fprintf(stderr, "%d workers killed mid-run\n", kills);
	munmap(mem, BUF * Shared::SLOTS);
	munmap(pub, 4096);
	EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000));
}

}  // namespace
