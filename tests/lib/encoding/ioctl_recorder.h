/* SPDX-License-Identifier: MIT */
/*
 * An ioctl() of the test executable that stands in for the C library's on
 * one fd number (REC_FD): it records the request and a copy of the
 * argument (and of the first CS chunk), and answers with what the test
 * set.  Any other fd goes to the kernel.  The library's calls reach it
 * because a symbol of the executable comes first in the lookup.
 */
#ifndef IOCTL_RECORDER_H
#define IOCTL_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REC_FD 555
#define REC_MAX_CALLS 8
#define REC_MAX_ARG 64

struct rec_call {
	unsigned long request;
	unsigned char arg[REC_MAX_ARG];	/* as passed in */
	unsigned char chunk[64];	/* CS: the first execute chunk */
	int has_chunk;
};

/* Answer for the next calls: an errno (0 for success) for requests, and a
 * function that may write results into the argument first. */
typedef void (*rec_fill_fn)(unsigned long request, void *arg);
void rec_reset(int err, rec_fill_fn fill);
/* err for a request number, another answer for all others. */
void rec_fail_request(unsigned long request, int err);
int rec_count(void);
const struct rec_call *rec_get(int i);

#ifdef __cplusplus
}
#endif

#endif
