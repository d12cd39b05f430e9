// SPDX-License-Identifier: GPL-2.0
#include "sim_util.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace simtest {

std::string compute_path(int idx)
{
	return "/dev/hlsim" + std::to_string(idx);
}

std::string control_path(int idx)
{
	return "/dev/hlsim_controlD" + std::to_string(idx);
}

std::string sysfs_attr(int idx, const std::string &name)
{
	return read_file("/sys/class/habanalabs_sim/hlsim" +
			 std::to_string(idx) + "/" + name);
}

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;
	ss << f.rdbuf();
	std::string s = ss.str();
	while (!s.empty() && s.back() == '\n')
		s.pop_back();
	return s;
}

bool write_file(const std::string &path, const std::string &value)
{
	std::ofstream f(path);
	f << value;
	f.flush();
	return static_cast<bool>(f);
}

int num_devices()
{
	return std::stoi(
		read_file("/sys/module/habanalabs_sim/parameters/num_devices"));
}

uint64_t memory_size(int idx)
{
	return std::stoull(sysfs_attr(idx, "memory_size"));
}

std::map<std::string, long> stats()
{
	std::map<std::string, long> m;
	std::istringstream in(
		read_file("/sys/kernel/debug/habanalabs_sim/stats"));
	std::string name;
	long v;
	while (in >> name >> v)
		m[name] = v;
	return m;
}

long live_objects()
{
	long n = 0;
	for (auto &kv : stats())
		n += kv.second;
	return n;
}

int module_refcnt()
{
	return std::stoi(read_file("/sys/module/habanalabs_sim/refcnt"));
}

void set_cs_delay_ms(unsigned int ms)
{
	set_sim_param("cs_delay_ms", ms);
}

void set_sim_param(const std::string &name, unsigned long value)
{
	write_file("/sys/module/habanalabs_sim/parameters/" + name, std::to_string(value));
}

long sim_event(const std::string &name)
{
	std::istringstream in(read_file("/sys/kernel/debug/habanalabs_sim/events"));
	std::string n;
	long v;
	while (in >> n >> v)
		if (n == name)
			return v;
	return -1;
}

int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

int hw_ip_info(int fd, hl_info_hw_ip_info *hw)
{
	hl_info_args a{};
	*hw = {};
	a.op = HL_INFO_HW_IP_INFO;
	a.return_pointer = reinterpret_cast<uintptr_t>(hw);
	a.return_size = sizeof(*hw);
	return xioctl(fd, DRM_IOCTL_HL_INFO, &a);
}

hl_info_cs_counters cs_counters(int fd)
{
	hl_info_cs_counters c{};
	hl_info_args a{};
	a.op = HL_INFO_CS_COUNTERS;
	a.return_pointer = reinterpret_cast<uintptr_t>(&c);
	a.return_size = sizeof(c);
	if (xioctl(fd, DRM_IOCTL_HL_INFO, &a))
		c = {};
	return c;
}

Dev::Dev(int idx)
{
	fd_ = open(compute_path(idx).c_str(), O_RDWR | O_CLOEXEC);
	if (fd_ < 0)
		err_ = errno;
}

Dev::~Dev()
{
	close_fd();
}

void Dev::close_fd()
{
	if (fd_ >= 0)
		close(fd_);
	fd_ = -1;
	// Closing released their device mappings.
	std::lock_guard<std::mutex> g(cbs_lock_);
	for (auto &kv : user_cbs_)
		munmap(kv.second.first, kv.second.second);
	user_cbs_.clear();
}

int Dev::alloc(uint64_t size, uint64_t *handle, uint64_t page_size,
	       uint32_t flags)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_ALLOC;
	a.in.alloc.mem_size = size;
	a.in.alloc.page_size = page_size;
	a.in.flags = flags;
	int rc = mem(&a);
	if (!rc)
		*handle = a.out.handle;
	return rc;
}

int Dev::free_handle(uint64_t handle)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_FREE;
	a.in.free.handle = handle;
	return mem(&a);
}

int Dev::map(uint64_t handle, uint64_t *va, uint64_t hint, uint32_t flags)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_device.handle = handle;
	a.in.map_device.hint_addr = hint;
	a.in.flags = flags;
	int rc = mem(&a);
	if (!rc)
		*va = a.out.device_virt_addr;
	return rc;
}

int Dev::map_host(const void *p, uint64_t len, uint64_t *va, uint64_t hint,
		  uint32_t flags)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_MAP;
	a.in.map_host.host_virt_addr = reinterpret_cast<uintptr_t>(p);
	a.in.map_host.mem_size = len;
	a.in.map_host.hint_addr = hint;
	a.in.flags = flags;
	int rc = mem(&a);
	if (!rc)
		*va = a.out.device_virt_addr;
	return rc;
}

int Dev::unmap(uint64_t va)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_UNMAP;
	a.in.unmap.device_virt_addr = va;
	return mem(&a);
}

int Dev::export_buf(uint64_t va, uint64_t size, uint64_t offset, int *fd,
		    uint32_t flags)
{
	hl_mem_args a{};
	a.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
	a.in.export_dmabuf_fd.addr = va;
	a.in.export_dmabuf_fd.mem_size = size;
	a.in.export_dmabuf_fd.offset = offset;
	a.in.flags = flags;
	int rc = mem(&a);
	if (!rc)
		*fd = a.out.fd;
	return rc;
}

int Dev::alloc_map(uint64_t size, uint64_t *handle, uint64_t *va)
{
	int rc = alloc(size, handle);
	if (rc)
		return rc;
	rc = map(*handle, va);
	if (rc)
		free_handle(*handle);
	return rc;
}

int Dev::cb_create(uint32_t size, uint64_t *handle)
{
	hl_cb_args a{};
	a.in.op = HL_CB_OP_CREATE;
	a.in.cb_size = size;
	int rc = xioctl(fd_, DRM_IOCTL_HL_CB, &a);
	if (!rc)
		*handle = a.out.cb_handle;
	return rc;
}

int Dev::cb_destroy(uint64_t handle)
{
	hl_cb_args a{};
	a.in.op = HL_CB_OP_DESTROY;
	a.in.cb_handle = handle;
	return xioctl(fd_, DRM_IOCTL_HL_CB, &a);
}

int Dev::cb_with(const std::vector<uint32_t> &words, uint64_t *va)
{
	size_t bytes = words.size() * 4;
	size_t size = (bytes + 4095) & ~size_t(4095);
	if (!size)
		size = 4096;
	void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (bytes)
		memcpy(p, words.data(), bytes);
	int rc = map_host(p, size, va);
	if (rc) {
		munmap(p, size);
		return rc;
	}
	std::lock_guard<std::mutex> g(cbs_lock_);
	user_cbs_[*va] = {p, size};
	return 0;
}

int Dev::cb_free(uint64_t va)
{
	std::pair<void *, size_t> mem;
	{
		std::lock_guard<std::mutex> g(cbs_lock_);
		auto it = user_cbs_.find(va);
		if (it == user_cbs_.end())
			return -EINVAL;
		mem = it->second;
		user_cbs_.erase(it);
	}
	int rc = unmap(va);
	munmap(mem.first, mem.second);
	return rc;
}

int Dev::cs(const std::vector<hl_cs_chunk> &chunks, uint64_t *seq,
	    uint32_t flags, uint32_t timeout_s)
{
	hl_cs_args a{};
	a.in.chunks_execute = reinterpret_cast<uintptr_t>(chunks.data());
	a.in.num_chunks_execute = static_cast<uint32_t>(chunks.size());
	a.in.cs_flags = flags | (timeout_s ? HL_CS_FLAGS_CUSTOM_TIMEOUT : 0);
	a.in.timeout = timeout_s;
	int rc = xioctl(fd_, DRM_IOCTL_HL_CS, &a);
	if (!rc)
		*seq = a.out.seq;
	return rc;
}

hl_cs_chunk user_chunk(uint64_t va, uint32_t cb_size, uint32_t queue)
{
	hl_cs_chunk c{};
	c.cb_handle = va;
	c.cb_size = cb_size;
	c.queue_index = queue;
	c.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	return c;
}

int Dev::cs_one(uint64_t va, uint32_t cb_size, uint64_t *seq, uint32_t queue)
{
	return cs({user_chunk(va, cb_size, queue)}, seq);
}

int Dev::wait(uint64_t seq, uint64_t timeout_us, uint32_t *status,
	      uint32_t *flags)
{
	hl_wait_cs_args a{};
	a.in.seq = seq;
	a.in.timeout_us = timeout_us;
	int rc = xioctl(fd_, DRM_IOCTL_HL_WAIT_CS, &a);
	if (status)
		*status = a.out.status;
	if (flags)
		*flags = a.out.flags;
	return rc;
}

int Dev::run(const std::vector<uint32_t> &words)
{
	uint64_t cb, seq;
	uint32_t status = ~0u;
	int rc = cb_with(words, &cb);
	if (rc)
		return rc;
	rc = cs_one(cb, static_cast<uint32_t>(words.size() * 4), &seq);
	cb_free(cb);
	if (rc)
		return rc;
	rc = wait(seq, 30 * 1000 * 1000, &status);
	if (rc)
		return rc;
	return status == HL_WAIT_CS_STATUS_COMPLETED ? 0 : -ETIME;
}

uint32_t lin_dma_ctl()
{
	return (GAUDI2_PACKET_LIN_DMA << GAUDI2_PKT_CTL_OPCODE_SHIFT) |
	       GAUDI2_PKT_CTL_EB_MASK | GAUDI2_PKT_CTL_MB_MASK;
}

void put_lin_dma(std::vector<uint32_t> &w, uint64_t dst, uint64_t src,
		 uint32_t size, uint32_t extra_ctl)
{
	w.push_back(size);
	w.push_back(lin_dma_ctl() | extra_ctl);
	w.push_back(static_cast<uint32_t>(src));
	w.push_back(static_cast<uint32_t>(src >> 32));
	w.push_back(static_cast<uint32_t>(dst));
	w.push_back(static_cast<uint32_t>(dst >> 32));
}

void put_nop(std::vector<uint32_t> &w)
{
	w.push_back(0);
	w.push_back(GAUDI2_PACKET_NOP << GAUDI2_PKT_CTL_OPCODE_SHIFT);
}

uint32_t ctl(uint32_t opcode)
{
	return (opcode << GAUDI2_PKT_CTL_OPCODE_SHIFT) | GAUDI2_PKT_CTL_MB_MASK;
}

void put_msg_long(std::vector<uint32_t> &w, uint64_t addr, uint32_t value,
		  uint32_t extra_ctl)
{
	w.push_back(value);
	w.push_back(ctl(GAUDI2_PACKET_MSG_LONG) | extra_ctl);
	w.push_back(static_cast<uint32_t>(addr));
	w.push_back(static_cast<uint32_t>(addr >> 32));
}

void put_msg_short(std::vector<uint32_t> &w, uint32_t base, uint32_t offset,
		   uint32_t value)
{
	w.push_back(value);
	w.push_back(ctl(GAUDI2_PACKET_MSG_SHORT) |
		    (base << GAUDI2_PKT_SHORT_CTL_BASE_SHIFT) | offset);
}

void put_sob(std::vector<uint32_t> &w, uint32_t sob, uint32_t value, bool add)
{
	put_msg_short(w, GAUDI2_PKT_SHORT_BASE_SOB, sob * 4,
		      value | (add ? GAUDI2_SOB_ADD_MASK : 0));
}

void put_mon(std::vector<uint32_t> &w, uint32_t reg0, uint32_t mon,
	     uint32_t value)
{
	put_msg_short(w, GAUDI2_PKT_SHORT_BASE_MON,
		      reg0 - GAUDI2_SM_MON_PAY_ADDRL_0 + mon * 4, value);
}

void put_monitor(std::vector<uint32_t> &w, uint32_t mon, uint64_t addr,
		 uint32_t data, uint32_t sob, uint32_t val, bool equal,
		 uint32_t config)
{
	put_mon(w, GAUDI2_SM_MON_CONFIG_0, mon, config);
	put_mon(w, GAUDI2_SM_MON_PAY_ADDRL_0, mon, static_cast<uint32_t>(addr));
	put_mon(w, GAUDI2_SM_MON_PAY_ADDRH_0, mon, static_cast<uint32_t>(addr >> 32));
	put_mon(w, GAUDI2_SM_MON_PAY_DATA_0, mon, data);
	uint32_t arm = (sob / 8) | ((0xffu & ~(1u << (sob % 8))) << GAUDI2_MON_ARM_MASK_SHIFT) |
		       (val << GAUDI2_MON_ARM_VAL_SHIFT) |
		       (equal ? GAUDI2_MON_ARM_MODE_EQUAL : 0);
	put_mon(w, GAUDI2_SM_MON_ARM_0, mon, arm);
}

Mapping::Mapping(int fd, size_t len, int prot) : len_(len)
{
	p_ = mmap(nullptr, len, prot, MAP_SHARED, fd, 0);
	ok_ = p_ != MAP_FAILED;
	if (!ok_) {
		err_ = errno;
		p_ = nullptr;
	}
}

Mapping::~Mapping()
{
	if (ok_)
		munmap(p_, len_);
}

DevBuf::DevBuf(Dev &d, uint64_t size) : size(size), d_(d)
{
	if (d_.alloc_map(size, &handle, &va) == 0 &&
	    d_.export_buf(va, size, 0, &fd) == 0)
		map_ = std::make_unique<Mapping>(fd, size);
}

DevBuf::~DevBuf()
{
	release();
}

void DevBuf::release_host()
{
	map_.reset();
	if (fd >= 0)
		close(fd);
	fd = -1;
}

int DevBuf::release()
{
	int rc = 0, r;

	release_host();
	if (va && (r = d_.unmap(va)) != 0 && !rc)
		rc = r;
	va = 0;
	if (handle && (r = d_.free_handle(handle)) != 0 && !rc)
		rc = r;
	handle = 0;
	return rc;
}

static uint8_t pattern_byte(size_t i, uint32_t seed)
{
	uint32_t x = static_cast<uint32_t>(i) * 2654435761u + seed;
	return static_cast<uint8_t>(x ^ (x >> 13) ^ (i >> 12));
}

void fill_pattern(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(i, seed);
}

long check_pattern(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(i, seed))
			return static_cast<long>(i);
	return -1;
}

} // namespace simtest
