// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hlipc {

void OptionParser::flag(const char *name, char short_name, bool *out)
{
	opts_.push_back({name, short_name, out, nullptr});
}

void OptionParser::value(const char *name, char short_name, std::string *out)
{
	opts_.push_back({name, short_name, nullptr, out});
}

const OptionParser::Opt *OptionParser::find_long(const std::string &name) const
{
	for (auto &o : opts_)
		if (name == o.name)
			return &o;
	return nullptr;
}

const OptionParser::Opt *OptionParser::find_short(char c) const
{
	for (auto &o : opts_)
		if (o.short_name && o.short_name == c)
			return &o;
	return nullptr;
}

bool OptionParser::parse(int argc, char **argv, std::vector<std::string> *positional)
{
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (options_done || a.size() < 2 || a[0] != '-') {
			positional->push_back(a);
			continue;
		}
		if (a == "--") {
			options_done = true;
			continue;
		}
		const Opt *o;
		std::string shown = a, inline_value;
		bool has_inline = false;
		if (a[1] == '-') {
			std::string name = a.substr(2);
			size_t eq = name.find('=');
			if (eq != std::string::npos) {
				inline_value = name.substr(eq + 1);
				name.resize(eq);
				shown = "--" + name;
				has_inline = true;
			}
			o = find_long(name);
		} else {
			o = a.size() == 2 ? find_short(a[1]) : nullptr;
		}
		if (!o) {
			usage_error(command_, "unknown option '" + shown + "'");
			return false;
		}
		if (o->flag) {
			if (has_inline) {
				usage_error(command_, "option '" + shown + "' takes no value");
				return false;
			}
			*o->flag = true;
			continue;
		}
		if (has_inline) {
			*o->value = inline_value;
		} else if (i + 1 < argc) {
			*o->value = argv[++i];
		} else {
			usage_error(command_, "option '" + shown + "' needs a value");
			return false;
		}
	}
	return true;
}

int usage_error(const char *command, const std::string &message)
{
	fprintf(stderr, "hl-ipc %s: %s (see 'hl-ipc %s --help')\n", command,
		message.c_str(), command);
	return kExitUsage;
}

}  // namespace hlipc
