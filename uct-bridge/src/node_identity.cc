// SPDX-License-Identifier: MIT
#include "node_identity.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gaudi_ipc {

namespace {

uint64_t ns_inode(const char *name)
{
	struct stat st;
	std::string path = std::string("/proc/self/ns/") + name;
	return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

void read_boot_id(uint8_t out[16])
{
	memset(out, 0, 16);
	char text[64] = "";
	int fd = ::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = ::read(fd, text, sizeof(text) - 1);
	::close(fd);
	if (n <= 0)
		return;
	int i = 0;
	for (const char *p = text; *p && i < 32; p++) {
		int v;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			v = *p - 'a' + 10;
		else
			continue;  // the dashes
		out[i / 2] |= static_cast<uint8_t>(i % 2 ? v : v << 4);
		i++;
	}
}

NodeId make_node()
{
	NodeId n;
	read_boot_id(n.boot_id);
	n.pid_ns = ns_inode("pid");
	n.mnt_ns = ns_inode("mnt");
	n.net_ns = ns_inode("net");
	return n;
}

}  // namespace

const NodeId &this_node()
{
	static const NodeId n = make_node();
	return n;
}

bool same_node(const NodeId &a, const NodeId &b)
{
	return memcmp(a.boot_id, b.boot_id, sizeof(a.boot_id)) == 0 &&
	       a.pid_ns == b.pid_ns && a.mnt_ns == b.mnt_ns && a.net_ns == b.net_ns;
}

namespace {

struct ProcStat {
	char state;      // R, S, D, Z (zombie), X (dead), ...
	uint64_t start;  // clock ticks after boot
};

bool read_proc_stat(pid_t pid, ProcStat *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
	int fd = ::open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
	::close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	// The command name (field 2) may hold spaces and parentheses: count
	// fields from the last ')'.  State is field 3, start time field 22.
	const char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return false;
	out->state = p[2];
	int field = 2;
	for (; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	out->start = strtoull(p, nullptr, 10);
	return true;
}

}  // namespace

uint64_t process_start_time(pid_t pid)
{
	ProcStat st;
	return read_proc_stat(pid, &st) ? st.start : 0;
}

namespace {

// Bumped in the child of every fork(): a child has another pid and start
// time.  glibc unregisters the handler if this library is unloaded.
std::atomic<unsigned> fork_generation{0};

void after_fork_in_child()
{
	fork_generation.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

const ProcessId &this_process()
{
	// Asked for on every staged piece: getpid() is a system call, so the
	// answer is kept per thread until the process forks.
	static const int hooked = pthread_atfork(nullptr, nullptr, after_fork_in_child);
	(void)hooked;
	static thread_local ProcessId cached{0, 0};
	static thread_local unsigned generation = 0;
	const unsigned g = fork_generation.load(std::memory_order_relaxed);
	if (!cached.pid || generation != g) {
		const auto pid = static_cast<uint32_t>(::getpid());
		cached = ProcessId{pid, process_start_time(static_cast<pid_t>(pid))};
		generation = g;
	}
	return cached;
}

bool process_alive(const ProcessId &p)
{
	// A killed process that its parent has not reaped yet (a zombie)
	// keeps its pid and start time, but its memory and files are gone.
	ProcStat st;
	return p.pid && p.start && read_proc_stat(static_cast<pid_t>(p.pid), &st) &&
	       st.start == p.start && st.state != 'Z' && st.state != 'X';
}

uid_t process_uid(uint32_t pid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%u", pid);
	struct stat st;
	return pid && ::stat(path, &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

uint64_t random_u64()
{
	uint64_t v = 0;
	for (int tries = 0; v == 0 && tries < 100; tries++)
		if (getrandom(&v, sizeof(v), 0) != static_cast<ssize_t>(sizeof(v)))
			v = 0;
	if (v == 0) {
		// getrandom() failing at all is not expected on the supported
		// kernels; keys then still differ per process and call.
		static std::atomic<uint64_t> counter;
		v = (static_cast<uint64_t>(::getpid()) << 32) ^ ++counter ^
		    reinterpret_cast<uintptr_t>(&v) ^ 0x9e3779b97f4a7c15ull;
	}
	return v;
}

}  // namespace gaudi_ipc
