// SPDX-License-Identifier: MIT
#include "bench_report.h"

#include <sys/utsname.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "json_writer.h"
#include "table.h"

namespace hlipc {

namespace {

double mbps(uint64_t size, const Timing &t)
{
	return t.seconds > 0 ? size / t.seconds / 1e6 : 0;
}

std::string rate(uint64_t size, const Timing &t)
{
	char b[64];
	double us = t.seconds * 1e6;
	if (us < 1000)
		snprintf(b, sizeof(b), "%.1f MB/s %7.1f us", mbps(size, t), us);
	else
		snprintf(b, sizeof(b), "%.1f MB/s %7.2f ms", mbps(size, t), us / 1e3);
	return b;
}

std::string ratio(const Timing &num, const Timing &den)
{
	char b[32];
	snprintf(b, sizeof(b), "%.2fx", num.seconds > 0 ? den.seconds / num.seconds : 0);
	return b;
}

std::string kernel_release()
{
	struct utsname u;
	return uname(&u) == 0 ? u.release : "?";
}

bool ends_with(const std::string &s, const char *suffix)
{
	size_t n = strlen(suffix);
	return s.size() >= n && !s.compare(s.size() - n, n, suffix);
}

}  // namespace

void print_bench_table(FILE *out, const BenchResult &r)
{
	fprintf(out, "Process A (pid %d, device %d, PCI %s) moved data into process B\n"
		     "(pid %d, device %d, PCI %s), one transfer at a time:\n",
		r.a.pid, r.a.index, r.a.pci_addr.c_str(), r.b.pid, r.b.index,
		r.b.pci_addr.c_str());
	for (Path p : kPaths)
		fprintf(out, "  %-18s %s\n", path_name(p), path_description(p));
	fprintf(out, "\n");
	Table t;
	t.column("SIZE", Table::Right);
	for (Path p : kPaths)
		t.column(path_name(p), Table::Right);
	t.column("CHANNEL/STAGED", Table::Right);
	t.column("CHANNEL/PVW", Table::Right);
	for (auto &row : r.rows) {
		std::vector<std::string> cells{human_bytes(row.size)};
		for (Path p : kPaths)
			cells.push_back(rate(row.size, row.at(p)));
		cells.push_back(ratio(row.at(Path::Channel), row.at(Path::Staged)));
		cells.push_back(ratio(row.at(Path::Channel), row.at(Path::Pvw)));
		t.row(cells);
	}
	t.print(out, 2);
	fprintf(out,
		"\nEach cell: bandwidth and time per transfer, averaged over at least\n"
		"%d transfers and %.2f s; every path's result was checked byte for\n"
		"byte.  A ratio above 1 means the channel is faster.  Compare paths\n"
		"within one run only: with emulated devices and in virtual machines\n"
		"the copy routines, not the designs, set the absolute numbers (see\n"
		"hl-ipc(8), \"bench\").\n",
		r.min_reps, r.min_time);
}

void print_bench_json(FILE *out, const BenchResult &r)
{
	JsonWriter j(out);
	j.begin_object();
	j.member("kernel", kernel_release());
	j.member("min_time", r.min_time);
	j.member("min_reps", r.min_reps);
	for (const auto *d : {&r.a, &r.b}) {
		j.key(d == &r.a ? "a" : "b");
		j.begin_object();
		j.member("pid", d->pid);
		j.member("device", d->index);
		j.member("pci_addr", d->pci_addr);
		j.end_object();
	}
	j.key("paths");
	j.begin_object();
	for (Path p : kPaths)
		j.member(path_name(p), path_description(p));
	j.end_object();
	j.key("rows");
	j.begin_array();
	for (auto &row : r.rows) {
		j.begin_object();
		j.member("size", row.size);
		for (Path p : kPaths) {
			const Timing &t = row.at(p);
			j.key(path_name(p));
			j.begin_object();
			j.member("reps", t.reps);
			j.member("seconds", t.seconds);
			j.member("mb_per_s", mbps(row.size, t));
			j.end_object();
		}
		const Timing &ch = row.at(Path::Channel);
		j.member("channel_over_staged",
			 ch.seconds > 0 ? row.at(Path::Staged).seconds / ch.seconds : 0.0);
		j.member("channel_over_pvw",
			 ch.seconds > 0 ? row.at(Path::Pvw).seconds / ch.seconds : 0.0);
		j.end_object();
	}
	j.end_array();
	j.end_object();
}

int plot_bench(const BenchResult &r, const std::string &file)
{
	const char *term;
	if (ends_with(file, ".svg"))
		term = "svg size 900,560 noenhanced";
	else if (ends_with(file, ".png"))
		term = "pngcairo size 900,560 noenhanced";
	else {
		fprintf(stderr, "hl-ipc bench: --plot wants a file ending in .svg or "
				".png, not '%s'\n", file.c_str());
		return 1;
	}
	// gnuplot reads the script and the data on stdin; the file name is
	// passed quoted for gnuplot (no shell involved).
	FILE *g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "hl-ipc bench: cannot run gnuplot: %s\n", strerror(errno));
		return 1;
	}
	std::string quoted;
	for (char c : file) {
		if (c == '\'')
			quoted += "''";
		else
			quoted += c;
	}
	fprintf(g, "set terminal %s\nset output '%s'\n", term, quoted.c_str());
	fprintf(g, "set logscale xy\nset xlabel 'bytes per transfer'\n"
		   "set ylabel 'MB/s'\nset key left top\nset grid\n"
		   "set title 'hl-ipc bench on %s: A -> B, one transfer at a time'\n",
		kernel_release().c_str());
	fprintf(g, "plot ");
	bool first = true;
	for (Path p : kPaths) {
		fprintf(g, "%s'-' using 1:2 with linespoints title '%s'",
			first ? "" : ", ", path_name(p));
		first = false;
	}
	fprintf(g, "\n");
	for (Path p : kPaths) {
		for (auto &row : r.rows)
			fprintf(g, "%llu %.6g\n", (unsigned long long)row.size,
				mbps(row.size, row.at(p)));
		fprintf(g, "e\n");
	}
	int st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "hl-ipc bench: gnuplot failed%s (is gnuplot installed? "
				"'apt-get install gnuplot-nox')\n",
			WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": not found" : "");
		return 1;
	}
	return 0;
}

}  // namespace hlipc
