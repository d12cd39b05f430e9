// SPDX-License-Identifier: MIT
// An operation in flight: a put or get that did not complete inside the
// call.  The common part is what the interface's books (in_flight.h) keep
// of every operation; each path derives its own operations from it with
// the state only it needs (channel_path.h, staged_op.h), and makes them
// from a pool of its own, so that an operation costs no allocation in the
// steady state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "node_identity.h"
#include "ucx.h"

namespace gaudi_ipc {

struct Op;
struct Route;

// The path an operation belongs to: it has the last word before the
// completion is called (a buffered get hands its data over), and takes
// the operation back afterwards.
class OpHome {
public:
	virtual void finishing(Op &op) = 0;
	virtual void recycle(Op &op) = 0;

protected:
	~OpHome() = default;
};

struct Op {
	OpHome *home = nullptr;
	Route *route = nullptr;         // its endpoint's; null once that is destroyed
	ProcessId peer{};               // the endpoint's peer, kept past the endpoint
	uct_completion_t *comp = nullptr;
	ucs_status_t status = UCS_OK;   // the first error of any part
	unsigned parts = 0;             // parts in flight
	bool started = false;           // every part has been submitted
	bool finished = false;          // queued for its completion
	bool abandoned = false;         // the interface closes: no callback of the program runs
	uint64_t index = 0;             // issue order on its endpoint
	size_t live_at = 0;             // its place in the books

	// Back to a new operation's common part.
	void reset_common()
	{
		route = nullptr;
		peer = ProcessId{};
		comp = nullptr;
		status = UCS_OK;
		parts = 0;
		started = finished = abandoned = false;
		index = 0;
	}
};

// A path's operations: made once, reused (with the memory their vectors
// hold) for as long as the path lives.  At most as many exist as were in
// flight at once.
template <typename T>
class OpPool {
public:
	T *take()
	{
		if (spare_.empty()) {
			all_.push_back(std::make_unique<T>());
			return all_.back().get();
		}
		T *op = spare_.back();
		spare_.pop_back();
		return op;
	}
	void put(T *op)
	{
		op->reset();
		spare_.push_back(op);
	}

private:
	std::vector<std::unique_ptr<T>> all_;
	std::vector<T *> spare_;
};

}  // namespace gaudi_ipc
