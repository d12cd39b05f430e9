// SPDX-License-Identifier: MIT
// OobLink: the out-of-band TCP connection over which test processes on the
// two guests (or on one) exchange addresses, keys and the steps of a test.
// A message is a 4-byte length and that many bytes, at most kMaxMessage;
// every wait is bounded, and a peer that closed or died reads as
// -ECONNRESET.  The bytes come from another program: receivers check the
// size of what they get (recv_pod) and validate its fields themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hl/unique_fd.h"

namespace mntest {

class OobLink {
public:
	static constexpr uint32_t kMaxMessage = 1u << 20;

	// Connects to addr:port, retrying while nobody listens yet, for up to
	// timeout_ms.  0 or -errno; *why says what failed.
	int connect_to(const std::string &addr, uint16_t port, int timeout_ms,
		       std::string *why);

	int send(const void *p, uint32_t n);
	int send(const std::vector<uint8_t> &m)
	{
		return send(m.data(), static_cast<uint32_t>(m.size()));
	}
	// One message within timeout_ms: 0, -ETIMEDOUT, -ECONNRESET,
	// -EMSGSIZE (longer than kMaxMessage).
	int recv(std::vector<uint8_t> *m, int timeout_ms);

	// Whether a message (or the peer's end) is waiting, within
	// timeout_ms; for callers that have other work between polls.
	bool readable(int timeout_ms) const;

	// A plain struct as one message; recv_pod wants exactly its size
	// (-EPROTO otherwise).
	template <class T> int send_pod(const T &v) { return send(&v, sizeof(v)); }
	template <class T> int recv_pod(T *v, int timeout_ms);

	bool valid() const { return fd_.valid(); }
	void close() { fd_.reset(); }
	void adopt(hl::UniqueFd fd) { fd_ = std::move(fd); }

private:
	int read_full(void *p, size_t n, int64_t deadline_ms);
	hl::UniqueFd fd_;
};

// A listening socket that hands out OobLinks.
class OobListener {
public:
	// Listens on addr:port (SO_REUSEADDR).  0 or -errno.
	int listen_on(const std::string &addr, uint16_t port, std::string *why);
	// The next connection within timeout_ms.  0 or -errno (-ETIMEDOUT).
	int accept_one(OobLink *link, int timeout_ms, std::string *why);

private:
	hl::UniqueFd fd_;
};

// Milliseconds and microseconds of CLOCK_MONOTONIC.
int64_t now_ms();
int64_t now_us();

// The factor by which the harness stretches timeouts on slow kernels
// (HL_TIMEOUT_FACTOR, 1 to 100; 1 if unset).
int timeout_factor();

template <class T> int OobLink::recv_pod(T *v, int timeout_ms)
{
	std::vector<uint8_t> m;
	int rc = recv(&m, timeout_ms);
	if (rc)
		return rc;
	if (m.size() != sizeof(T))
		return -EPROTO;
	__builtin_memcpy(v, m.data(), sizeof(T));
	return 0;
}

}  // namespace mntest
