// SPDX-License-Identifier: MIT
// The benchmark's results for people (a table), for scripts (JSON) and as
// a plot (gnuplot).
#pragma once

#include <cstdio>
#include <string>

#include "bench_measure.h"

namespace hlipc {

void print_bench_table(FILE *out, const BenchResult &r);
void print_bench_json(FILE *out, const BenchResult &r);
// Bandwidth against size, one line per path, into file (.svg or .png).
// 0, or 1 after a message.
int plot_bench(const BenchResult &r, const std::string &file);

}  // namespace hlipc
