// SPDX-License-Identifier: MIT
// Clocks for loops that poll shared memory (the transport's staged path,
// the demo's hand-over).  Where the kernel's clocksource is not the TSC
// (HPET on a guest without an invariant TSC, as under QEMU's TCG), a
// precise clock read is a system call and a device read: microseconds,
// as much as the rest of a loop that polls shared memory.  Timeouts of
// seconds and checks every 50 ms read the coarse clock (the kernel's tick,
// a memory read); only spins of microseconds need the precise one, and
// read it every few dozen turns.
#pragma once

#include <time.h>

#include <cstdint>

namespace hlipc {

inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
	       static_cast<uint64_t>(ts.tv_nsec);
}

// Precise, for spins.
inline uint64_t now_ns()
{
	return clock_ns(CLOCK_MONOTONIC);
}

// Within a tick (1-10 ms), for timeouts and periodic checks.
inline uint64_t coarse_ns()
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

// Turns of a spin between two reads of the precise clock.
constexpr unsigned kSpinTurnsPerClockRead = 64;

}  // namespace hlipc
