// SPDX-License-Identifier: MIT
// hl-ipc demo.
//
// Process A (device 0) and process B (device 1) each own one device.  Each
// fills a source buffer in its device memory with its own byte pattern and
// registers a destination buffer; they swap the region cookies over a unix
// socket.  Then, for each size, A moves its buffer into B's device twice:
//   channel:    one hlthunk_ipc_channel_copy, device to device;
//   staged DMA: A's DMA engine copies device -> pinned host memory, B's DMA
//               engine copies host -> device (what runtimes do today);
// and B checks every byte after each; B also copies back through its own
// channel and A checks.  A prints what each path achieved.
#include "demo.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "hlthunk.h"
#include "mapping.h"
#include "staged_dma.h"

namespace hlipc {

namespace {

enum MsgType : uint32_t {
	kHello = 1,
	kVerify,     // a: size, b: seed -> status: 0 or first bad offset + 1
	kClear,      // a: size
	kStagedH2D,  // a: size: B's DMA host -> device
	kCopyBack,   // a: size: B's channel copy into A's buffer
	kQuit,
	kReply,
};

struct Msg {
	uint32_t type;
	int32_t status;  // replies: 0 ok, < 0 -errno, > 0 first bad byte + 1
	uint64_t a, b, c;
	char text[48];
};

struct Options {
	std::vector<uint64_t> sizes{4096, 65536, 1 << 20, 8 << 20};
	bool verbose = false;
};

struct Side {
	Side(const char *n, int i) : name(n), index(i) {}
	const char *name;  // "A" or "B"
	int index;         // device index
	int fd = -1;
	std::string bus;
	DeviceBuffer src, dst;
	StagedDma dma;
	uint64_t host_va = 0;       // the shared host buffer, mapped for this device
	hlthunk_ipc_cookie dst_cookie = 0;
	int peer_ctl = -1;          // control node of the peer's device
	uint64_t peer_dst_va = 0;   // the peer's destination, imported
	uint32_t channel = 0;       // this device -> peer device
};

[[noreturn]] void die(const Side &s, const char *what, int err)
{
	const char *detail = hlthunk_ipc_last_error();
	fprintf(stderr, "hl-ipc demo: process %s: %s failed: %s\n", s.name, what,
		*detail ? detail : hlthunk_ipc_strerror(err));
	_exit(1);
}

void send_msg(int sock, const Msg &m)
{
	if (send(sock, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m)) {
		perror("hl-ipc demo: send");
		_exit(1);
	}
}

Msg recv_msg(int sock)
{
	Msg m;
	ssize_t n = recv(sock, &m, sizeof(m), 0);
	if (n != sizeof(m)) {
		fprintf(stderr, "hl-ipc demo: the other process went away\n");
		_exit(1);
	}
	return m;
}

Msg request(int sock, uint32_t type, uint64_t a = 0, uint64_t b = 0)
{
	Msg m{};
	m.type = type;
	m.a = a;
	m.b = b;
	send_msg(sock, m);
	return recv_msg(sock);
}

void reply(int sock, int32_t status)
{
	Msg m{};
	m.type = kReply;
	m.status = status;
	send_msg(sock, m);
}

int32_t verify(const DeviceBuffer &b, uint64_t size, uint32_t seed)
{
	int64_t bad = check_pattern(b.cpu(), size, seed);
	return bad < 0 ? 0 : static_cast<int32_t>(bad + 1);
}

// Opens this side's device, fills its source buffer with the DMA engine
// from its half of the host buffer, and registers its destination buffer.
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
	if ((rc = s.src.map_cpu()) < 0 || (rc = s.dst.map_cpu()) < 0)
		die(s, "mapping device memory for the CPU", rc);
	s.host_va = hlthunk_host_memory_map(s.fd, host, 0, host_size);
	if (!s.host_va)
		die(s, "pinning host memory for the device", -errno);
	if ((rc = s.dma.init(s.fd)) < 0)
		die(s, "creating a command buffer", rc);

	// Fill: pattern into our half of the host buffer, DMA it in.
	uint64_t half = host_size / 2;
	uint64_t off = s.index == 0 ? 0 : half;
	fill_pattern(host + off, max_size, s.index + 1);
	if ((rc = s.dma.copy(s.src.va(), s.host_va + off, max_size)) < 0)
		die(s, "filling device memory with LIN_DMA", rc);
	if (check_pattern(s.src.cpu(), max_size, s.index + 1) >= 0) {
		fprintf(stderr, "hl-ipc demo: process %s: device memory does not "
				"hold what the DMA engine wrote\n", s.name);
		_exit(1);
	}
	memset(s.dst.cpu(), 0, max_size);

	uint64_t off_in_region = 0;
	rc = hlthunk_ipc_register_device_memory(s.fd, s.dst.va(), &s.dst_cookie,
						&off_in_region, nullptr);
	if (rc < 0)
		die(s, "registering device memory with /dev/hl_ipc", rc);
}

// Swaps cookies with the peer, imports the peer's and opens a channel.
void connect_peer(Side &s, int sock, int *peer_index, std::string *peer_bus)
{
	Msg hello{};
	hello.type = kHello;
	hello.a = s.dst_cookie;
	hello.b = static_cast<uint64_t>(s.index);
	hello.c = static_cast<uint64_t>(getpid());
	snprintf(hello.text, sizeof(hello.text), "%s", s.bus.c_str());
	send_msg(sock, hello);
	Msg peer = recv_msg(sock);
	if (peer.type != kHello)
		die(s, "exchanging cookies", -EPROTO);
	*peer_index = static_cast<int>(peer.b);
	*peer_bus = peer.text;

	s.peer_ctl = hlthunk_open_control(*peer_index, nullptr);
	if (s.peer_ctl < 0)
		die(s, "opening the peer's control node", s.peer_ctl);
	int rc = hlthunk_ipc_import(s.peer_ctl, peer.a, &s.peer_dst_va, nullptr);
	if (rc < 0)
		die(s, "importing the peer's cookie", rc);
	rc = hlthunk_ipc_channel_create(s.fd, s.peer_ctl, &s.channel);
	if (rc < 0)
		die(s, "creating a channel", rc);
}

int run_b(Side &b, int sock)
{
	for (;;) {
		Msg m = recv_msg(sock);
		int rc = 0;
		switch (m.type) {
		case kVerify:
			reply(sock, verify(b.dst, m.a, static_cast<uint32_t>(m.b)));
			break;
		case kClear:
			memset(b.dst.cpu(), 0, m.a);
			reply(sock, 0);
			break;
		case kStagedH2D:
			reply(sock, b.dma.copy(b.dst.va(), b.host_va, m.a));
			break;
		case kCopyBack:
			rc = hlthunk_ipc_channel_copy(
				b.channel, b.fd, b.peer_ctl,
				reinterpret_cast<void *>(b.peer_dst_va),
				reinterpret_cast<void *>(b.src.va()), m.a);
			reply(sock, rc);
			break;
		case kQuit:
			hlthunk_ipc_channel_destroy(b.channel);
			return 0;
		default:
			return 1;
		}
	}
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
		.count();
}

std::string human_size(uint64_t s)
{
	char buf[32];
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 " MiB", s >> 20);
	else if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, sizeof(buf), "%" PRIu64 " KiB", s >> 10);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64 " B", s);
	return buf;
}

struct Row {
	uint64_t size;
	int reps;
	double channel_s, staged_s;  // per transfer
};

void check(const Side &a, const char *what, int32_t status, uint64_t size)
{
	if (status < 0)
		die(a, what, status);
	if (status > 0) {
		fprintf(stderr, "hl-ipc demo: %s: byte %d of %s is wrong\n", what,
			status - 1, human_size(size).c_str());
		_exit(1);
	}
}

Row measure(Side &a, int sock, uint64_t size)
{
	Row r{size, size <= 65536 ? 50 : size <= (1 << 20) ? 10 : 3, 0, 0};

	// One untimed transfer each way first: the first channel copy of a
	// buffer also exports and registers it (cached afterwards).
	int rc = hlthunk_ipc_channel_copy(a.channel, a.fd, a.peer_ctl,
					  reinterpret_cast<void *>(a.peer_dst_va),
					  reinterpret_cast<void *>(a.src.va()), size);
	if (rc < 0)
		die(a, "copying through the channel", rc);
	if ((rc = a.dma.copy(a.host_va, a.src.va(), size)) < 0)
		die(a, "DMA device -> host", rc);
	check(a, "DMA host -> device in B", request(sock, kStagedH2D, size).status,
	      size);
	check(a, "clearing B's buffer", request(sock, kClear, size).status, size);

	// Channel: one copy moves A's buffer into B's device memory.
	auto t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < r.reps; i++) {
		int rc = hlthunk_ipc_channel_copy(
			a.channel, a.fd, a.peer_ctl,
			reinterpret_cast<void *>(a.peer_dst_va),
			reinterpret_cast<void *>(a.src.va()), size);
		if (rc < 0)
			die(a, "copying through the channel", rc);
	}
	r.channel_s = seconds_since(t0) / r.reps;
	check(a, "checking B's buffer after the channel copies",
	      request(sock, kVerify, size, a.index + 1).status, size);
	check(a, "clearing B's buffer", request(sock, kClear, size).status, size);

	// Staged DMA: A device -> host, then B host -> device.
	t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < r.reps; i++) {
		int rc = a.dma.copy(a.host_va, a.src.va(), size);
		if (rc < 0)
			die(a, "DMA device -> host", rc);
		check(a, "DMA host -> device in B",
		      request(sock, kStagedH2D, size).status, size);
	}
	r.staged_s = seconds_since(t0) / r.reps;
	check(a, "checking B's buffer after the staged DMA",
	      request(sock, kVerify, size, a.index + 1).status, size);

	// And back: B's channel copies B's buffer into A's device memory.
	memset(a.dst.cpu(), 0, size);
	check(a, "B copying back through its channel",
	      request(sock, kCopyBack, size).status, size);
	check(a, "checking A's buffer after B's copy back",
	      verify(a.dst, size, 2), size);
	return r;
}

void print_table(const Side &a, int b_index, const std::string &b_bus,
		 pid_t b_pid, const std::vector<Row> &rows)
{
	printf("\n");
	printf("Two processes, each owning one emulated Gaudi2 device, moved device\n");
	printf("buffers to each other:\n");
	printf("  process A (pid %d) owns device %d (PCI %s)\n", (int)getpid(),
	       a.index, a.bus.c_str());
	printf("  process B (pid %d) owns device %d (PCI %s)\n", (int)b_pid,
	       b_index, b_bus.c_str());
	printf("They registered their buffers with /dev/hl_ipc and swapped the\n");
	printf("region cookies over a unix socket.  Two ways to move A's buffer into\n");
	printf("B's device memory:\n");
	printf("  channel     one copy, device to device (hlthunk_ipc_channel_copy)\n");
	printf("  staged DMA  A's DMA engine copies device -> pinned host memory, then\n");
	printf("              B's DMA engine copies host -> device (LIN_DMA command\n");
	printf("              submissions; what runtimes do without channels)\n");
	printf("\n");
	printf("  %8s  %14s  %14s  %9s  %s\n", "size", "channel", "staged DMA",
	       "ratio", "checked");
	for (auto &r : rows) {
		double ch = r.size / r.channel_s / 1e6;
		double st = r.size / r.staged_s / 1e6;
		printf("  %8s  %9.1f MB/s  %9.1f MB/s  %8.2fx  every byte, %d+%d+1 transfers\n",
		       human_size(r.size).c_str(), ch, st, ch / st, r.reps, r.reps);
	}
	printf("\n");
	printf("ratio = channel bandwidth / staged DMA bandwidth (above 1: the channel\n");
	printf("is faster).  Every byte was checked in B after both paths, and in A\n");
	printf("after B copied its own buffer back through its channel.\n");
	printf("\n");
	printf("Reading the numbers: the devices are emulated and both paths copy with\n");
	printf("the CPU, so the MB/s are not Gaudi numbers.  Small sizes show the cost\n");
	printf("per transfer: one call for the channel, two command submissions and a\n");
	printf("hand-over between the processes for the staged path.  At large sizes\n");
	printf("the copy routine dominates, and under QEMU without KVM different\n");
	printf("kernel copy routines run at very different speeds, so either path may\n");
	printf("win there (see Documentation/libhlthunk.md, \"The demo\").\n");
}

void usage(FILE *f)
{
	fprintf(f,
		"usage: hl-ipc demo [--sizes N[,N...]]\n"
		"\n"
		"Runs two processes, A and B, each owning one device (the first two\n"
		"devices found; load 'habanalabs_sim num_devices=2' and\n"
		"habanalabs_ipc).  Each fills device memory, they swap region cookies\n"
		"over a unix socket, and A moves its buffer into B's device through a\n"
		"channel and through the staged DMA path.  Every byte is checked, and\n"
		"a table compares the two paths.\n"
		"\n"
		"options:\n"
		"  --sizes LIST  transfer sizes in bytes, with optional K or M suffix\n"
		"                (default 4K,64K,1M,8M); multiples of 4K\n"
		"  -h, --help    this text\n");
}

bool parse_sizes(const char *s, std::vector<uint64_t> *out)
{
	out->clear();
	while (*s) {
		char *end;
		uint64_t v = strtoull(s, &end, 10);
		if (end == s)
			return false;
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		if (!v || v % 4096 || v > (256ull << 20))
			return false;
		out->push_back(v);
		if (*end == ',')
			end++;
		else if (*end)
			return false;
		s = end;
	}
	return !out->empty();
}

}  // namespace

int demo_main(int argc, char **argv)
{
	Options opt;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			if (!parse_sizes(argv[++i], &opt.sizes)) {
				fprintf(stderr, "hl-ipc demo: bad --sizes '%s'\n", argv[i]);
				return 2;
			}
			continue;
		}
		usage(stderr);
		return 2;
	}

	int n = hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE);
	if (n < 2) {
		fprintf(stderr,
			"hl-ipc demo: needs two devices, found %d.  Load the emulated "
			"devices with 'modprobe habanalabs_sim num_devices=2' (or "
			"insmod habanalabs_sim.ko num_devices=2).\n",
			n < 0 ? 0 : n);
		return 1;
	}
	struct hlthunk_ipc_info info;
	int rc = hlthunk_ipc_query(&info);
	if (rc < 0) {
		fprintf(stderr, "hl-ipc demo: %s\n", hlthunk_ipc_last_error());
		return 1;
	}

	uint64_t max_size = 0;
	for (auto s : opt.sizes)
		max_size = std::max(max_size, s);
	// Host staging buffer shared by A and B: two halves, one per process
	// for the initial fill; the staged transfers use the first half.
	uint64_t host_size = 2 * max_size;
	Mapping host = Mapping::map(host_size, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sv[2];
	if (!host.valid() || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		perror("hl-ipc demo: set-up");
		return 1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("hl-ipc demo: fork");
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		Side b("B", 1);
		setup(b, max_size, host.bytes(), host_size);
		int peer_index;
		std::string peer_bus;
		connect_peer(b, sv[1], &peer_index, &peer_bus);
		_exit(run_b(b, sv[1]));
	}
	close(sv[1]);
	Side a("A", 0);
	setup(a, max_size, host.bytes(), host_size);
	int b_index;
	std::string b_bus;
	connect_peer(a, sv[0], &b_index, &b_bus);

	std::vector<Row> rows;
	for (auto s : opt.sizes)
		rows.push_back(measure(a, sv[0], s));
	Msg quit{};
	quit.type = kQuit;
	send_msg(sv[0], quit);
	int status = 0;
	waitpid(pid, &status, 0);
	hlthunk_ipc_channel_destroy(a.channel);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hl-ipc demo: process B failed\n");
		return 1;
	}
	print_table(a, b_index, b_bus, pid, rows);
	return 0;
}

}  // namespace hlipc
