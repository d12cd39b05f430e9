// SPDX-License-Identifier: MIT
// Command-line conventions shared by the hl-ipc subcommands: exit codes
// and option parsing with clear errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hlipc {

// Exit codes (documented in hl-ipc(8)).
enum Exit {
	kExitOk = 0,
	kExitFail = 1,       // the operation failed (the message says why)
	kExitUsage = 2,      // bad command line
	kExitNotLoaded = 3,  // habanalabs_ipc is not loaded
};

// Options of one subcommand: --name, --name=value, --name value, -x.
// Anything not starting with '-' is positional; "--" ends the options.
class OptionParser {
public:
	explicit OptionParser(const char *command) : command_(command) {}
	void flag(const char *name, char short_name, bool *out);
	void value(const char *name, char short_name, std::string *out);
	// false (after a message on stderr naming the option) on bad input.
	bool parse(int argc, char **argv, std::vector<std::string> *positional);

private:
	struct Opt {
		const char *name;
		char short_name;
		bool *flag;
		std::string *value;
	};
	const Opt *find_long(const std::string &name) const;
	const Opt *find_short(char c) const;

	const char *command_;
	std::vector<Opt> opts_;
};

// Prints "hl-ipc CMD: MESSAGE (see 'hl-ipc CMD --help')" and returns
// kExitUsage.
int usage_error(const char *command, const std::string &message);

}  // namespace hlipc
