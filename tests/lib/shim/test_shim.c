/* SPDX-License-Identifier: MIT */
/*
 * A profiling layer, as hl-thunk loads one (libhl_shim.so): it wraps some
 * calls of the table it is handed and counts what it sees, so that
 * shim_test.cc can check libhlthunk loads, uses and unloads it as
 * hl-thunk does.
 */
#include <stddef.h>
#include <stdlib.h>

#include "hlthunk.h"

#define SHIM_API_HLTHUNK 1

static struct hlthunk_functions_pointers orig, wrapped;

int shim_opens, shim_closes, shim_finishes, shim_gets, shim_api;

static int wrapped_open(enum hlthunk_device_name name, const char *busid)
{
	shim_opens++;
	return orig.fp_hlthunk_open(name, busid);
}

static int wrapped_close(int fd)
{
	shim_closes++;
	return orig.fp_hlthunk_close(fd);
}

static int profiler_start(int fd)
{
	(void)fd;
	return 0;
}

__attribute__((visibility("default"))) void *ShimGetFunctions(int api, void *functions)
{
	shim_gets++;
	shim_api = api;
	orig = *(struct hlthunk_functions_pointers *)functions;
	wrapped = orig;
	wrapped.fp_hlthunk_open = wrapped_open;
	wrapped.fp_hlthunk_close = wrapped_close;
	wrapped.fp_hlthunk_profiler_start = profiler_start;
	return &wrapped;
}

__attribute__((visibility("default"))) void ShimFinish(int api)
{
	(void)api;
	shim_finishes++;
	/* Seen by the test after the library is unloaded. */
	setenv("HL_TEST_SHIM_FINISHED", "1", 1);
}
