// SPDX-License-Identifier: MIT
#include "admission.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gaudi_ipc {

namespace {

std::string socket_name(uint32_t pid, uint64_t nonce)
{
	char name[48];
	snprintf(name, sizeof(name), "%u.%016" PRIx64, pid, nonce);
	return name;
}

int socket_address(const std::string &path, sockaddr_un *sa, socklen_t *len)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (path.size() >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path.c_str(), path.size() + 1);
	*len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
	return 0;
}

// Sockets of processes that died without closing their interface: removed
// by the next interface of the user that listens.  A name is "<pid>.<nonce>".
void sweep_stale(const std::string &dir)
{
	DIR *d = opendir(dir.c_str());
	if (!d)
		return;
	while (struct dirent *e = readdir(d)) {
		char *end = nullptr;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		if (!pid || end == e->d_name || *end != '.' || strlen(end + 1) != 16)
			continue;
		if (kill(static_cast<pid_t>(pid), 0) < 0 && errno == ESRCH)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

struct ucred peer_credentials(int fd, int *rc)
{
	struct ucred cr;
	memset(&cr, 0, sizeof(cr));
	socklen_t len = sizeof(cr);
	*rc = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ? -errno : 0;
	return cr;
}

}  // namespace

int socket_dir(std::string *dir, std::string *why)
{
	const uid_t uid = geteuid();
	*dir = "/tmp/hl-gaudi-ipc-" + std::to_string(uid);
	if (mkdir(dir->c_str(), 0700) < 0 && errno != EEXIST) {
		int err = errno;
		*why = "cannot create " + *dir + ": " + strerror(err);
		return -err;
	}
	// Made by this user, or found: either way it must be this user's own
	// directory that nobody else may enter, not a link someone planted.
	hl::UniqueFd fd(::open(dir->c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	struct stat st;
	if (!fd.valid() || fstat(fd.get(), &st) < 0) {
		int err = errno;
		*why = *dir + " is not a directory of this user (" + strerror(err) +
		       "): remove it";
		return -err;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 077)) {
		*why = *dir + " belongs to another user or is open to others: remove it";
		return -EPERM;
	}
	return 0;
}

AdmissionPoint::~AdmissionPoint()
{
	if (!path_.empty())
		(void)unlink(path_.c_str());
}

int AdmissionPoint::listen(uint64_t nonce, std::string *why)
{
	std::string dir;
	int rc = socket_dir(&dir, why);
	if (rc < 0)
		return rc;
	sweep_stale(dir);
	const std::string path =
		dir + "/" + socket_name(static_cast<uint32_t>(getpid()), nonce);
	sockaddr_un sa;
	socklen_t len;
	if ((rc = socket_address(path, &sa, &len)) < 0) {
		*why = "socket path too long: " + path;
		return rc;
	}
	hl::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr *>(&sa), len) < 0) {
		int err = errno;
		*why = "cannot bind " + path + ": " + strerror(err);
		return -err;
	}
	path_ = path;
	if (::listen(fd.get(), 64) < 0) {
		int err = errno;
		*why = std::string("listen: ") + strerror(err);
		return -err;
	}
	fd_ = std::move(fd);
	return 0;
}

int AdmissionPoint::accept(Admitted *out)
{
	hl::UniqueFd line(::accept4(fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
	if (!line.valid())
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	int rc;
	struct ucred cr = peer_credentials(line.get(), &rc);
	if (rc < 0)
		return rc;
	// The directory keeps other users out; the kernel's word is what counts.
	if (cr.uid != geteuid())
		return -EACCES;
	ProcessHandle who;
	if ((rc = who.open(static_cast<uint32_t>(cr.pid), 0)) < 0)
		return rc;
	out->line = std::move(line);
	out->process = std::move(who);
	return 0;
}

int send_welcome(int line, const Welcome &w, int memfd)
{
	struct iovec iov = {const_cast<Welcome *>(&w), sizeof(w)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct msghdr msg;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &memfd, sizeof(int));
	ssize_t n = sendmsg(line, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	return n == static_cast<ssize_t>(sizeof(w)) ? 0 : -EPROTO;
}

int connect_owner(const ProcessId &owner, uint64_t nonce, hl::UniqueFd *line,
		  ProcessHandle *process)
{
	std::string dir, why;
	int rc = socket_dir(&dir, &why);
	if (rc < 0)
		return rc;
	sockaddr_un sa;
	socklen_t len;
	if ((rc = socket_address(dir + "/" + socket_name(owner.pid, nonce), &sa, &len)) < 0)
		return rc;
	hl::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (!fd.valid())
		return -errno;
	if (::connect(fd.get(), reinterpret_cast<sockaddr *>(&sa), len) < 0)
		return errno == ENOENT ? -ECONNREFUSED : -errno;
	// Who listens there, by the kernel's word.
	struct ucred cr = peer_credentials(fd.get(), &rc);
	if (rc < 0)
		return rc;
	if (cr.uid != geteuid())
		return -EACCES;
	if (static_cast<uint32_t>(cr.pid) != owner.pid)
		return -ESRCH;
	ProcessHandle who;
	if ((rc = who.open(owner.pid, owner.start)) < 0)
		return rc;
	*line = std::move(fd);
	*process = std::move(who);
	return 0;
}

int recv_welcome(int line, Welcome *w, hl::UniqueFd *memfd)
{
	Welcome got;
	struct iovec iov = {&got, sizeof(got)};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	ssize_t n = recvmsg(line, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -ECONNRESET;
	// Whatever came, an fd that came with it is ours to close.
	hl::UniqueFd fd;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		const size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int f;
			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (!fd.valid() && i == 0)
				fd.reset(f);
			else
				::close(f);
		}
	}
	if (n != static_cast<ssize_t>(sizeof(got)) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    !fd.valid() || got.magic != kWelcomeMagic || got.version != kWelcomeVersion)
		return -EPROTO;
	*w = got;
	*memfd = std::move(fd);
	return 0;
}

bool ring_line(int line)
{
	const char c = 1;
	return ::send(line, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1 || errno == EAGAIN;
}

LineState drain_line(int line)
{
	// Bounded: a peer that rings without pause cannot hold the reader.
	LineState st = LineState::Quiet;
	char buf[64];
	for (int i = 0; i < 256; i++) {
		ssize_t n = ::recv(line, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			st = LineState::Rung;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		return LineState::Gone;
	}
	return st;
}

}  // namespace gaudi_ipc
