// SPDX-License-Identifier: MIT
// One HL_IOCTL_INFO query: the opcode, its argument, a result buffer.
#pragma once

#include <cstring>

#include "dev_ioctl.h"
#include "result.h"

namespace hlthunk {

// The INFO ioctl for op into *out (zeroed first); 0 or a negative errno.
// arg goes into the union of hl_info_args (dcore_id, pll_index, ...).
template <typename T>
int info_query(int fd, uint32_t op, T *out, uint32_t arg = 0)
{
	struct hl_info_args a;
	memset(&a, 0, sizeof(a));
	memset(out, 0, sizeof(*out));
	a.op = op;
	a.return_pointer = reinterpret_cast<uintptr_t>(out);
	a.return_size = sizeof(*out);
	a.dcore_id = arg;
	return hl_info(fd, &a);
}

// HL_INFO_HW_IP_INFO.
inline Result<struct hl_info_hw_ip_info> hw_ip_of(int fd)
{
	struct hl_info_hw_ip_info hw;
	int rc = info_query(fd, HL_INFO_HW_IP_INFO, &hw);
	if (rc < 0)
		return Err{rc};
	return hw;
}

}  // namespace hlthunk
