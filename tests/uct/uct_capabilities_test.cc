// SPDX-License-Identifier: MIT
// The capabilities the interface declares beyond plain puts and gets, each
// shown here and by the UCX gtest cases they enable (tools/ucx-gtest.sh):
//  - GET_SHORT, on an interface of channels alone: the data is there when
//    the call returns; an interface with the staged path does not offer it;
//  - ERRHANDLE_ZCOPY_BUF, ERRHANDLE_REMOTE_MEM, ERRHANDLE_BCOPY_LEN: a local
//    buffer outside its memory handle, a remote range outside its key and
//    a pack callback that writes past max_bcopy are refused with an error
//    status and an error message, and nothing reaches the peer;
//  - the memory domain's INVALIDATE: an invalidating deregistration
//    revokes its own keys before it returns and completes once no
//    registration reaches any byte of its memory.
#include <cstdarg>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ucs/debug/log_def.h>

#include "bridge_fixture.h"

namespace uct_test {
namespace {

// The error messages UCX logs while it lives (the plugin logs through the
// process's libucs).
class ErrorLog {
public:
	ErrorLog() { ucs_log_push_handler(handler); }
	~ErrorLog() { ucs_log_pop_handler(); }
	ErrorLog(const ErrorLog &) = delete;
	ErrorLog &operator=(const ErrorLog &) = delete;
	// Messages since the last call.
	std::vector<std::string> take()
	{
		std::vector<std::string> m;
		m.swap(messages());
		return m;
	}

private:
	static std::vector<std::string> &messages()
	{
		static std::vector<std::string> m;
		return m;
	}
	static ucs_log_func_rc_t handler(const char *, unsigned, const char *,
					 ucs_log_level_t level, const ucs_log_component_config_t *,
					 const char *fmt, va_list ap)
	{
		if (level > UCS_LOG_LEVEL_ERROR)
			return UCS_LOG_FUNC_RC_CONTINUE;
		char buf[512];
		va_list copy;
		va_copy(copy, ap);
		vsnprintf(buf, sizeof(buf), fmt, copy);
		va_end(copy);
		messages().emplace_back(buf);
		return UCS_LOG_FUNC_RC_STOP;  // expected: not printed
	}
};

bool any_has(const std::vector<std::string> &msgs, const char *what)
{
	for (const auto &m : msgs)
		if (m.find(what) != std::string::npos)
			return true;
	return false;
}

struct Overrun {
	size_t len;
};
// A pack callback that writes len bytes, whatever max_bcopy is.
size_t pack_overrun(void *dest, void *arg)
{
	const size_t len = static_cast<Overrun *>(arg)->len;
	memset(dest, 0x5a, len);
	return len;
}

}  // namespace

TEST_F(Bridge, GetShortOnTheChannelPathAlone)
{
	constexpr uint64_t kLen = 65536;
	constexpr uint32_t kSeed = 88;
	RemoteBuffer r = env().remote(0, kLen);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	ASSERT_EQ(env().peer().call(kFill, r.id, kSeed, 0, kLen, 0).status, 0);

	Iface &st = env().iface(Path::Staged);
	EXPECT_FALSE(st.attr().cap.flags & UCT_IFACE_FLAG_GET_SHORT)
		<< "an interface with the staged path cannot complete a get inside the call";
	EXPECT_EQ(st.attr().cap.get.max_short, 0u);

	Iface &i = env().iface(Path::Channel);
	uct_ep_h ep = env().ep(Path::Channel);
	ASSERT_TRUE(i.attr().cap.flags & UCT_IFACE_FLAG_GET_SHORT);
	const size_t max_short = i.attr().cap.get.max_short;
	ASSERT_GE(max_short, 64u);
	const uint64_t before = kernel_copies();
	for (size_t len : {size_t{1}, size_t{7}, size_t{64}, max_short}) {
		for (uint64_t off : {uint64_t{0}, uint64_t{4093}, kLen - len}) {
			SCOPED_TRACE("get_short of " + std::to_string(len) + " bytes at " +
				     std::to_string(off));
			std::vector<unsigned char> buf(len + 2, 0xee);
			ASSERT_EQ(retry(i, [&] {
					  return uct_ep_get_short(ep, buf.data() + 1,
								  static_cast<unsigned>(len),
								  r.addr + off, rk.rkey());
				  }),
				  UCS_OK);
			// Done when the call returned: no progress, no flush.
			EXPECT_EQ(check(buf.data() + 1, len, kSeed, off), -1);
			EXPECT_EQ(buf[0], 0xee);
			EXPECT_EQ(buf[len + 1], 0xee) << "written past the buffer";
		}
	}
	EXPECT_GT(kernel_copies(), before) << "get_short did not go through a channel";

	ErrorLog log;
	std::vector<unsigned char> buf(max_short + 1);
	EXPECT_EQ(uct_ep_get_short(ep, buf.data(), static_cast<unsigned>(max_short + 1), r.addr,
				   rk.rkey()),
		  UCS_ERR_INVALID_PARAM);
	EXPECT_TRUE(any_has(log.take(), "length"));
	EXPECT_EQ(uct_ep_get_short(ep, buf.data(), 16, r.addr + kLen - 8, rk.rkey()),
		  UCS_ERR_INVALID_PARAM);
	EXPECT_TRUE(any_has(log.take(), "outside"));
	// An empty get needs no key (UCX's way with empty buffers).
	EXPECT_EQ(uct_ep_get_short(ep, buf.data(), 0, 0, UCT_INVALID_RKEY), UCS_OK);
	// Asked of a path that cannot, it says so rather than waiting.
	EXPECT_EQ(uct_ep_get_short(env().ep(Path::Staged), buf.data(), 8, r.addr, rk.rkey()),
		  UCS_ERR_UNSUPPORTED);
	EXPECT_TRUE(any_has(log.take(), "CHANNELS=y"));
	env().peer().call(kFree, r.id);
}

TEST_F(Bridge, BadBuffersAreRefusedBeforeAnythingMoves)
{
	constexpr uint64_t kLen = 1 << 20;
	constexpr uint32_t kSeed = 91;
	RemoteBuffer r = env().remote(0, kLen);
	ASSERT_NE(r.id, 0u);
	RemoteKey rk(r.rkey);
	ASSERT_EQ(rk.status(), UCS_OK);
	Buffer local(Buffer::Host, 2 * 4096);
	ASSERT_TRUE(local.ok());
	Registration lreg(local.addr(), 4096);  // the first page only
	ASSERT_EQ(lreg.status(), UCS_OK);
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		uct_ep_h ep = env().ep(path);
		const uint64_t flags = i.attr().cap.flags;
		EXPECT_TRUE(flags & UCT_IFACE_FLAG_ERRHANDLE_ZCOPY_BUF);
		EXPECT_TRUE(flags & UCT_IFACE_FLAG_ERRHANDLE_REMOTE_MEM);
		EXPECT_TRUE(flags & UCT_IFACE_FLAG_ERRHANDLE_BCOPY_LEN);
		ASSERT_EQ(env().peer().call(kFill, r.id, kSeed, 0, kLen, 0).status, 0);
		ErrorLog log;

		// ZCOPY_BUF: the second page is not in the memory handle.
		uct_iov_t iov;
		memset(&iov, 0, sizeof(iov));
		iov.buffer = static_cast<unsigned char *>(local.ptr()) + 4000;
		iov.length = 200;
		iov.count = 1;
		iov.memh = lreg.memh();
		for (bool get : {false, true}) {
			ucs_status_t s = get ? uct_ep_get_zcopy(ep, &iov, 1, r.addr, rk.rkey(), nullptr)
					     : uct_ep_put_zcopy(ep, &iov, 1, r.addr, rk.rkey(), nullptr);
			EXPECT_EQ(s, UCS_ERR_INVALID_PARAM) << (get ? "get" : "put");
			EXPECT_TRUE(any_has(log.take(), "not inside its memory handle"));
		}

		// REMOTE_MEM: past the key's end, and where the key never was.
		iov.buffer = local.ptr();
		iov.length = 64;
		for (uint64_t raddr : {r.addr + kLen - 32, r.addr - 4096, uint64_t{0x1000}}) {
			EXPECT_EQ(uct_ep_put_zcopy(ep, &iov, 1, raddr, rk.rkey(), nullptr),
				  UCS_ERR_INVALID_PARAM);
			EXPECT_TRUE(any_has(log.take(), "outside the registration"));
		}

		// BCOPY_LEN: one byte too many, and the whole room for overruns.
		const size_t max_bcopy = i.attr().cap.put.max_bcopy;
		for (size_t len : {max_bcopy + 1, max_bcopy + 4096}) {
			Overrun o{len};
			EXPECT_EQ(retry(i, [&] {
					  return uct_ep_put_bcopy(ep, pack_overrun, &o, r.addr,
								  rk.rkey());
				  }),
				  UCS_ERR_EXCEEDS_LIMIT)
				<< "a pack callback that wrote " << len << " bytes";
			EXPECT_TRUE(any_has(log.take(), "length"));
		}
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_EQ(env().peer().call(kCheck, r.id, kSeed, 0, kLen, 0).a, 0u)
			<< "a refused operation wrote into the peer's memory";

		// The endpoint still moves data.
		Overrun fits{max_bcopy};
		EXPECT_EQ(retry(i, [&] {
				  return uct_ep_put_bcopy(ep, pack_overrun, &fits, r.addr, rk.rkey());
			  }),
			  static_cast<ssize_t>(max_bcopy));
		ASSERT_EQ(i.flush(ep), UCS_OK);
		EXPECT_TRUE(log.take().empty());
	}
	env().peer().call(kFree, r.id);
}

TEST_F(Bridge, InvalidatedKeysReachNothing)
{
	constexpr uint64_t kLen = 65536;
	for (Path path : {Path::Channel, Path::Staged}) {
		SCOPED_TRACE(path_name(path));
		Iface &i = env().iface(path);
		// The owner is this process: an endpoint to its own interface.
		uct_ep_h ep;
		ASSERT_EQ(i.connect(i.address(), &ep), UCS_OK);
		Buffer target(Buffer::Host, 2 * kLen), src(Buffer::Host, kLen);
		ASSERT_TRUE(target.ok() && src.ok());
		memset(src.cpu(), 0x3c, kLen);
		Registration lreg(src.addr(), kLen);
		ASSERT_EQ(lreg.status(), UCS_OK);
		auto reg = std::make_unique<Registration>(target.addr(), kLen);
		// Another registration of half of that memory, and one of the
		// memory beside it.
		auto half = std::make_unique<Registration>(target.addr() + kLen / 2, kLen / 2);
		Registration beside(target.addr() + kLen, kLen);
		ASSERT_EQ(reg->status(), UCS_OK);
		ASSERT_EQ(half->status(), UCS_OK);
		ASSERT_EQ(beside.status(), UCS_OK);
		RemoteKey rk(reg->packed()), rk_half(half->packed());
		ASSERT_EQ(rk.status(), UCS_OK);
		ASSERT_EQ(rk_half.status(), UCS_OK);
		ASSERT_EQ(zcopy(i, ep, false, src.addr(), lreg.memh(), target.addr(), rk.rkey(), 4096),
			  UCS_OK);
		EXPECT_EQ(target.cpu()[4095], 0x3c);

		// The handle's own keys reach nothing once the call returned;
		// the invalidation completes once no registration reaches any
		// of its bytes: after the second one, whatever the third does.
		Completion c(1);
		ASSERT_EQ(reg->invalidate(&c.comp), UCS_OK);
		reg.reset();
		EXPECT_FALSE(c.done) << "completed while another key still reaches the memory";
		memset(target.cpu(), 0, 2 * kLen);
		ErrorLog log;
		EXPECT_NE(zcopy(i, ep, false, src.addr(), lreg.memh(), target.addr(), rk.rkey(), kLen),
			  UCS_OK);
		(void)log.take();
		EXPECT_EQ(check_zero(target.cpu(), 2 * kLen), -1)
			<< "a key of the invalidated handle still wrote into the memory";
		EXPECT_EQ(zcopy(i, ep, false, src.addr(), lreg.memh(), target.addr() + kLen / 2,
				rk_half.rkey(), 64),
			  UCS_OK)
			<< "another registration of the memory lost its key";
		half->dereg();
		EXPECT_TRUE(c.done) << "not completed when the last registration of the memory went";
		EXPECT_EQ(c.status, UCS_OK);
		half.reset();
		memset(target.cpu(), 0, 2 * kLen);
		EXPECT_NE(zcopy(i, ep, false, src.addr(), lreg.memh(), target.addr() + kLen / 2,
				rk_half.rkey(), 64),
			  UCS_OK);
		(void)log.take();
		EXPECT_EQ(check_zero(target.cpu(), 2 * kLen), -1);

		// With no other registration, it completes inside the call.
		Registration alone(target.addr(), kLen);
		ASSERT_EQ(alone.status(), UCS_OK);
		Completion c2(1);
		ASSERT_EQ(alone.invalidate(&c2.comp), UCS_OK);
		EXPECT_TRUE(c2.done);
		uct_ep_destroy(ep);
	}
}

}  // namespace uct_test
