// SPDX-License-Identifier: MIT
#include "device_side.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "hlthunk.h"

namespace mntest {

int DeviceSide::open(uint64_t max_len, std::string *why)
{
	close();
	fd_ = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, nullptr);
	if (fd_ < 0) {
		int err = fd_;
		fd_ = -1;
		*why = std::string("no free emulated Gaudi device (habanalabs_sim): ") +
		       strerror(-err);
		return err;
	}
	dma_ = std::make_unique<hlipc::StagedDma>();
	int rc = dma_->init(fd_);
	if (rc) {
		*why = std::string("the device's DMA engine: ") + strerror(-rc);
		return rc;
	}
	const uint64_t len = (max_len + 4095) / 4096 * 4096;
	stage_ = hlipc::Mapping::map(len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				     -1, 0);
	if (!stage_.valid()) {
		*why = std::string("staging memory: ") + strerror(errno);
		return -errno;
	}
	stage_va_ = hlthunk_host_memory_map(fd_, stage_.get(), 0, len);
	if (!stage_va_) {
		int err = errno;
		*why = std::string("mapping staging memory for the device: ") +
		       strerror(err);
		return -err;
	}
	return 0;
}

void DeviceSide::close()
{
	if (fd_ < 0)
		return;
	// The command buffer and the mapping live in the device context.
	dma_.reset();
	if (stage_va_)
		hlthunk_memory_unmap(fd_, stage_va_);
	stage_va_ = 0;
	stage_.reset();
	hlthunk_close(fd_);
	fd_ = -1;
}

std::string DeviceSide::bus_id() const
{
	char bus[32] = "";
	if (fd_ < 0 || hlthunk_get_pci_bus_id_from_fd(fd_, bus, sizeof(bus)))
		return "?";
	return bus;
}

int DeviceSide::write_pattern(uint64_t va, uint64_t len, uint32_t seed,
			      uint64_t base)
{
	if (len > stage_.size())
		return -E2BIG;
	hlipc::fill_pattern(stage_.bytes(), len, seed, base);
	return dma_->copy(va, stage_va_, len);
}

int64_t DeviceSide::check_pattern(uint64_t va, uint64_t len, uint32_t seed,
				  uint64_t base)
{
	if (len > stage_.size())
		return -2;
	memset(stage_.bytes(), 0, len);
	if (dma_->copy(stage_va_, va, len))
		return -2;
	return hlipc::check_pattern(stage_.bytes(), len, seed, base);
}

}  // namespace mntest
