// SPDX-License-Identifier: MIT
#include "table.h"

#include <cinttypes>

namespace hlipc {

void Table::column(std::string header, Align align)
{
	headers_.push_back(std::move(header));
	aligns_.push_back(align);
}

void Table::row(std::vector<std::string> cells)
{
	cells.resize(headers_.size());
	rows_.push_back(std::move(cells));
}

void Table::print(FILE *out, int indent) const
{
	std::vector<size_t> width(headers_.size());
	for (size_t c = 0; c < headers_.size(); c++) {
		width[c] = headers_[c].size();
		for (auto &r : rows_)
			width[c] = std::max(width[c], r[c].size());
	}
	auto line = [&](const std::vector<std::string> &cells) {
		std::string s(indent, ' ');
		for (size_t c = 0; c < cells.size(); c++) {
			size_t pad = width[c] - cells[c].size();
			bool last = c + 1 == cells.size();
			if (aligns_[c] == Right)
				s.append(pad, ' ');
			s += cells[c];
			if (aligns_[c] == Left && !last)
				s.append(pad, ' ');
			if (!last)
				s += "  ";
		}
		fprintf(out, "%s\n", s.c_str());
	};
	line(headers_);
	for (auto &r : rows_)
		line(r);
}

std::string human_bytes(uint64_t n)
{
	static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	double v = static_cast<double>(n);
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	char buf[32];
	if (u == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 " B", n);
	else if (v == static_cast<double>(static_cast<uint64_t>(v)))
		snprintf(buf, sizeof(buf), "%.0f %s", v, unit[u]);
	else
		snprintf(buf, sizeof(buf), "%.1f %s", v, unit[u]);
	return buf;
}

}  // namespace hlipc
