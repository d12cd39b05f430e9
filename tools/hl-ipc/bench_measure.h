// SPDX-License-Identifier: MIT
// The benchmark's measurements: for each size, one transfer from process
// A's device (or host memory) into process B's, by each path, timed side
// by side in one run and checked byte for byte.  Presentation is in
// bench_report.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hlipc {

enum class Path {
	Channel,  // hlthunk_ipc_channel_copy: A's device -> B's device
	Staged,   // A's DMA device -> pinned host, B's DMA host -> device
	Pvw,      // process_vm_writev: A's host memory -> B's host memory
	Memcpy,   // memcpy between two host buffers of A: the CPU's own speed
};
inline constexpr Path kPaths[] = {Path::Channel, Path::Staged, Path::Pvw,
				  Path::Memcpy};
const char *path_name(Path p);         // "channel", "staged", ...
const char *path_description(Path p);  // one line for people

struct Timing {
	int reps = 0;
	double seconds = 0;  // per transfer
};

struct SizeResult {
	uint64_t size;
	Timing t[4];  // indexed by Path
	const Timing &at(Path p) const { return t[static_cast<int>(p)]; }
};

struct BenchDevice {
	int index;
	std::string pci_addr;
	int pid;
};

struct BenchResult {
	double min_time = 0;  // as configured
	int min_reps = 0;
	BenchDevice a, b;
	std::vector<SizeResult> rows;
};

struct BenchConfig {
	std::vector<uint64_t> sizes;
	double min_time = 0.2;  // seconds per path and size, at least
	int min_reps = 3;
};

// done of total measurements finished; what: the one starting now.
using Progress = std::function<void(int done, int total, const std::string &what)>;

// Runs the benchmark (two processes, "hl-ipc bench" in messages).
// 0, or 1 after a message on stderr.
int run_bench(const BenchConfig &cfg, const Progress &progress, BenchResult *out);

}  // namespace hlipc
