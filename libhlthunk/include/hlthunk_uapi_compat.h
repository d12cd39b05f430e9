/* SPDX-License-Identifier: MIT */
/*
 * hlthunk_uapi_compat.h - what hlthunk.h needs of the habanalabs uapi and
 * a system header older than Linux 6.2's drm/habanalabs_accel.h lacks
 * (Debian 12's linux-libc-dev has the misc/habanalabs.h of Linux 6.1).
 * Each addition is made only where the header in use has no such name, so
 * nothing the system defines is defined again.  Included by hlthunk.h,
 * after the uapi.
 */
#ifndef HLTHUNK_UAPI_COMPAT_H
#define HLTHUNK_UAPI_COMPAT_H

/* struct hlthunk_event_record_razwi_event (Linux 6.2) */
#ifndef HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR
#define HL_RAZWI_MAX_NUM_OF_ENGINES_PER_RTR	128
#endif

/*
 * struct hlthunk_event_record_critical_fw_err: the firmware error types
 * came with HL_INFO_FW_ERR_EVENT (Linux 6.4).
 */
#ifndef HL_INFO_FW_ERR_EVENT
enum hl_info_fw_err_type {
	HL_INFO_FW_HEARTBEAT_ERR = 0,
	HL_INFO_FW_REPORTED_ERR = 1,
};
#endif

/*
 * hlthunk_engines_command(): older headers have the two engine core
 * commands as macros of the same values and no enum; the enum brings the
 * engine commands that came with HL_CS_FLAGS_ENGINES_COMMAND.
 */
#ifdef HL_ENGINE_CORE_HALT
enum hl_engine_command {
	HL_ENGINE_STALL = 3,
	HL_ENGINE_RESUME = 4,
	HL_ENGINE_COMMAND_MAX = 5,
};
#endif

#endif /* HLTHUNK_UAPI_COMPAT_H */
