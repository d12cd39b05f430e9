// SPDX-License-Identifier: MIT
#include "serving.h"

#include <algorithm>
#include <cstring>

namespace gaudi_ipc {

Serving::~Serving()
{
	// The admission point before the lanes (admitting adds lanes).
	if (admission_watched_)
		ucs_async_remove_handler(server_.admission_fd(), 1);
	if (kick_watched_)
		ucs_async_remove_handler(server_.kick_fd(), 1);
	std::vector<int> lanes;
	{
		std::lock_guard<std::mutex> l(watch_mu_);
		lanes.swap(lanes_watched_);
	}
	for (int fd : lanes)
		ucs_async_remove_handler(fd, 1);
	server_.shutdown();
}

ucs_status_t Serving::start(const StagingServer::Settings &s, uint64_t nonce, std::string *why)
{
	int rc = server_.create(s);
	if (rc < 0) {
		ucs_error("gaudi_ipc: cannot offer the staged path (%u slots of %" PRIu64
			  " bytes): cannot create the staging mailbox: %s; lower "
			  "UCX_GAUDI_IPC_STAGING_SLOTS or UCX_GAUDI_IPC_STAGING_SIZE, or set "
			  "UCX_GAUDI_IPC_CHANNELS=y",
			  s.slots, s.slot_size, strerror(-rc));
		return UCS_ERR_NO_MEMORY;
	}
	if (server_.listen(nonce, why) < 0)
		return UCS_ERR_UNREACHABLE;
	ucs_status_t st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX,
						      server_.admission_fd(),
						      UCS_EVENT_SET_EVREAD, admission_cb, this,
						      nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch the admission socket: %s",
			  ucs_status_string(st));
		return st;
	}
	admission_watched_ = true;
	st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX, server_.kick_fd(),
					 UCS_EVENT_SET_EVREAD, kick_cb, this, nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch the staging server's kick: %s",
			  ucs_status_string(st));
		return st;
	}
	kick_watched_ = true;
	return UCS_OK;
}

void Serving::admission_cb(int, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<Serving *>(arg);
	try {
		std::vector<int> lines;
		self->server_.admit(&lines);
		for (int fd : lines)
			self->watch_lane(fd);
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory admitting a peer");
	}
}

void Serving::watch_lane(int fd)
{
	std::lock_guard<std::mutex> l(watch_mu_);
	ucs_status_t st = ucs_async_set_event_handler(UCS_ASYNC_MODE_THREAD_MUTEX, fd,
						      UCS_EVENT_SET_EVREAD, line_cb, this,
						      nullptr);
	if (st != UCS_OK) {
		ucs_error("gaudi_ipc: cannot watch a peer's line: %s", ucs_status_string(st));
		server_.drop_lane(fd);
		return;
	}
	lanes_watched_.push_back(fd);
}

void Serving::line_cb(int fd, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<Serving *>(arg);
	try {
		if (self->server_.line_event(fd) == LineState::Gone) {
			// Its initiator left: unwatched (from its own handler: no
			// wait), then its slots freed and its line closed; unless
			// the interface is closing, which then does it.
			std::lock_guard<std::mutex> l(self->watch_mu_);
			auto &w = self->lanes_watched_;
			auto it = std::find(w.begin(), w.end(), fd);
			if (it == w.end())
				return;
			w.erase(it);
			ucs_async_remove_handler(fd, 1);
			self->server_.drop_lane(fd);
			return;
		}
		self->server_.serve_awake();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory serving a peer");
	}
}

void Serving::kick_cb(int, ucs_event_set_types_t, void *arg)
{
	auto *self = static_cast<Serving *>(arg);
	try {
		self->server_.kicked();
		self->server_.serve_awake();
	} catch (...) {
		ucs_error("gaudi_ipc: out of memory serving a peer");
	}
}

}  // namespace gaudi_ipc
