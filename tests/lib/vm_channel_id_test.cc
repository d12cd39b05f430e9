// SPDX-License-Identifier: MIT
// Channel ids (in the VM, 'habanalabs_sim num_devices=2' and
// habanalabs_ipc): every create has an id of its own; a destroyed id fails
// on every call, even after the kernel gave its channel number to another
// channel; one component's extra destroy leaves another's channel alone.
#include <gtest/gtest.h>

#include <cstring>

#include "device_buffer.h"
#include "hlthunk.h"

using hlipc::DeviceBuffer;

namespace {

constexpr uint64_t kSize = 256 * 1024;

void *ptr(uint64_t va) { return reinterpret_cast<void *>(va); }

class ChannelIds : public ::testing::Test {
protected:
	void SetUp() override
	{
		d0 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		d1 = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, nullptr);
		ASSERT_GE(d0, 0);
		ASSERT_GE(d1, 0);
		ASSERT_EQ(a.create(d0, kSize), 0);
		ASSERT_EQ(b.create(d1, kSize), 0);
		ASSERT_EQ(a.map_cpu(), 0);
		ASSERT_EQ(b.map_cpu(), 0);
		hlipc::fill_pattern(a.cpu(), kSize, 3);
		hlipc::fill_pattern(b.cpu(), kSize, 4);
		uint64_t off;
		ASSERT_EQ(hlthunk_ipc_register_device_memory(d0, a.va(), &ca, &off, nullptr), 0);
		ASSERT_EQ(hlthunk_ipc_register_device_memory(d1, b.va(), &cb, &off, nullptr), 0);
	}
	void TearDown() override
	{
		a.reset();
		b.reset();
		hlthunk_close(d0);
		hlthunk_close(d1);
	}
	struct hlthunk_ipc_copy by_cookie(uint32_t ch, uint64_t len = 4096)
	{
		struct hlthunk_ipc_copy c = {};
		c.channel_id = ch;
		c.src_cookie = ca;
		c.dst_cookie = cb;
		c.length = len;
		return c;
	}
	int d0 = -1, d1 = -1;
	DeviceBuffer a, b;
	hlthunk_ipc_cookie ca = 0, cb = 0;
};

}  // namespace

TEST_F(ChannelIds, AnExtraDestroyLeavesAnotherComponentsChannelAlone)
{
	uint32_t mine, theirs;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &mine), 0);
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &theirs), 0);
	EXPECT_NE(mine, theirs);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(mine), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(mine), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(mine), -ENOENT);
	// Theirs still works, every way.
	EXPECT_EQ(hlthunk_ipc_channel_copy(theirs, d0, d1, ptr(b.va()), ptr(a.va()), kSize), 0)
		<< hlthunk_ipc_last_error();
	EXPECT_EQ(hlipc::check_pattern(b.cpu(), kSize, 3), -1);
	auto c = by_cookie(theirs);
	EXPECT_EQ(hlthunk_ipc_copy(&c), 0);
	uint64_t seq;
	ASSERT_EQ(hlthunk_ipc_copy_async(&c, &seq), 0);
	EXPECT_EQ(hlthunk_ipc_wait(theirs, seq, 10000000), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(theirs), 0);
}

// The kernel gives the lowest free number to a new channel: a destroyed
// id must not reach the channel that got its number.
TEST_F(ChannelIds, AStaleIdFailsOnEveryCallAfterItsNumberIsReused)
{
	uint32_t old_id, new_id;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &old_id), 0);
	uint64_t seq_old;
	auto c = by_cookie(old_id);
	ASSERT_EQ(hlthunk_ipc_copy_async(&c, &seq_old), 0);
	ASSERT_EQ(hlthunk_ipc_channel_destroy(old_id), 0);
	// Another pair's channel, which the kernel numbers as the old one was.
	ASSERT_EQ(hlthunk_ipc_channel_create(d1, d0, &new_id), 0);
	EXPECT_NE(new_id, old_id);

	EXPECT_EQ(hlthunk_ipc_channel_copy(old_id, d0, d1, ptr(b.va()), ptr(a.va()), 64),
		  -ENOENT);
	c = by_cookie(old_id);
	EXPECT_EQ(hlthunk_ipc_copy(&c), -ENOENT);
	uint64_t seq;
	EXPECT_EQ(hlthunk_ipc_copy_async(&c, &seq), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_copy_batch(&c, 1, &seq), -ENOENT);
	// A wait for the old id's copies must not answer from the new channel.
	EXPECT_EQ(hlthunk_ipc_wait(old_id, seq_old, 1000000), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(old_id), -ENOENT);

	// The new id works, in its own direction.
	struct hlthunk_ipc_copy back = {};
	back.channel_id = new_id;
	back.src_cookie = cb;
	back.dst_cookie = ca;
	back.length = 64;
	EXPECT_EQ(hlthunk_ipc_copy(&back), 0) << hlthunk_ipc_last_error();
	EXPECT_EQ(hlthunk_ipc_channel_destroy(new_id), 0);
}

// A thread that copied on an id keeps a per-thread memo of it: the memo
// must not outlive the id.
TEST_F(ChannelIds, TheCopyFastPathForgetsADestroyedId)
{
	uint32_t id;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &id), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(hlthunk_ipc_channel_copy(id, d0, d1, ptr(b.va()), ptr(a.va()), 64), 0);
	ASSERT_EQ(hlthunk_ipc_channel_destroy(id), 0);
	uint32_t other;
	ASSERT_EQ(hlthunk_ipc_channel_create(d0, d1, &other), 0);
	EXPECT_EQ(hlthunk_ipc_channel_copy(id, d0, d1, ptr(b.va()), ptr(a.va()), 64), -ENOENT);
	EXPECT_EQ(hlthunk_ipc_channel_copy(other, d0, d1, ptr(b.va()), ptr(a.va()), 64), 0);
	EXPECT_EQ(hlthunk_ipc_channel_destroy(other), 0);
}
