// SPDX-License-Identifier: MIT
// Memory of one habanalabs_sim device, allocated, mapped into the device
// and exported as a dma-buf through the device's own ioctls, for tests and
// benchmarks of memory that only a device reaches (pci_memory=1: no CPU
// mapping).  Header-only: the benchmarks build without sanitizers.
#pragma once

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "habanalabs_abi.h"

namespace hltest {

class SimDeviceMemory {
public:
	// size bytes of device idx (/dev/hlsim<idx>); err() says what failed.
	SimDeviceMemory(int idx, uint64_t size)
	{
		dev_ = open(("/dev/hlsim" + std::to_string(idx)).c_str(), O_RDWR | O_CLOEXEC);
		if (dev_ < 0) {
			err_ = -errno;
			return;
		}
		hl_mem_args m{};
		m.in.op = HL_MEM_OP_ALLOC;
		m.in.alloc.mem_size = size;
		if ((err_ = mem(&m)))
			return;
		handle_ = m.out.handle;
		m = {};
		m.in.op = HL_MEM_OP_MAP;
		m.in.map_device.handle = handle_;
		if ((err_ = mem(&m)))
			return;
		va_ = m.out.device_virt_addr;
		m = {};
		m.in.op = HL_MEM_OP_EXPORT_DMABUF_FD;
		m.in.flags = O_RDWR | O_CLOEXEC;
		m.in.export_dmabuf_fd.addr = va_;
		m.in.export_dmabuf_fd.mem_size = size;
		if ((err_ = mem(&m)))
			return;
		dmabuf_ = static_cast<int>(m.out.fd);
	}
	~SimDeviceMemory()
	{
		if (dmabuf_ >= 0)
			close(dmabuf_);
		hl_mem_args m{};
		if (va_) {
			m.in.op = HL_MEM_OP_UNMAP;
			m.in.unmap.device_virt_addr = va_;
			mem(&m);
		}
		if (handle_) {
			m = {};
			m.in.op = HL_MEM_OP_FREE;
			m.in.free.handle = handle_;
			mem(&m);
		}
		if (dev_ >= 0)
			close(dev_);
	}
	SimDeviceMemory(const SimDeviceMemory &) = delete;
	SimDeviceMemory &operator=(const SimDeviceMemory &) = delete;

	int err() const { return err_; }        // 0, or -errno of the step that failed
	int dmabuf() const { return dmabuf_; }  // the export, read-write
	int dev() const { return dev_; }        // the compute node
	uint64_t va() const { return va_; }     // the device address

private:
	int mem(hl_mem_args *m) const
	{
		return ioctl(dev_, DRM_IOCTL_HL_MEMORY, m) == 0 ? 0 : -errno;
	}

	int dev_ = -1;
	uint64_t handle_ = 0, va_ = 0;
	int dmabuf_ = -1;
	int err_ = 0;
};

}  // namespace hltest
