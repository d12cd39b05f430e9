/* SPDX-License-Identifier: MIT */
/* Built against an installed libhlthunk-verbs by the install test. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hlthunk_verbs.h>

int main(void)
{
	struct hlthunk_verbs_mr *mr = NULL;

	/* No PD: a clear error, errno set, nothing returned. */
	if (hlthunk_verbs_reg_device_memory(NULL, -1, 0, 4096, 0, 0, &mr) !=
		    -EINVAL ||
	    errno != EINVAL || mr) {
		fprintf(stderr, "consumer: unexpected result\n");
		return 1;
	}
	if (!strstr(hlthunk_verbs_last_error(), "no protection domain")) {
		fprintf(stderr, "consumer: message '%s'\n",
			hlthunk_verbs_last_error());
		return 1;
	}
	if (strcmp(hlthunk_verbs_path_name(HLTHUNK_VERBS_PATH_DMABUF), "dmabuf"))
		return 1;
	printf("consumer: ok\n");
	return 0;
}
