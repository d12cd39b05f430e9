// SPDX-License-Identifier: MIT
#include "peer_link.h"

#include <linux/futex.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>

#include "clocks.h"

namespace hlipc {

namespace {

// The futex word is shared between processes: no FUTEX_PRIVATE_FLAG.
long futex(std::atomic<uint32_t> *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), op, val, ts, nullptr, 0);
}

}  // namespace

PeerLink::~PeerLink()
{
	if (page_)
		munmap(page_, sizeof(Page));
}

bool PeerLink::create()
{
	if (page_) {
		errno = EBUSY;
		return false;
	}
	void *p = mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	page_ = new (p) Page{};  // constructed in place, unmapped by us
	return true;
}

bool PeerLink::create(int *fd)
{
	int f = memfd_create("hl-ipc-peer-link", MFD_CLOEXEC);
	if (f < 0)
		return false;
	if (ftruncate(f, sizeof(Page)) < 0 || !attach(f)) {
		int err = errno;
		close(f);
		errno = err;
		return false;
	}
	page_ = new (page_) Page{};
	*fd = f;
	return true;
}

bool PeerLink::attach(int fd)
{
	if (page_) {
		errno = EBUSY;
		return false;
	}
	void *p = mmap(nullptr, sizeof(Page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return false;
	// The page is constructed by its creator; a memfd starts zeroed,
	// which is what the constructor writes.
	page_ = static_cast<Page *>(p);
	return true;
}

void PeerLink::bump(std::atomic<uint32_t> *word)
{
	word->fetch_add(1, std::memory_order_release);
	futex(word, FUTEX_WAKE, 1, nullptr);
}

void PeerLink::wait_change(std::atomic<uint32_t> *word, uint32_t old)
{
	const uint64_t spin_end = now_ns() + kSpinNs;
	for (unsigned i = 0; word->load(std::memory_order_acquire) == old; i++) {
		if ((i % kSpinTurnsPerClockRead) || now_ns() < spin_end) {
			__builtin_ia32_pause();
			continue;
		}
		// Sleep; wake up now and then to see whether the other side died.
		const struct timespec ts = {0, 100 * 1000 * 1000};
		long rc = futex(word, FUTEX_WAIT, old, &ts);
		if (rc < 0 && errno == ETIMEDOUT && watch_fd_ >= 0) {
			struct pollfd p = {watch_fd_, 0, 0};
			if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR)) &&
			    word->load(std::memory_order_acquire) == old) {
				fprintf(stderr, "hl-ipc: the other process went away\n");
				_exit(1);
			}
		}
	}
}

void PeerLink::post_raw(const void *req, size_t n)
{
	memcpy(page_->req, req, n);
	bump(&page_->req_seq);
}

void PeerLink::wait_answer_raw(void *ans, size_t n)
{
	wait_change(&page_->ans_seq, seen_ans_);
	seen_ans_++;
	memcpy(ans, page_->ans, n);
}

void PeerLink::next_raw(void *req, size_t n)
{
	wait_change(&page_->req_seq, seen_req_);
	seen_req_++;
	memcpy(req, page_->req, n);
}

void PeerLink::answer_raw(const void *ans, size_t n)
{
	memcpy(page_->ans, ans, n);
	bump(&page_->ans_seq);
}

}  // namespace hlipc
