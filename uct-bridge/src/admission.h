// SPDX-License-Identifier: MIT
// Admission to an interface's staged path, and the line each admitted
// initiator then shares with the interface.
//
// An interface that serves the staged path listens on a unix socket in a
// directory of its own, /tmp/hl-gaudi-ipc.<pid>.<nonce>, which it creates
// (mode 0700) and removes when it closes.  The nonce is 64 random bits
// drawn when the interface opens, so no other user can create the name
// first (whatever exists in /tmp beforehand is never used: the directory
// must be new), and processes of other users cannot even connect, so they
// can neither wake the interface nor learn anything from it.  /tmp is the
// one place every process of a node's mount namespace sees, so an
// initiator finds the socket from the interface's address alone; the
// socket's path proves nothing, the kernel's word on who listens does.
// An initiator connects; each side asks the kernel who
// the other is (SO_PEERCRED: pid and uid; then a pidfd, proven against
// the pid's start time) and goes on only with a process of its own uid,
// root included: root is no more trusting than any other user.  The
// interface then sends the initiator its welcome (the mailbox's geometry
// and the initiator's lane) with the mailbox's memfd attached
// (SCM_RIGHTS).
//
// The connection stays open as the lane between the two: one byte either
// way rings the other side (the initiator: "a piece is posted"; the
// interface: "a piece you sleep on is done"), and its hang-up tells
// either side that the other is gone.  Rings never block: a full socket
// means a ring is pending already.
#pragma once

#include <cstdint>
#include <string>

#include "hl/unique_fd.h"
#include "node_identity.h"
#include "process_handle.h"

namespace gaudi_ipc {

constexpr uint32_t kWelcomeMagic = 0x57504947;  // "GIPW"
constexpr uint32_t kWelcomeVersion = 1;

// The interface's welcome to an admitted initiator; the mailbox memfd
// comes with it.
struct Welcome {
	uint32_t magic;
	uint32_t version;
	uint32_t lane;       // the initiator's lane: its claims carry it
	uint32_t slots;      // the mailbox's geometry (mailbox.h)
	uint64_t slot_size;
	uint64_t nonce;      // the interface's
};

// An initiator the interface admitted: its lane, and who it is.
struct Admitted {
	hl::UniqueFd line;
	ProcessHandle process;
};

// The interface's side.
class AdmissionPoint {
public:
	AdmissionPoint() = default;
	AdmissionPoint(const AdmissionPoint &) = delete;
	AdmissionPoint &operator=(const AdmissionPoint &) = delete;
	~AdmissionPoint();

	// Listens for the interface named by this process and nonce, in a
	// directory it creates.  0 or -errno; on failure *why says why.
	int listen(uint64_t nonce, std::string *why);
	int fd() const { return fd_.get(); }
	// Takes the next initiator waiting.  0, -EAGAIN (none waits), or
	// another -errno for one that was turned away (another user's, gone
	// before it could be known, or met with a full fd table): call again.
	int accept(Admitted *out);

private:
	// A connection that cannot be taken for want of fds is taken with the
	// reserve's and closed at once: left waiting, it would keep the
	// socket readable, and whoever watches it would spin.
	int refuse_one();

	hl::UniqueFd fd_;
	hl::UniqueFd reserve_;  // an fd kept for refuse_one()
	hl::UniqueFd dir_;  // the directory made for it
	std::string dir_path_;
};

// Sends the welcome with the memfd.  0 or -errno.
int send_welcome(int line, const Welcome &w, int memfd);

// The initiator's side: connects to the interface (owner, nonce) and
// checks with the kernel that the process listening there is the owner
// and runs as this process's user.  0 or -errno: -ECONNREFUSED (no such
// interface: the process exited or closed it), -EACCES (another user's),
// -ESRCH (not the process named).
int connect_owner(const ProcessId &owner, uint64_t nonce, hl::UniqueFd *line,
		  ProcessHandle *process);
// Receives the welcome if it has arrived: 0, -EAGAIN (not yet),
// -ECONNRESET (the interface hung up), -EPROTO (not a welcome).
int recv_welcome(int line, Welcome *w, hl::UniqueFd *memfd);

// Rings the other end of a line.  False if it is gone.
bool ring_line(int line);
// What reading a line found.
enum class LineState { Quiet, Rung, Gone };
// Reads every ring waiting on a line.
LineState drain_line(int line);

// The admission socket of the interface (pid, nonce).
std::string admission_path(uint32_t pid, uint64_t nonce);

}  // namespace gaudi_ipc
