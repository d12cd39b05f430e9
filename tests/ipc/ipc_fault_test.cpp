// SPDX-License-Identifier: GPL-2.0
// Faults: processes killed or closing in the middle of copies, unload
// attempts while busy, and a bounded random-ioctl fuzz.  After each, the
// module's live counters must return to zero (the harness checks the
// kernel log and that the module unloads).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <thread>

#include "ipc_util.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr size_t BIG = 64 << 20;

class Fault : public testing::Test {
protected:
	void SetUp() override
	{
		ASSERT_TRUE(live_counters_are(0, 0, 0, 0)) << "a previous test leaked";
	}
	void TearDown() override
	{
		EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000));
	}
};

int read_full(int fd, void *p, size_t n)
{
	return read(fd, p, n) == (ssize_t)n ? 0 : -1;
}

// A child that registers a BIG region, sends its cookie and waits to die.
pid_t spawn_owner(int sock, Kind kind)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	int c = open_ipc();
	Buffer b;
	if (c < 0 || alloc(kind, BIG, &b) || reg(c, &b))
		_exit(1);
	fill(b.ptr, 4096, 1);
	if (write(sock, &b.cookie, sizeof(b.cookie)) != sizeof(b.cookie))
		_exit(2);
	for (;;)
		pause();
}

TEST_F(Fault, OwnerKilledDuringCopies)
{
	for (Kind kind : {Kind::User, Kind::Vgem, Kind::Udmabuf, Kind::Sim}) {
		if (!kind_available(kind) || kind == Kind::Sim)
			continue;  // sim's compute node is exclusive to one process
		SCOPED_TRACE(kind_name(kind));
		int sv[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pid_t owner = spawn_owner(sv[1], kind);
		uint64_t cookie = 0;
		ASSERT_EQ(read_full(sv[0], &cookie, sizeof(cookie)), 0);

		int ctx = open_ipc();
		uint32_t ch;
		ASSERT_EQ(chan_create(ctx, &ch), 0);
		Buffer mine;
		ASSERT_EQ(alloc(Kind::User, BIG, &mine), 0);
		ASSERT_EQ(reg(ctx, &mine), 0);
		uint64_t seq = 0;
		for (int i = 0; i < 6; i++)
			ASSERT_EQ(copy(ctx, ch, cookie, 0, mine.cookie, 0, BIG, HL_IPC_COPY_ASYNC, &seq), 0);
		// And a sync copy, blocked behind the queue, from another thread.
		int sync_ret = 1;
		std::thread t([&] { sync_ret = copy(ctx, ch, cookie, 0, mine.cookie, 0, BIG); });
		usleep(50000);
		kill(owner, SIGKILL);
		waitpid(owner, nullptr, 0);
		t.join();
		EXPECT_TRUE(sync_ret == 0 || sync_ret == -ENOENT) << sync_ret;
		int32_t status = 1;
		ASSERT_EQ(wait(ctx, ch, seq, -1, &status), 0);
		EXPECT_TRUE(status == 0 || status == -ENOENT) << status;
		// The cookie is revoked for good.
		EXPECT_EQ(copy(ctx, ch, cookie, 0, mine.cookie, 0, 1), -ENOENT);
		EXPECT_EQ(copy(ctx, ch, mine.cookie, 0, cookie, 0, 1), -ENOENT);
		close(ctx);
		close(sv[0]);
		close(sv[1]);
		EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000));
	}
}

TEST_F(Fault, PeerKilledMidCopy)
{
	int ctx = open_ipc();
	Buffer b;
	ASSERT_EQ(alloc(Kind::User, BIG, &b), 0);
	fill(b.ptr, 4096, 2);
	ASSERT_EQ(reg(ctx, &b), 0);
	for (bool async : {false, true}) {
		SCOPED_TRACE(async ? "async" : "sync");
		int p[2];
		ASSERT_EQ(pipe(p), 0);
		uint64_t cookie = b.cookie;
		pid_t peer = fork();
		if (peer == 0) {
			int c = open_ipc();
			uint32_t id;
			Buffer m;
			if (c < 0 || chan_create(c, &id) || alloc(Kind::User, BIG, &m) || reg(c, &m))
				_exit(1);
			char x = 1;
			if (write(p[1], &x, 1) != 1)
				_exit(2);
			for (;;) {
				if (async) {
					for (int i = 0; i < 8; i++)
						copy(c, id, cookie, 0, m.cookie, 0, BIG, HL_IPC_COPY_ASYNC);
					pause();
				}
				copy(c, id, cookie, 0, m.cookie, 0, BIG);
				copy(c, id, m.cookie, 0, cookie, 0, BIG);
			}
		}
		char x;
		ASSERT_EQ(read_full(p[0], &x, 1), 0);
		usleep(100000);
		kill(peer, SIGKILL);
		waitpid(peer, nullptr, 0);
		close(p[0]);
		close(p[1]);
		EXPECT_TRUE(live_counters_are(1, 1, 0, 0, 20000));
	}
	// Our region survived the peer and is still ours.
	EXPECT_EQ(dereg(ctx, b.cookie), 0);
	close(ctx);
}

// Two processes copying from each other's regions close at the same time.
TEST_F(Fault, BothCloseAtOnce)
{
	for (int round = 0; round < 3; round++) {
		int sv[2], go[2];
		ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		ASSERT_EQ(pipe(go), 0);
		pid_t kids[2];
		for (int k = 0; k < 2; k++) {
			kids[k] = fork();
			if (kids[k])
				continue;
			int s = sv[k];
			int c = open_ipc();
			uint32_t id;
			Buffer m;
			if (c < 0 || chan_create(c, &id) || alloc(Kind::User, 16 << 20, &m) || reg(c, &m))
				_exit(1);
			uint64_t theirs = 0;
			if (write(s, &m.cookie, 8) != 8 || read_full(s, &theirs, 8))
				_exit(2);
			for (int i = 0; i < 8; i++)
				copy(c, id, theirs, 0, m.cookie, 0, 16 << 20, HL_IPC_COPY_ASYNC);
			char x;
			if (read_full(go[0], &x, 1))
				_exit(3);
			close(c);  // both at once, with copies queued both ways
			_exit(0);
		}
		usleep(50000);
		char xx[2] = {1, 1};
		ASSERT_EQ(write(go[1], xx, 2), 2);
		for (pid_t k : kids) {
			int st;
			waitpid(k, &st, 0);
			EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
		close(sv[0]);
		close(sv[1]);
		close(go[0]);
		close(go[1]);
		EXPECT_TRUE(live_counters_are(0, 0, 0, 0, 20000));
	}
}

// A context is killed in the middle of its own sync copy.
TEST_F(Fault, SelfKilledInSyncCopy)
{
	pid_t pid = fork();
	if (pid == 0) {
		int c = open_ipc();
		uint32_t id;
		Buffer a, b;
		if (c < 0 || chan_create(c, &id) || alloc(Kind::User, BIG, &a) ||
		    alloc(Kind::User, BIG, &b) || reg(c, &a) || reg(c, &b))
			_exit(1);
		for (;;)
			copy(c, id, a.cookie, 0, b.cookie, 0, BIG);
	}
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, nullptr, 0);
}

// Where the bytes written so far end in a destination that fills front
// to back with 0x5a over zeros.  Read while a copier writes, the answer
// is no earlier than where the copier was when the search began.
size_t written_end(const volatile uint8_t *p, size_t n)
{
	size_t lo = 0, hi = n;  // [0, lo) written; hi: seen unwritten, or n
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[mid] == 0x5a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return hi;
}

// A fatal signal stops a sync copy at the end of the chunk under way:
// the copier is killed once its copy is seen running, and the bytes it
// wrote must end on a chunk boundary no later than the end of the chunk
// it was in when kill() returned (the signal is pending from then on).
// The bound is read from memory, not from a clock.
TEST_F(Fault, KillStopsSyncCopyWithinOneChunk)
{
	constexpr size_t CHUNK = 1 << 20, SIZE = 256 << 20;
	ParamScope chunk("chunk_size", std::to_string(CHUNK));
	void *m = mmap(nullptr, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(m, MAP_FAILED);
	auto *dst = static_cast<volatile uint8_t *>(m);
	bool stopped = false;
	// The copy must still run when the signal comes; on a loaded host it
	// may finish first, so a few tries.
	for (int attempt = 0; attempt < 3 && !stopped; attempt++) {
		memset(m, 0, SIZE);
		pid_t pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			int c = open_ipc();
			uint32_t id;
			Buffer src, d;
			d.ptr = static_cast<uint8_t *>(m);
			d.size = d.map_size = SIZE;
			if (c < 0 || chan_create(c, &id) || alloc(Kind::User, SIZE, &src))
				_exit(1);
			memset(src.ptr, 0x5a, SIZE);
			if (reg(c, &src) || reg(c, &d))
				_exit(1);
			d.ptr = nullptr;  // not this Buffer's mapping
			copy(c, id, src.cookie, 0, d.cookie, 0, SIZE);
			_exit(3);
		}
		// Spin: the copy may take only tens of milliseconds.
		int st = 0;
		bool running = false, gone = false;
		auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
		for (long i = 1; !running && !gone; i++) {
			running = dst[0] == 0x5a;
			if (!running && i % 4096 == 0)
				gone = waitpid(pid, &st, WNOHANG) == pid ||
				       std::chrono::steady_clock::now() > give_up;
		}
		kill(pid, SIGKILL);
		if (!running) {
			waitpid(pid, &st, 0);
			FAIL() << "the copier never started its copy (status " << st << ")";
		}
		size_t bound = written_end(dst, SIZE) / CHUNK * CHUNK + CHUNK;
		ASSERT_EQ(waitpid(pid, &st, 0), pid);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
			continue;  // finished before the kill
		ASSERT_TRUE(WIFSIGNALED(st)) << "copier exited with " << st;
		size_t done = written_end(dst, SIZE);
		EXPECT_EQ(done % CHUNK, 0u) << "stopped at byte " << done;
		EXPECT_LE(done, bound);
		EXPECT_LT(done, SIZE);
		stopped = true;
	}
	EXPECT_TRUE(stopped) << "every copy finished before its kill";
	munmap(m, SIZE);
}

TEST_F(Fault, UnloadRefusedWhileBusy)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root";
	int ctx = open_ipc();
	uint32_t ch;
	ASSERT_EQ(chan_create(ctx, &ch), 0);
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, BIG, &a), 0);
	ASSERT_EQ(alloc(Kind::User, BIG, &b), 0);
	ASSERT_EQ(reg(ctx, &a), 0);
	ASSERT_EQ(reg(ctx, &b), 0);
	uint64_t seq;
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, BIG, HL_IPC_COPY_ASYNC, &seq), 0);
	for (int i = 0; i < 3; i++) {
		errno = 0;
		EXPECT_EQ(syscall(SYS_delete_module, "habanalabs_ipc", O_NONBLOCK), -1);
		EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY) << strerror(errno);
	}
	EXPECT_EQ(wait(ctx, ch, seq, -1), 0);
	// Still fully working.
	EXPECT_EQ(copy(ctx, ch, a.cookie, 0, b.cookie, 0, 4096), 0);
	close(ctx);
}

// Random ioctls with random arguments, some fields steered to live
// cookies, channels and fds so that the deeper paths run too.
TEST_F(Fault, Fuzz)
{
	unsigned seed = 12345;
	if (const char *s = getenv("HL_IPC_FUZZ_SEED"))
		seed = static_cast<unsigned>(strtoul(s, nullptr, 0));
	int iters = 20000;
	if (const char *s = getenv("HL_IPC_FUZZ_ITERS"))
		iters = atoi(s);
	RecordProperty("seed", static_cast<int>(seed));
	std::mt19937_64 rng(seed);

	int ctx = open_ipc();
	int other = open_ipc();
	ASSERT_GE(ctx, 0);
	// 8 MiB each: every range the fuzz derives from them stays inside.
	Buffer a, b;
	ASSERT_EQ(alloc(Kind::User, 8 << 20, &a), 0);
	ASSERT_EQ(alloc(Kind::User, 8 << 20, &b), 0);
	int p[2];
	ASSERT_EQ(pipe(p), 0);
	std::vector<uint64_t> cookies;
	std::vector<uint32_t> chans;
	const unsigned long cmds[] = {
		HL_IPC_IOCTL_INFO, HL_IPC_IOCTL_REGION_REGISTER, HL_IPC_IOCTL_REGION_DEREGISTER,
		HL_IPC_IOCTL_REGION_QUERY, HL_IPC_IOCTL_CHANNEL_CREATE, HL_IPC_IOCTL_CHANNEL_DESTROY,
		HL_IPC_IOCTL_COPY, HL_IPC_IOCTL_COPY_BATCH, HL_IPC_IOCTL_WAIT, HL_IPC_IOCTL_NOP,
	};
	std::map<std::pair<unsigned, int>, int> outcomes;
	alignas(8) uint8_t arg[512];
	std::vector<hl_ipc_copy_desc> descs(8);
	auto pick64 = [&]() -> uint64_t {
		switch (rng() % 10) {
		case 0: return 0;
		case 1: return ~0ull;
		case 2: return rng() % 4096;
		case 3: return cookies.empty() ? rng() : cookies[rng() % cookies.size()];
		case 4: return reinterpret_cast<uintptr_t>(a.ptr) + rng() % (2 << 20);
		case 5: return rng() % (1 << 21);
		case 6: return (1ull << 63) + rng() % 16;
		default: return rng();
		}
	};
	auto pick32 = [&]() -> uint32_t {
		switch (rng() % 8) {
		case 0: return 0;
		case 1: return chans.empty() ? 1 : chans[rng() % chans.size()];
		case 2: return static_cast<uint32_t>(rng() % 16);
		case 3: return static_cast<uint32_t>(-1);
		case 4: return static_cast<uint32_t>(p[rng() % 2]);
		default: return static_cast<uint32_t>(rng());
		}
	};
	auto live_cookie = [&]() -> uint64_t {
		return cookies.empty() ? rng() : cookies[rng() % cookies.size()];
	};
	auto live_chan = [&]() -> uint32_t {
		return chans.empty() || rng() % 10 == 0 ? pick32() : chans[rng() % chans.size()];
	};
	for (int it = 0; it < iters; it++) {
		unsigned long cmd = cmds[rng() % (sizeof(cmds) / sizeof(cmds[0]))];
		if (rng() % 50 == 0)
			cmd = _IOC(rng() % 4, HL_IPC_IOCTL_MAGIC, rng() % 0x20, rng() % 300);
		// Mostly-valid argument: zeros with a few random fields, or all random.
		memset(arg, 0, sizeof(arg));
		bool wild = rng() % 8 == 0;
		for (size_t off = 0; off + 8 <= 96; off += 8) {
			if (wild || rng() % 3 == 0) {
				uint64_t v = rng() % 2 ? pick64() : pick32() | (uint64_t)pick32() << 32;
				memcpy(arg + off, &v, 8);
			}
		}
		// Make the common shapes likely.
		switch (_IOC_NR(cmd)) {
		case 0x01: {
			auto *r = reinterpret_cast<hl_ipc_region_register *>(arg);
			if (!wild) {
				r->type = HL_IPC_REGION_USER;
				r->flags = (rng() % 4 ? RW : rng() % 16) | HL_IPC_REGION_DEV_HOST;
				r->fd = -1;
				r->dev_fd = -1;
				Buffer &x = rng() % 2 ? a : b;
				uint64_t off = rng() % (1 << 20);
				r->addr = reinterpret_cast<uintptr_t>(x.ptr) + off;
				r->length = 1 + rng() % ((1 << 20) - off + (rng() % 8 == 0 ? 8192 : 0));
				memset(r->reserved, 0, sizeof(r->reserved));
			}
			break;
		}
		case 0x04: {
			auto *c = reinterpret_cast<hl_ipc_channel_create *>(arg);
			if (!wild) {
				c->src_fd = c->dst_fd = -1;
				c->flags = 3;
				memset(c->reserved, 0, sizeof(c->reserved));
			}
			break;
		}
		case 0x06: {
			auto *c = reinterpret_cast<hl_ipc_copy *>(arg);
			if (!wild) {
				c->channel_id = live_chan();
				c->flags &= 1;
				if (rng() % 4) {
					c->src_cookie = live_cookie();
					c->dst_cookie = live_cookie();
					c->src_offset = rng() % 3 ? rng() % 65536 : pick64();
					c->dst_offset = rng() % 3 ? rng() % 65536 : pick64();
				}
				c->length = rng() % 3 ? 1 + rng() % 70000 : pick64();
				memset(c->reserved, 0, sizeof(c->reserved));
			}
			break;
		}
		case 0x07: {
			auto *bt = reinterpret_cast<hl_ipc_copy_batch *>(arg);
			for (auto &d : descs) {
				d = {};
				d.src_cookie = rng() % 5 ? live_cookie() : pick64();
				d.dst_cookie = rng() % 5 ? live_cookie() : pick64();
				d.src_offset = rng() % 3 ? rng() % 4096 : pick64();
				d.dst_offset = rng() % 3 ? rng() % 4096 : pick64();
				d.length = rng() % 3 ? 1 + rng() % 8192 : pick64();
				d.flags = rng() % 10 == 0;
			}
			if (!wild) {
				bt->channel_id = live_chan();
				bt->flags &= 1;
				bt->descs = reinterpret_cast<uintptr_t>(descs.data());
				bt->count = 1 + rng() % 8;
				bt->error_index = 0;
				memset(bt->reserved, 0, sizeof(bt->reserved));
			}
			break;
		}
		case 0x08: {
			auto *w = reinterpret_cast<hl_ipc_wait *>(arg);
			if (!wild) {
				w->channel_id = live_chan();
				w->seq = rng() % 64;
				w->flags = 0;
				w->pad = 0;
				w->timeout_ns = rng() % 2 ? 0 : 1000000;
				memset(w->reserved, 0, sizeof(w->reserved));
			}
			break;
		}
		}
		int fd = rng() % 10 == 0 ? other : ctx;
		void *ptr = arg;
		switch (rng() % 40) {
		case 0: ptr = nullptr; break;
		case 1: ptr = reinterpret_cast<void *>(0xffff888000000000ull); break;
		case 2: ptr = reinterpret_cast<void *>(8); break;
		}
		int ret = xioctl(fd, cmd, ptr);
		outcomes[{_IOC_NR(cmd), ret}]++;
		if (!ret && fd == ctx && ptr == arg) {
			if (cmd == HL_IPC_IOCTL_REGION_REGISTER)
				cookies.push_back(reinterpret_cast<hl_ipc_region_register *>(arg)->cookie);
			if (cmd == HL_IPC_IOCTL_CHANNEL_CREATE) {
				chans.push_back(reinterpret_cast<hl_ipc_channel_create *>(arg)->channel_id);
				// Channel ids start at 1, whatever was destroyed before.
				EXPECT_NE(chans.back(), 0u) << "iteration " << it;
			}
		}
		// Keep the live sets bounded so the limits are hit only sometimes.
		if (cookies.size() > 64) {
			dereg(ctx, cookies.front());
			cookies.erase(cookies.begin());
		}
		if (chans.size() > 8) {
			chan_destroy(ctx, chans.front());
			chans.erase(chans.begin());
		}
	}
	close(ctx);
	close(other);
	close(p[0]);
	close(p[1]);
	// What the run reached: ioctl nr -> errno -> count.
	for (auto &[k, n] : outcomes)
		fprintf(stderr, "fuzz: nr %#x -> %s: %d\n", k.first,
			k.second ? strerror(-k.second) : "ok", n);
}

}  // namespace
