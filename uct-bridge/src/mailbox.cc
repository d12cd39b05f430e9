// SPDX-License-Identifier: MIT
#include "mailbox.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

namespace gaudi_ipc {

namespace {

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace

int Mailbox::create(uint32_t slots, uint64_t slot_size, uint64_t nonce,
		    uint64_t linger_ns)
{
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	if (slots == 0 || slot_size == 0 || slots > 4096 || slot_size > (1ull << 30))
		return -EINVAL;
	slot_size = round_up(slot_size, page);
	const uint64_t slots_offset = round_up(sizeof(MailboxHeader), 64);
	const uint64_t staging_offset = round_up(slots_offset + slots * sizeof(Slot), page);
	const uint64_t total = staging_offset + slots * slot_size;

	hl::UniqueFd fd(memfd_create("hl-gaudi-ipc-staging", MFD_CLOEXEC));
	if (!fd.valid())
		return -errno;
	if (ftruncate(fd.get(), static_cast<off_t>(total)) < 0)
		return -errno;
	hlipc::Mapping map = hlipc::Mapping::map(total, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
	if (!map.valid())
		return -errno;
	auto *h = reinterpret_cast<MailboxHeader *>(map.bytes());
	h->version = kMailboxVersion;
	h->slots = slots;
	h->owner_pid = this_process().pid;
	h->owner_start = this_process().start;
	h->nonce = nonce;
	h->slot_size = slot_size;
	h->slots_offset = slots_offset;
	h->staging_offset = staging_offset;
	h->total_size = total;
	h->linger_ns = linger_ns;
	new (&h->owner_awake) std::atomic<uint32_t>(0);
	auto *s = reinterpret_cast<Slot *>(map.bytes() + slots_offset);
	for (uint32_t i = 0; i < slots; i++)
		new (&s[i]) Slot();  // zeroed memory is FREE; this makes it so in C++ too
	// Published last: a peer that sees the magic sees the rest.
	std::atomic_thread_fence(std::memory_order_release);
	h->magic = kMailboxMagic;
	fd_ = std::move(fd);
	map_ = std::move(map);
	return 0;
}

int Mailbox::attach(const ProcessId &owner, int owner_fd, uint64_t nonce)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/fd/%d", owner.pid, owner_fd);
	hl::UniqueFd fd(::open(path, O_RDWR | O_CLOEXEC));
	if (!fd.valid())
		return errno == ENOENT ? -ESRCH : -errno;
	struct stat st;
	if (fstat(fd.get(), &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < sizeof(MailboxHeader))
		return -EPROTO;
	hlipc::Mapping map = hlipc::Mapping::map(static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd.get(), 0);
	if (!map.valid())
		return -errno;
	const auto *h = reinterpret_cast<const MailboxHeader *>(map.bytes());
	if (h->magic != kMailboxMagic || h->version != kMailboxVersion ||
	    h->nonce != nonce || h->owner_pid != owner.pid ||
	    h->owner_start != owner.start ||
	    h->total_size != static_cast<uint64_t>(st.st_size) || h->slots == 0 ||
	    h->slots_offset + h->slots * sizeof(Slot) > h->staging_offset ||
	    h->staging_offset + h->slots * h->slot_size != h->total_size)
		return -EPROTO;
	// The owner may have exited between the open and now: its pid could
	// then name another process whose fd happened to fit.  The nonce and
	// start time checked above rule that out.
	fd_ = std::move(fd);
	map_ = std::move(map);
	return 0;
}

int Mailbox::claim(uint32_t hint) const
{
	const uint32_t n = slots();
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (hint + k) % n;
		uint32_t expect = kSlotFree;
		if (slot(i).state.load(std::memory_order_relaxed) == kSlotFree &&
		    slot(i).state.compare_exchange_strong(expect, kSlotClaimed,
							  std::memory_order_acquire))
			return static_cast<int>(i);
	}
	return -1;
}

void Mailbox::set_owner_awake(bool awake) const
{
	auto *h = reinterpret_cast<MailboxHeader *>(map_.bytes());
	h->owner_awake.store(awake ? 1 : 0, std::memory_order_seq_cst);
	std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool Mailbox::owner_awake() const
{
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return header().owner_awake.load(std::memory_order_seq_cst) != 0;
}

bool Mailbox::want_ring(uint32_t i) const
{
	slot(i).ring.store(1, std::memory_order_seq_cst);
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return slot(i).state.load(std::memory_order_acquire) != kSlotDone;
}

bool Mailbox::ring_wanted(uint32_t i) const
{
	std::atomic_thread_fence(std::memory_order_seq_cst);
	return slot(i).ring.load(std::memory_order_seq_cst) != 0;
}

}  // namespace gaudi_ipc
