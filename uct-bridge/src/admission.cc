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

// Where interfaces listen: /tmp/hl-gaudi-ipc.<pid>.<nonce>/admit.
constexpr char kParent[] = "/tmp";
constexpr char kPrefix[] = "hl-gaudi-ipc.";
constexpr char kSocket[] = "admit";

std::string dir_name(uint32_t pid, uint64_t nonce)
{
	char name[64];
	snprintf(name, sizeof(name), "%s%u.%016" PRIx64, kPrefix, pid, nonce);
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

std::string errno_text(int err) { return strerror(err); }

// The parent must be what /tmp normally is: root's, and, if others may
// write into it, sticky, so that nobody can remove or rename what another
// user made there.
int check_parent(std::string *why)
{
	struct stat st;
	if (stat(kParent, &st) < 0) {
		const int err = errno;
		*why = std::string("cannot use ") + kParent + ": " + errno_text(err);
		return -err;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		*why = std::string(kParent) + " is not root's directory with the sticky bit";
		return -EPERM;
	}
	return 0;
}

// Directories of this user's processes that died without closing their
// interfaces: removed whenever an interface starts to listen.  Only
// directories this user owns are touched (looked at through an fd opened
// without following links), and nobody else can rename one.
void sweep_stale(int parent)
{
	const int fd = fcntl(parent, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd < 0 ? nullptr : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			::close(fd);
		return;
	}
	const size_t plen = strlen(kPrefix);
	while (struct dirent *e = readdir(d)) {
		if (strncmp(e->d_name, kPrefix, plen) != 0)
			continue;
		char *end = nullptr;
		const unsigned long pid = strtoul(e->d_name + plen, &end, 10);
		if (!pid || *end != '.' || strlen(end + 1) != 16)
			continue;
		if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
			continue;
		hl::UniqueFd dir(openat(parent, e->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		struct stat st;
		if (!dir.valid() || fstat(dir.get(), &st) < 0 || st.st_uid != geteuid())
			continue;
		(void)unlinkat(dir.get(), kSocket, 0);
		(void)unlinkat(parent, e->d_name, AT_REMOVEDIR);
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

std::string admission_path(uint32_t pid, uint64_t nonce)
{
	return std::string(kParent) + "/" + dir_name(pid, nonce) + "/" + kSocket;
}

AdmissionPoint::~AdmissionPoint()
{
	fd_.reset();
	if (dir_.valid()) {
		(void)unlinkat(dir_.get(), kSocket, 0);
		(void)rmdir(dir_path_.c_str());
	}
}

int AdmissionPoint::listen(uint64_t nonce, std::string *why)
{
	int rc = check_parent(why);
	if (rc < 0)
		return rc;
	hl::UniqueFd parent(::open(kParent, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!parent.valid()) {
		const int err = errno;
		*why = std::string("cannot open ") + kParent + ": " + errno_text(err);
		return -err;
	}
	sweep_stale(parent.get());
	const std::string name = dir_name(static_cast<uint32_t>(getpid()), nonce);
	const std::string dir_path = std::string(kParent) + "/" + name;
	// A new directory, or none: a name that exists was not made here, and
	// is never used (nobody could have known the nonce, so it is no
	// accident).
	if (mkdirat(parent.get(), name.c_str(), 0700) < 0) {
		const int err = errno;
		*why = "cannot create " + dir_path + ": " + errno_text(err);
		return -err;
	}
	hl::UniqueFd dir(openat(parent.get(), name.c_str(),
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (!dir.valid()) {
		const int err = errno;
		(void)unlinkat(parent.get(), name.c_str(), AT_REMOVEDIR);
		*why = "cannot open " + dir_path + ": " + errno_text(err);
		return -err;
	}
	dir_ = std::move(dir);
	dir_path_ = dir_path;
	if (fchmod(dir_.get(), 0700) < 0) {  // whatever the umask made of it
		const int err = errno;
		*why = "cannot make " + dir_path + " private: " + errno_text(err);
		return -err;
	}
	const std::string path = dir_path + "/" + kSocket;
	sockaddr_un sa;
	socklen_t len;
	if ((rc = socket_address(path, &sa, &len)) < 0) {
		*why = "socket path too long: " + path;
		return rc;
	}
	hl::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr *>(&sa), len) < 0 ||
	    ::listen(fd.get(), 64) < 0) {
		const int err = errno;
		*why = "cannot listen on " + path + ": " + errno_text(err);
		return -err;
	}
	fd_ = std::move(fd);
	reserve_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
	return 0;
}

int AdmissionPoint::refuse_one()
{
	if (!reserve_.valid()) {
		// Spent, and not got back (the table filled up again): without
		// it a waiting connection cannot be taken off the socket.
		reserve_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
		return reserve_.valid() ? -EMFILE : -EAGAIN;
	}
	reserve_.reset();
	hl::UniqueFd(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
	reserve_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
	return -EMFILE;
}

int AdmissionPoint::accept(Admitted *out)
{
	hl::UniqueFd line(::accept4(fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
	if (!line.valid()) {
		const int err = errno;
		if (err == EMFILE || err == ENFILE)
			return refuse_one();
		return err == EWOULDBLOCK ? -EAGAIN : -err;
	}
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
	sockaddr_un sa;
	socklen_t len;
	int rc = socket_address(admission_path(owner.pid, nonce), &sa, &len);
	if (rc < 0)
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
