// SPDX-License-Identifier: MIT
#include "bridge_fixture.h"

#include <cstdio>
#include <cstring>

#include "hlthunk.h"

namespace uct_test {

const char *path_name(Path p) { return p == Path::Channel ? "channel" : "staged"; }

namespace {
bool env_used;
}

BridgeEnv &BridgeEnv::get()
{
	static BridgeEnv e;
	env_used = true;
	return e;
}

void BridgeEnv::teardown_if_used()
{
	if (env_used)
		get().teardown();
}

BridgeEnv::BridgeEnv()
{
	dev_ = open_device(kOwnDevice);
	if (dev_ < 0) {
		why_ = std::string("opening device 0: ") + hlthunk_ipc_last_error();
		return;
	}
	// Small staging slots: the staged path cuts the larger transfers into
	// several pieces, with unaligned boundaries.
	peer_ = std::make_unique<Peer>(kPeerDevice, false,
				       std::vector<std::string>{"UCX_GAUDI_IPC_STAGING_SIZE=256k"});
	if (!peer_->ok()) {
		why_ = "starting the peer process on device 1";
		return;
	}
	channel_ = std::make_unique<Iface>(
		std::vector<std::pair<std::string, std::string>>{{"CHANNELS", "y"}});
	staged_ = std::make_unique<Iface>(
		std::vector<std::pair<std::string, std::string>>{{"CHANNELS", "n"}});
	if (channel_->open_status() != UCS_OK || staged_->open_status() != UCS_OK) {
		why_ = std::string("opening the interfaces: ") +
		       ucs_status_string(channel_->open_status()) + ", " +
		       ucs_status_string(staged_->open_status());
		return;
	}
	if (channel_->connect(peer_->address(), &ep_channel_) != UCS_OK ||
	    staged_->connect(peer_->address(), &ep_staged_) != UCS_OK) {
		why_ = "connecting to the peer";
		return;
	}
	ready_ = true;
}

void BridgeEnv::teardown()
{
	if (ep_channel_)
		uct_ep_destroy(ep_channel_);
	if (ep_staged_)
		uct_ep_destroy(ep_staged_);
	ep_channel_ = ep_staged_ = nullptr;
	channel_.reset();
	staged_.reset();
	peer_.reset();
	if (dev_ >= 0)
		hlthunk_close(dev_);
	dev_ = -1;
	ready_ = false;
}

RemoteBuffer BridgeEnv::remote(int kind, uint64_t size)
{
	return remote_buffer(*peer_, kind, size);
}

RemoteBuffer remote_buffer(Peer &peer, int kind, uint64_t size)
{
	RemoteBuffer r;
	PeerMsg a = peer.call(kAlloc, static_cast<uint64_t>(kind), size);
	if (a.status)
		return r;
	PeerMsg g = peer.call(kReg, a.a, 0, 0, size);
	if (g.status)
		return r;
	r.id = a.a;
	r.addr = a.b;
	r.size = size;
	r.rkey.assign(g.blob, g.blob + g.blob_len);
	return r;
}

ucs_status_t zcopy(const Iface &i, uct_ep_h ep, bool get, const Buffer &local,
		   uint64_t loff, uct_mem_h memh, uint64_t raddr, uct_rkey_t rkey,
		   uint64_t len)
{
	return zcopy(i, ep, get, local.addr() + loff, memh, raddr, rkey, len);
}

ucs_status_t zcopy(const Iface &i, uct_ep_h ep, bool get, uint64_t local, uct_mem_h memh,
		   uint64_t raddr, uct_rkey_t rkey, uint64_t len)
{
	uct_iov_t iov;
	memset(&iov, 0, sizeof(iov));
	iov.buffer = reinterpret_cast<void *>(local);
	iov.length = len;
	iov.memh = memh;
	iov.count = 1;
	Completion c;
	ucs_status_t st;
	for (int tries = 0;; tries++) {
		st = get ? uct_ep_get_zcopy(ep, &iov, 1, raddr, rkey, &c.comp)
			 : uct_ep_put_zcopy(ep, &iov, 1, raddr, rkey, &c.comp);
		if (st != UCS_ERR_NO_RESOURCE || tries > 100000)
			break;
		i.progress();
	}
	if (st == UCS_INPROGRESS)
		st = i.wait(&c.done) ? c.status : UCS_ERR_TIMED_OUT;
	if (st == UCS_OK)
		st = i.flush(ep);
	return st;
}

uint64_t kernel_copies()
{
	FILE *f = fopen("/sys/class/misc/hl_ipc/stats/copies", "r");
	if (!f)
		return 0;
	unsigned long long v = 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

void set_cs_delay(int ms)
{
	FILE *f = fopen("/sys/module/habanalabs_sim/parameters/cs_delay_ms", "w");
	if (f) {
		fprintf(f, "%d", ms);
		fclose(f);
	}
}

void Bridge::check_transfer(Path path, bool get, Buffer &local, uct_mem_h memh,
			    const RemoteBuffer &r, const RemoteKey &rk, uint64_t loff,
			    uint64_t roff, uint64_t len, uint32_t seed)
{
	SCOPED_TRACE(std::string(path_name(path)) + (get ? " get " : " put ") +
		     std::to_string(len) + " B, local " +
		     (local.kind() == Buffer::Host ? "host" : "device") + "+" +
		     std::to_string(loff) + ", remote +" + std::to_string(roff));
	Peer &peer = env().peer();
	ASSERT_EQ(peer.call(kZero, r.id).status, 0);
	memset(local.cpu(), 0, local.size());
	if (get)
		ASSERT_EQ(peer.call(kFill, r.id, seed, roff, len, 0).status, 0);
	else
		fill(local.cpu() + loff, len, seed, 0);
	uint64_t before = kernel_copies();
	ucs_status_t st = zcopy(env().iface(path), env().ep(path), get, local, loff, memh,
				r.addr + roff, rk.rkey(), len);
	ASSERT_EQ(st, UCS_OK) << ucs_status_string(st);
	// The channel path shows in the kernel's copy counter, the staged
	// path does not.
	if (path == Path::Channel)
		EXPECT_GT(kernel_copies(), before);
	else
		EXPECT_EQ(kernel_copies(), before);
	if (get) {
		EXPECT_EQ(check(local.cpu() + loff, len, seed, 0), -1);
		EXPECT_EQ(check_zero(local.cpu(), loff), -1) << "before the range";
		EXPECT_EQ(check_zero(local.cpu() + loff + len, local.size() - loff - len), -1)
			<< "after the range";
	} else {
		PeerMsg c = peer.call(kCheck, r.id, seed, roff, len, 0);
		ASSERT_EQ(c.status, 0);
		EXPECT_EQ(c.a, 0u) << "first wrong byte " << c.a - 1;
		EXPECT_EQ(peer.call(kCheckZero, r.id, 0, 0, roff).a, 0u) << "before the range";
		EXPECT_EQ(peer.call(kCheckZero, r.id, 0, roff + len, r.size - roff - len).a, 0u)
			<< "after the range";
	}
}

}  // namespace uct_test
