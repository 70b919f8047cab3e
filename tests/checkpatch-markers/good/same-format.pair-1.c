// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

void pair_one(int v)
{
	MARK(pair_shared, "value %d", v);
}
