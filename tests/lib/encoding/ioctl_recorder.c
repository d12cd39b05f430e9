/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "ioctl_recorder.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "habanalabs_abi.h"
#include "habanalabs_extra.h"

static struct rec_call calls[REC_MAX_CALLS];
static int ncalls, answer_err, special_err;
static unsigned long special_request;
static rec_fill_fn answer_fill;

void rec_reset(int err, rec_fill_fn fill)
{
	memset(calls, 0, sizeof(calls));
	ncalls = 0;
	answer_err = err;
	answer_fill = fill;
	special_request = 0;
}

void rec_fail_request(unsigned long request, int err)
{
	special_request = request;
	special_err = err;
}

int rec_count(void)
{
	return ncalls;
}

const struct rec_call *rec_get(int i)
{
	return i < ncalls ? &calls[i] : NULL;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	size_t size;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != REC_FD)
		return (int)syscall(SYS_ioctl, fd, request, arg);
	if (ncalls < REC_MAX_CALLS) {
		struct rec_call *c = &calls[ncalls];

		c->request = request;
		size = _IOC_SIZE(request);
		memcpy(c->arg, arg, size < REC_MAX_ARG ? size : REC_MAX_ARG);
		if ((request == DRM_IOCTL_HL_CS || request == HL_LEGACY_IOCTL_CS)) {
			const union hl_cs_args *a = arg;

			if (a->in.num_chunks_execute && a->in.chunks_execute &&
			    !(a->in.cs_flags & (HL_CS_FLAGS_ENGINE_CORE_COMMAND |
						HL_CS_FLAGS_ENGINES_COMMAND))) {
				memcpy(c->chunk,
				       (const void *)(uintptr_t)a->in.chunks_execute,
				       sizeof(struct hl_cs_chunk));
				c->has_chunk = 1;
			}
		}
	}
	ncalls++;
	if (special_request && request == special_request) {
		errno = special_err;
		return -1;
	}
	/* As the driver, a CS answer replaces the whole argument. */
	if (!answer_fill && (request == DRM_IOCTL_HL_CS || request == HL_LEGACY_IOCTL_CS))
		memset(arg, 0, sizeof(union hl_cs_args));
	if (answer_fill)
		answer_fill(request, arg);
	if (answer_err) {
		errno = answer_err;
		return -1;
	}
	return 0;
}
