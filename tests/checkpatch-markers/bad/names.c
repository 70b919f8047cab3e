// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

/*
 * expect: 11: "SampleWakeup" is not an identifier of the form subsystem_event
 * expect: 12: "wakeup" is not an identifier of the form subsystem_event
 * expect: 13: "9sample_late" is not an identifier
 */
void names(int v)
{
	MARK(SampleWakeup, "%d", v);
	MARK(wakeup, "%d", v);
	MARK(9sample_late, "%d", v);
}
