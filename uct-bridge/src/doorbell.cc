// SPDX-License-Identifier: MIT
#include "doorbell.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace gaudi_ipc {

namespace {

socklen_t bell_address(uint32_t pid, uint64_t nonce, Bell kind, sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	// Abstract namespace (leading NUL): nothing in the file system to
	// clean up when a process dies.
	int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
			 "hl-gaudi-ipc/%u/%016llx/%c", pid,
			 static_cast<unsigned long long>(nonce), static_cast<char>(kind));
	return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

int sender()
{
	// One unbound socket per process serves every ring.
	static const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	return fd;
}

}  // namespace

int Doorbell::bind(uint64_t nonce, Bell kind)
{
	hl::UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
	if (!fd.valid())
		return -errno;
	sockaddr_un sa;
	socklen_t len = bell_address(static_cast<uint32_t>(::getpid()), nonce, kind, &sa);
	if (::bind(fd.get(), reinterpret_cast<sockaddr *>(&sa), len) < 0)
		return -errno;
	fd_ = std::move(fd);
	return 0;
}

bool Doorbell::drain() const
{
	char buf[64];
	bool any = false;
	while (::recv(fd_.get(), buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		any = true;
	return any;
}

void Doorbell::ring(uint32_t pid, uint64_t nonce, Bell kind)
{
	int fd = sender();
	if (fd < 0)
		return;
	sockaddr_un sa;
	socklen_t len = bell_address(pid, nonce, kind, &sa);
	const char c = static_cast<char>(kind);
	// EAGAIN: the bell already has rings queued, which is as good.
	(void)::sendto(fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
		       reinterpret_cast<sockaddr *>(&sa), len);
}

int BellLine::connect(uint32_t pid, uint64_t nonce, Bell kind)
{
	hl::UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
	if (!fd.valid())
		return -errno;
	sockaddr_un sa;
	socklen_t len = bell_address(pid, nonce, kind, &sa);
	if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&sa), len) < 0)
		return -errno;
	fd_ = std::move(fd);
	return 0;
}

bool BellLine::ring() const
{
	const char c = 1;
	// EAGAIN: rings are queued already, which is as good.
	return ::send(fd_.get(), &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 || errno == EAGAIN;
}

}  // namespace gaudi_ipc
