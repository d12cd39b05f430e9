// SPDX-License-Identifier: MIT
#include "status.h"

#include <cerrno>
#include <cstring>

#include "hlthunk.h"

namespace gaudi_ipc {

ucs_status_t status_from_errno(int err)
{
	switch (-err) {
	case 0:
		return UCS_OK;
	case ENOMEM:
		return UCS_ERR_NO_MEMORY;
	case EINVAL:
	case EEXIST:  // an address two devices map
	case ERANGE:
	case EOVERFLOW:
	case EBADF:
	case ENOTTY:
		return UCS_ERR_INVALID_PARAM;
	case ENOENT:
	case EFAULT:
		// A cookie, key or address the kernel or peer no longer knows:
		// memory deregistered or freed, or a stale remote key.
		return UCS_ERR_INVALID_ADDR;
	case EACCES:
	case EPERM:
	case EROFS:
		return UCS_ERR_REJECTED;
	case ENODEV:
	case ENXIO:
		return UCS_ERR_NO_DEVICE;
	case EOPNOTSUPP:
		return UCS_ERR_UNSUPPORTED;
	case EBUSY:
		return UCS_ERR_BUSY;
	case EAGAIN:
	case ENOSPC:
	case E2BIG:
		return UCS_ERR_NO_RESOURCE;
	case ECANCELED:
		return UCS_ERR_CANCELED;
	case ETIMEDOUT:
		return UCS_ERR_TIMED_OUT;
	case ESRCH:
	case ECONNRESET:
	case EPIPE:
		return UCS_ERR_CONNECTION_RESET;
	default:
		return UCS_ERR_IO_ERROR;
	}
}

const char *library_message(int err)
{
	const char *m = hlthunk_ipc_last_error();
	if (m && *m)
		return m;
	return strerror(err < 0 ? -err : err);
}

}  // namespace gaudi_ipc

namespace gaudi_ipc {

const char *staged_message(int err)
{
	switch (-err) {
	case ENOENT:
		return "the peer has no such registration (deregistered, or the key "
		       "is stale)";
	case EFAULT:
		return "the memory is not mapped any more (freed or unmapped after "
		       "it was registered)";
	case EROFS:
		return "the peer's memory is registered read-only";
	case ERANGE:
		return "the range is outside the peer's registration";
	case EBADF:
		return "the device fd the memory was mapped on is closed";
	case ETIMEDOUT:
		return "a DMA transfer did not finish within UCX_GAUDI_IPC_DMA_TIMEOUT";
	case EIO:
		return "the device aborted a DMA transfer";
	case EPROTO:
		return "the peer's mailbox was changed under the piece (the slot is no "
		       "longer this process's, or the answer in it is no errno)";
	case EINVAL:
		return "the peer found the request impossible (operation or length)";
	case ENOMEM:
		return "out of memory, or the staging memory could not be pinned for "
		       "the device: it counts against RLIMIT_MEMLOCK (ulimit -l) of both "
		       "processes; raise that, or lower UCX_GAUDI_IPC_STAGING_SLOTS x "
		       "STAGING_SIZE on the peer";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

}  // namespace gaudi_ipc
