// SPDX-License-Identifier: MIT
// hl-ipc bench: options, progress, and which report to print.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_measure.h"
#include "bench_report.h"
#include "cli.h"
#include "commands.h"
#include "size_list.h"

namespace hlipc {

namespace {

constexpr uint64_t kMaxSize = 1ull << 30;

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc bench [--sizes LIST] [--time SEC] [--json] [--plot FILE]\n"
		"\n"
		"Compares, side by side in one run, the ways process A (device 0) can\n"
		"move a buffer into process B (device 1):\n"
		"  channel            one channel copy, device to device\n"
		"  staged             A's DMA to pinned host memory, then B's DMA to\n"
		"                     its device (the path without channels)\n"
		"  process_vm_writev  host memory to host memory (UCX's cma transport)\n"
		"  memcpy             a plain copy in one process (the CPU's speed)\n"
		"Every result is checked byte for byte.  Needs two devices and\n"
		"habanalabs_ipc; the devices' compute nodes must be free.\n"
		"\n"
		"options:\n"
		"  --sizes LIST  bytes per transfer, comma-separated, with optional K, M\n"
		"                or G suffix (default 8,4K,64K,1M,16M,64M; at most 1G)\n"
		"  --time SEC    time each path runs per size, at least (default 0.2)\n"
		"  --json        the results as JSON on stdout instead of the table\n"
		"  --plot FILE   also draw bandwidth against size into FILE (.svg or\n"
		"                .png) with gnuplot\n"
		"  -h, --help    this text\n"
		"\n"
		"A progress bar is shown on stderr when it is a terminal.\n"
		"\n"
		"exit status: 0 done, 1 failed (the message says why), 2 bad command\n"
		"line.\n");
}

class ProgressBar {
public:
	explicit ProgressBar(bool on) : on_(on) {}
	~ProgressBar() { clear(); }
	void update(int done, int total, const std::string &what)
	{
		if (!on_)
			return;
		const int width = 30;
		int fill = total ? done * width / total : 0;
		fprintf(stderr, "\r\033[K[%.*s%*s] %3d%%  %s", fill,
			"##############################", width - fill, "",
			total ? done * 100 / total : 0, what.c_str());
		fflush(stderr);
		shown_ = true;
	}
	void clear()
	{
		if (shown_)
			fprintf(stderr, "\r\033[K");
		shown_ = false;
	}

private:
	bool on_;
	bool shown_ = false;
};

bool have_gnuplot()
{
	const char *path = getenv("PATH");
	std::string p = path ? path : "/usr/bin:/bin";
	size_t pos = 0;
	while (pos <= p.size()) {
		size_t colon = p.find(':', pos);
		std::string dir = p.substr(pos, colon == std::string::npos
							 ? std::string::npos
							 : colon - pos);
		if (access((dir + "/gnuplot").c_str(), X_OK) == 0)
			return true;
		if (colon == std::string::npos)
			break;
		pos = colon + 1;
	}
	return false;
}

}  // namespace

int bench_main(int argc, char **argv)
{
	bool help = false, json = false;
	std::string sizes_arg, time_arg, plot;
	OptionParser opts("bench");
	opts.flag("help", 'h', &help);
	opts.flag("json", 0, &json);
	opts.value("sizes", 0, &sizes_arg);
	opts.value("time", 0, &time_arg);
	opts.value("plot", 0, &plot);
	std::vector<std::string> args;
	if (!opts.parse(argc, argv, &args))
		return kExitUsage;
	if (help) {
		usage(stdout);
		return kExitOk;
	}
	if (!args.empty())
		return usage_error("bench", "unexpected argument '" + args[0] + "'");

	BenchConfig cfg;
	cfg.sizes = {8, 4096, 65536, 1 << 20, 16 << 20, 64 << 20};
	if (!sizes_arg.empty() && !parse_size_list(sizes_arg, kMaxSize, &cfg.sizes))
		return usage_error("bench", "bad --sizes '" + sizes_arg +
						    "': sizes from 1 to 1G, e.g. 8,4K,1M");
	if (!time_arg.empty()) {
		char *end;
		cfg.min_time = strtod(time_arg.c_str(), &end);
		if (*end || !(cfg.min_time >= 0 && cfg.min_time <= 3600))
			return usage_error("bench", "bad --time '" + time_arg +
							    "': seconds from 0 to 3600");
	}
	if (!plot.empty()) {
		size_t n = plot.size();
		bool svg = n > 4 && plot.compare(n - 4, 4, ".svg") == 0;
		bool png = n > 4 && plot.compare(n - 4, 4, ".png") == 0;
		if (!svg && !png)
			return usage_error("bench", "--plot wants a file ending in .svg "
						    "or .png, not '" + plot + "'");
		if (!have_gnuplot()) {
			fprintf(stderr, "hl-ipc bench: --plot needs gnuplot: "
					"apt-get install gnuplot-nox\n");
			return kExitFail;
		}
	}

	ProgressBar bar(isatty(STDERR_FILENO));
	BenchResult result;
	int rc = run_bench(cfg,
			   [&](int done, int total, const std::string &what) {
				   bar.update(done, total, what);
			   },
			   &result);
	bar.clear();
	if (rc)
		return kExitFail;
	if (json)
		print_bench_json(stdout, result);
	else
		print_bench_table(stdout, result);
	if (!plot.empty()) {
		if (plot_bench(result, plot))
			return kExitFail;
		fprintf(stderr, "hl-ipc bench: plot written to %s\n", plot.c_str());
	}
	return kExitOk;
}

}  // namespace hlipc
