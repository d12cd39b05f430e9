// SPDX-License-Identifier: MIT
// Turns a -errno into a sentence that says what to do about it.
#pragma once

#include <cstddef>
#include <string>

namespace hlthunk {

// What the library was doing when the error happened; the same errno means
// different things (ENOENT opening /dev/hl_ipc: module not loaded; ENOENT
// from a copy: no such cookie or channel).
enum class Op {
	Generic,
	OpenIpc,        // opening /dev/hl_ipc
	OpenDevice,     // opening a device node
	Discover,       // enumerating devices
	Register,       // registering memory
	Import,         // importing a peer cookie
	ChannelCreate,
	ChannelDestroy,
	Copy,
	Wait,
	DeviceIoctl,    // any habanalabs device ioctl
};

// Static text for err (negative or positive errno) in that context.
const char *error_message(Op op, int err);

// "what: message (errno name)", for hlthunk_ipc_last_error(), written into
// buf (always NUL-terminated, truncated if need be).  Allocates nothing.
void format_failure(char *buf, size_t len, Op op, const char *what,
		    int err) noexcept;
// The same as a string.
std::string describe_failure(Op op, const std::string &what, int err);

}  // namespace hlthunk
