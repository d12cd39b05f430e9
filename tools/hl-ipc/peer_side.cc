// SPDX-License-Identifier: MIT
#include "peer_side.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "devices.h"
#include "holders.h"
#include "ipc_state.h"
#include "peer_msg.h"
#include "staged_transfer.h"

namespace hlipc {

namespace {

// For EACCES: which node this user cannot open, and the group to join.
void print_access_hints(const char *tool)
{
	std::vector<std::string> paths{HL_IPC_DEVICE_PATH};
	std::vector<Device> devs;
	list_devices(&devs);
	for (auto &d : devs) {
		paths.push_back(d.compute.path);
		if (!d.control.path.empty())
			paths.push_back(d.control.path);
	}
	for (auto &p : paths)
		if (access(p.c_str(), R_OK | W_OK) < 0)
			fprintf(stderr, "%s: %s\n", tool,
				access_hint(p, -errno).c_str());
}

// For EBUSY opening a device: who holds the compute nodes in use.
void print_busy_holders(const char *tool)
{
	std::vector<Device> devs;
	list_devices(&devs);
	for (auto &d : devs) {
		if (d.in_use != 1)
			continue;
		Holders h = find_node_holders(d.compute.rdev, d.compute.path);
		fprintf(stderr, "%s: %s is in use by %s\n", tool, d.compute.path.c_str(),
			h.processes.empty() ? "a process this user cannot inspect"
					    : describe_holders(h).c_str());
	}
}

}  // namespace

void die(const Side &s, const char *what, int err)
{
	const char *detail = hlthunk_ipc_last_error();
	fprintf(stderr, "%s: process %s: %s failed: %s\n", s.tool, s.name, what,
		*detail ? detail : hlthunk_ipc_strerror(err));
	if (err == -EACCES || err == -EPERM)
		print_access_hints(s.tool);
	else if (err == -EBUSY)
		print_busy_holders(s.tool);
	_exit(1);
}

int32_t verify_pattern(const unsigned char *p, uint64_t size, uint32_t seed)
{
	int64_t bad = check_pattern(p, size, seed);
	return bad < 0 ? 0 : static_cast<int32_t>(bad + 1);
}

int32_t verify_device(Side &s, uint64_t va, uint64_t size, uint32_t seed)
{
	memset(s.scratch.get(), 0, size);
	int rc = s.dma.copy(s.scratch_va, va, size);
	return rc < 0 ? rc : verify_pattern(s.scratch.bytes(), size, seed);
}

int clear_device(Side &s, uint64_t va, uint64_t size)
{
	memset(s.scratch.get(), 0, size);
	return s.dma.copy(va, s.scratch_va, size);
}

void setup(Side &s, uint64_t max_size, unsigned char *host, uint64_t host_size)
{
	int ctl = hlthunk_open_control(s.index, nullptr);
	if (ctl < 0)
		die(s, "opening the control node", ctl);
	char bus[32] = "";
	int rc = hlthunk_get_pci_bus_id_from_fd(ctl, bus, sizeof(bus));
	hlthunk_close(ctl);
	if (rc < 0)
		die(s, "reading the PCI bus id", rc);
	s.bus = bus;
	s.fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, bus);
	if (s.fd < 0)
		die(s, "opening the device", s.fd);

	if ((rc = s.src.create(s.fd, max_size)) < 0 ||
	    (rc = s.dst.create(s.fd, max_size)) < 0)
		die(s, "allocating device memory", rc);
	s.host = host;
	s.host_va = hlthunk_host_memory_map(s.fd, host, 0, host_size);
	if (!s.host_va)
		die(s, "pinning host memory for the device", -errno);
	if ((rc = s.dma.init(s.fd)) < 0)
		die(s, "creating a command buffer", rc);
	s.pvw = Mapping::map(max_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!s.pvw.valid())
		die(s, "allocating host memory", -errno);
	s.scratch = Mapping::map(max_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (!s.scratch.valid())
		die(s, "allocating host memory", -errno);
	s.scratch_va = hlthunk_host_memory_map(s.fd, s.scratch.get(), 0, max_size);
	if (!s.scratch_va)
		die(s, "pinning host memory for the device", -errno);

	// Fill: pattern into our half of the host buffer, DMA it in.
	uint64_t half = host_size / 2;
	uint64_t off = s.index == 0 ? 0 : half;
	fill_pattern(host + off, max_size, s.index + 1);
	if ((rc = s.dma.copy(s.src.va(), s.host_va + off, max_size)) < 0)
		die(s, "filling device memory with LIN_DMA", rc);
	if ((rc = verify_device(s, s.src.va(), max_size, s.index + 1)) != 0) {
		if (rc < 0)
			die(s, "reading device memory back with LIN_DMA", rc);
		fprintf(stderr, "%s: process %s: device memory does not hold what "
				"the DMA engine wrote\n", s.tool, s.name);
		_exit(1);
	}
	if ((rc = clear_device(s, s.dst.va(), max_size)) < 0)
		die(s, "clearing device memory with LIN_DMA", rc);

	uint64_t off_in_region = 0;
	rc = hlthunk_ipc_register_device_memory(s.fd, s.dst.va(), &s.dst_cookie,
						&off_in_region, nullptr);
	if (rc == -EOPNOTSUPP) {
		// Memory only a device can reach, and no engine that may.
		const char *detail = hlthunk_ipc_last_error();
		s.no_channel = *detail ? detail : hlthunk_ipc_strerror(rc);
		s.dst_cookie = 0;
	} else if (rc < 0) {
		die(s, "registering device memory with /dev/hl_ipc", rc);
	}
}

Peer connect_peer(Side &s, int sock)
{
	Msg hello{};
	hello.type = kHello;
	hello.a = s.dst_cookie;
	hello.b = static_cast<uint64_t>(s.index);
	hello.c = static_cast<uint64_t>(getpid());
	hello.d = reinterpret_cast<uint64_t>(s.pvw.get());
	snprintf(hello.text, sizeof(hello.text), "%s", s.bus.c_str());
	send_msg(sock, hello);
	Msg m = recv_msg(sock);
	if (m.type != kHello)
		die(s, "exchanging cookies", -EPROTO);
	Peer peer{static_cast<int>(m.b), m.text, static_cast<pid_t>(m.c), m.d};

	if (!s.dst_cookie || !m.a) {
		if (s.no_channel.empty())
			s.no_channel = "the peer's device memory cannot be registered with "
				       "/dev/hl_ipc";
		return peer;
	}
	s.peer_ctl = hlthunk_open_control(peer.index, nullptr);
	if (s.peer_ctl < 0)
		die(s, "opening the peer's control node", s.peer_ctl);
	int rc = hlthunk_ipc_import(s.peer_ctl, m.a, &s.peer_dst_va, nullptr);
	if (rc < 0)
		die(s, "importing the peer's cookie", rc);
	rc = hlthunk_ipc_channel_create(s.fd, s.peer_ctl, &s.channel);
	if (rc < 0)
		die(s, "creating a channel", rc);
	return peer;
}

int serve(Side &b, PeerLink &link, int sock)
{
	for (;;) {
		Msg m = link.next<Msg>();
		int rc = 0;
		switch (m.type) {
		case kVerify:
			reply(link, verify_device(b, b.dst.va(), m.a,
						  static_cast<uint32_t>(m.b)));
			break;
		case kVerifyHost:
			rc = verify_pattern(b.pvw.bytes(), m.a,
					    static_cast<uint32_t>(m.b));
			memset(b.pvw.get(), 0, m.a);
			reply(link, rc);
			break;
		case kClear:
			reply(link, clear_device(b, b.dst.va(), m.a));
			break;
		case kStagedH2D:
		case kPieceH2D:
			answer_staged({b.dma, b.host_va}, b.dst.va(), link, m);
			break;
		case kPing:
			reply(link, 0);
			break;
		case kTimeH2D: {
			std::vector<int64_t> ns;
			for (uint64_t i = 0; i < m.b && rc == 0; i++) {
				auto t0 = std::chrono::steady_clock::now();
				rc = b.dma.copy(b.dst.va(), b.host_va, m.a);
				ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
						     std::chrono::steady_clock::now() - t0)
						     .count());
			}
			if (rc == 0 && ns.empty())
				rc = -EINVAL;
			if (rc == 0) {
				std::sort(ns.begin(), ns.end());
				rc = static_cast<int32_t>(std::min<int64_t>(ns[ns.size() / 2], INT32_MAX));
			}
			reply(link, rc);
			break;
		}
		case kCopyBack:
			if (!b.channel) {
				reply(link, -EOPNOTSUPP);
				break;
			}
			rc = hlthunk_ipc_channel_copy(
				b.channel, b.fd, b.peer_ctl,
				reinterpret_cast<void *>(b.peer_dst_va),
				reinterpret_cast<void *>(b.src.va()), m.a);
			reply(link, rc);
			break;
		case kUcxSetup: {
			UcxInfo info{};
			std::vector<uint8_t> rkey;
			b.ucx = std::make_unique<UcxSide>();
			bool ok = b.ucx->open() && b.ucx->expose(b.dst.va(), b.dst.size(), &rkey);
			auto addr = ok ? b.ucx->address() : std::vector<uint8_t>();
			ok = ok && addr.size() + rkey.size() <= sizeof(info.data);
			if (ok) {
				info.addr_len = static_cast<uint32_t>(addr.size());
				info.rkey_len = static_cast<uint32_t>(rkey.size());
				info.dst_addr = b.dst.va();
				memcpy(info.data, addr.data(), addr.size());
				memcpy(info.data + addr.size(), rkey.data(), rkey.size());
			} else {
				b.ucx.reset();
			}
			reply(link, ok ? 0 : -1);
			send_ucx_info(sock, info);
			break;
		}
		case kQuit:
			b.ucx.reset();
			if (b.channel)
				hlthunk_ipc_channel_destroy(b.channel);
			return 0;
		default:
			return 1;
		}
	}
}

}  // namespace hlipc
