// SPDX-License-Identifier: GPL-2.0
#include "ipc_util.h"

#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include <drm.h>
#include <drm_mode.h>

#include "sim_buffer.h"
#include "vgem.h"

namespace hlipc {

Ctx::~Ctx()
{
	if (fd >= 0)
		close(fd);
}

int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

int open_ipc()
{
	return open(HL_IPC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

int info(int fd, hl_ipc_info *out)
{
	*out = {};
	return xioctl(fd, HL_IPC_IOCTL_INFO, out);
}

int reg_user(int fd, void *addr, uint64_t len, uint32_t flags, uint64_t *cookie)
{
	hl_ipc_region_register r{};
	r.type = HL_IPC_REGION_USER;
	r.flags = flags | HL_IPC_REGION_DEV_HOST;
	r.fd = -1;
	r.dev_fd = HL_IPC_FD_HOST;
	r.addr = reinterpret_cast<uintptr_t>(addr);
	r.length = len;
	int ret = xioctl(fd, HL_IPC_IOCTL_REGION_REGISTER, &r);
	if (!ret && cookie)
		*cookie = r.cookie;
	return ret;
}

int reg_dmabuf(int fd, int dmabuf, uint32_t flags, uint64_t *cookie, int dev_fd)
{
	hl_ipc_region_register r{};
	r.type = HL_IPC_REGION_DMABUF;
	r.flags = flags | (dev_fd < 0 ? HL_IPC_REGION_DEV_HOST : 0);
	r.fd = dmabuf;
	r.dev_fd = dev_fd < 0 ? HL_IPC_FD_HOST : dev_fd;
	int ret = xioctl(fd, HL_IPC_IOCTL_REGION_REGISTER, &r);
	if (!ret && cookie)
		*cookie = r.cookie;
	return ret;
}

int dereg(int fd, uint64_t cookie)
{
	hl_ipc_region_deregister d{};
	d.cookie = cookie;
	return xioctl(fd, HL_IPC_IOCTL_REGION_DEREGISTER, &d);
}

int chan_create(int fd, uint32_t *id, int src_fd, int dst_fd, uint32_t flags)
{
	hl_ipc_channel_create c{};
	c.src_fd = src_fd;
	c.dst_fd = dst_fd;
	c.flags = flags;
	int ret = xioctl(fd, HL_IPC_IOCTL_CHANNEL_CREATE, &c);
	if (!ret)
		*id = c.channel_id;
	return ret;
}

int chan_destroy(int fd, uint32_t id)
{
	hl_ipc_channel_destroy d{};
	d.channel_id = id;
	return xioctl(fd, HL_IPC_IOCTL_CHANNEL_DESTROY, &d);
}

int copy(int fd, uint32_t ch, uint64_t src, uint64_t soff, uint64_t dst, uint64_t doff,
	 uint64_t len, uint32_t flags, uint64_t *seq)
{
	hl_ipc_copy c{};
	c.channel_id = ch;
	c.flags = flags;
	c.src_cookie = src;
	c.src_offset = soff;
	c.dst_cookie = dst;
	c.dst_offset = doff;
	c.length = len;
	int ret = xioctl(fd, HL_IPC_IOCTL_COPY, &c);
	if (seq)
		*seq = c.seq;
	return ret;
}

int wait(int fd, uint32_t ch, uint64_t seq, int64_t timeout_ns, int32_t *status,
	 uint64_t *completed)
{
	hl_ipc_wait w{};
	w.channel_id = ch;
	w.seq = seq;
	w.timeout_ns = timeout_ns;
	int ret = xioctl(fd, HL_IPC_IOCTL_WAIT, &w);
	if (status)
		*status = w.status;
	if (completed)
		*completed = w.completed_seq;
	return ret;
}

const char *kind_name(Kind k)
{
	switch (k) {
	case Kind::User: return "user";
	case Kind::Vgem: return "vgem";
	case Kind::Udmabuf: return "udmabuf";
	case Kind::Sim: return "sim";
	}
	return "?";
}

bool kind_available(Kind k)
{
	switch (k) {
	case Kind::User:
		return true;
	case Kind::Vgem: {
		int fd = open_vgem();
		if (fd >= 0)
			close(fd);
		return fd >= 0;
	}
	case Kind::Udmabuf:
		return access("/dev/udmabuf", R_OK | W_OK) == 0;
	case Kind::Sim:
		return sim_available();
	}
	return false;
}

std::vector<Kind> available_kinds()
{
	std::vector<Kind> v;
	for (Kind k : {Kind::User, Kind::Vgem, Kind::Udmabuf, Kind::Sim})
		if (kind_available(k))
			v.push_back(k);
	return v;
}

static size_t page_round(size_t n)
{
	size_t pg = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	return (n + pg - 1) / pg * pg;
}

Buffer::~Buffer()
{
	if (ptr)
		munmap(ptr, map_size);
	if (dmabuf >= 0)
		close(dmabuf);
	if (kind == Kind::Sim)
		sim_free(this);
	else if (aux_fd >= 0)
		close(aux_fd);
}

int alloc(Kind k, size_t size, Buffer *b)
{
	b->kind = k;
	b->size = size;
	b->map_size = page_round(size ? size : 1);
	switch (k) {
	case Kind::User: {
		void *p = mmap(nullptr, b->map_size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		b->ptr = static_cast<uint8_t *>(p);
		return 0;
	}
	case Kind::Vgem: {
		b->aux_fd = open_vgem();
		if (b->aux_fd < 0)
			return -ENODEV;
		drm_mode_create_dumb c{};
		c.width = 1024;
		c.bpp = 32;
		c.height = static_cast<uint32_t>((b->map_size + 4095) / 4096);
		if (ioctl(b->aux_fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
			return -errno;
		b->handle = c.handle;
		b->map_size = c.size;
		drm_prime_handle h{};
		h.handle = c.handle;
		h.flags = DRM_CLOEXEC | DRM_RDWR;
		if (ioctl(b->aux_fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &h))
			return -errno;
		b->dmabuf = h.fd;
		break;
	}
	case Kind::Udmabuf: {
		b->aux_fd = memfd_create("hlipc-test", MFD_ALLOW_SEALING | MFD_CLOEXEC);
		if (b->aux_fd < 0)
			return -errno;
		if (ftruncate(b->aux_fd, static_cast<off_t>(b->map_size)) ||
		    fcntl(b->aux_fd, F_ADD_SEALS, F_SEAL_SHRINK))
			return -errno;
		int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
		if (dev < 0)
			return -errno;
		udmabuf_create c{};
		c.memfd = static_cast<uint32_t>(b->aux_fd);
		c.flags = UDMABUF_FLAGS_CLOEXEC;
		c.size = b->map_size;
		int fd = ioctl(dev, UDMABUF_CREATE, &c);
		int err = errno;
		close(dev);
		if (fd < 0)
			return -err;
		b->dmabuf = fd;
		break;
	}
	case Kind::Sim: {
		int ret = sim_alloc(b);
		if (ret)
			return ret;
		break;
	}
	}
	void *p = mmap(nullptr, b->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, b->dmabuf, 0);
	if (p == MAP_FAILED)
		return -errno;
	b->ptr = static_cast<uint8_t *>(p);
	return 0;
}

int reg(int ctx, Buffer *b, uint32_t flags)
{
	if (b->kind == Kind::User)
		return reg_user(ctx, b->ptr, b->size, flags, &b->cookie);
	return reg_dmabuf(ctx, b->dmabuf, flags, &b->cookie,
			  b->kind == Kind::Sim ? b->aux_fd : -1);
}

// Cheap position-dependent bytes: four bytes per multiplicative hash of
// the word index, so shifted or misplaced data never matches.
static inline uint8_t pattern(size_t i, uint32_t seed)
{
	uint32_t x = static_cast<uint32_t>(i >> 2) * 2654435761u + seed * 40503u;
	x ^= x >> 15;
	return static_cast<uint8_t>(x >> (8 * (i & 3)));
}

void fill(uint8_t *p, size_t n, uint32_t seed)
{
	fill_range(p, 0, n, seed);
}

void fill_range(uint8_t *p, size_t from, size_t to, uint32_t seed)
{
	for (size_t i = from; i < to; i++)
		p[i] = pattern(i, seed);
}

long check(const uint8_t *p, size_t n, uint32_t seed)
{
	return check_range(p, 0, n, seed);
}

long check_range(const uint8_t *p, size_t from, size_t to, uint32_t seed)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != pattern(i, seed))
			return static_cast<long>(i);
	return -1;
}

NodeOpenToAll::NodeOpenToAll()
{
	struct stat st;
	if (::stat(HL_IPC_DEVICE_PATH, &st) == 0)
		old_mode_ = st.st_mode & 07777;
	chmod(HL_IPC_DEVICE_PATH, 0666);
}

NodeOpenToAll::~NodeOpenToAll()
{
	chmod(HL_IPC_DEVICE_PATH, old_mode_);
}

void write_param(const char *name, const std::string &v)
{
	std::ofstream f(std::string("/sys/module/habanalabs_ipc/parameters/") + name);
	f << v;
}

std::string read_param(const char *name)
{
	std::ifstream f(std::string("/sys/module/habanalabs_ipc/parameters/") + name);
	std::string v;
	f >> v;
	return v;
}

ParamScope::ParamScope(const char *name, const std::string &v)
	: name_(name), old_(read_param(name))
{
	write_param(name, v);
}

ParamScope::~ParamScope()
{
	write_param(name_, old_);
}

int run_in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

long stat(const char *name)
{
	std::string path = std::string("/sys/class/misc/hl_ipc/stats/") + name;
	FILE *f = fopen(path.c_str(), "r");
	if (!f)
		return -1;
	long v = -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

bool live_counters_are(long contexts, long regions, long channels, long jobs, int ms)
{
	for (int t = 0; t <= ms; t += 10) {
		if (stat("contexts") == contexts && stat("regions") == regions &&
		    stat("channels") == channels && stat("jobs") == jobs)
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	fprintf(stderr, "live counters: contexts %ld regions %ld channels %ld jobs %ld\n",
		stat("contexts"), stat("regions"), stat("channels"), stat("jobs"));
	return false;
}

}  // namespace hlipc
