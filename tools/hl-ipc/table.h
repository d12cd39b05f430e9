// SPDX-License-Identifier: MIT
// Table: columns of text, aligned for a terminal.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace hlipc {

class Table {
public:
	enum Align { Left, Right };

	// Adds a column; numbers read best aligned right.
	void column(std::string header, Align align = Left);
	void row(std::vector<std::string> cells);
	bool empty() const { return rows_.empty(); }
	// Prints header and rows, each line indented by indent spaces.
	void print(FILE *out, int indent = 0) const;

private:
	std::vector<std::string> headers_;
	std::vector<Align> aligns_;
	std::vector<std::vector<std::string>> rows_;
};

// 4096 -> "4 KiB", 1536 -> "1.5 KiB", 12 -> "12 B".
std::string human_bytes(uint64_t n);

}  // namespace hlipc
