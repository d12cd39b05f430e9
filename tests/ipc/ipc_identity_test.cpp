// SPDX-License-Identifier: GPL-2.0
// Memory identity: a region is the pages it pinned, never an address.
// Read-only regions registered before their memory is written pin the
// pages the owner goes on writing; two regions at one address over
// different pages (after munmap + mmap, or MADV_DONTNEED) are different
// memory; one memory at two addresses is the same memory, copied as by
// memmove; pages shared at two different distances are refused.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ipc_util.h"
#include "sim_buffer.h"

using namespace hlipc;

namespace {

constexpr uint32_t RW = HL_IPC_REGION_READ | HL_IPC_REGION_WRITE;
constexpr uint32_t RO = HL_IPC_REGION_READ;
constexpr size_t PG = 4096;

// An anonymous mapping that unmaps itself.
struct Map {
	uint8_t *p = nullptr;
	size_t len = 0;
	Map(size_t n, int prot = PROT_READ | PROT_WRITE, int flags = MAP_PRIVATE | MAP_ANONYMOUS,
	    int fd = -1, void *at = nullptr)
		: len(n)
	{
		void *m = mmap(at, n, prot, flags, fd, 0);
		if (m != MAP_FAILED)
			p = static_cast<uint8_t *>(m);
	}
	~Map()
	{
		if (p)
			munmap(p, len);
	}
	Map(const Map &) = delete;
	Map &operator=(const Map &) = delete;
};

// How a copy is submitted: the small-copy path (up to 4 KiB, after a
// synchronous copy marked both regions), a synchronous job, an
// asynchronous job.
enum class Path { Small, Sync, Async };

const char *path_name(Path p)
{
	return p == Path::Small ? "small" : p == Path::Sync ? "sync" : "async";
}

int copy_by(const Ctx &c, Path p, uint64_t src, uint64_t dst, uint64_t len)
{
	if (p != Path::Async)
		return copy(c.fd, c.ch, src, 0, dst, 0, len);
	uint64_t seq = 0;
	int ret = copy(c.fd, c.ch, src, 0, dst, 0, len, HL_IPC_COPY_ASYNC, &seq);
	if (ret)
		return ret;
	int32_t status = 1;
	ret = wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status);
	return ret ? ret : status;
}

// The bytes a region holds, read back through a copy into fresh memory.
std::vector<uint8_t> read_region(const Ctx &c, uint64_t cookie, size_t len)
{
	Map out(len);
	uint64_t k = 0;
	std::vector<uint8_t> v;
	if (!out.p || reg_user(c.fd, out.p, len, RW, &k))
		return v;
	if (copy(c.fd, c.ch, cookie, 0, k, 0, len) == 0)
		v.assign(out.p, out.p + len);
	dereg(c.fd, k);
	return v;
}

size_t first_not(const std::vector<uint8_t> &v, uint8_t byte)
{
	for (size_t i = 0; i < v.size(); i++)
		if (v[i] != byte)
			return i;
	return v.size();
}

// Register read-only first, write afterwards: peers must read what the
// owner wrote, whatever the memory was before (the "register at
// start-up, fill later" pattern).
void later_writes_seen(const char *what, uint8_t *p, size_t len)
{
	Ctx c;
	uint64_t k = 0;
	ASSERT_EQ(reg_user(c.fd, p, len, RO, &k), 0) << what;
	memset(p, 0x5a, len);
	for (size_t n : {size_t{64}, len}) {
		std::vector<uint8_t> got = read_region(c, k, n);
		ASSERT_EQ(got.size(), n) << what;
		EXPECT_EQ(first_not(got, 0x5a), n) << what << ": a peer reads stale bytes ("
						   << n << "-byte copy)";
	}
}

TEST(Identity, ReadOnlyRegionOfUntouchedMemory)
{
	Map m(16 * PG);
	ASSERT_TRUE(m.p);
	later_writes_seen("untouched anonymous memory", m.p, m.len);
}

TEST(Identity, ReadOnlyRegionOfMemoryOnlyRead)
{
	Map m(16 * PG);
	ASSERT_TRUE(m.p);
	volatile uint8_t sum = 0;
	for (size_t i = 0; i < m.len; i += PG)
		sum = sum + m.p[i];
	later_writes_seen("anonymous memory only read", m.p, m.len);
}

TEST(Identity, ReadOnlyRegionOfPrivateFileMapping)
{
	char path[] = "/tmp/hlipc-identity-XXXXXX";
	int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	unlink(path);
	std::vector<uint8_t> zeros(16 * PG, 0);
	ASSERT_EQ(write(fd, zeros.data(), zeros.size()), static_cast<ssize_t>(zeros.size()));
	Map m(16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	ASSERT_TRUE(m.p);
	later_writes_seen("a MAP_PRIVATE file", m.p, m.len);
	// The file itself keeps its bytes: the writes were the owner's copy.
	uint8_t b = 1;
	ASSERT_EQ(pread(fd, &b, 1, 0), 1);
	EXPECT_EQ(b, 0);
	close(fd);
}

TEST(Identity, ReadOnlyRegionOfReadOnlyMappingMadeWritable)
{
	Map m(16 * PG, PROT_READ);
	ASSERT_TRUE(m.p);
	Ctx c;
	uint64_t k = 0;
	ASSERT_EQ(reg_user(c.fd, m.p, m.len, RO, &k), 0);
	// Writable registration of a read-only mapping stays refused.
	uint64_t w = 0;
	EXPECT_EQ(reg_user(c.fd, m.p, m.len, RW, &w), -EFAULT);
	ASSERT_EQ(mprotect(m.p, m.len, PROT_READ | PROT_WRITE), 0);
	memset(m.p, 0x5a, m.len);
	std::vector<uint8_t> got = read_region(c, k, m.len);
	ASSERT_EQ(got.size(), m.len);
	EXPECT_EQ(first_not(got, 0x5a), m.len);
}

// Region one pins the memory at an address; the address then gets new
// pages (how), region two pins those.  A copy from two to one must land
// in one's pages, though both start at the same address.
enum class Remap { Munmap, DontNeed };

void remapped_case(Remap how, Path path)
{
	constexpr size_t LEN = 16 * PG;
	const size_t n = path == Path::Small ? PG : LEN;
	SCOPED_TRACE(std::string(how == Remap::Munmap ? "munmap+mmap" : "MADV_DONTNEED") +
		     ", " + path_name(path));
	Ctx c;
	Map m(LEN);
	ASSERT_TRUE(m.p);
	memset(m.p, 0x11, LEN);
	uint64_t one = 0, two = 0;
	ASSERT_EQ(reg_user(c.fd, m.p, LEN, RW, &one), 0);
	if (how == Remap::Munmap) {
		void *q = mmap(m.p, LEN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		ASSERT_EQ(q, m.p);
	} else {
		ASSERT_EQ(madvise(m.p, LEN, MADV_DONTNEED), 0);
	}
	memset(m.p, 0xaa, LEN);
	ASSERT_EQ(reg_user(c.fd, m.p, LEN, RW, &two), 0);
	if (path == Path::Small) {
		// The small path needs both regions used by a synchronous copy.
		Map t(PG);
		uint64_t tk = 0;
		ASSERT_EQ(reg_user(c.fd, t.p, PG, RW, &tk), 0);
		ASSERT_EQ(copy(c.fd, c.ch, one, PG, tk, 0, 64), 0);
		ASSERT_EQ(copy(c.fd, c.ch, two, PG, tk, 0, 64), 0);
		ASSERT_EQ(copy(c.fd, c.ch, tk, 0, one, PG, 64), 0);
		ASSERT_EQ(copy(c.fd, c.ch, tk, 0, two, PG, 64), 0);
	}
	ASSERT_EQ(copy_by(c, path, two, one, n), 0);
	std::vector<uint8_t> got = read_region(c, one, n);
	ASSERT_EQ(got.size(), n);
	EXPECT_EQ(first_not(got, 0xaa), n) << "the copy did not reach region one's pages";
	EXPECT_EQ(first_not(std::vector<uint8_t>(m.p, m.p + LEN), 0xaa), LEN);
}

TEST(Identity, SameAddressDifferentPages)
{
	for (Remap how : {Remap::Munmap, Remap::DontNeed})
		for (Path p : {Path::Small, Path::Sync, Path::Async})
			remapped_case(how, p);
}

// One memfd mapped at two addresses, registered once at each: copies
// between the two behave like memmove on the shared bytes.
TEST(Identity, OneMemoryAtTwoAddresses)
{
	constexpr size_t SZ = 256 * PG, LEN = 64 * PG;
	int fd = memfd_create("hlipc-identity", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, SZ), 0);
	Map a(SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	Map b(SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	ASSERT_TRUE(a.p && b.p);
	Ctx c;
	uint64_t ka = 0, kb = 0;
	ASSERT_EQ(reg_user(c.fd, a.p, SZ, RW, &ka), 0);
	ASSERT_EQ(reg_user(c.fd, b.p, SZ, RW, &kb), 0);
	for (long shift : {1L, 3L, 4096L, 65537L, -1L, -4096L, -70001L}) {
		for (Path p : {Path::Sync, Path::Async}) {
			size_t from = 100000, to = static_cast<size_t>(100000 + shift);
			fill(a.p, SZ, static_cast<uint32_t>(shift + 7));
			std::vector<uint8_t> ref(a.p, a.p + SZ);
			memmove(ref.data() + to, ref.data() + from, LEN);
			uint64_t seq = 0;
			int32_t status = 0;
			if (p == Path::Sync) {
				ASSERT_EQ(copy(c.fd, c.ch, ka, from, kb, to, LEN), 0);
			} else {
				ASSERT_EQ(copy(c.fd, c.ch, ka, from, kb, to, LEN,
					       HL_IPC_COPY_ASYNC, &seq), 0);
				ASSERT_EQ(wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
				ASSERT_EQ(status, 0);
			}
			ASSERT_EQ(memcmp(ref.data(), a.p, SZ), 0)
				<< "shift " << shift << ", " << path_name(p);
		}
	}
	close(fd);
}

// The same across two processes' contexts: another context of the same
// user copies between its own mapping and ours of one memfd.
TEST(Identity, OneMemoryInTwoContexts)
{
	constexpr size_t SZ = 64 * PG, LEN = 16 * PG;
	int fd = memfd_create("hlipc-identity2", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, SZ), 0);
	Map a(SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	Map b(SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	ASSERT_TRUE(a.p && b.p);
	Ctx owner, peer;
	uint64_t ka = 0, kb = 0;
	ASSERT_EQ(reg_user(owner.fd, a.p, SZ, RW, &ka), 0);
	ASSERT_EQ(reg_user(peer.fd, b.p, SZ, RW, &kb), 0);
	fill(a.p, SZ, 99);
	std::vector<uint8_t> ref(a.p, a.p + SZ);
	memmove(ref.data() + 5000, ref.data() + 4000, LEN);
	ASSERT_EQ(copy(peer.fd, peer.ch, kb, 4000, ka, 5000, LEN), 0);
	EXPECT_EQ(memcmp(ref.data(), a.p, SZ), 0);
	close(fd);
}

// Two pages of a memfd mapped in one order at a and swapped at b: the
// ends share pages at two distances, where no order of copying gives
// memmove's result.  Refused, and nothing is written.
TEST(Identity, PagesSharedAtTwoDistancesRefused)
{
	int fd = memfd_create("hlipc-identity3", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, 2 * PG), 0);
	Map a(2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	Map b(2 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS);
	ASSERT_TRUE(a.p && b.p);
	ASSERT_NE(mmap(b.p, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, PG),
		  MAP_FAILED);
	ASSERT_NE(mmap(b.p + PG, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0),
		  MAP_FAILED);
	fill(a.p, 2 * PG, 5);
	std::vector<uint8_t> before(a.p, a.p + 2 * PG);
	Ctx c;
	uint64_t ka = 0, kb = 0;
	ASSERT_EQ(reg_user(c.fd, a.p, 2 * PG, RW, &ka), 0);
	ASSERT_EQ(reg_user(c.fd, b.p, 2 * PG, RW, &kb), 0);
	EXPECT_EQ(copy(c.fd, c.ch, ka, 0, kb, 0, 2 * PG), -EINVAL);
	uint64_t seq = 0;
	int32_t status = 0;
	ASSERT_EQ(copy(c.fd, c.ch, ka, 0, kb, 0, 2 * PG, HL_IPC_COPY_ASYNC, &seq), 0);
	ASSERT_EQ(wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
	EXPECT_EQ(status, -EINVAL);
	EXPECT_EQ(memcmp(before.data(), a.p, 2 * PG), 0);
	// One page each way is a plain shift, and fine.
	EXPECT_EQ(copy(c.fd, c.ch, ka, 0, kb, 0, PG), 0);
	EXPECT_EQ(memcmp(a.p + PG, a.p, PG), 0);
	close(fd);
}

// Copies between two names of one memory, every offset and path: the
// result is memmove's on the memory both name.  a and b are cookies of
// regions whose byte 0 lies at byte a0 and b0 of mem (len bytes seen).
void expect_memmove(const Ctx &c, uint8_t *mem, size_t len, uint64_t a, size_t a0,
		    uint64_t b, size_t b0, size_t n)
{
	for (long shift : {1L, 8L, 4096L, 5000L, -1L, -4096L, -9000L}) {
		for (Path p : {Path::Small, Path::Sync, Path::Async}) {
			const size_t cn = p == Path::Small ? 3000 : n;
			// Byte from (of mem) goes to mem byte from + shift.
			const size_t from = 32768;
			const size_t to = static_cast<size_t>(static_cast<long>(from) + shift);
			ASSERT_GE(from, a0);
			ASSERT_GE(to, b0);
			ASSERT_LE(std::max(from, to) + cn, len);
			fill(mem, len, static_cast<uint32_t>(shift + 11));
			std::vector<uint8_t> ref(mem, mem + len);
			memmove(ref.data() + to, ref.data() + from, cn);
			uint64_t seq = 0;
			int32_t status = 0;
			if (p != Path::Async) {
				ASSERT_EQ(copy(c.fd, c.ch, a, from - a0, b, to - b0, cn), 0);
			} else {
				ASSERT_EQ(copy(c.fd, c.ch, a, from - a0, b, to - b0, cn,
					       HL_IPC_COPY_ASYNC, &seq), 0);
				ASSERT_EQ(wait(c.fd, c.ch, seq, HL_IPC_WAIT_INFINITE, &status), 0);
				ASSERT_EQ(status, 0);
			}
			ASSERT_EQ(memcmp(ref.data(), mem, len), 0)
				<< "shift " << shift << ", " << path_name(p);
		}
	}
}

// Two dma-bufs exported from one device allocation at different offsets
// are one memory: copies between them move as memmove does, in both
// directions, although nothing but the pages says so.
TEST(Identity, TwoExportsOfOneAllocation)
{
	if (!kind_available(Kind::Sim))
		GTEST_SKIP() << "no habanalabs_sim device";
	constexpr size_t SZ = 64 * PG, OFF = 4 * PG;
	Buffer buf;
	ASSERT_EQ(alloc(Kind::Sim, SZ, &buf), 0);
	int second = sim_export(buf, O_RDWR | O_CLOEXEC, OFF);
	ASSERT_GE(second, 0);
	Ctx c;
	uint64_t whole = 0, tail = 0;
	ASSERT_EQ(reg_dmabuf(c.fd, buf.dmabuf, RW, &whole), 0);
	ASSERT_EQ(reg_dmabuf(c.fd, second, RW, &tail), 0);
	close(second);
	expect_memmove(c, buf.ptr, SZ, whole, 0, tail, OFF, 6 * PG);
	expect_memmove(c, buf.ptr, SZ, tail, OFF, whole, 0, 6 * PG);
}

// A user region over the mmap of a dma-buf is the dma-buf's memory,
// whichever was registered first.
TEST(Identity, UserRegionOverADmaBufMapping)
{
	if (!kind_available(Kind::Sim))
		GTEST_SKIP() << "no habanalabs_sim device";
	constexpr size_t SZ = 64 * PG;
	for (bool user_first : {false, true}) {
		Buffer buf;
		ASSERT_EQ(alloc(Kind::Sim, SZ, &buf), 0);
		Ctx c;
		uint64_t dk = 0, uk = 0;
		if (user_first) {
			ASSERT_EQ(reg_user(c.fd, buf.ptr, SZ, RW, &uk), 0);
		}
		ASSERT_EQ(reg_dmabuf(c.fd, buf.dmabuf, RW, &dk), 0);
		if (!user_first) {
			ASSERT_EQ(reg_user(c.fd, buf.ptr, SZ, RW, &uk), 0);
		}
		SCOPED_TRACE(user_first ? "user region first" : "dma-buf region first");
		expect_memmove(c, buf.ptr, SZ, dk, 0, uk, 0, 6 * PG);
		expect_memmove(c, buf.ptr, SZ, uk, 0, dk, 0, 6 * PG);
	}
}

}  // namespace
