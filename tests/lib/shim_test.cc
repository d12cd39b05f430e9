// SPDX-License-Identifier: MIT
// The profiling layer: with libhl_shim.so on the library path (this test
// runs with LD_LIBRARY_PATH set to a directory holding the one of
// test_shim.c), the first hlthunk_open hands it the table of calls and
// uses the table it returns; hlthunk_profiler_destroy lets it go, and the
// next open looks again.  With HABANA_SHIM_DISABLE=1 (the second run of
// this test) it is never loaded.  Host test: no device is needed.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "hlthunk.h"

namespace {

int *counter(const char *name)
{
	void *h = dlopen("libhl_shim.so", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return nullptr;
	auto *p = static_cast<int *>(dlsym(h, name));
	dlclose(h);
	return p;
}

bool disabled()
{
	const char *v = getenv("HABANA_SHIM_DISABLE");
	return v && !strcmp(v, "1");
}

}  // namespace

TEST(Shim, LoadedAtOpenUsedAndUnloaded)
{
	EXPECT_EQ(counter("shim_gets"), nullptr) << "not loaded before an open";
	EXPECT_EQ(hlthunk_profiler_start(0), -1) << "no layer yet";
	int fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd >= 0)
		hlthunk_close(fd);
	if (disabled()) {
		EXPECT_EQ(counter("shim_gets"), nullptr);
		EXPECT_EQ(hlthunk_profiler_start(0), -1);
		return;
	}
	ASSERT_NE(counter("shim_gets"), nullptr) << "libhl_shim.so was not loaded";
	EXPECT_EQ(*counter("shim_gets"), 1);
	EXPECT_EQ(*counter("shim_api"), 1) << "SHIM_API_HLTHUNK";
	EXPECT_EQ(*counter("shim_opens"), 1) << "the open went through the layer";
	EXPECT_EQ(hlthunk_profiler_start(0), 0) << "answered by the layer";
	(void)hlthunk_close(-1);
	EXPECT_GE(*counter("shim_closes"), 1);
	// Loaded once: a second open uses the same table.
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd >= 0)
		hlthunk_close(fd);
	EXPECT_EQ(*counter("shim_gets"), 1);
	EXPECT_EQ(*counter("shim_opens"), 2);

	EXPECT_EQ(*counter("shim_finishes"), 0);
	hlthunk_profiler_destroy();
	EXPECT_STREQ(getenv("HL_TEST_SHIM_FINISHED"), "1") << "ShimFinish was called";
	EXPECT_EQ(counter("shim_gets"), nullptr) << "unloaded";
	EXPECT_EQ(hlthunk_profiler_start(0), -1);
	// The next open loads it again.
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd >= 0)
		hlthunk_close(fd);
	ASSERT_NE(counter("shim_gets"), nullptr);
	EXPECT_EQ(*counter("shim_gets"), 1);
	EXPECT_EQ(*counter("shim_opens"), 1);
}
