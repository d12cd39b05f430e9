// SPDX-License-Identifier: GPL-2.0
/* vma->vm_flags became read-only behind vm_flags_set() in 6.3. */
#include <linux/mm.h>

static void probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_IO);
}
