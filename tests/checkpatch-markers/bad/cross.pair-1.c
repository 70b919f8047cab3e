// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

void cross_one(long v)
{
	MARK(sample_cross, "%ld", v);
}
