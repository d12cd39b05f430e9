// SPDX-License-Identifier: MIT
// The owner's half of the staged path: an interface's mailbox, the
// initiators it admitted (its lanes), and the serving of what they post.
// A put's data waits in the slot's staging memory and is moved into the
// registered memory; a get's is moved out of it into the slot.  The
// pieces of one initiator are moved in the order it posted them.  Device
// memory is moved by this process's DMA engine of that device, host
// memory by the CPU (with the kernel's checks: memory unmapped since it
// was registered gives an error, not a crash).
//
// Only admitted initiators (admission.h) can reach the mailbox or wake
// the server: admission, rings and departures come in on file
// descriptors that the interface watches (UCX's async thread), and
// serving runs from there and from the interface's progress, whichever
// comes first (one-sided users such as ucx_perftest never call progress
// on the target); a mutex keeps them apart.  Woken by a ring, the server
// stays awake while peers fill slots they claimed, up to the linger time
// after the last piece it served (so that its wake-up overlaps their
// filling instead of following it), and for a short spin time after each
// piece even with nothing claimed, as a runtime's progress thread spins
// before it sleeps: the next transfer of a busy peer then finds it awake,
// and the peer need not ring.  Both times are the server's own settings,
// never anything a peer wrote.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "admission.h"
#include "device_contexts.h"
#include "mailbox.h"
#include "registry.h"

namespace gaudi_ipc {

class StagingServer {
public:
	struct Settings {
		uint32_t slots;
		uint64_t slot_size;
		uint64_t dma_timeout_us;
		uint64_t linger_ns;  // awake while slots are claimed, after the last piece
		uint64_t spin_ns;    // awake after a piece, none claimed
	};
	// The mailbox.  0 or -errno.
	int create(const Settings &s);
	// The admission point of the interface with that nonce.  0 or -errno,
	// with *why.
	int listen(uint64_t nonce, std::string *why);
	int admission_fd() const { return admission_.fd(); }
	const Geometry &geometry() const { return mb_.geometry(); }

	// Admits the initiators waiting at the admission point; the lines of
	// the new lanes are appended to *lines (to be watched).
	void admit(std::vector<int> *lines);
	// A lane's line became readable: reads its rings.  Gone: its
	// initiator left (stop watching the line, then drop_lane()).
	LineState line_event(int line);
	// Frees a departed initiator's slots and closes its line.
	void drop_lane(int line);
	// The lines of every lane.
	std::vector<int> lines();

	// Serves every posted slot, or returns 0 at once if another thread
	// is serving.  Returns how many it served.  For the interface's
	// progress (one thread) alone.
	unsigned serve();
	// Serves every posted slot, and the slots peers post while it stays
	// awake (see above), for one turn at most: with work left it makes
	// kick_fd() readable, to be called again.  Returns how many it
	// served.
	unsigned serve_awake();
	// Readable when a turn of serve_awake() ended with work left; its
	// watcher calls kicked(), then serve_awake().
	int kick_fd() const { return kick_.get(); }
	void kicked();
	bool has_posted() const { return mb_.valid() && mb_.has_posted(); }
	uint64_t served() const { return served_.load(std::memory_order_relaxed); }
	// Drops what the DMA engines hold (before the interface closes).
	void shutdown();

private:
	struct Lane {
		hl::UniqueFd line;
		ProcessHandle process;
		bool gone = false;  // its process exited: its line is not rung
	};
	struct Item {
		Request req;
		int rc;
		int dev;            // whose DMA engine moves it, or -1
		bool deliver;       // its initiator is still there
		Registry::Pin pin;  // its registration, held until it is moved
	};
	// Checks a request and moves it if host memory; device memory is
	// queued on its device's plan.  0 or -errno.
	int plan(Item &it);
	// Takes every posted slot into *items, each lane's pieces in the
	// order it posted them (mailbox.h, "Order").
	void take_in_order(std::vector<Item> *items);
	unsigned serve_locked();
	void sweep_departed();
	void ring_lane(uint32_t lane);

	std::mutex mu_;
	Settings set_{};
	size_t max_lanes_ = 0;
	hl::UniqueFd kick_;
	bool turn_pending_ = false;  // serve_awake() gave its turn back with work left
	uint64_t served_at_ = 0;     // the last piece served, or the wake-up
	uint64_t nonce_ = 0;
	OwnerMailbox mb_;
	AdmissionPoint admission_;
	uint32_t next_lane_ = 1;
	std::map<uint32_t, Lane> lanes_;
	using ProcessKey = std::pair<uint32_t, uint64_t>;  // pid, start time
	std::map<ProcessKey, unsigned> per_process_;       // lanes of each
	std::unordered_map<int, uint32_t> by_line_;
	DeviceContexts dma_;
	DeviceMappings staging_on_;  // after dma_: unmapped first
	uint64_t last_sweep_ns_ = 0;
	unsigned idle_turns_ = 0;  // serve()'s, from progress alone
	// serve_locked()'s scratch, kept for what it allocated.
	std::vector<Item> items_;
	std::map<int, std::vector<DmaCopy>> copies_;
	std::map<int, DeviceContext *> engines_;
	std::vector<uint32_t> rung_;
	std::atomic<uint64_t> served_{0};
};

}  // namespace gaudi_ipc
