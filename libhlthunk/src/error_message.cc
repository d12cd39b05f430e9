// SPDX-License-Identifier: MIT
#include "error_message.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hlthunk {

namespace {

const char *open_ipc_message(int e)
{
	switch (e) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "/dev/hl_ipc does not exist: the habanalabs_ipc kernel "
		       "module is not loaded; load it with 'modprobe "
		       "habanalabs_ipc' (or check 'hl-ipc' and dmesg)";
	case EACCES:
	case EPERM:
		return "no permission to open /dev/hl_ipc: add the user to "
		       "group 'hl' (usermod -aG hl USER, then log in again); "
		       "if the node is not group hl, the udev rules of "
		       "hl-ipc-tools are not installed or not applied";
	case EMFILE:
	case ENFILE:
		return "too many open files: raise 'ulimit -n' or close unused "
		       "file descriptors";
	default:
		return nullptr;
	}
}

const char *open_device_message(int e)
{
	switch (e) {
	case EBUSY:
		return "the device is busy: another process has its compute "
		       "node open (only one may); use another device, stop "
		       "that process, or open the control node instead";
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "no such device: no habanalabs device matched (is the "
		       "driver, or habanalabs_sim, loaded? is "
		       "HLTHUNK_DEVICE_KIND too narrow?)";
	case EACCES:
	case EPERM:
		return "no permission on the device node: add the user to "
		       "group 'hl' (usermod -aG hl USER, then log in again), "
		       "which the udev rules of hl-ipc-tools give the nodes to";
	default:
		return nullptr;
	}
}

const char *generic_message(int e)
{
	switch (e) {
	case EBADF:
		return "bad file descriptor: the fd is closed or was never open";
	case ENOTTY:
		return "the fd is not a device this call works on (wrong node, "
		       "or a file that is not a habanalabs device)";
	case EINVAL:
		return "invalid argument: a size, flag or reserved field is "
		       "wrong, or the fd belongs to another device";
	case ENOENT:
		return "no such object: the cookie, channel or handle does not "
		       "exist (already destroyed or never created)";
	case EFAULT:
		return "address not mapped: the device address is not inside a "
		       "mapping made with hlthunk_device_memory_map, "
		       "hlthunk_host_memory_map or hlthunk_ipc_import on this fd";
	case ERANGE:
	case EOVERFLOW:
		return "range overflow: offset + length runs past the end of "
		       "the allocation or region";
	case EPERM:
	case EACCES:
		return "permission denied: the region belongs to another user "
		       "(its owner must register it for any user) or does not "
		       "allow this access";
	case EOPNOTSUPP:
		return "not supported: the CPU cannot map this memory and no "
		       "DMA engine may reach it (none loaded, or the kernel "
		       "does not allow peer to peer between the devices: see "
		       "'hl-ipc status'); use the staged DMA path instead";
	case ENOMEM:
		return "out of memory (host or device)";
	case EINTR:
		return "interrupted by a signal";
	case ETIMEDOUT:
		return "timed out: the operation did not finish in time";
	case EBUSY:
		return "busy: the object is in use (device open elsewhere, or "
		       "copies still in flight)";
	case ENODEV:
		return "no such device";
	case EIO:
		return "I/O error: the device or the copy failed";
	case ESRCH:
		return "the peer that owned the region went away";
	case E2BIG:
		return "too many at once: more copies in one batch than the "
		       "kernel takes (see max_batch of hlthunk_ipc_query)";
	default:
		return nullptr;
	}
}

}  // namespace

const char *error_message(Op op, int err)
{
	int e = err < 0 ? -err : err;
	const char *m = nullptr;

	if (e == 0)
		return "success";
	if (op == Op::OpenIpc)
		m = open_ipc_message(e);
	else if (op == Op::OpenDevice || op == Op::Discover)
		m = open_device_message(e);
	if (!m)
		m = generic_message(e);
	return m ? m : "unexpected error (see strerror and the kernel log)";
}

void format_failure(char *buf, size_t len, Op op, const char *what,
		    int err) noexcept
{
	int e = err < 0 ? -err : err;
	const char *name = strerrorname_np(e);
	if (name)
		snprintf(buf, len, "%s: %s (%s)", what, error_message(op, err), name);
	else
		snprintf(buf, len, "%s: %s (errno %d)", what, error_message(op, err), e);
}

std::string describe_failure(Op op, const std::string &what, int err)
{
	char buf[512];
	format_failure(buf, sizeof(buf), op, what.c_str(), err);
	return buf;
}

}  // namespace hlthunk
