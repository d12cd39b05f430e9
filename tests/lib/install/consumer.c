/* SPDX-License-Identifier: MIT */
/* Built against an installed libhlthunk by the install test. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hlthunk.h>

int main(void)
{
	const char *m = hlthunk_ipc_strerror(-EBUSY);
	if (!m || !strstr(m, "busy")) {
		fprintf(stderr, "consumer: unexpected message\n");
		return 1;
	}
	/* No device is behind /dev/null: the hl-thunk failure convention. */
	if (hlthunk_get_device_name_from_fd(-1) != HLTHUNK_DEVICE_INVALID)
		return 1;
	printf("consumer: ok\n");
	return 0;
}
