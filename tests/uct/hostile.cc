// SPDX-License-Identifier: MIT
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "addresses.h"

namespace uct_test {

namespace {

constexpr const char kNeedle[] = "hl-gaudi-ipc";

}  // namespace

bool open_mailbox_of(pid_t pid, Segment *out)
{
	const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return false;
	std::string found;
	while (struct dirent *e = readdir(d)) {
		char link[256];
		const std::string path = dir + "/" + e->d_name;
		ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strncmp(link, "/memfd:", 7) == 0 && strstr(link, kNeedle)) {
			found = path;
			break;
		}
	}
	closedir(d);
	if (found.empty())
		return false;
	out->fd.reset(open(found.c_str(), O_RDWR | O_CLOEXEC));
	struct stat st;
	if (!out->fd.valid() || fstat(out->fd.get(), &st) < 0)
		return false;
	out->size = static_cast<uint64_t>(st.st_size);
	out->map = hlipc::Mapping::map(out->size, PROT_READ | PROT_WRITE, MAP_SHARED,
				       out->fd.get(), 0);
	std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
	std::string line;
	while (std::getline(maps, line))
		if (line.find(kNeedle) != std::string::npos) {
			out->owner_base = strtoull(line.c_str(), nullptr, 16);
			break;
		}
	return out->map.valid() && out->owner_base;
}

namespace {

uint64_t stat_ticks(const std::string &stat_path)
{
	std::ifstream f(stat_path);
	std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	size_t p = s.rfind(')');
	if (p == std::string::npos)
		return 0;
	std::istringstream in(s.substr(p + 2));
	std::string field;
	uint64_t utime = 0, stime = 0;
	// After the name: state (3) ... utime (14), stime (15).
	for (int i = 3; i <= 15 && in >> field; i++) {
		if (i == 14)
			utime = strtoull(field.c_str(), nullptr, 10);
		if (i == 15)
			stime = strtoull(field.c_str(), nullptr, 10);
	}
	return utime + stime;
}

}  // namespace

uint64_t helper_cpu_ticks(pid_t pid)
{
	const std::string dir = "/proc/" + std::to_string(pid) + "/task";
	uint64_t sum = 0;
	DIR *d = opendir(dir.c_str());
	if (!d)
		return 0;
	while (struct dirent *e = readdir(d)) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == pid)
			continue;
		sum += stat_ticks(dir + "/" + e->d_name + "/stat");
	}
	closedir(d);
	return sum;
}

std::map<int, uint64_t> helper_thread_ticks(pid_t pid)
{
	std::map<int, uint64_t> ticks;
	const std::string dir = "/proc/" + std::to_string(pid) + "/task";
	DIR *d = opendir(dir.c_str());
	if (!d)
		return ticks;
	while (struct dirent *e = readdir(d)) {
		const int tid = atoi(e->d_name);
		if (e->d_name[0] == '.' || tid == pid)
			continue;
		ticks[tid] = stat_ticks(dir + "/" + e->d_name + "/stat");
	}
	closedir(d);
	return ticks;
}

uint64_t ticks_since(const std::map<int, uint64_t> &before, const std::map<int, uint64_t> &after)
{
	uint64_t sum = 0;
	for (const auto &kv : after) {
		auto it = before.find(kv.first);
		if (it != before.end() && kv.second >= it->second)
			sum += kv.second - it->second;
	}
	return sum;
}

std::vector<std::string> unix_sockets(const char *needle)
{
	std::vector<std::string> names;
	std::ifstream f("/proc/net/unix");
	std::string line;
	while (std::getline(f, line)) {
		size_t p = line.find(needle);
		if (p == std::string::npos)
			continue;
		// The path is the last field.
		size_t start = line.rfind(' ');
		if (start == std::string::npos)
			continue;
		names.push_back(line.substr(start + 1));
	}
	return names;
}

namespace {

socklen_t address_of(const std::string &name, sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	const size_t n = std::min(name.size(), sizeof(sa->sun_path) - 1);
	memcpy(sa->sun_path, name.data(), n);
	if (name[0] == '@')
		sa->sun_path[0] = 0;  // abstract
	return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + n +
				      (name[0] == '@' ? 0 : 1));
}

}  // namespace

uint64_t flood_sockets(const std::vector<std::string> &names, double seconds)
{
	uint64_t through = 0;
	const auto end = std::chrono::steady_clock::now() +
			 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
				 std::chrono::duration<double>(seconds));
	int dgram = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	while (std::chrono::steady_clock::now() < end) {
		for (const std::string &name : names) {
			sockaddr_un sa;
			socklen_t len = address_of(name, &sa);
			const char c = 'r';
			if (sendto(dgram, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
				   reinterpret_cast<sockaddr *>(&sa), len) == 1)
				through++;
			for (int type : {SOCK_SEQPACKET, SOCK_STREAM}) {
				int s = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
				if (connect(s, reinterpret_cast<sockaddr *>(&sa), len) == 0 &&
				    send(s, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
					through++;
				close(s);
			}
		}
		usleep(100);
	}
	close(dgram);
	return through;
}

std::string admission_socket_of(pid_t pid, uint64_t nonce)
{
	char p[32], n[32];
	snprintf(p, sizeof(p), "%d.", static_cast<int>(pid));
	snprintf(n, sizeof(n), "%016llx", static_cast<unsigned long long>(nonce));
	for (const std::string &name : unix_sockets(kNeedle)) {
		const size_t at = name.find(p);
		if (at == std::string::npos || at == 0 || (name[at - 1] != '/' && name[at - 1] != '.'))
			continue;
		if (nonce && name.find(n) == std::string::npos)
			continue;
		return name;
	}
	return "";
}

uint64_t nonce_of(const std::vector<uint8_t> &address)
{
	gaudi_ipc::IfaceAddr a;
	if (address.size() < sizeof(gaudi_ipc::DeviceAddr) + sizeof(a))
		return 0;
	memcpy(&a, address.data() + sizeof(gaudi_ipc::DeviceAddr), sizeof(a));
	return a.nonce;
}

std::vector<uint8_t> forged_address(uint64_t nonce)
{
	gaudi_ipc::DeviceAddr d = gaudi_ipc::device_addr(gaudi_ipc::this_node());
	gaudi_ipc::IfaceAddr a;
	memset(&a, 0, sizeof(a));
	a.pid = gaudi_ipc::this_process().pid;
	a.start = gaudi_ipc::this_process().start;
	a.flags = gaudi_ipc::kAddrMailbox;
	a.nonce = nonce;
	std::vector<uint8_t> v(sizeof(d) + sizeof(a));
	memcpy(v.data(), &d, sizeof(d));
	memcpy(v.data() + sizeof(d), &a, sizeof(a));
	return v;
}

int count_fds(pid_t pid)
{
	DIR *d = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
	if (!d)
		return -1;
	int n = 0;
	while (struct dirent *e = readdir(d))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

uint64_t vm_pin_kib(pid_t pid)
{
	std::ifstream f("/proc/" + std::to_string(pid) + "/status");
	std::string line;
	while (std::getline(f, line))
		if (line.compare(0, 7, "VmPin:\t") == 0)
			return strtoull(line.c_str() + 7, nullptr, 10);
	return 0;
}

Sysctl::Sysctl(const char *name, const std::string &value)
	: path_(std::string("/proc/sys/") + name)
{
	std::ifstream in(path_);
	if (!std::getline(in, old_))
		return;
	std::ofstream out(path_);
	out << value << std::endl;
	out.close();
	std::ifstream check(path_);
	std::string now;
	ok_ = std::getline(check, now) && now == value;
}

Sysctl::~Sysctl()
{
	if (!old_.empty()) {
		std::ofstream out(path_);
		out << old_ << std::endl;
	}
}

Squat::Squat(unsigned uid, const std::vector<std::string> &paths, bool as_links)
	: paths_(paths), links_(as_links)
{
	// Only system calls in the child: this process has threads.
	std::vector<const char *> names;
	for (const std::string &p : paths_)
		names.push_back(p.c_str());
	pid_t c = fork();
	if (c == 0) {
		if (setgid(uid) || setuid(uid))
			_exit(10);
		for (const char *n : names) {
			if (links_ ? symlink("/tmp", n) < 0 : mkdir(n, 0777) < 0)
				_exit(11);
			if (!links_ && chmod(n, 0777) < 0)
				_exit(12);
		}
		_exit(0);
	}
	int status = -1;
	ok_ = c > 0 && waitpid(c, &status, 0) == c && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0;
}

Squat::~Squat()
{
	for (const std::string &p : paths_) {
		struct stat st;
		if (lstat(p.c_str(), &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			unlink(p.c_str());
		else
			rmdir(p.c_str());
	}
}

}  // namespace uct_test
