// SPDX-License-Identifier: MIT
#include "peer.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>
#include <memory>

#include "addresses.h"
#include "admission.h"
#include "hlthunk.h"
#include "mailbox.h"
#include "no_ipc_lock.h"
#include "staged_transfer.h"
#include "uct_env.h"

namespace uct_test {

namespace {
char peer_program[4096] = "/proc/self/exe";
}

void set_peer_program(const char *path)
{
	char buf[4096];
	if (path && realpath(path, buf))
		snprintf(peer_program, sizeof(peer_program), "%s", buf);
}

Peer::Peer(int dev, bool as_nobody, const std::vector<std::string> &env, uint64_t memlock,
	   int run_as)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	pid_ = fork();
	if (pid_ == 0) {
		close(sv[0]);
		fcntl(sv[1], F_SETFD, 0);  // the peer inherits its end
		for (auto &e : env)
			putenv(strdup(e.c_str()));
		if (as_nobody && run_as < 0)
			run_as = 65534;
		if (run_as >= 0 && (setgid(static_cast<gid_t>(run_as)) ||
				    setuid(static_cast<uid_t>(run_as))))
			_exit(120);
		// What the program pins counts against memlock (root's
		// programs would get CAP_IPC_LOCK back at exec otherwise).
		struct rlimit lim = {memlock, memlock};
		if (memlock && (!hltest::drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &lim)))
			_exit(122);
		char fd[16], d[16];
		snprintf(fd, sizeof(fd), "%d", sv[1]);
		snprintf(d, sizeof(d), "%d", dev);
		execl(peer_program, "uct-peer", "--peer", fd, d, (char *)nullptr);
		_exit(121);
	}
	close(sv[1]);
	if (pid_ < 0) {
		close(sv[0]);
		return;
	}
	sock_ = sv[0];
	PeerMsg r = call(kHello);
	if (r.status == 0) {
		address_.assign(r.blob, r.blob + r.blob_len);
		hello_ok_ = true;
	}
}

Peer::~Peer()
{
	if (sock_ >= 0) {
		if (pid_ > 0) {
			PeerMsg m;
			memset(&m, 0, sizeof(m));
			m.cmd = kExit;
			(void)send(sock_, &m, sizeof(m), MSG_NOSIGNAL);
		}
		close(sock_);
	}
	if (pid_ > 0)
		waitpid(pid_, nullptr, 0);
}

void Peer::kill_now()
{
	if (pid_ <= 0)
		return;
	::kill(pid_, SIGKILL);
	waitpid(pid_, nullptr, 0);
	pid_ = -1;
}

namespace {

PeerMsg make_msg(uint32_t cmd, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		 uint64_t e, const std::vector<uint8_t> &blob)
{
	PeerMsg m;
	memset(&m, 0, sizeof(m));
	m.cmd = cmd;
	m.a = a;
	m.b = b;
	m.c = c;
	m.d = d;
	m.e = e;
	m.blob_len = static_cast<uint32_t>(std::min(blob.size(), sizeof(m.blob)));
	if (m.blob_len)
		memcpy(m.blob, blob.data(), m.blob_len);
	return m;
}

}  // namespace

PeerMsg Peer::call(const PeerMsg &req)
{
	if (sock_ < 0 || send(sock_, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req)) {
		PeerMsg rep;
		memset(&rep, 0, sizeof(rep));
		rep.status = -EPIPE;
		return rep;
	}
	// Serves nothing meanwhile: the test's own interfaces have UCX's
	// async thread for transfers the peer starts towards them.
	return reply();
}

PeerMsg Peer::reply()
{
	PeerMsg rep;
	if (sock_ < 0 || recv(sock_, &rep, sizeof(rep), 0) != sizeof(rep)) {
		memset(&rep, 0, sizeof(rep));
		rep.status = -EPIPE;
	}
	return rep;
}

PeerMsg Peer::call(uint32_t cmd, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		   uint64_t e, const std::vector<uint8_t> &blob)
{
	return call(make_msg(cmd, a, b, c, d, e, blob));
}

bool Peer::post(uint32_t cmd, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
		uint64_t e, const std::vector<uint8_t> &blob)
{
	PeerMsg m = make_msg(cmd, a, b, c, d, e, blob);
	return sock_ >= 0 && send(sock_, &m, sizeof(m), MSG_NOSIGNAL) == sizeof(m);
}

namespace {

struct PeerState {
	int dev_fd = -1;
	std::unique_ptr<Iface> iface;
	std::map<uint64_t, std::unique_ptr<Buffer>> bufs;
	std::map<uint64_t, std::unique_ptr<Registration>> regs;
	std::vector<uct_ep_h> eps;
	uint64_t next = 1;
	// The benchmark's hand-written staged path.
	int shm_fd = -1;
	void *shm = nullptr;
	uint64_t shm_size = 0, shm_va = 0;
	std::unique_ptr<hlipc::StagedDma> dma;
	int sock = -1;
	int link_fd = -1;
	hlipc::PeerLink link;
	std::vector<int> filler;  // kFds
};

void set_blob(PeerMsg &r, const std::vector<uint8_t> &b)
{
	r.blob_len = static_cast<uint32_t>(std::min(b.size(), sizeof(r.blob)));
	if (r.blob_len)
		memcpy(r.blob, b.data(), r.blob_len);
}

Buffer *buffer(PeerState &s, uint64_t id, uint64_t off, uint64_t len)
{
	auto it = s.bufs.find(id);
	if (it == s.bufs.end() || off > it->second->size() ||
	    len > it->second->size() - off)
		return nullptr;
	return it->second.get();
}

// kFlood: a busy peer of the owner's user.
int flood(const std::vector<uint8_t> &address, uint64_t ms, uint64_t *pieces)
{
	using namespace gaudi_ipc;
	IfaceAddr a;
	if (address.size() != sizeof(DeviceAddr) + sizeof(a))
		return -EINVAL;
	memcpy(&a, address.data() + sizeof(DeviceAddr), sizeof(a));
	hl::UniqueFd line;
	ProcessHandle owner;
	int rc = connect_owner(ProcessId{a.pid, a.start}, a.nonce, &line, &owner);
	if (rc < 0)
		return rc;
	Welcome w;
	hl::UniqueFd memfd;
	struct pollfd p = {line.get(), POLLIN, 0};
	if (poll(&p, 1, 10000) != 1 || (rc = recv_welcome(line.get(), &w, &memfd)) < 0)
		return rc < 0 ? rc : -ETIMEDOUT;
	PeerMailbox mb;
	if ((rc = mb.attach(std::move(memfd), w.slots, w.slot_size, w.lane)) < 0)
		return rc;
	// One slot stays claimed, as if being filled: the owner waits awake
	// for it (its linger time), and each piece answered meanwhile is
	// posted again.
	std::vector<uint32_t> mine;
	if (mb.claim() < 0)
		return -EBUSY;
	for (int i; (i = mb.claim()) >= 0;) {
		mine.push_back(static_cast<uint32_t>(i));
		mb.post(static_cast<uint32_t>(i), SlotOp::Put, 0, 0, 1);
	}
	ring_line(line.get());
	const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	for (unsigned turn = 0; std::chrono::steady_clock::now() < end; turn++) {
		bool again = false;
		for (uint32_t slot : mine) {
			const PieceState st = mb.look(slot);
			if (st.kind != PieceState::Done && st.kind != PieceState::Lost)
				continue;
			mb.release(slot);
			const int j = mb.claim();  // the slot just freed: all are ours
			if (j < 0)
				continue;
			mb.post(static_cast<uint32_t>(j), SlotOp::Put, 0, 0, 1);
			++*pieces;
			again = true;
		}
		if (again && !mb.owner_awake())
			ring_line(line.get());
		if ((turn & 1023) == 1023 && drain_line(line.get()) == LineState::Gone)
			break;
		if (!again)
			sched_yield();
	}
	return 0;
}

void handle(PeerState &s, const PeerMsg &m, PeerMsg &r)
{
	switch (m.cmd) {
	case kHello:
		set_blob(r, s.iface->address());
		r.a = static_cast<uint64_t>(getpid());
		return;
	case kAlloc: {
		auto b = std::make_unique<Buffer>(m.a ? Buffer::Device : Buffer::Host, m.b,
						  s.dev_fd);
		if (!b->ok()) {
			r.status = -ENOMEM;
			return;
		}
		memset(b->cpu(), 0, b->size());
		r.a = s.next++;
		r.b = b->addr();
		s.bufs.emplace(r.a, std::move(b));
		return;
	}
	case kFill:
	case kCheck:
	case kCheckZero: {
		Buffer *b = buffer(s, m.a, m.c, m.d);
		if (!b) {
			r.status = -EINVAL;
			return;
		}
		if (m.cmd == kFill) {
			fill(b->cpu() + m.c, m.d, static_cast<uint32_t>(m.b), m.e);
		} else {
			int64_t bad = m.cmd == kCheck
					      ? check(b->cpu() + m.c, m.d,
						      static_cast<uint32_t>(m.b), m.e)
					      : check_zero(b->cpu() + m.c, m.d);
			r.a = bad < 0 ? 0 : static_cast<uint64_t>(bad) + 1;
		}
		return;
	}
	case kZero: {
		Buffer *b = buffer(s, m.a, 0, 0);
		if (!b) {
			r.status = -EINVAL;
			return;
		}
		memset(b->cpu(), 0, b->size());
		return;
	}
	case kReg: {
		Buffer *b = buffer(s, m.a, m.c, m.d);
		if (!b) {
			r.status = -EINVAL;
			return;
		}
		auto reg = std::make_unique<Registration>(
			b->addr() + m.c, m.d,
			m.b ? static_cast<unsigned>(m.b) : unsigned{UCT_MD_MEM_ACCESS_ALL});
		if (reg->status() != UCS_OK) {
			r.status = reg->status();
			return;
		}
		set_blob(r, reg->packed());
		r.a = s.next++;
		s.regs.emplace(r.a, std::move(reg));
		return;
	}
	case kDereg:
		r.status = s.regs.erase(m.a) ? 0 : -ENOENT;
		return;
	case kFree: {
		auto it = s.bufs.find(m.a);
		if (it == s.bufs.end()) {
			r.status = -ENOENT;
			return;
		}
		// Freed, but registrations naming it are kept: a stale key.
		it->second->release();
		return;
	}
	case kConnect: {
		uct_ep_h ep = nullptr;
		std::vector<uint8_t> addr(m.blob, m.blob + m.blob_len);
		r.status = s.iface->connect(addr, &ep);
		if (r.status == UCS_OK) {
			r.a = s.eps.size();
			s.eps.push_back(ep);
		}
		return;
	}
	case kXfer: {
		Buffer *b = buffer(s, m.b, m.c, m.d);
		if (!b || s.eps.empty()) {
			r.status = -EINVAL;
			return;
		}
		Registration local(b->addr() + m.c, m.d);
		RemoteKey rk(std::vector<uint8_t>(m.blob, m.blob + m.blob_len));
		if (local.status() != UCS_OK || rk.status() != UCS_OK) {
			r.status = local.status() != UCS_OK ? local.status() : rk.status();
			return;
		}
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = b->ptr(m.c);
		iov.length = m.d;
		iov.memh = local.memh();
		iov.count = 1;
		Completion c;
		ucs_status_t st;
		for (;;) {
			st = m.a ? uct_ep_get_zcopy(s.eps[0], &iov, 1, m.e, rk.rkey(), &c.comp)
				 : uct_ep_put_zcopy(s.eps[0], &iov, 1, m.e, rk.rkey(), &c.comp);
			if (st != UCS_ERR_NO_RESOURCE)
				break;
			s.iface->progress();
		}
		if (st == UCS_INPROGRESS)
			st = s.iface->wait(&c.done) ? c.status : UCS_ERR_TIMED_OUT;
		if (st == UCS_OK)
			st = s.iface->flush(s.eps[0]);
		r.status = st;
		return;
	}
	case kShm: {
		if (s.shm || s.dev_fd < 0) {
			r.status = -EBUSY;
			return;
		}
		s.shm_fd = memfd_create("uct-bench-staging", MFD_CLOEXEC);
		if (s.shm_fd < 0 || ftruncate(s.shm_fd, static_cast<off_t>(m.b)) < 0) {
			r.status = -errno;
			return;
		}
		s.shm = mmap(nullptr, m.b, PROT_READ | PROT_WRITE, MAP_SHARED, s.shm_fd, 0);
		if (s.shm == MAP_FAILED) {
			s.shm = nullptr;
			r.status = -errno;
			return;
		}
		s.shm_size = m.b;
		s.shm_va = hlthunk_host_memory_map(s.dev_fd, s.shm, 0, m.b);
		s.dma = std::make_unique<hlipc::StagedDma>();
		if (!s.shm_va || s.dma->init(s.dev_fd) < 0) {
			r.status = -EIO;
			return;
		}
		r.a = static_cast<uint64_t>(s.shm_fd);
		return;
	}
	case kLink:
		if (s.link_fd >= 0) {
			r.status = -EBUSY;
			return;
		}
		if (!s.link.create(&s.link_fd)) {
			r.status = -errno;
			return;
		}
		s.link.watch(s.sock);
		r.a = static_cast<uint64_t>(s.link_fd);
		return;
	case kServeStaged: {
		Buffer *b = buffer(s, m.a, 0, 0);
		if (!b || !s.dma || s.link_fd < 0 || b->kind() != Buffer::Device) {
			r.status = -EINVAL;
			return;
		}
		for (;;) {
			hlipc::Msg q = s.link.next<hlipc::Msg>();
			if (q.type == hlipc::kQuit)
				break;
			if (!hlipc::answer_staged({*s.dma, s.shm_va}, b->addr(), s.link, q))
				hlipc::reply(s.link, -EINVAL);
		}
		return;
	}
	case kFlood:
		r.status = flood(std::vector<uint8_t>(m.blob, m.blob + m.blob_len), m.a, &r.a);
		return;
	case kFds:
		if (m.a) {
			for (;;) {
				int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
				if (fd < 0)
					break;
				s.filler.push_back(fd);
			}
		} else {
			for (int fd : s.filler)
				close(fd);
			s.filler.clear();
		}
		r.a = s.filler.size();
		return;
	default:
		r.status = -EINVAL;
	}
}

}  // namespace

int peer_main(int sock, int dev)
{
	PeerState s;
	s.sock = sock;
	if (dev >= 0) {
		s.dev_fd = open_device(dev);
		if (s.dev_fd < 0) {
			fprintf(stderr, "uct-peer: cannot open device %d: %s\n", dev,
				hlthunk_ipc_last_error());
			return 2;
		}
	}
	s.iface = std::make_unique<Iface>();
	if (s.iface->open_status() != UCS_OK) {
		fprintf(stderr, "uct-peer: cannot open the interface: %s\n",
			ucs_status_string(s.iface->open_status()));
		return 3;
	}
	for (;;) {
		struct pollfd p = {sock, POLLIN, 0};
		int n = poll(&p, 1, 1);
		if (n == 0) {
			s.iface->progress();
			continue;
		}
		PeerMsg m;
		ssize_t got = recv(sock, &m, sizeof(m), 0);
		if (got != sizeof(m) || m.cmd == kExit)
			break;
		PeerMsg r;
		memset(&r, 0, sizeof(r));
		handle(s, m, r);
		if (send(sock, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
			break;
	}
	for (auto ep : s.eps)
		uct_ep_destroy(ep);
	s.regs.clear();
	s.bufs.clear();
	s.dma.reset();
	if (s.shm_va)
		hlthunk_memory_unmap(s.dev_fd, s.shm_va);
	if (s.shm)
		munmap(s.shm, s.shm_size);
	if (s.shm_fd >= 0)
		close(s.shm_fd);
	if (s.link_fd >= 0)
		close(s.link_fd);
	s.iface.reset();
	if (s.dev_fd >= 0)
		hlthunk_close(s.dev_fd);
	return 0;
}

}  // namespace uct_test
