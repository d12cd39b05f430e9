// SPDX-License-Identifier: MIT
/*
 * The entry points whose arguments or result have an enumeration type.
 * They are C so that any value a caller passes (HLTHUNK_DEVICE_MAX + 7, a
 * negative status) is an ordinary int here: C++ may not even load an
 * enumeration object that holds no enumerator's value.  The work is done
 * by the C++ parts (c_bridge.h).
 */
#include "c_bridge.h"

hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
				const char *busid)
{
	hlt_shim_check();
	return hlt_functions()->fp_hlthunk_open(device_name, busid);
}

int hlt_open_original(enum hlthunk_device_name device_name, const char *busid)
{
	return hlt_open((int)device_name, busid);
}

hlthunk_public int hlthunk_open_control_by_name(enum hlthunk_device_name device_name,
						const char *busid)
{
	return hlt_open_control_by_name((int)device_name, busid);
}

hlthunk_public int hlthunk_get_device_count(enum hlthunk_device_name device_name)
{
	return hlt_device_count((int)device_name);
}

/* The status, or the negative errno of a failure in the same value (as
 * hl-thunk returns it). */
hlthunk_public enum hl_device_status hlthunk_get_device_status_info(int fd)
{
	return (enum hl_device_status)hlt_device_status(fd);
}

hlthunk_public int hlthunk_get_event_record(int fd,
					    enum hlthunk_event_record_id event_id,
					    void *buf)
{
	return hlt_event_record(fd, (int)event_id, buf);
}

hlthunk_public int hlthunk_engines_command(int fd, const uint32_t *engine_ids,
					   uint32_t num_engines,
					   enum hl_engine_command command)
{
	return hlt_engines_command(fd, engine_ids, num_engines, (int)command);
}
