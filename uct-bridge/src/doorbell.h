// SPDX-License-Identifier: MIT
// Doorbells between processes of the staged path: an abstract unix
// datagram socket per interface and purpose, named by the owner's pid and
// mailbox nonce, whose fd becomes readable when a peer rings.  A ring is
// a hint to look at the mailbox, never data: a lost or extra ring only
// costs a wasted look, so rings never block and are never retried.
#pragma once

#include <cstdint>

#include "hl/unique_fd.h"
#include "mapping.h"

namespace gaudi_ipc {

enum class Bell : char {
	Request = 'r',     // a peer posted a slot in this interface's mailbox
	Completion = 'c',  // the owner of a mailbox finished a slot of ours
};

class Doorbell {
public:
	// Binds this process's bell of that kind for the nonce.  0 or -errno.
	int bind(uint64_t nonce, Bell kind);
	int fd() const { return fd_.get(); }
	// Reads every pending ring; true if there was any.
	bool drain() const;
	// Rings pid's bell (never blocks; failures are ignored: see above).
	static void ring(uint32_t pid, uint64_t nonce, Bell kind);

private:
	hl::UniqueFd fd_;
};

// A socket connected to one bell, for a process that rings it again and
// again: a ring then skips looking the bell's name up, which cost about
// as much as the rest of a ring under emulation.
class BellLine {
public:
	// Connects to pid's bell of that kind for the nonce.  0 or -errno
	// (-ECONNREFUSED: nobody listens there).
	int connect(uint32_t pid, uint64_t nonce, Bell kind);
	bool connected() const { return fd_.valid(); }
	// Rings (never blocks); false if the bell is gone (its process
	// closed it or died): the line is then useless.
	bool ring() const;

private:
	hl::UniqueFd fd_;
};

}  // namespace gaudi_ipc
