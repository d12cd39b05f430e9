// SPDX-License-Identifier: MIT
#include "stage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "hlthunk.h"
#include "last_error.h"

namespace hlthunk_verbs {

using hlthunk::Err;

namespace {

uint64_t page_size()
{
	return static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

Stage::~Stage()
{
	if (host_dev_va_)
		(void)hlthunk_memory_unmap(device_.get(), host_dev_va_);
}

hlthunk::Result<std::unique_ptr<Stage>> Stage::create(
	int fd, int dmabuf_fd, uint64_t device_va, uint64_t length,
	std::string *why)
{
	const uint64_t page = page_size();
	auto s = std::make_unique<Stage>(Private{});
	s->device_va_ = device_va;
	s->in_page_ = device_va & (page - 1);

	s->device_.reset(fcntl(fd, F_DUPFD_CLOEXEC, 0));
	s->dmabuf_.reset(fcntl(dmabuf_fd, F_DUPFD_CLOEXEC, 0));
	if (!s->device_.valid() || !s->dmabuf_.valid()) {
		int e = errno_or(EMFILE);
		*why = "no file descriptor left for the stage's own references";
		return Err{-e};
	}

	const uint64_t span = (s->in_page_ + length + page - 1) & ~(page - 1);
	// Private anonymous pages, populated now: the NIC pins them at once,
	// and a fork() of the caller must not make them copy-on-write.
	s->host_ = hlipc::Mapping::map(span, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				       -1, 0);
	if (!s->host_.valid()) {
		int e = errno_or(ENOMEM);
		*why = "allocating " + std::to_string(span) +
		       " bytes of host memory for the stage failed";
		return Err{-e};
	}
	(void)madvise(s->host_.get(), span, MADV_DONTFORK);

	errno = 0;
	s->host_dev_va_ = hlthunk_host_memory_map(s->device_.get(),
						  s->host_.get(), 0, span);
	if (!s->host_dev_va_) {
		int e = errno_or(ENOMEM);
		*why = "mapping the stage into the device for its DMA engine "
		       "failed (" + errno_name(e) + ")";
		return Err{-e};
	}
	int rc = s->dma_.init(s->device_.get());
	if (rc < 0) {
		*why = "setting up the device's DMA engine for the stage failed";
		return Err{rc};
	}
	return s;
}

void *Stage::host_start() const
{
	return host_.bytes() + in_page_;
}

int Stage::copy(uint64_t dst, uint64_t src, uint64_t len)
{
	std::lock_guard<std::mutex> g(lock_);
	return dma_.copy(dst, src, len);
}

uint64_t Stage::stage_va(uint64_t va) const
{
	return host_dev_va_ + in_page_ + (va - device_va_);
}

int Stage::to_device(uint64_t va, uint64_t len)
{
	return copy(va, stage_va(va), len);
}

int Stage::to_stage(uint64_t va, uint64_t len)
{
	return copy(stage_va(va), va, len);
}

}  // namespace hlthunk_verbs
