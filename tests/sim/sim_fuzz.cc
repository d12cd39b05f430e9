// SPDX-License-Identifier: GPL-2.0
// A random fuzzer of habanalabs_sim's command-stream interpreter.
//
// Each round is a child process that owns a device for a moment: it maps
// device and host memory, then submits CSs of random packets (copies,
// sync-manager writes that may set off monitor cascades, fences,
// LOAD_AND_EXE, CP_DMA, CB_LISTs whose tables call their own CB,
// garbage) with hostile addresses and lengths, on random queues, with
// short timeouts, while a thread unmaps and frees what the CSs use.  The
// round ends by closing with work in flight, by exiting without clean-up,
// or by a SIGKILL from the parent at a random moment.
//
// It fails when an ioctl answers with an errno the emulator does not
// document for it, when a round does not end in time (a hang, or a CPU
// held), or when objects are left once every round is gone.  The VM
// harness fails it too on any warning, oops or KASAN/lockdep report in
// the guest's log.
//
// usage: sim_fuzz [SECONDS [SEED]]   (defaults: HL_SIM_FUZZ_SECONDS or 60,
//                                     HL_SIM_FUZZ_SEED or the time)
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "sim_util.h"

using namespace simtest;

namespace {

constexpr uint64_t kPage = 4096;
// How long a round submits, and how long it may take to end after that
// (times HL_TIMEOUT_FACTOR): CSs time out after at most 2 s, a close
// aborts the rest.
constexpr double kRoundSeconds = 1.5;
constexpr double kRoundGrace = 30;
// A CB holds at most 1600 packets of at most 24 bytes, or a storm's
// 5 * 1759 + 60 packets of 8 bytes.
constexpr uint64_t kCbBytes = 24 * kPage;
constexpr uint64_t kMaxPackets = 1600;

double now_s()
{
	timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

double timeout_factor()
{
	const char *f = getenv("HL_TIMEOUT_FACTOR");
	return f ? std::max(1.0, atof(f)) : 1.0;
}

// What the rounds did, in memory the children share with the parent.
struct Tally {
	std::atomic<unsigned long> submitted, accepted, waited;
	std::atomic<unsigned long> refused[256];	// by errno
};
Tally *tally;

struct Range {
	uint64_t va = 0;
	uint64_t size = 0;
	uint64_t handle = 0;	// device memory: its allocation
	uint8_t *host = nullptr;	// host memory: this process's mapping
	bool live = true;
};

class Round {
public:
	Round(uint64_t seed, int dev) : rng_(seed), d_(dev) {}

	// 0, or 1 after printing an unexpected answer.
	int run();

private:
	uint64_t r(uint64_t n) { return n ? rng_() % n : 0; }
	bool chance(unsigned int in) { return r(in) == 0; }
	void map_memory();
	uint64_t pick_addr(uint64_t len);
	uint32_t pick_len();
	uint32_t hostile_ctl(uint32_t opcode);
	void put_packet(std::vector<uint32_t> &w, uint64_t cb_va);
	void put_storm(std::vector<uint32_t> &w);
	void fill_table();
	bool check(const char *what, int rc, std::initializer_list<int> allowed);
	void disturb(std::atomic<bool> &stop);

	std::mt19937_64 rng_;
	Dev d_;
	std::mutex mu_;			// ranges_ against the disturber
	std::vector<Range> ranges_;
	Range table_;			// a CB_LIST table and its index words
	std::vector<Range> cb_pool_;	// host memory the CBs are written to
	std::vector<uint64_t> cbs_;	// their device addresses
	Range lower_;			// a CB of NOPs and SOB writes, for CP_DMA
	std::atomic<bool> bad_{false};
	// This CS is of well-formed packets on user resources, so that most
	// such CSs are accepted and run; the others are hostile throughout.
	bool clean_ = false;
};

void Round::map_memory()
{
	const uint64_t dev_sizes[] = {kPage, 64 * kPage, 256 * kPage};
	for (int i = 0, n = 1 + static_cast<int>(r(3)); i < n; i++) {
		Range m;
		m.size = dev_sizes[r(3)];
		if (d_.alloc_map(m.size, &m.handle, &m.va) == 0)
			ranges_.push_back(m);
	}
	for (int i = 0, n = 1 + static_cast<int>(r(2)); i < n; i++) {
		Range m;
		m.size = (1 + r(16)) * kPage;
		void *p = mmap(nullptr, m.size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		m.host = static_cast<uint8_t *>(p);
		if (d_.map_host(p, m.size, &m.va) == 0)
			ranges_.push_back(m);
	}
	// The table: entries the fuzzer rewrites, index words after them.
	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p != MAP_FAILED) {
		table_.host = static_cast<uint8_t *>(p);
		table_.size = kPage;
		if (d_.map_host(p, kPage, &table_.va))
			table_.va = 0;
	}
	// What a clean CP_DMA hands to the lower CP.
	p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		std::vector<uint32_t> w;
		while (w.size() * 4 < kPage - 8) {
			if (r(2))
				put_nop(w);
			else
				put_sob(w, static_cast<uint32_t>(413 + r(8192 - 413)), 1, true);
		}
		memcpy(p, w.data(), w.size() * 4);
		lower_.host = static_cast<uint8_t *>(p);
		lower_.size = w.size() * 4;
		if (d_.map_host(p, kPage, &lower_.va))
			lower_.va = 0;
	}
	// CBs, rewritten for every CS (and under the CBs a CB_LIST calls).
	for (int i = 0; i < 4; i++) {
		Range cb;
		cb.size = kCbBytes;
		p = mmap(nullptr, cb.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
		if (p == MAP_FAILED)
			continue;
		cb.host = static_cast<uint8_t *>(p);
		if (d_.map_host(p, cb.size, &cb.va) == 0) {
			cb_pool_.push_back(cb);
			cbs_.push_back(cb.va);
		}
	}
}

// An address for a packet: mostly inside or at the edges of mapped
// memory, sometimes the configuration space, a CB, or anything.
uint64_t Round::pick_addr(uint64_t len)
{
	std::lock_guard<std::mutex> g(mu_);
	const Range *m = ranges_.empty() ? nullptr : &ranges_[r(ranges_.size())];
	if (clean_ && m && !chance(8))
		return m->va + r(m->size - std::min<uint64_t>(len, m->size) + 1);
	switch (r(12)) {
	case 0:
	case 1:
	case 2:
	case 3:
		if (m)
			return m->va + r(m->size);
		break;
	case 4:
		if (m)	// across the end
			return m->va + m->size - std::min<uint64_t>(len, m->size) + r(8);
		break;
	case 5:
		if (m)
			return m->va + m->size;
		break;
	case 6: {
		// The sync manager: SOBs, monitors, completion queues, fences.
		const uint64_t bases[] = {GAUDI2_SM_SOB_OBJ_0, GAUDI2_SM_MON_PAY_ADDRL_0,
					  GAUDI2_SM_MON_ARM_0, GAUDI2_SM_CQ_BASE_ADDR_L_0,
					  GAUDI2_PDMA0_QM_CP_FENCE0_RDATA_0};
		return GAUDI2_CFG_BASE + bases[r(5)] + 4 * r(2048);
	}
	case 7:
		if (!cbs_.empty())
			return cbs_[r(cbs_.size())];
		break;
	case 8:
		if (table_.va)
			return table_.va + 4 * r(kPage / 4);
		break;
	case 9:
		return ~0ull - r(64);
	case 10:
		return r(kPage);
	}
	return rng_();
}

uint32_t Round::pick_len()
{
	const uint32_t lens[] = {0, 1, 4, 8, 60, 4096, 4097, 65536, 1u << 20,
				 1u << 24, 0xffffffffu, 0x80000000u};
	if (clean_)	// fits in every range
		return static_cast<uint32_t>(8 * (1 + r(kPage / 8)));
	return chance(3) ? static_cast<uint32_t>(rng_()) : lens[r(12)];
}

// A control word: the opcode with its barriers, sometimes with bits the
// packet may not have.
uint32_t Round::hostile_ctl(uint32_t opcode)
{
	uint32_t c = (opcode << GAUDI2_PKT_CTL_OPCODE_SHIFT) | GAUDI2_PKT_CTL_EB_MASK |
		     GAUDI2_PKT_CTL_MB_MASK;
	if (!clean_ && chance(6))
		c |= static_cast<uint32_t>(rng_()) & 0x00ffffffu;
	return c;
}

void Round::put_packet(std::vector<uint32_t> &w, uint64_t cb_va)
{
	auto addr = [&](uint64_t a) {
		w.push_back(static_cast<uint32_t>(a));
		w.push_back(static_cast<uint32_t>(a >> 32));
	};
	const uint32_t len = pick_len();
	switch (r(clean_ ? 9 : 11)) {
	case 0:
		w.push_back(0);
		w.push_back(hostile_ctl(GAUDI2_PACKET_NOP));
		break;
	case 1:
	case 2: {
		w.push_back(len);
		w.push_back(hostile_ctl(GAUDI2_PACKET_LIN_DMA));
		const uint64_t dst = pick_addr(len);
		addr(pick_addr(len));
		addr(dst);
		break;
	}
	case 3:
		w.push_back(static_cast<uint32_t>(rng_()));
		w.push_back(hostile_ctl(GAUDI2_PACKET_MSG_LONG));
		addr(pick_addr(4));
		break;
	case 4: {
		// A SOB write, or a monitor register (arming ones fire at once).
		uint32_t c = hostile_ctl(GAUDI2_PACKET_MSG_SHORT) & ~0x00ffffffu;
		const bool mon = r(2);
		c |= (mon ? GAUDI2_PKT_SHORT_BASE_MON : GAUDI2_PKT_SHORT_BASE_SOB)
		     << GAUDI2_PKT_SHORT_CTL_BASE_SHIFT;
		// Clean: a user monitor's register (of five), or a user SOB.
		const uint64_t off = !clean_ ? 4 * r(6 * 2048)
				     : mon   ? 4 * (2048 * r(5) + 289 + r(2048 - 289))
					     : 4 * (413 + r(8192 - 413));
		c |= off & GAUDI2_PKT_SHORT_CTL_ADDR_MASK;
		w.push_back(static_cast<uint32_t>(rng_()));
		w.push_back(c);
		break;
	}
	case 5:
		if (clean_ && lower_.va) {
			w.push_back(static_cast<uint32_t>(8 * (1 + r(lower_.size / 8))));
			w.push_back(hostile_ctl(GAUDI2_PACKET_CP_DMA));
			addr(lower_.va);
			break;
		}
		w.push_back(static_cast<uint32_t>(r(64) * 8));
		w.push_back(hostile_ctl(GAUDI2_PACKET_CP_DMA) |
			    (chance(3) ? GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK : 0));
		addr(chance(2) ? cb_va : pick_addr(64));
		break;
	case 6:
		w.push_back(static_cast<uint32_t>(rng_()) &
			    (GAUDI2_PKT_FENCE_CFG_DEC_VAL_MASK |
			     GAUDI2_PKT_FENCE_CFG_TARGET_VAL_MASK | GAUDI2_PKT_FENCE_CFG_ID_MASK));
		w.push_back(hostile_ctl(GAUDI2_PACKET_FENCE));
		break;
	case 7: {
		// Clean: into the predicates (a word each, or a map), or into
		// the scalars and run what they hold.
		const uint32_t cfgs[] = {GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK,
					 GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK |
						 GAUDI2_PKT_LOAD_AND_EXE_CFG_PMAP_MASK,
					 GAUDI2_PKT_LOAD_AND_EXE_CFG_LOAD_MASK |
						 GAUDI2_PKT_LOAD_AND_EXE_CFG_DST_MASK |
						 GAUDI2_PKT_LOAD_AND_EXE_CFG_EXE_MASK};
		w.push_back(clean_ ? cfgs[r(3)] : static_cast<uint32_t>(rng_()));
		w.push_back(hostile_ctl(GAUDI2_PACKET_LOAD_AND_EXE));
		addr(pick_addr(64));
		break;
	}
	case 8:
		w.push_back(0);
		w.push_back(hostile_ctl(GAUDI2_PACKET_CB_LIST));
		addr(table_.va && !chance(4) ? table_.va + kPage - 4 * (1 + r(8)) : pick_addr(4));
		addr(table_.va && !chance(4) ? table_.va : pick_addr(16));
		break;
	case 9:
		if (chance(8)) {
			w.push_back(0);
			w.push_back(hostile_ctl(GAUDI2_PACKET_STOP));
			break;
		}
		[[fallthrough]];
	default:
		// Garbage: any opcode, any words.
		for (uint64_t i = 0, n = 2 * (1 + r(3)); i < n; i++)
			w.push_back(static_cast<uint32_t>(rng_()));
		break;
	}
}

// Monitors of one SOB group that fire one another: each pays its writes
// into the group's SOBs or into monitors' ARM registers (which fire at
// once), then SOB writes set them off.
void Round::put_storm(std::vector<uint32_t> &w)
{
	const uint32_t group = static_cast<uint32_t>(52 + r(1024 - 52));	// 8 SOBs from 416
	// Sometimes nearly every user monitor: the widest cascade there is.
	const uint32_t count = static_cast<uint32_t>(chance(4) ? 1000 + r(2048 - 289 - 1000)
							     : 16 + r(240));
	const uint32_t first = static_cast<uint32_t>(289 + r(2048 - 289 - count + 1));
	for (uint32_t m = first; m < first + count; m++) {
		const uint32_t sob = 8 * group + static_cast<uint32_t>(r(8));
		const bool rearm = r(2);
		const uint64_t target =
			rearm ? GAUDI2_CFG_BASE + GAUDI2_SM_MON_ARM_0 + 4ull * (first + r(count))
			      : GAUDI2_CFG_BASE + GAUDI2_SM_SOB_OBJ_0 + 4ull * sob;
		const uint32_t arm = group | ((0xffu & ~(1u << (sob % 8))) << GAUDI2_MON_ARM_MASK_SHIFT) |
				     (1u << GAUDI2_MON_ARM_VAL_SHIFT);
		put_monitor(w, m, target, rearm ? arm : GAUDI2_SOB_ADD_MASK | 1, sob, 1, false,
			    static_cast<uint32_t>(r(4)) << GAUDI2_MON_CFG_WR_NUM_SHIFT);
	}
	for (uint64_t i = 0, n = 1 + r(60); i < n; i++)
		put_sob(w, 8 * group + static_cast<uint32_t>(r(8)), 1, true);
}

// The CB_LIST table: entries that call CBs (often the caller itself,
// which recurses until the call depth runs out), and index words.
void Round::fill_table()
{
	if (!table_.host)
		return;
	auto *words = reinterpret_cast<uint32_t *>(table_.host);
	for (unsigned int e = 0; e < 8; e++) {
		uint32_t *entry = words + 4 * e;
		const uint64_t cb = cbs_.empty() ? pick_addr(64) : cbs_[r(cbs_.size())];
		entry[0] = static_cast<uint32_t>(r(3) ? 8 * (1 + r(32)) : rng_());
		entry[1] = (GAUDI2_PACKET_CP_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
			   GAUDI2_PKT_CP_DMA_CTL_UPPER_CP_MASK | GAUDI2_PKT_CTL_EB_MASK |
			   GAUDI2_PKT_CTL_MB_MASK;
		if (chance(5))
			entry[1] = static_cast<uint32_t>(rng_());
		entry[2] = static_cast<uint32_t>(cb);
		entry[3] = static_cast<uint32_t>(cb >> 32);
	}
	for (unsigned int i = 1; i <= 8; i++)
		words[kPage / 4 - i] = static_cast<uint32_t>(chance(4) ? rng_() : r(8));
}

bool Round::check(const char *what, int rc, std::initializer_list<int> allowed)
{
	if (!rc)
		return true;
	for (int a : allowed)
		if (rc == -a)
			return true;
	fprintf(stderr, "sim_fuzz: %s answered %s (%d), which it does not document\n", what,
		strerror(-rc), rc);
	bad_ = true;
	return false;
}

// Unmaps and frees what CSs in flight may be using.
void Round::disturb(std::atomic<bool> &stop)
{
	while (!stop) {
		usleep(static_cast<useconds_t>(50000 + r(300000)));
		std::lock_guard<std::mutex> g(mu_);
		if (ranges_.empty())
			continue;
		Range &m = ranges_[r(ranges_.size())];
		if (!m.live)
			continue;
		m.live = false;
		// A device mapping goes, then its memory; host memory after the
		// unmap too (the CSs hold what they resolved).
		check("UNMAP", d_.unmap(m.va), {EINVAL});
		if (m.handle)
			check("FREE", d_.free_handle(m.handle), {EINVAL, EBUSY});
	}
}

int Round::run()
{
	if (d_.fd() < 0) {
		fprintf(stderr, "sim_fuzz: open: %s\n", strerror(d_.open_errno()));
		return 1;
	}
	map_memory();
	std::atomic<bool> stop{false};
	std::thread disturber([&] { disturb(stop); });
	const double end = now_s() + kRoundSeconds;
	std::vector<uint64_t> seqs;
	while (now_s() < end && !bad_ && !cb_pool_.empty()) {
		std::vector<uint32_t> w;
		clean_ = !chance(3);
		// Most CSs are short; some are long enough to leave the ioctl.
		const uint64_t n = chance(8) ? 100 + r(kMaxPackets - 100) : 1 + r(40);
		const Range &pool = cb_pool_[r(cb_pool_.size())];
		const uint64_t cb = pool.va;
		if (clean_ && chance(12))
			put_storm(w);
		else
			for (uint64_t i = 0; i < n; i++)
				put_packet(w, cb);
		memcpy(pool.host, w.data(), std::min<size_t>(w.size() * 4, pool.size));
		fill_table();

		// Clean: a queue users may submit to (sim_queue.c).
		const uint32_t edmas[] = {GAUDI2_QUEUE_ID_DCORE0_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE0_EDMA_1_0,
					  GAUDI2_QUEUE_ID_DCORE1_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE1_EDMA_1_0,
					  GAUDI2_QUEUE_ID_DCORE2_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE2_EDMA_1_0,
					  GAUDI2_QUEUE_ID_DCORE3_EDMA_0_0, GAUDI2_QUEUE_ID_DCORE3_EDMA_1_0};
		const uint32_t pdmas[] = {GAUDI2_QUEUE_ID_PDMA_0_0, GAUDI2_QUEUE_ID_PDMA_0_1,
					  GAUDI2_QUEUE_ID_PDMA_1_0};
		const uint32_t queue = !clean_ && chance(5)
					       ? static_cast<uint32_t>(r(GAUDI2_QUEUE_ID_SIZE + 4))
				       : r(2) ? pdmas[r(3)]
					      : edmas[r(8)] + static_cast<uint32_t>(r(4));
		uint32_t flags = 0;
		switch (r(clean_ ? 24 : 8)) {
		case 0:
			flags = HL_CS_FLAGS_SIGNAL;
			break;
		case 1:
			flags = HL_CS_FLAGS_WAIT;
			break;
		case 2:
			flags = HL_CS_FLAGS_TIMESTAMP;
			break;
		case 3:
			flags = static_cast<uint32_t>(rng_()) & 0xffffu;
			break;
		}
		const uint32_t bytes = static_cast<uint32_t>(std::min<size_t>(w.size() * 4, pool.size));
		std::vector<hl_cs_chunk> chunks{
			user_chunk(cb, !clean_ && chance(10) ? pick_len() : bytes, queue)};
		uint64_t signal = seqs.empty() ? 1 + r(100) : seqs[r(seqs.size())];
		if (flags == HL_CS_FLAGS_WAIT) {
			chunks[0].signal_seq_arr = reinterpret_cast<uintptr_t>(&signal);
			chunks[0].num_signal_seq_arr = 1;
		}
		uint64_t seq = 0;
		const int rc = d_.cs(chunks, &seq, flags, 1 + static_cast<uint32_t>(r(2)));
		tally->submitted++;
		if (!rc)
			tally->accepted++;
		else if (-rc < 256)
			tally->refused[-rc]++;
		if (!check("CS", rc, {EINVAL, EFAULT, EAGAIN, ENOMEM, EPERM, EINTR, ENOEXEC}))
			break;
		if (!rc && seq != ~0ull)
			seqs.push_back(seq);
		if (!seqs.empty() && chance(3)) {
			uint32_t st;
			check("WAIT_CS", d_.wait(seqs[r(seqs.size())], r(200000), &st),
			      {ETIMEDOUT, EIO, EINVAL, EINTR});
			tally->waited++;
		}
	}
	stop = true;
	disturber.join();
	if (bad_)
		return 1;
	// How the round ends: close with work in flight, or exit as is.
	if (chance(2))
		_exit(0);
	return 0;
}

// Runs one round in a child, perhaps kills it; false when it failed or hung.
bool one_round(uint64_t seed, int dev, double factor)
{
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		int rc;
		{
			Round round(seed, dev);
			rc = round.run();
		}
		_exit(rc);
	}
	std::mt19937_64 rng(seed ^ 0x5eed);
	const bool kill_it = rng() % 3 == 0;
	const double kill_at = now_s() + (rng() % 1500) / 1000.0;
	const double deadline = now_s() + (kRoundSeconds + kRoundGrace) * factor;
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (kill_it && now_s() >= kill_at)
			kill(pid, SIGKILL);
		if (now_s() > deadline) {
			fprintf(stderr, "sim_fuzz: round %#llx did not end in %.0f s\n",
				static_cast<unsigned long long>(seed), deadline - kill_at);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return false;
		}
		usleep(10000);
	}
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGKILL && kill_it;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "sim_fuzz: round %#llx failed (status %#x)\n",
			static_cast<unsigned long long>(seed), status);
		return false;
	}
	return true;
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: sim_fuzz [SECONDS [SEED]]\n"
		       "Fuzzes habanalabs_sim's command submission for SECONDS (default\n"
		       "$HL_SIM_FUZZ_SECONDS or 60) from SEED (default $HL_SIM_FUZZ_SEED or\n"
		       "the time); give the SEED it printed to run the same rounds again.\n");
		return 0;
	}
	const char *env_s = getenv("HL_SIM_FUZZ_SECONDS");
	const char *env_seed = getenv("HL_SIM_FUZZ_SEED");
	const double seconds = argc > 1 ? atof(argv[1]) : env_s ? atof(env_s) : 60;
	const uint64_t seed = argc > 2   ? strtoull(argv[2], nullptr, 0)
			      : env_seed ? strtoull(env_seed, nullptr, 0)
					 : static_cast<uint64_t>(time(nullptr));
	const double factor = timeout_factor();
	void *shared = mmap(nullptr, sizeof(Tally), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	tally = new (shared) Tally();
	const long cut0 = sim_event("sm_cut_cascades");
	printf("sim_fuzz: %.0f s from seed %#llx\n", seconds,
	       static_cast<unsigned long long>(seed));
	if (live_objects() != 0) {
		fprintf(stderr, "sim_fuzz: objects are live before the first round\n");
		return 1;
	}
	const int devices = std::max(1, num_devices());
	const double end = now_s() + seconds;
	unsigned long rounds = 0;
	bool ok = true;
	while (ok && now_s() < end) {
		ok = one_round(seed + rounds, static_cast<int>(rounds % devices), factor);
		rounds++;
		if (rounds % 10 == 0)
			printf("sim_fuzz: %lu rounds, %.0f s left\n", rounds, std::max(0.0, end - now_s()));
		fflush(stdout);
	}
	// Everything of every round goes once its last user is gone.
	const double drain = now_s() + 30 * factor;
	while (live_objects() != 0 && now_s() < drain)
		usleep(100000);
	for (auto &kv : stats())
		if (kv.second) {
			fprintf(stderr, "sim_fuzz: %ld %s left after the last round\n", kv.second,
				kv.first.c_str());
			ok = false;
		}
	printf("sim_fuzz: %lu CSs submitted, %lu accepted, %lu waits, %ld cascades cut\n",
	       tally->submitted.load(), tally->accepted.load(), tally->waited.load(),
	       sim_event("sm_cut_cascades") - cut0);
	for (int e = 1; e < 256; e++)
		if (tally->refused[e])
			printf("sim_fuzz:   refused with %s: %lu\n", strerror(e),
			       tally->refused[e].load());
	printf("sim_fuzz: %lu rounds from seed %#llx: %s\n", rounds,
	       static_cast<unsigned long long>(seed), ok ? "passed" : "FAILED");
	return ok ? 0 : 1;
}
