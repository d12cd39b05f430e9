// SPDX-License-Identifier: MIT
// How many bytes the driver maps for an allocation: the size rounded up to
// the allocation's page size, which is the caller's only if the device
// lets users choose (it reports the page sizes it accepts), else the
// device's default.
#pragma once

#include <cstdint>
#include <optional>

namespace hlthunk {

// std::nullopt if the rounded size does not fit in 64 bits or no page size
// is known (the driver refuses such an allocation anyway).
inline std::optional<uint64_t> allocation_span(uint64_t size, uint64_t page_size,
					       uint64_t default_page,
					       uint64_t page_orders)
{
	uint64_t page = page_size && page_orders ? page_size : default_page;
	if (!page)
		return std::nullopt;
	uint64_t pages = size / page + (size % page != 0);
	if (pages > UINT64_MAX / page)
		return std::nullopt;
	return pages * page;
}

}  // namespace hlthunk
