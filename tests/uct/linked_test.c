/* SPDX-License-Identifier: MIT */
/* A program linked with libuct_gaudi_ipc.so (one of the ways to load the
 * transport): UCX lists the component, and its memory domain opens and
 * registers host memory (on the host, without /dev/hl_ipc: for the staged
 * path only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uct/api/uct.h>

int main(void)
{
	uct_component_h *comps, gaudi = NULL;
	unsigned n, i;
	if (uct_query_components(&comps, &n) != UCS_OK)
		return 1;
	for (i = 0; i < n; i++) {
		uct_component_attr_t a;
		memset(&a, 0, sizeof(a));
		a.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME;
		if (uct_component_query(comps[i], &a) == UCS_OK &&
		    strcmp(a.name, "gaudi_ipc") == 0)
			gaudi = comps[i];
	}
	if (!gaudi) {
		fprintf(stderr, "linked_test: UCX does not list gaudi_ipc\n");
		return 1;
	}
	uct_md_config_t *cfg;
	uct_md_h md;
	if (uct_md_config_read(gaudi, NULL, NULL, &cfg) != UCS_OK ||
	    uct_md_open(gaudi, "gaudi_ipc", cfg, &md) != UCS_OK) {
		fprintf(stderr, "linked_test: cannot open the memory domain\n");
		return 1;
	}
	uct_config_release(cfg);
	static char buf[4096];
	uct_mem_h memh;
	ucs_status_t st = uct_md_mem_reg(md, buf, sizeof(buf), UCT_MD_MEM_ACCESS_ALL, &memh);
	if (st != UCS_OK) {
		fprintf(stderr, "linked_test: registering: %s\n", ucs_status_string(st));
		return 1;
	}
	uct_md_mem_dereg(md, memh);
	uct_md_close(md);
	uct_release_component_list(comps);
	printf("linked_test: gaudi_ipc registered by linking\n");
	return 0;
}
