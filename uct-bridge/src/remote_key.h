// SPDX-License-Identifier: MIT
// An unpacked remote key (uct_rkey_t): the checked fields of the packed
// key and which paths can reach the memory from this process.  UCX's
// rkey_unpack gets no memory domain and no interface, so what it finds out
// is kept here, per key.
#pragma once

#include "rkey_format.h"
#include "ucx.h"

namespace gaudi_ipc {

struct RemoteKey {
	RkeyFields f;
	int dev;          // device_index(f.bus): where the memory lives
	bool channel_ok;  // the cookie is usable here (checked with the kernel)
	bool staged_ok;   // the owner offers the staged path and runs
};

inline const RemoteKey *remote_key(uct_rkey_t rkey)
{
	return reinterpret_cast<const RemoteKey *>(rkey);
}

// Whether [remote_addr, remote_addr + len) lies inside the key's range,
// and may be written (put); logs and says why not.  The key is its
// holder's word: the kernel (for cookies) and the owner (for staging
// keys) check again what it grants.
ucs_status_t check_remote(const RemoteKey &rk, uint64_t remote_addr, uint64_t len, bool put);

ucs_status_t rkey_unpack(uct_component_t *component, const void *buffer,
			 uct_rkey_t *rkey_p, void **handle_p);
ucs_status_t rkey_release(uct_component_t *component, uct_rkey_t rkey,
			  void *handle);

}  // namespace gaudi_ipc
