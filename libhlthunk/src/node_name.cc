// SPDX-License-Identifier: MIT
#include "node_name.h"

#include <cstring>

namespace hlthunk {

namespace {

// Parses a decimal index of at most 4 digits (minors stay far below).
std::optional<int> parse_index(std::string_view s)
{
	if (s.empty() || s.size() > 4)
		return std::nullopt;
	int v = 0;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		v = v * 10 + (c - '0');
	}
	if (s.size() > 1 && s[0] == '0')
		return std::nullopt;
	return v;
}

bool consume(std::string_view &s, std::string_view prefix)
{
	if (s.substr(0, prefix.size()) != prefix)
		return false;
	s.remove_prefix(prefix.size());
	return true;
}

}  // namespace

std::optional<NodeName> parse_node_name(std::string_view p)
{
	consume(p, "/dev/");
	NodeStyle style;
	if (consume(p, "accel/accel"))
		style = NodeStyle::Accel;
	else if (consume(p, "hlsim"))
		style = NodeStyle::Sim;
	else if (consume(p, "hl"))
		style = NodeStyle::Legacy;
	else
		return std::nullopt;

	bool control = consume(p, "_controlD");
	auto idx = parse_index(p);
	if (!idx)
		return std::nullopt;
	return NodeName{style, *idx, control};
}

std::string node_path(const NodeName &n)
{
	std::string s;
	switch (n.style) {
	case NodeStyle::Accel:
		s = "/dev/accel/accel";
		break;
	case NodeStyle::Legacy:
		s = "/dev/hl";
		break;
	case NodeStyle::Sim:
		s = "/dev/hlsim";
		break;
	}
	if (n.control)
		s += "_controlD";
	return s + std::to_string(n.index);
}

std::optional<KindFilter> parse_kind_filter(const char *v)
{
	if (!v || !*v || !strcmp(v, "all"))
		return KindFilter{true, true};
	if (!strcmp(v, "real"))
		return KindFilter{true, false};
	if (!strcmp(v, "sim"))
		return KindFilter{false, true};
	return std::nullopt;
}

}  // namespace hlthunk
