// SPDX-License-Identifier: MIT
#include "error_message.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

using namespace hlthunk;

namespace {
bool has(const char *s, const char *what) { return std::string(s).find(what) != std::string::npos; }
}  // namespace

TEST(ErrorMessage, OpeningTheIpcNodeSaysWhatToDo)
{
	EXPECT_TRUE(has(error_message(Op::OpenIpc, -ENOENT), "modprobe habanalabs_ipc"));
	EXPECT_TRUE(has(error_message(Op::OpenIpc, -EACCES), "permission"));
	EXPECT_TRUE(has(error_message(Op::OpenIpc, -EACCES), "group 'hl'"));
	EXPECT_TRUE(has(error_message(Op::OpenDevice, -EACCES), "group 'hl'"));
	EXPECT_TRUE(has(error_message(Op::OpenIpc, EPERM), "/dev/hl_ipc"));
}

TEST(ErrorMessage, SameErrnoDependsOnContext)
{
	// ENOENT opening the node: module missing; from a copy: no cookie.
	EXPECT_STRNE(error_message(Op::OpenIpc, -ENOENT),
		     error_message(Op::Copy, -ENOENT));
	EXPECT_TRUE(has(error_message(Op::Copy, -ENOENT), "cookie"));
	EXPECT_TRUE(has(error_message(Op::OpenDevice, -EBUSY), "another process"));
	EXPECT_TRUE(has(error_message(Op::OpenDevice, -ENOENT), "habanalabs_sim"));
}

TEST(ErrorMessage, CommonCopyErrorsAreExplained)
{
	EXPECT_TRUE(has(error_message(Op::Copy, -EFAULT), "not mapped"));
	EXPECT_TRUE(has(error_message(Op::Copy, -ERANGE), "past the end"));
	EXPECT_TRUE(has(error_message(Op::Register, -EOPNOTSUPP), "staged DMA"));
	EXPECT_TRUE(has(error_message(Op::Copy, -EBADF), "closed"));
	EXPECT_TRUE(has(error_message(Op::Wait, -ETIMEDOUT), "timed out"));
	EXPECT_STREQ(error_message(Op::Generic, 0), "success");
	EXPECT_TRUE(has(error_message(Op::Generic, -EXFULL), "unexpected"));
}

TEST(ErrorMessage, DescribeNamesTheOperationAndErrno)
{
	auto s = describe_failure(Op::OpenIpc, "opening /dev/hl_ipc", -ENOENT);
	EXPECT_EQ(s.rfind("opening /dev/hl_ipc: ", 0), 0u);
	EXPECT_TRUE(s.find("(ENOENT)") != std::string::npos) << s;
}
