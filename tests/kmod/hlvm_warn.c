// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: it warns when loaded.  The VM harness's
 * self-test loads it and expects the harness to fail the run.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init hlvm_warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit hlvm_warn_exit(void)
{
}

module_init(hlvm_warn_init);
module_exit(hlvm_warn_exit);

MODULE_DESCRIPTION("VM harness self-test: warns at load");
MODULE_LICENSE("GPL");
