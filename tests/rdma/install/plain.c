/* SPDX-License-Identifier: MIT */
/* A libhlthunk user that does no RDMA: it must not load libibverbs. */
#include <stdio.h>
#include <string.h>

#include <hlthunk.h>

int main(void)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (hlthunk_get_device_name_from_fd(-1) != HLTHUNK_DEVICE_INVALID)
		return 1;
	if (!maps)
		return 1;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "libibverbs")) {
			fprintf(stderr, "plain: libibverbs is loaded\n");
			return 1;
		}
	fclose(maps);
	printf("plain: ok\n");
	return 0;
}
