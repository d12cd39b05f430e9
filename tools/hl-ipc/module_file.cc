// SPDX-License-Identifier: MIT
#include "module_file.h"

#include <lzma.h>

#include <cstring>
#include <memory>

#include "sysfs.h"

namespace hlipc {

namespace {

const unsigned char kXzMagic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

struct LzmaStream {
	lzma_stream s = LZMA_STREAM_INIT;
	~LzmaStream() { lzma_end(&s); }
};

std::string xz_decode(const std::string &in, size_t max)
{
	LzmaStream z;
	if (lzma_stream_decoder(&z.s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return "";
	std::string out;
	auto buf = std::make_unique<uint8_t[]>(1 << 16);
	z.s.next_in = reinterpret_cast<const uint8_t *>(in.data());
	z.s.avail_in = in.size();
	for (;;) {
		z.s.next_out = buf.get();
		z.s.avail_out = 1 << 16;
		lzma_ret r = lzma_code(&z.s, LZMA_FINISH);
		out.append(reinterpret_cast<char *>(buf.get()),
			   (1 << 16) - z.s.avail_out);
		if (out.size() >= max) {
			out.resize(max);
			return out;
		}
		if (r == LZMA_STREAM_END)
			return out;
		if (r != LZMA_OK)
			return "";  // corrupt or truncated: no image rather than half of one
	}
}

}  // namespace

std::string read_module_image(const std::string &path, size_t max)
{
	// Compressed modules are a fraction of their ELF size; the same bound
	// on what is read keeps a bad path from filling memory.
	std::string f = read_blob(path, max);
	if (f.size() >= sizeof(kXzMagic) && !memcmp(f.data(), kXzMagic, sizeof(kXzMagic)))
		return xz_decode(f, max);
	if (f.size() >= 4 && !memcmp(f.data(), "\x7f" "ELF", 4))
		return f;
	return "";
}

}  // namespace hlipc
