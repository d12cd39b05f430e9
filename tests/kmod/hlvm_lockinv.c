// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: it takes two mutexes in one order and then
 * in the other.  One thread never deadlocks on this, so the bug goes
 * unnoticed on a kernel without lockdep; on the debug kernel the VM
 * harness's self-test expects lockdep's report to fail the run.
 */
#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(hlvm_lock_a);
static DEFINE_MUTEX(hlvm_lock_b);

static int __init hlvm_lockinv_init(void)
{
	mutex_lock(&hlvm_lock_a);
	mutex_lock(&hlvm_lock_b);
	mutex_unlock(&hlvm_lock_b);
	mutex_unlock(&hlvm_lock_a);

	mutex_lock(&hlvm_lock_b);
	mutex_lock(&hlvm_lock_a);
	mutex_unlock(&hlvm_lock_a);
	mutex_unlock(&hlvm_lock_b);
	return 0;
}

static void __exit hlvm_lockinv_exit(void)
{
}

module_init(hlvm_lockinv_init);
module_exit(hlvm_lockinv_exit);

MODULE_DESCRIPTION("VM harness self-test: lock order inversion at load");
MODULE_LICENSE("GPL");
