// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

/* expect: 7: MARK() in entry code: markers must not be used there */
void sample_syscall(long nr)
{
	MARK(sample_syscall_entry, "nr %ld", nr);
}
