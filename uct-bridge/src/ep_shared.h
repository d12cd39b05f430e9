// SPDX-License-Identifier: MIT
// What the endpoints of one interface share with it: its settings, its
// paths in the order they are tried, its operations in flight, and its
// list of endpoints.  The interface (iface.h) owns it and drives the
// endpoints; an endpoint (ep.h) knows its interface only through it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "in_flight.h"
#include "path.h"
#include "ucx.h"

namespace gaudi_ipc {

class Ep;

struct EpShared {
	EpShared(uct_base_iface_t *b, InFlight &o, uint64_t bcopy)
		: base(b), ops(o), bcopy_size(bcopy)
	{
	}
	// The longest put_short: it goes through the bcopy buffers, which are
	// never shorter.
	static constexpr size_t kMaxShort = 256;

	uct_base_iface_t *base;
	InFlight &ops;
	uint64_t bcopy_size;
	Path *paths[kPaths] = {};  // channel, staged; null when off
	std::vector<Ep *> eps;     // the interface's endpoints
	std::vector<Ep *> failed;  // failed; UCX not told yet

	void add(Ep *ep) { eps.push_back(ep); }
	void remove(Ep *ep)
	{
		eps.erase(std::remove(eps.begin(), eps.end(), ep), eps.end());
		failed.erase(std::remove(failed.begin(), failed.end(), ep), failed.end());
	}
	bool has(const Ep *ep) const
	{
		return std::find(eps.begin(), eps.end(), ep) != eps.end();
	}
};

}  // namespace gaudi_ipc
