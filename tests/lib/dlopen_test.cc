// SPDX-License-Identifier: MIT
// The library can be loaded with dlopen() in any process: it has no
// initial-exec thread-local storage (which needs room in the static TLS
// block that dlopen() may not find: "cannot allocate memory in static TLS
// block"), and its thread-local state works in threads of the loading
// process.  Host test; the executable does not link the library.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <thread>
#include <vector>

namespace {

// DT_FLAGS of a shared object, read from its file.
uint64_t dt_flags(const char *path)
{
	std::ifstream f(path, std::ios::binary);
	std::vector<char> b((std::istreambuf_iterator<char>(f)), {});
	if (b.size() < sizeof(Elf64_Ehdr))
		return ~0ull;
	auto *eh = reinterpret_cast<const Elf64_Ehdr *>(b.data());
	for (int i = 0; i < eh->e_phnum; i++) {
		auto *ph = reinterpret_cast<const Elf64_Phdr *>(
			b.data() + eh->e_phoff + i * eh->e_phentsize);
		if (ph->p_type != PT_DYNAMIC)
			continue;
		for (auto *d = reinterpret_cast<const Elf64_Dyn *>(b.data() + ph->p_offset);
		     d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_FLAGS)
				return d->d_un.d_val;
		return 0;
	}
	return ~0ull;
}

}  // namespace

TEST(Dlopen, NoStaticTlsAndThreadsWork)
{
	EXPECT_EQ(dt_flags(HLTHUNK_LIBRARY) & DF_STATIC_TLS, 0u)
		<< "initial-exec TLS in " HLTHUNK_LIBRARY;
	void *h = dlopen(HLTHUNK_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NE(h, nullptr) << dlerror();
	using Copy = int (*)(uint32_t, int, int, void *, void *, size_t);
	using LastError = const char *(*)();
	auto copy = reinterpret_cast<Copy>(dlsym(h, "hlthunk_ipc_channel_copy"));
	auto last = reinterpret_cast<LastError>(dlsym(h, "hlthunk_ipc_last_error"));
	ASSERT_TRUE(copy && last);
	// Both touch thread-local state (the copy memo, the last error), in
	// threads the library never saw created.
	std::vector<std::thread> ts;
	std::vector<int> rcs(4, 0);
	for (int i = 0; i < 4; i++)
		ts.emplace_back([&, i] {
			rcs[i] = copy(1000 + i, -1, -1, nullptr, nullptr, 8);
			if (!*last())
				rcs[i] = 1;
		});
	for (auto &t : ts)
		t.join();
	for (int rc : rcs)
		EXPECT_LT(rc, 0);
	EXPECT_EQ(dlclose(h), 0);
}
