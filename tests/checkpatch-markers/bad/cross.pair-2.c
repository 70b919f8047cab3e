// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

/* expect: 7: marker sample_cross has format "%d" here, "%ld" at */
void cross_two(int v)
{
	MARK(sample_cross, "%d", v);
}
