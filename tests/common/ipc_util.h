// SPDX-License-Identifier: GPL-2.0
// Helpers for the /dev/hl_ipc tests: ioctl wrappers, memory of every
// region kind (user, vgem, udmabuf, habanalabs_sim) with a CPU mapping to
// fill and verify, and the module's counters.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "habanalabs_ipc.h"

namespace hlipc {

// ioctl returning 0 or -errno.
int xioctl(int fd, unsigned long cmd, void *arg);

int open_ipc();
int info(int fd, hl_ipc_info *out);
// Register; returns 0/-errno, sets *cookie.
int reg_user(int fd, void *addr, uint64_t len, uint32_t flags, uint64_t *cookie);
int reg_dmabuf(int fd, int dmabuf, uint32_t flags, uint64_t *cookie, int dev_fd = -1);
int dereg(int fd, uint64_t cookie);
int chan_create(int fd, uint32_t *id, int src_fd = -1, int dst_fd = -1, uint32_t flags = HL_IPC_CHANNEL_SRC_HOST | HL_IPC_CHANNEL_DST_HOST);
int chan_destroy(int fd, uint32_t id);
int copy(int fd, uint32_t ch, uint64_t src, uint64_t soff, uint64_t dst, uint64_t doff,
	 uint64_t len, uint32_t flags = 0, uint64_t *seq = nullptr);
int wait(int fd, uint32_t ch, uint64_t seq, int64_t timeout_ns, int32_t *status = nullptr,
	 uint64_t *completed = nullptr);

// A context of /dev/hl_ipc and a host-to-host channel on it; fd < 0 (the
// -errno of the open) or ch 0 when either failed.
struct Ctx {
	int fd = open_ipc();
	uint32_t ch = 0;
	Ctx()
	{
		if (fd >= 0 && chan_create(fd, &ch))
			ch = 0;
	}
	~Ctx();
	Ctx(const Ctx &) = delete;
	Ctx &operator=(const Ctx &) = delete;
};

// Memory of one kind, CPU-mapped at ptr, exported as dmabuf when it is one.
enum class Kind { User, Vgem, Udmabuf, Sim };
const char *kind_name(Kind k);
bool kind_available(Kind k);
std::vector<Kind> available_kinds();

struct Buffer {
	Kind kind = Kind::User;
	uint8_t *ptr = nullptr;
	size_t size = 0;       // usable bytes (what the test asked for)
	size_t map_size = 0;   // mapped bytes
	int dmabuf = -1;
	int aux_fd = -1;       // memfd / drm / sim device fd
	uint32_t handle = 0;
	uint64_t sim_handle = 0;
	uint64_t sim_va = 0;
	uint64_t cookie = 0;
	Buffer() = default;
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;
	~Buffer();
};

// Allocate size bytes of kind k; returns 0 or -errno.
int alloc(Kind k, size_t size, Buffer *b);
// Register b in ctx with flags (READ|WRITE by default).
int reg(int ctx, Buffer *b, uint32_t flags = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE);

void fill(uint8_t *p, size_t n, uint32_t seed);
void fill_range(uint8_t *p, size_t from, size_t to, uint32_t seed);
// Index of the first byte that differs from the pattern, or -1.
long check(const uint8_t *p, size_t n, uint32_t seed);
long check_range(const uint8_t *p, size_t from, size_t to, uint32_t seed);

// While alive, /dev/hl_ipc is open to every user (the module creates it
// 0600 for root; on a host the udev rules give it to group hl), for tests
// that switch uid.  Restores the mode it found.
class NodeOpenToAll {
public:
	NodeOpenToAll();
	~NodeOpenToAll();
	NodeOpenToAll(const NodeOpenToAll &) = delete;
	NodeOpenToAll &operator=(const NodeOpenToAll &) = delete;

private:
	unsigned old_mode_ = 0600;
};

// Module parameters in /sys/module/habanalabs_ipc/parameters/.
void write_param(const char *name, const std::string &v);
std::string read_param(const char *name);

// Sets a module parameter for the lifetime of the object.
class ParamScope {
public:
	ParamScope(const char *name, const std::string &v);
	~ParamScope();
	ParamScope(const ParamScope &) = delete;
	ParamScope &operator=(const ParamScope &) = delete;

private:
	const char *name_;
	std::string old_;
};

// Run fn in a child process; returns its exit status (0 = passed), or
// 128 + signal when it was killed.
int run_in_child(int (*fn)(void *), void *arg);
template <typename F> int in_child(F fn)
{
	return run_in_child([](void *f) { return (*static_cast<F *>(f))(); }, &fn);
}

// Global counters from /sys/class/misc/hl_ipc/stats/<name>.
long stat(const char *name);
// Wait up to ms for the live counters (regions, channels, jobs, contexts)
// to reach the given values; returns true if they did.
bool live_counters_are(long contexts, long regions, long channels, long jobs, int ms = 5000);

}  // namespace hlipc
