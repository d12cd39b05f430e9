// SPDX-License-Identifier: MIT
// A request/answer mailbox in memory shared by two processes, for the
// hand-over of the staged DMA path: one side writes a request and waits
// for the answer, the other waits for requests.  Waiting spins briefly and
// then sleeps on a futex, as a runtime hands work between processes; a
// socket round trip (two sleeping wake-ups) cost about 140 us per hand-over
// in the VM, most of a small staged transfer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace hlipc {

class PeerLink {
public:
	static constexpr size_t kMaxMsg = 256;
	// How long a waiter spins before it sleeps.
	static constexpr uint64_t kSpinNs = 200 * 1000;
	// What a message may be: copied as bytes through the page.
	template <class T>
	static constexpr bool kFits = sizeof(T) <= kMaxMsg && std::is_trivially_copyable_v<T>;

	PeerLink() = default;
	~PeerLink();
	PeerLink(const PeerLink &) = delete;
	PeerLink &operator=(const PeerLink &) = delete;

	// Maps the shared page; before fork(), so that both sides see it.
	// False (errno set) if it cannot.
	bool create();
	// The same in a memfd, for two processes that do not fork from one
	// another: the other one maps the page with attach(), given an fd of
	// the memfd (through /proc/PID/fd/N, say).  *fd is the caller's to
	// close.
	bool create(int *fd);
	bool attach(int fd);
	// The fd whose hang-up tells this side that the other one died (a
	// socket the two share); a waiter checks it while it sleeps.
	void watch(int fd) { watch_fd_ = fd; }

	// The asking side: sends the request, returns its answer.
	template <class T> T ask(const T &req)
	{
		post(req);
		return wait_answer<T>();
	}
	// The same in two steps, to work while the other side does: post()
	// sends, wait_answer() waits for the answer to the last post.  A
	// request that gets no answer (the last one) is only posted.
	template <class T> void post(const T &req)
	{
		static_assert(kFits<T>);
		post_raw(&req, sizeof(T));
	}
	template <class T> T wait_answer()
	{
		static_assert(kFits<T>);
		T ans;
		wait_answer_raw(&ans, sizeof(T));
		return ans;
	}
	// The answering side: the next request, then its answer.
	template <class T> T next()
	{
		static_assert(kFits<T>);
		T req;
		next_raw(&req, sizeof(T));
		return req;
	}
	template <class T> void answer(const T &ans)
	{
		static_assert(kFits<T>);
		answer_raw(&ans, sizeof(T));
	}

private:
	struct Page {
		std::atomic<uint32_t> req_seq;  // futex words
		alignas(64) std::atomic<uint32_t> ans_seq;
		alignas(64) unsigned char req[kMaxMsg];
		alignas(64) unsigned char ans[kMaxMsg];
	};
	static_assert(std::atomic<uint32_t>::is_always_lock_free);

	void post_raw(const void *req, size_t n);
	void wait_answer_raw(void *ans, size_t n);
	void next_raw(void *req, size_t n);
	void answer_raw(const void *ans, size_t n);
	// Waits until *word is no longer old; ends the process (with a
	// message) if the other side died meanwhile.
	void wait_change(std::atomic<uint32_t> *word, uint32_t old);
	static void bump(std::atomic<uint32_t> *word);

	Page *page_ = nullptr;
	int watch_fd_ = -1;
	uint32_t seen_req_ = 0;  // answering side: requests taken
	uint32_t seen_ans_ = 0;  // asking side: answers taken
};

}  // namespace hlipc
