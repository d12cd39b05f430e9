// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: it reads freed memory when loaded.  The
 * read itself goes unnoticed on a kernel without KASAN; on the debug
 * kernel the VM harness's self-test expects KASAN's report to fail the run.
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init hlvm_uaf_init(void)
{
	u8 *p = kmalloc(64, GFP_KERNEL);
	u8 v;

	if (!p)
		return -ENOMEM;
	p[8] = 0x5a;
	kfree(p);
	/* Keep the compiler from seeing (and warning about) the bug. */
	OPTIMIZER_HIDE_VAR(p);
	v = READ_ONCE(p[8]);
	pr_info("hlvm_uaf: read 0x%02x from freed memory\n", v);
	return 0;
}

static void __exit hlvm_uaf_exit(void)
{
}

module_init(hlvm_uaf_init);
module_exit(hlvm_uaf_exit);

MODULE_DESCRIPTION("VM harness self-test: use-after-free read at load");
MODULE_LICENSE("GPL");
