// SPDX-License-Identifier: MIT
#include "fdinfo.h"

#include <cstdlib>
#include <map>
#include <sstream>

#include "uapi/habanalabs_ipc.h"

namespace hlipc {

namespace {

// "a=1 b=x" -> {a: 1, b: x}
std::map<std::string, std::string> fields(const std::string &s)
{
	std::map<std::string, std::string> out;
	std::istringstream in(s);
	std::string tok;
	while (in >> tok) {
		size_t eq = tok.find('=');
		if (eq != std::string::npos)
			out[tok.substr(0, eq)] = tok.substr(eq + 1);
	}
	return out;
}

uint64_t num(const std::map<std::string, std::string> &f, const char *k)
{
	auto it = f.find(k);
	return it == f.end() ? 0 : strtoull(it->second.c_str(), nullptr, 0);
}

DevRef dev(const std::map<std::string, std::string> &f, const char *k)
{
	DevRef d;
	auto it = f.find(k);
	if (it != f.end())
		sscanf(it->second.c_str(), "%u:%u:%u", &d.kind, &d.major, &d.index);
	return d;
}

}  // namespace

IpcContext parse_fdinfo(const std::string &text)
{
	IpcContext c;
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		size_t tab = line.find(":\t");
		if (tab == std::string::npos)
			continue;
		std::string key = line.substr(0, tab), rest = line.substr(tab + 2);
		if (key == "hl_ipc-abi") {
			c.valid = true;
			c.abi = static_cast<unsigned>(strtoul(rest.c_str(), nullptr, 10));
		} else if (key == "hl_ipc-region") {
			auto f = fields(rest);
			FdRegion r;
			r.cookie = num(f, "cookie");
			r.type = f["type"];
			r.flags = static_cast<uint32_t>(num(f, "flags"));
			r.size = num(f, "size");
			r.pinned = num(f, "pinned");
			r.dev = dev(f, "dev");
			r.dev_kind = r.dev.kind;
			c.regions.push_back(r);
		} else if (key == "hl_ipc-channel") {
			auto f = fields(rest);
			FdChannel ch;
			ch.id = static_cast<uint32_t>(num(f, "id"));
			ch.src = dev(f, "src");
			ch.dst = dev(f, "dst");
			ch.submitted = num(f, "submitted");
			ch.completed = num(f, "completed");
			ch.busy = num(f, "busy") != 0;
			ch.copies = num(f, "copies");
			ch.bytes = num(f, "bytes");
			ch.errors = num(f, "errors");
			c.channels.push_back(ch);
		}
	}
	return c;
}

std::string region_access(uint32_t flags)
{
	std::string s = flags & HL_IPC_REGION_WRITE ? "rw" : "r";
	if (flags & HL_IPC_REGION_ANY_USER)
		s += ",any-user";
	return s;
}

}  // namespace hlipc
