// SPDX-License-Identifier: MIT
#include "bench_measure.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "mapping.h"
#include "peer_msg.h"
#include "peer_pair.h"
#include "staged_transfer.h"
#include "table.h"

namespace hlipc {

namespace {

constexpr const char *kTool = "hl-ipc bench";

using Clock = std::chrono::steady_clock;

// A failed check ends the benchmark: a fast wrong copy is no result.
void check(const Side &a, const char *what, int32_t status, uint64_t size)
{
	if (status < 0)
		die(a, what, status);
	if (status > 0) {
		fprintf(stderr, "%s: %s: byte %d of %s is wrong\n", kTool, what,
			status - 1, human_bytes(size).c_str());
		_exit(1);
	}
}

// Runs one transfer by path p; returns 0 or -errno.
int transfer(Pair &p, Path path, uint64_t size, unsigned char *scratch)
{
	Side &a = *p.a;
	switch (path) {
	case Path::Channel:
		return hlthunk_ipc_channel_copy(
			a.channel, a.fd, a.peer_ctl,
			reinterpret_cast<void *>(a.peer_dst_va),
			reinterpret_cast<void *>(a.src.va()), size);
	case Path::Staged:
		return staged_transfer({a.dma, a.host_va}, a.src.va(), p.link, size);
	case Path::Pvw: {
		struct iovec local = {a.host, size};
		struct iovec remote = {reinterpret_cast<void *>(p.b.pvw_addr), size};
		ssize_t n = process_vm_writev(p.b_pid, &local, 1, &remote, 1, 0);
		if (n < 0)
			return -errno;
		return static_cast<uint64_t>(n) == size ? 0 : -EIO;
	}
	case Path::Memcpy:
		memcpy(scratch, a.host, size);
		// Keep the copy: the compiler must not drop it.
		asm volatile("" : : "r"(scratch) : "memory");
		return 0;
	}
	return -EINVAL;
}

// What B's memory must hold after path p, checked once per size.
void verify(Pair &p, Path path, uint64_t size, const unsigned char *scratch)
{
	Side &a = *p.a;
	uint32_t seed = a.index + 1;
	switch (path) {
	case Path::Channel:
	case Path::Staged:
		check(a, "checking B's device buffer",
		      request(p.link, kVerify, size, seed).status, size);
		check(a, "clearing B's buffer", request(p.link, kClear, size).status,
		      size);
		break;
	case Path::Pvw:
		check(a, "checking B's host buffer",
		      request(p.link, kVerifyHost, size, seed).status, size);
		break;
	case Path::Memcpy:
		check(a, "checking the memcpy", verify_pattern(scratch, size, seed),
		      size);
		break;
	}
}

Timing measure(Pair &p, Path path, uint64_t size, const BenchConfig &cfg,
	       unsigned char *scratch)
{
	Side &a = *p.a;
	// The host paths copy A's half of the host buffer, which the staged
	// path used as its staging slots: the pattern again, first.
	if (path == Path::Pvw || path == Path::Memcpy)
		fill_pattern(a.host, size, a.index + 1);
	// One untimed transfer first: the first channel copy of a buffer also
	// exports and registers it (cached afterwards), and every path warms
	// its caches and page tables.
	int rc = transfer(p, path, size, scratch);
	if (rc < 0)
		die(a, path_description(path), rc);
	Timing t;
	auto t0 = Clock::now();
	double elapsed = 0;
	while (t.reps < cfg.min_reps || elapsed < cfg.min_time) {
		rc = transfer(p, path, size, scratch);
		if (rc < 0)
			die(a, path_description(path), rc);
		t.reps++;
		elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
	}
	t.seconds = elapsed / t.reps;
	verify(p, path, size, scratch);
	return t;
}

}  // namespace

const char *path_name(Path p)
{
	switch (p) {
	case Path::Channel: return "channel";
	case Path::Staged: return "staged";
	case Path::Pvw: return "process_vm_writev";
	case Path::Memcpy: return "memcpy";
	}
	return "?";
}

const char *path_description(Path p)
{
	switch (p) {
	case Path::Channel:
		return "channel copy, A's device -> B's device (hlthunk_ipc_channel_copy)";
	case Path::Staged:
		return "staged DMA, A's device -> pinned host memory -> B's device";
	case Path::Pvw:
		return "process_vm_writev, A's host memory -> B's host memory (UCX cma)";
	case Path::Memcpy:
		return "memcpy between two host buffers of A (the CPU's own copy speed)";
	}
	return "?";
}

int run_bench(const BenchConfig &cfg, const Progress &progress, BenchResult *out)
{
	uint64_t max_size = *std::max_element(cfg.sizes.begin(), cfg.sizes.end());
	Pair pair;
	if (progress)
		progress(0, 1, "setting up both devices");
	if (start_pair(kTool, max_size, &pair))
		return 1;
	if (!pair.a->channel) {
		fprintf(stderr, "%s: no channel between the devices (%s); the benchmark "
				"measures the channel against the other paths\n",
			kTool, pair.a->no_channel.c_str());
		finish_pair(&pair);
		return 1;
	}
	Mapping scratch = Mapping::map(max_size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				       -1, 0);
	if (!scratch.valid())
		die(*pair.a, "allocating host memory", -errno);

	out->min_time = cfg.min_time;
	out->min_reps = cfg.min_reps;
	out->a = {pair.a->index, pair.a->bus, static_cast<int>(getpid())};
	out->b = {pair.b.index, pair.b.bus, static_cast<int>(pair.b_pid)};
	int total = static_cast<int>(cfg.sizes.size() * std::size(kPaths)), done = 0;
	for (uint64_t size : cfg.sizes) {
		SizeResult r{size, {}};
		for (Path path : kPaths) {
			if (progress)
				progress(done, total, std::string(path_name(path)) + " " +
							      human_bytes(size));
			r.t[static_cast<int>(path)] =
				measure(pair, path, size, cfg, scratch.bytes());
			done++;
		}
		out->rows.push_back(r);
	}
	if (progress)
		progress(total, total, "done");
	return finish_pair(&pair);
}

}  // namespace hlipc
