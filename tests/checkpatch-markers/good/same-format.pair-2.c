// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

void pair_two(int v)
{
	MARK(pair_shared, "value %d", v + 1);
}
