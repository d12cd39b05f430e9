// SPDX-License-Identifier: MIT
// The UCT side of the bridge tests: the gaudi_ipc transport loaded with
// dlopen (one of the documented ways), its memory domain, workers and
// interfaces, and buffers in host or device memory with a CPU view to
// fill and check them.
#pragma once

#include <uct/api/uct.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.h"

#include <chrono>

namespace uct_test {

// HL_TIMEOUT_FACTOR (the debug kernel's guest is slower) times a timeout.
double timeout_factor();
class Deadline {
public:
	explicit Deadline(double seconds);
	bool passed() const;

private:
	std::chrono::steady_clock::time_point end_;
};

// Loads the plugin (path compiled in, or $HL_UCX_PLUGIN) before UCX looks
// for components.  Returns false with a message on stderr.
bool load_plugin();

// The gaudi_ipc component and its memory domain (opened once).
struct Domain {
	uct_component_h component = nullptr;
	uct_md_h md = nullptr;
	size_t rkey_size = 0;
	static Domain &get();
};

// UCX_GAUDI_IPC_<name>=<value> settings of an interface.
using Config = std::vector<std::pair<std::string, std::string>>;

// A worker (with UCX's async thread) and one interface on it, configured
// with UCX_GAUDI_IPC_<name>=<value> pairs on top of the environment.
class Iface {
public:
	explicit Iface(const Config &config = {},
		       ucs_async_mode_t mode = UCS_ASYNC_MODE_THREAD_SPINLOCK);
	~Iface();
	Iface(const Iface &) = delete;
	Iface &operator=(const Iface &) = delete;

	ucs_status_t open_status() const { return status_; }
	uct_iface_h iface() const { return iface_; }
	uct_worker_h worker() const { return worker_; }
	ucs_async_context_t *async() const { return async_; }
	// Device address then interface address, as peers need them.
	std::vector<uint8_t> address() const;
	const uct_iface_attr_t &attr() const { return attr_; }
	unsigned progress() const { return uct_worker_progress(worker_); }
	// Creates an endpoint to the interface whose address() is `addr`.
	ucs_status_t connect(const std::vector<uint8_t> &addr, uct_ep_h *ep) const;
	// Drives progress until *done or the timeout; false on timeout.
	bool wait(const volatile bool *done, double seconds = 60) const;
	bool wait_comp(const uct_completion_t *comp, double seconds = 60) const;
	// Flushes ep: progress until every operation on it completed.
	ucs_status_t flush(uct_ep_h ep, double seconds = 60) const;

private:
	ucs_async_context_t *async_ = nullptr;
	uct_worker_h worker_ = nullptr;
	uct_iface_h iface_ = nullptr;
	uct_iface_attr_t attr_{};
	ucs_status_t status_ = UCS_OK;
};

// A completion the tests wait on.
struct Completion {
	uct_completion_t comp;
	bool done = false;
	ucs_status_t status = UCS_OK;
	explicit Completion(int count = 1);
	void reset(int count = 1);
};

// Memory a test moves: host memory (page-aligned mmap) or device memory
// of one device (with a CPU view through its dma-buf).
class Buffer {
public:
	enum Kind { Host, Device };
	Buffer(Kind kind, uint64_t size, int dev_fd = -1);
	~Buffer();
	Buffer(const Buffer &) = delete;
	Buffer &operator=(const Buffer &) = delete;

	bool ok() const { return cpu_ != nullptr; }
	Kind kind() const { return kind_; }
	uint64_t size() const { return size_; }
	// The address UCT is given (host pointer or device VA).
	uint64_t addr() const { return addr_; }
	void *ptr(uint64_t off = 0) const { return reinterpret_cast<void *>(addr_ + off); }
	unsigned char *cpu() const { return cpu_; }
	// Frees the memory (device: unmap and free) while registrations may
	// still name it.
	void release();

private:
	Kind kind_;
	uint64_t size_;
	uint64_t addr_ = 0;
	unsigned char *cpu_ = nullptr;
	hlipc::DeviceBuffer dev_;
};

// A registration of the domain and its packed remote key.
class Registration {
public:
	Registration(uint64_t addr, uint64_t len, unsigned flags = UCT_MD_MEM_ACCESS_ALL);
	~Registration();
	Registration(const Registration &) = delete;
	Registration &operator=(const Registration &) = delete;
	ucs_status_t status() const { return status_; }
	uct_mem_h memh() const { return memh_; }
	const std::vector<uint8_t> &packed() const { return packed_; }
	void dereg();
	// Deregisters with UCT_MD_MEM_DEREG_FLAG_INVALIDATE and comp.
	ucs_status_t invalidate(uct_completion_t *comp);

private:
	uct_mem_h memh_ = nullptr;
	std::vector<uint8_t> packed_;
	ucs_status_t status_;
};

// An unpacked remote key.
class RemoteKey {
public:
	explicit RemoteKey(const std::vector<uint8_t> &packed);
	~RemoteKey();
	RemoteKey(const RemoteKey &) = delete;
	RemoteKey &operator=(const RemoteKey &) = delete;
	ucs_status_t status() const { return status_; }
	uct_rkey_t rkey() const { return b_.rkey; }

private:
	uct_rkey_bundle_t b_{};
	ucs_status_t status_;
};

// The byte pattern of the tests (seed, absolute offset).
void fill(unsigned char *p, uint64_t len, uint32_t seed, uint64_t base);
// Offset of the first byte that differs, or -1.
int64_t check(const unsigned char *p, uint64_t len, uint32_t seed, uint64_t base);
// Offset of the first non-zero byte, or -1.
int64_t check_zero(const unsigned char *p, uint64_t len);

// The PCI address of device index i of habanalabs_sim.
std::string sim_bus(int index);
// Opens the compute node of device index i.
int open_device(int index);

}  // namespace uct_test
