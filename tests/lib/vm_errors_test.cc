// SPDX-License-Identifier: MIT
// The messages libhlthunk gives when the set-up is wrong, provoked for
// real in the VM:
//   NoModule.*     habanalabs_sim loaded, habanalabs_ipc not
//   Permissions.*  both loaded; the test drops to an unprivileged user
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "hlthunk.h"

namespace {

bool contains(const char *s, const char *what)
{
	return std::string(s).find(what) != std::string::npos;
}

// Runs f in a child as user nobody; returns the child's exit status.
template <typename F>
int as_nobody(F f)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(f());
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 101;
}

}  // namespace

TEST(NoModule, IpcCallsSayToLoadTheModule)
{
	ASSERT_NE(access("/dev/hl_ipc", F_OK), 0) << "run without habanalabs_ipc";
	struct hlthunk_ipc_info info;
	EXPECT_EQ(hlthunk_ipc_query(&info), -ENOENT);
	EXPECT_TRUE(contains(hlthunk_ipc_last_error(), "modprobe habanalabs_ipc"))
		<< hlthunk_ipc_last_error();
	EXPECT_TRUE(contains(hlthunk_ipc_last_error(), "/dev/hl_ipc"));
	// Device calls still work without it; channel calls fail the same way.
	int d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	int d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
	ASSERT_GE(d0, 0);
	ASSERT_GE(d1, 0);
	uint32_t ch;
	EXPECT_EQ(hlthunk_ipc_channel_create(d0, d1, &ch), -ENOENT);
	EXPECT_TRUE(contains(hlthunk_ipc_last_error(), "modprobe habanalabs_ipc"));
	EXPECT_EQ(hlthunk_ipc_get_fd(), -ENOENT);
	hlthunk_close(d1);
	hlthunk_close(d0);
}

TEST(Permissions, DeviceNodesAndIpcNodeExplainWhatToFix)
{
	ASSERT_EQ(geteuid(), 0u) << "needs root to change node modes";
	struct stat st;
	ASSERT_EQ(stat("/dev/hl_ipc", &st), 0);
	ASSERT_EQ(chmod("/dev/hl_ipc", 0600), 0);
	int rc = as_nobody([] {
		// Device nodes are root's only (0600): opening is refused.
		if (hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr) != -EACCES)
			return 1;
		if (!contains(hlthunk_ipc_last_error(), "permission"))
			return 2;
		struct hlthunk_ipc_info info;
		if (hlthunk_ipc_query(&info) != -EACCES)
			return 3;
		if (!contains(hlthunk_ipc_last_error(), "no permission to open /dev/hl_ipc"))
			return 4;
		if (!contains(hlthunk_ipc_last_error(), "group"))
			return 5;
		return 0;
	});
	chmod("/dev/hl_ipc", st.st_mode & 07777);
	EXPECT_EQ(rc, 0);
}
