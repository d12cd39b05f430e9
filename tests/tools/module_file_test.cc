// SPDX-License-Identifier: MIT
// The build id hl-ipc status compares: read from a plain ELF file and from
// the same file xz-compressed (how DKMS installs modules for Debian's 6.12
// kernels), checked against readelf's reading of the file; unreadable
// files give no id rather than a wrong one.
#include <gtest/gtest.h>
#include <lzma.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tools/hl-ipc/kernel_module.h"
#include "tools/hl-ipc/module_file.h"

namespace {

std::string self_path()
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	return n > 0 ? std::string(buf, n) : "";
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return std::string(std::istreambuf_iterator<char>(f), {});
}

void spit(const std::string &path, const std::string &data)
{
	std::ofstream f(path, std::ios::binary | std::ios::trunc);
	f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

std::string xz(const std::string &in)
{
	std::vector<uint8_t> out(lzma_stream_buffer_bound(in.size()));
	size_t pos = 0;
	EXPECT_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC32, nullptr,
					  reinterpret_cast<const uint8_t *>(in.data()),
					  in.size(), out.data(), &pos, out.size()),
		  LZMA_OK);
	return std::string(reinterpret_cast<char *>(out.data()), pos);
}

// readelf's "Build ID: <hex>", an independent reading of the note.
std::string readelf_build_id(const std::string &path)
{
	std::string cmd = "readelf -n '" + path + "' 2>/dev/null";
	FILE *p = popen(cmd.c_str(), "r");
	if (!p)
		return "";
	std::string id;
	char line[512];
	while (fgets(line, sizeof(line), p)) {
		char hex[256];
		if (sscanf(line, " Build ID: %255s", hex) == 1)
			id = hex;
	}
	pclose(p);
	return id;
}

class ModuleFile : public ::testing::Test {
protected:
	void SetUp() override
	{
		char tmpl[] = "/tmp/hl-module-file.XXXXXX";
		ASSERT_NE(mkdtemp(tmpl), nullptr);
		dir_ = tmpl;
		elf_ = slurp(self_path());
		ASSERT_GT(elf_.size(), 4u);
	}
	void TearDown() override
	{
		for (auto &f : files_)
			unlink(f.c_str());
		rmdir(dir_.c_str());
	}
	std::string put(const std::string &name, const std::string &data)
	{
		std::string p = dir_ + "/" + name;
		spit(p, data);
		files_.push_back(p);
		return p;
	}
	std::string dir_, elf_;
	std::vector<std::string> files_;
};

TEST_F(ModuleFile, PlainAndXzGiveReadelfsBuildId)
{
	std::string ko = put("m.ko", elf_);
	std::string want = readelf_build_id(ko);
	ASSERT_FALSE(want.empty()) << "this test program has no GNU build id";
	EXPECT_EQ(hlipc::elf_build_id(ko), want);
	std::string kxz = put("m.ko.xz", xz(elf_));
	EXPECT_EQ(hlipc::read_module_image(kxz, 64 << 20), elf_);
	EXPECT_EQ(hlipc::elf_build_id(kxz), want);
}

TEST_F(ModuleFile, UnreadableFilesGiveNoId)
{
	std::string packed = xz(elf_);
	EXPECT_EQ(hlipc::elf_build_id(put("trunc.ko.xz", packed.substr(0, packed.size() / 2))), "");
	std::string bad = packed;
	bad[bad.size() / 2] ^= 0x55;
	EXPECT_EQ(hlipc::elf_build_id(put("bad.ko.xz", bad)), "");
	EXPECT_EQ(hlipc::elf_build_id(put("m.ko.gz", std::string("\x1f\x8b\x08\x00", 4) + elf_)), "");
	EXPECT_EQ(hlipc::elf_build_id(put("m.ko.zst", std::string("\x28\xb5\x2f\xfd", 4) + elf_)), "");
	EXPECT_EQ(hlipc::elf_build_id(put("empty.ko", "")), "");
	EXPECT_EQ(hlipc::elf_build_id(put("short.ko", "\x7f" "ELF")), "");
	EXPECT_EQ(hlipc::elf_build_id(dir_ + "/missing.ko"), "");
	EXPECT_EQ(hlipc::elf_build_id(dir_), "");  // a directory
}

TEST_F(ModuleFile, ImageIsBoundedByMax)
{
	std::string kxz = put("m.ko.xz", xz(elf_));
	EXPECT_EQ(hlipc::read_module_image(kxz, 100), elf_.substr(0, 100));
}

}  // namespace
