// SPDX-License-Identifier: MIT
// Benchmark helper: a figure measured over several runs, as its median
// and its lowest and highest run, for tables and JSON.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace hltest {

struct Spread {
	double med = 0, lo = 0, hi = 0;
};

// All zero for no values.
inline Spread spread(std::vector<double> v)
{
	Spread s;
	if (v.empty())
		return s;
	std::sort(v.begin(), v.end());
	const size_t n = v.size();
	s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.lo = v.front();
	s.hi = v.back();
	return s;
}

// {"median": .., "min": .., "max": ..}, or null for a figure that was
// not measured (no positive median).
inline std::string spread_json(const Spread &s)
{
	if (s.med <= 0)
		return "null";
	char b[96];
	snprintf(b, sizeof(b), "{\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}", s.med, s.lo,
		 s.hi);
	return b;
}

}  // namespace hltest
