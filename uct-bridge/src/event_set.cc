// SPDX-License-Identifier: MIT
#include "event_set.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gaudi_ipc {

int EventSet::init()
{
	hl::UniqueFd ep(epoll_create1(EPOLL_CLOEXEC));
	hl::UniqueFd t(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
	if (!ep.valid() || !t.valid())
		return -errno;
	epoll_ = std::move(ep);
	timer_ = std::move(t);
	return watch(timer_.get());
}

int EventSet::watch(int fd)
{
	struct epoll_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

void EventSet::unwatch(int fd)
{
	(void)epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
}

void EventSet::arm_timer(uint64_t ns)
{
	struct itimerspec its;
	memset(&its, 0, sizeof(its));
	if (ns) {
		its.it_value.tv_sec = static_cast<time_t>(ns / 1000000000ull);
		its.it_value.tv_nsec = static_cast<long>(ns % 1000000000ull);
	}
	(void)timerfd_settime(timer_.get(), 0, &its, nullptr);
}

void EventSet::clear_timer()
{
	uint64_t expirations;
	(void)!::read(timer_.get(), &expirations, sizeof(expirations));
}

}  // namespace gaudi_ipc
