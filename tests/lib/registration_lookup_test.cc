// SPDX-License-Identifier: MIT
// RegistrationCache::holders_of: which devices map an address.
#include "registration_cache.h"

#include <gtest/gtest.h>

using namespace hlthunk;

namespace {

const DeviceKey kDev0{1, 0}, kDev1{1, 1};

RegistrationCache make_cache()
{
	// Nothing here registers (no Host mapping is added), so the kernel
	// stand-ins are never called.
	return RegistrationCache(
		[](const MappingDesc &, int, Access) -> Result<uint64_t> {
			return Err{-EIO};
		},
		[](uint64_t) {}, [](int, const FileId &) { return -EBADF; });
}

MappingDesc mapping(DeviceKey dev, uint64_t va, uint64_t size, MappingKind kind)
{
	return MappingDesc{dev, va, size, kind, 1, 0, 77, -1, FileId{}};
}

TEST(HoldersOf, FindsTheOneDeviceThatMapsAnAddress)
{
	auto cache = make_cache();
	ASSERT_TRUE(cache.add(mapping(kDev0, 0x1000, 0x3000, MappingKind::Device)));
	ASSERT_TRUE(cache.add(mapping(kDev1, 0x8000, 0x1000, MappingKind::Device)));
	auto h = cache.holders_of(0x2000, 0x2000);
	ASSERT_EQ(h.size(), 1u);
	EXPECT_EQ(h[0].desc.dev, kDev0);
	EXPECT_EQ(h[0].desc.va, 0x1000u);
	EXPECT_TRUE(h[0].fits);
	// Runs past the end of the mapping.
	h = cache.holders_of(0x2000, 0x2001);
	ASSERT_EQ(h.size(), 1u);
	EXPECT_FALSE(h[0].fits);
	h = cache.holders_of(0x8fff, 1);
	ASSERT_EQ(h.size(), 1u);
	EXPECT_EQ(h[0].desc.dev, kDev1);
	EXPECT_TRUE(cache.holders_of(0x4000, 1).empty());
	EXPECT_TRUE(cache.holders_of(0x0fff, 1).empty());
}

TEST(HoldersOf, SameAddressOnTwoDevicesAndImportsIgnored)
{
	auto cache = make_cache();
	ASSERT_TRUE(cache.add(mapping(kDev0, 0x1000, 0x1000, MappingKind::Device)));
	ASSERT_TRUE(cache.add(mapping(kDev1, 0x1000, 0x1000, MappingKind::Device)));
	EXPECT_EQ(cache.holders_of(0x1800, 1).size(), 2u);
	// An imported peer region is no memory of this process.
	ASSERT_TRUE(cache.add(mapping(kDev0, 0x10000, 0x1000, MappingKind::Imported)));
	EXPECT_TRUE(cache.holders_of(0x10000, 1).empty());
	// Gone with its mapping.
	cache.remove_mapping(kDev1, 0x1000);
	EXPECT_EQ(cache.holders_of(0x1800, 1).size(), 1u);
}

}  // namespace
