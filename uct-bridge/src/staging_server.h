// SPDX-License-Identifier: MIT
// The owner's half of the staged path: an interface's mailbox, and the
// serving of what peers post in it.  A put's data waits in the slot's
// staging memory and is moved into the registered memory; a get's is
// moved out of it into the slot.  Device memory is moved by this
// process's DMA engine of that device, host memory by the CPU.
//
// Serving runs from the interface's progress and from UCX's async thread
// (the request doorbell), whichever comes first: one-sided users such as
// ucx_perftest never call progress on the target.  A mutex keeps the two
// apart.  Woken by the doorbell, the server stays awake while peers fill
// slots they claimed (up to the mailbox's linger time; see mailbox.h), so
// that its wake-up overlaps their filling instead of following it, and
// for a short spin time after each piece even with nothing claimed, as a
// runtime's progress thread spins before it sleeps: the next transfer of
// a busy peer then finds it awake, and the peer need not ring.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "device_dma.h"
#include "doorbell.h"
#include "mailbox.h"

namespace gaudi_ipc {

class StagingServer {
public:
	// 0 or -errno.
	int init(uint32_t slots, uint64_t slot_size, uint64_t nonce,
		 uint64_t dma_timeout_us, uint64_t linger_ns, uint64_t spin_ns);
	const Mailbox &mailbox() const { return mb_; }
	const Doorbell &bell() const { return bell_; }
	// Serves every posted slot, or returns 0 at once if another thread
	// is serving.  Returns how many it served.
	unsigned serve();
	// Serves every posted slot, and the slots peers post while it waits
	// awake for claimed ones or spins (see above).  Returns how many it
	// served.
	unsigned serve_awake();
	// Whether some slot waits to be served.
	bool has_posted() const;
	uint64_t served() const { return served_.load(std::memory_order_relaxed); }
	// Drops what the DMA engines hold (before the interface closes).
	void shutdown();

private:
	struct Request {
		uint32_t slot;
		uint32_t op;
		uint64_t key, offset, length;
		uint32_t initiator_pid;
		uint64_t initiator_nonce;
		int rc;
		int dev;    // device whose DMA engine moves it, or -1
		bool ring;  // its initiator sleeps until it is done
	};
	// Checks a request and moves it if host memory; device memory adds its
	// copy to *copies (per device).  0 or -errno.
	int plan(Request &r, std::map<int, std::vector<DmaCopy>> *copies,
		 std::map<int, DeviceDma *> *engines);
	unsigned serve_locked();
	// Whether some slot is claimed (being filled).
	bool any_claimed() const;
	void free_abandoned();
	// Rings an initiator's completion doorbell, through a line kept for
	// it (the (pid, nonce) pair names one interface of one process).
	void ring_initiator(uint32_t pid, uint64_t nonce);

	std::mutex mu_;
	Mailbox mb_;
	Doorbell bell_;
	uint64_t dma_timeout_us_ = 0;
	uint64_t spin_ns_ = 0;
	DeviceDmaSet dma_;
	HostOnDevices staging_on_;  // after dma_: unmapped first
	uint64_t last_sweep_ns_ = 0;
	// serve_locked()'s scratch, kept for what it allocated.
	std::vector<Request> reqs_;
	std::map<int, std::vector<DmaCopy>> copies_;
	std::map<int, DeviceDma *> engines_;
	std::map<std::pair<uint32_t, uint64_t>, BellLine> lines_;
	std::atomic<uint64_t> served_{0};
};

}  // namespace gaudi_ipc
