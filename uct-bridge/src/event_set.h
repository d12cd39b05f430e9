// SPDX-License-Identifier: MIT
// What a sleeping user of an interface waits on (uct_iface_event_fd_get):
// one epoll fd holding the fds that say there is work (a peer's ring, a
// peer's line hanging up, a peer process exiting, a kernel copy done),
// and a timer for the deadlines of the staged path, so that a sleeper
// waiting on a peer that neither answers nor dies wakes at the timeout.
#pragma once

#include <cstdint>

#include "hl/unique_fd.h"

namespace gaudi_ipc {

class EventSet {
public:
	// 0 or -errno.
	int init();
	int fd() const { return epoll_.get(); }
	// 0 or -errno.
	int watch(int fd);
	void unwatch(int fd);
	// Makes the set readable in `ns` nanoseconds (0: no deadline).
	void arm_timer(uint64_t ns);
	// Clears a timer that went off.
	void clear_timer();

private:
	hl::UniqueFd epoll_;
	hl::UniqueFd timer_;
};

}  // namespace gaudi_ipc
