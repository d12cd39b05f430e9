// SPDX-License-Identifier: MIT
#include "dmabuf_interposer.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

namespace rdmatest {

namespace {

std::mutex g_mu;
DmabufMode g_mode = DmabufMode::Forward;
std::vector<VerbsCall> g_log;
std::map<ibv_mr *, std::pair<void *, size_t>> g_shim;  // mr -> mapping

template <typename Fn>
Fn real(const char *name, const char *version)
{
	void *p = dlvsym(RTLD_NEXT, name, version);
	if (!p)
		abort();  // the test cannot run without libibverbs
	return reinterpret_cast<Fn>(p);
}

using RegDmabufFn = ibv_mr *(*)(ibv_pd *, uint64_t, size_t, uint64_t, int, int);
using RegIova2Fn = ibv_mr *(*)(ibv_pd *, void *, size_t, uint64_t, unsigned int);
using DeregFn = int (*)(ibv_mr *);

// The exporter of a dma-buf fd, as the kernel names it in fdinfo.
std::string exporter_of(int fd)
{
	std::ifstream f("/proc/self/fdinfo/" + std::to_string(fd));
	std::string line;
	while (std::getline(f, line))
		if (line.rfind("exp_name:", 0) == 0)
			return line.substr(line.find_first_not_of(" \t", 9));
	return "";
}

void log_call(const VerbsCall &c)
{
	std::lock_guard<std::mutex> l(g_mu);
	g_log.push_back(c);
}

// A provider that takes dma-bufs, made of the CPU-mapping path.
ibv_mr *shim_reg_dmabuf(ibv_pd *pd, uint64_t offset, size_t length,
			uint64_t iova, int fd, int access)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	uint64_t first = offset / page * page;
	size_t len = (offset + length + page - 1) / page * page - first;
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       static_cast<off_t>(first));
	if (p == MAP_FAILED)
		return nullptr;
	static auto reg = real<RegIova2Fn>("ibv_reg_mr_iova2", "IBVERBS_1.8");
	ibv_mr *mr = reg(pd, static_cast<char *>(p) + (offset - first), length,
			 iova, static_cast<unsigned int>(access));
	if (!mr) {
		int e = errno;
		munmap(p, len);
		errno = e;
		return nullptr;
	}
	std::lock_guard<std::mutex> l(g_mu);
	g_shim[mr] = {p, len};
	return mr;
}

}  // namespace

void interposer_reset(DmabufMode mode)
{
	std::lock_guard<std::mutex> l(g_mu);
	g_mode = mode;
	g_log.clear();
}

std::vector<VerbsCall> interposer_log()
{
	std::lock_guard<std::mutex> l(g_mu);
	return g_log;
}

int interposer_shim_mappings()
{
	std::lock_guard<std::mutex> l(g_mu);
	return static_cast<int>(g_shim.size());
}

}  // namespace rdmatest

using namespace rdmatest;

extern "C" ibv_mr *ibv_reg_dmabuf_mr(ibv_pd *pd, uint64_t offset, size_t length,
				     uint64_t iova, int fd, int access)
{
	VerbsCall c{VerbsCall::RegDmabufMr, offset, length, iova, access, 0,
		    exporter_of(fd)};
	DmabufMode mode;
	{
		std::lock_guard<std::mutex> l(g_mu);
		mode = g_mode;
	}
	static auto fwd = real<RegDmabufFn>("ibv_reg_dmabuf_mr", "IBVERBS_1.12");
	errno = 0;
	ibv_mr *mr = nullptr;
	if (mode == DmabufMode::AcceptShim)
		mr = shim_reg_dmabuf(pd, offset, length, iova, fd, access);
	else if (mode == DmabufMode::RefusePeer)
		errno = EPERM;
	else
		mr = fwd(pd, offset, length, iova, fd, access);
	int e = errno;
	c.result_errno = mr ? 0 : e;
	log_call(c);
	errno = e;
	return mr;
}

extern "C" ibv_mr *ibv_reg_mr_iova2(ibv_pd *pd, void *addr, size_t length,
				    uint64_t iova, unsigned int access)
{
	static auto fwd = real<RegIova2Fn>("ibv_reg_mr_iova2", "IBVERBS_1.8");
	errno = 0;
	ibv_mr *mr = fwd(pd, addr, length, iova, access);
	int e = errno;
	log_call({VerbsCall::RegMrIova2, reinterpret_cast<uintptr_t>(addr),
		  length, iova, static_cast<int>(access), mr ? 0 : e, ""});
	errno = e;
	return mr;
}

extern "C" int ibv_dereg_mr(ibv_mr *mr)
{
	static auto fwd = real<DeregFn>("ibv_dereg_mr", "IBVERBS_1.1");
	int rc = fwd(mr);
	if (rc == 0) {
		std::lock_guard<std::mutex> l(g_mu);
		auto it = g_shim.find(mr);
		if (it != g_shim.end()) {
			munmap(it->second.first, it->second.second);
			g_shim.erase(it);
		}
	}
	return rc;
}
