// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

/* expect: 10: marker sample_twice has format "%u" here, "%d" at */
void two_formats(int v)
{
	MARK(sample_twice, "%d", v);
	if (v)
		return;
	MARK(sample_twice, "%u", v);
}
