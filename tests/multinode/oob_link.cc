// SPDX-License-Identifier: MIT
#include "oob_link.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <sys/uio.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace mntest {

namespace {

int fail(std::string *why, const std::string &what, int err)
{
	if (why)
		*why = what + ": " + strerror(err);
	return -err;
}

int make_addr(const std::string &addr, uint16_t port, sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	return inet_pton(AF_INET, addr.c_str(), &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

// Waits until fd is ready for events or deadline passes: 0, -ETIMEDOUT.
int wait_fd(int fd, short events, int64_t deadline_ms)
{
	for (;;) {
		int64_t left = deadline_ms - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		pollfd p = {fd, events, 0};
		int n = poll(&p, 1, static_cast<int>(left > 1000 ? 1000 : left));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

}  // namespace

int64_t now_ms()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int64_t now_us()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

int timeout_factor()
{
	const char *f = getenv("HL_TIMEOUT_FACTOR");
	long v = f ? strtol(f, nullptr, 10) : 1;
	return v >= 1 && v <= 100 ? static_cast<int>(v) : 1;
}

int OobLink::connect_to(const std::string &addr, uint16_t port, int timeout_ms,
			std::string *why)
{
	sockaddr_in sa;
	if (make_addr(addr, port, &sa))
		return fail(why, "not an IPv4 address: " + addr, EINVAL);
	int64_t deadline = now_ms() + timeout_ms;
	for (;;) {
		hl::UniqueFd s(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
		if (!s.valid())
			return fail(why, "socket", errno);
		if (::connect(s.get(), reinterpret_cast<sockaddr *>(&sa),
			      sizeof(sa)) == 0) {
			int one = 1;
			setsockopt(s.get(), IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			fd_ = std::move(s);
			return 0;
		}
		int err = errno;
		// Refused: the peer does not listen yet.  Unreachable: the
		// link's neighbour entry is not resolved yet.
		if ((err != ECONNREFUSED && err != EHOSTUNREACH &&
		     err != ENETUNREACH && err != ETIMEDOUT) ||
		    now_ms() > deadline)
			return fail(why, "connecting to " + addr + ":" +
						 std::to_string(port),
				    err);
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
}

int OobLink::send(const void *p, uint32_t n)
{
	if (!fd_.valid())
		return -ENOTCONN;
	if (n > kMaxMessage)
		return -EMSGSIZE;
	uint32_t len = htonl(n);
	iovec iov[2] = {{&len, sizeof(len)}, {const_cast<void *>(p), n}};
	msghdr mh;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	size_t left = sizeof(len) + n;
	while (left) {
		ssize_t w = sendmsg(fd_.get(), &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		left -= static_cast<size_t>(w);
		// Advance the iovec past what went out.
		while (w > 0 && mh.msg_iovlen) {
			size_t take = static_cast<size_t>(w) < mh.msg_iov->iov_len
					      ? static_cast<size_t>(w)
					      : mh.msg_iov->iov_len;
			mh.msg_iov->iov_base =
				static_cast<char *>(mh.msg_iov->iov_base) + take;
			mh.msg_iov->iov_len -= take;
			w -= static_cast<ssize_t>(take);
			if (!mh.msg_iov->iov_len) {
				mh.msg_iov++;
				mh.msg_iovlen--;
			}
		}
	}
	return 0;
}

int OobLink::read_full(void *p, size_t n, int64_t deadline_ms)
{
	char *c = static_cast<char *>(p);
	while (n) {
		int rc = wait_fd(fd_.get(), POLLIN, deadline_ms);
		if (rc)
			return rc;
		ssize_t r = ::recv(fd_.get(), c, n, 0);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		c += r;
		n -= static_cast<size_t>(r);
	}
	return 0;
}

bool OobLink::readable(int timeout_ms) const
{
	pollfd p = {fd_.get(), POLLIN, 0};
	return fd_.valid() && poll(&p, 1, timeout_ms) > 0;
}

int OobLink::recv(std::vector<uint8_t> *m, int timeout_ms)
{
	if (!fd_.valid())
		return -ENOTCONN;
	int64_t deadline = now_ms() + timeout_ms;
	uint32_t len;
	int rc = read_full(&len, sizeof(len), deadline);
	if (rc)
		return rc;
	len = ntohl(len);
	if (len > kMaxMessage)
		return -EMSGSIZE;
	m->resize(len);
	return read_full(m->data(), len, deadline);
}

int OobListener::listen_on(const std::string &addr, uint16_t port,
			   std::string *why)
{
	sockaddr_in sa;
	if (make_addr(addr, port, &sa))
		return fail(why, "not an IPv4 address: " + addr, EINVAL);
	hl::UniqueFd s(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
	if (!s.valid())
		return fail(why, "socket", errno);
	int one = 1;
	setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s.get(), reinterpret_cast<sockaddr *>(&sa), sizeof(sa)))
		return fail(why, "binding " + addr + ":" + std::to_string(port),
			    errno);
	if (listen(s.get(), 8))
		return fail(why, "listen", errno);
	fd_ = std::move(s);
	return 0;
}

int OobListener::accept_one(OobLink *link, int timeout_ms, std::string *why)
{
	int rc = wait_fd(fd_.get(), POLLIN, now_ms() + timeout_ms);
	if (rc)
		return fail(why, "waiting for the peer to connect", -rc);
	hl::UniqueFd c(accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
	if (!c.valid())
		return fail(why, "accept", errno);
	int one = 1;
	setsockopt(c.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	link->adopt(std::move(c));
	return 0;
}

}  // namespace mntest
