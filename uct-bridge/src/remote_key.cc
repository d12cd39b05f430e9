// SPDX-License-Identifier: MIT
#include "remote_key.h"

#include <unistd.h>

#include <memory>

#include "device_index.h"
#include "hlthunk.h"
#include "status.h"

namespace gaudi_ipc {

namespace {

// Whether this process may use the owner's cookie: the kernel decides
// (revoked, another user's), and the region must hold the range.
bool cookie_usable(const RkeyFields &f)
{
	struct hlthunk_ipc_region_info info;
	int rc = hlthunk_ipc_query_cookie(f.cookie, &info);
	if (rc < 0) {
		ucs_debug("gaudi_ipc: remote key of pid %u: cookie 0x%" PRIx64
			  " not usable by channels: %s",
			  f.owner.pid, f.cookie, library_message(rc));
		return false;
	}
	if (f.cookie_offset > info.size || f.length > info.size - f.cookie_offset) {
		ucs_debug("gaudi_ipc: remote key of pid %u: range beyond its region "
			  "(%" PRIu64 "+%" PRIu64 " > %" PRIu64 ")",
			  f.owner.pid, f.cookie_offset, f.length, info.size);
		return false;
	}
	return true;
}

}  // namespace

ucs_status_t check_remote(const RemoteKey &rk, uint64_t remote_addr, uint64_t len, bool put)
{
	if (!rk.f.covers(remote_addr, len)) {
		ucs_error("gaudi_ipc: remote range 0x%" PRIx64 "+%" PRIu64 " is outside "
			  "the registration 0x%" PRIx64 "+%" PRIu64 " of its key",
			  remote_addr, len, rk.f.addr, rk.f.length);
		return UCS_ERR_INVALID_PARAM;
	}
	if (put && !rk.f.writable()) {
		ucs_error("gaudi_ipc: remote memory at 0x%" PRIx64 " is read-only", remote_addr);
		return UCS_ERR_REJECTED;
	}
	return UCS_OK;
}

ucs_status_t rkey_unpack(uct_component_t *, const void *buffer, uct_rkey_t *rkey_p,
			 void **handle_p)
{
	return guarded([&]() -> ucs_status_t {
		RkeyFields f;
		if (!buffer) {
			ucs_error("gaudi_ipc: no remote key to unpack (NULL)");
			return UCS_ERR_INVALID_PARAM;
		}
		switch (parse_rkey(buffer, this_node(), &f)) {
		case RkeyCheck::Corrupt:
			ucs_error("gaudi_ipc: remote key is corrupt (bad magic, version, "
				  "checksum or fields): it was not packed by this transport's "
				  "uct_md_mkey_pack, or was damaged in transit");
			return UCS_ERR_INVALID_PARAM;
		case RkeyCheck::OtherNode:
			ucs_debug("gaudi_ipc: remote key from another node, boot or pid "
				  "namespace: unreachable");
			return UCS_ERR_UNREACHABLE;
		case RkeyCheck::Ok:
			break;
		}
		auto k = std::make_unique<RemoteKey>();
		k->f = f;
		// A device this node does not have is no device: such a key
		// is not for channels (and adds nothing to the device table).
		k->dev = known_device_index(f.bus);
		// What an interface may use of it is its own choice
		// (UCX_GAUDI_IPC_CHANNELS); here: what can reach the memory at all.
		k->channel_ok = f.has_cookie() && k->dev != kNoDevice && cookie_usable(f);
		// The staged path needs the owner to run as this user; the kernel
		// says so when the path connects (admission.h).  Here, only an
		// early word from /proc, so that a key nobody can serve is
		// unreachable at once.
		const bool alive = process_alive(f.owner);
		const bool same_user = alive && process_uid(f.owner.pid) == geteuid();
		k->staged_ok = f.staged() && same_user;
		if (!k->channel_ok && !k->staged_ok) {
			ucs_debug("gaudi_ipc: remote key of pid %u unreachable: channels "
				  "cannot use its cookie, and for the staged path %s",
				  f.owner.pid,
				  !f.staged() ? "it has no key"
				  : !alive    ? "its owner has exited"
					      : "its owner runs as another user");
			return UCS_ERR_UNREACHABLE;
		}
		*rkey_p = reinterpret_cast<uct_rkey_t>(k.release());
		*handle_p = nullptr;
		return UCS_OK;
	});
}

ucs_status_t rkey_release(uct_component_t *, uct_rkey_t rkey, void *)
{
	std::unique_ptr<const RemoteKey> k(remote_key(rkey));
	return UCS_OK;
}

}  // namespace gaudi_ipc
