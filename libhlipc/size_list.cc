// SPDX-License-Identifier: MIT
#include "size_list.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace hlipc {

bool parse_size(const std::string &s, uint64_t *out)
{
	if (s.empty() || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s.c_str(), &end, 10);
	if (errno)
		return false;
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (~0ull >> shift)))
		return false;
	*out = v << shift;
	return true;
}

bool parse_size_list(const std::string &list, uint64_t max, std::vector<uint64_t> *out)
{
	out->clear();
	size_t pos = 0;
	for (;;) {
		const size_t comma = list.find(',', pos);
		const std::string item =
			list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		uint64_t v;
		if (!parse_size(item, &v) || v == 0 || v > max)
			return false;
		out->push_back(v);
		if (comma == std::string::npos)
			return true;
		pos = comma + 1;
	}
}

std::string size_label(uint64_t s)
{
	char b[32];
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		snprintf(b, sizeof(b), "%" PRIu64 " MiB", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(b, sizeof(b), "%" PRIu64 " KiB", s >> 10);
	else
		snprintf(b, sizeof(b), "%" PRIu64 " B", s);
	return b;
}

}  // namespace hlipc
