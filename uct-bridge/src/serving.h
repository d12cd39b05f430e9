// SPDX-License-Identifier: MIT
// The owner's side of the staged path as UCX runs it: an interface's
// staging server (staging_server.h), whose admission socket, admitted
// lines and kick UCX's async thread watches, without any async context
// (so without UCX's async lock, and never in a signal handler, whatever
// the worker's async mode); the interface's progress serves too.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "staging_server.h"
#include "ucx.h"

namespace gaudi_ipc {

class Serving {
public:
	Serving() = default;
	Serving(const Serving &) = delete;
	Serving &operator=(const Serving &) = delete;
	// Stops the async thread's handlers (each returns within a turn of
	// serving), then lets the server go.
	~Serving();

	// Creates the mailbox and listens as the interface with that nonce.
	// UCS_OK, or why it cannot serve: UCS_ERR_UNREACHABLE when there is no
	// safe place to listen at (*why says why), another error when the
	// mailbox cannot be made (logged).
	ucs_status_t start(const StagingServer::Settings &s, uint64_t nonce, std::string *why);

	unsigned serve() { return server_.serve(); }
	bool has_posted() const { return server_.has_posted(); }
	uint64_t served() const { return server_.served(); }

private:
	static void admission_cb(int fd, ucs_event_set_types_t events, void *arg);
	static void line_cb(int fd, ucs_event_set_types_t events, void *arg);
	static void kick_cb(int fd, ucs_event_set_types_t events, void *arg);
	void watch_lane(int fd);

	StagingServer server_;
	std::mutex watch_mu_;
	std::vector<int> lanes_watched_;  // lines handed to UCX's async thread
	bool admission_watched_ = false;
	bool kick_watched_ = false;
};

}  // namespace gaudi_ipc
