// SPDX-License-Identifier: GPL-2.0
// The test exporter /dev/hl_ipc_testexp (tests/kmod/hl_ipc_testexp.c):
// dma-bufs that need CPU-access bracketing (SHADOW), lock in vmap as
// exporters before 6.2 did (OLDLOCK), or hold a copy at a gate (GATED).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hl_ipc_testexp.h"

namespace hlipc {

class TestExporter {
public:
	TestExporter();
	~TestExporter();
	TestExporter(const TestExporter &) = delete;
	TestExporter &operator=(const TestExporter &) = delete;

	bool available() const { return fd_ >= 0; }
	// A new dma-buf fd (caller closes it), or -errno.
	int create(uint32_t mode, size_t size, bool writable = true);
	void gate(bool open);
	// Tells the importers of dma-buf fd dmabuf that its memory moved; 0 or -errno.
	int move(int dmabuf);
	// Copies waiting at the gate right now.
	int waiters();
	// Wait until at least n copies wait at the gate; false after ms.
	bool wait_for_waiters(int n, int ms = 30000);

private:
	int fd_ = -1;
};

}  // namespace hlipc
