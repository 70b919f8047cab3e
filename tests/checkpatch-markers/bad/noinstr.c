// SPDX-License-Identifier: GPL-2.0
#include <linux/instrumentation.h>
#include <linux/marker.h>

/*
 * expect: 11: MARK() in noinstr code: markers must not be used there
 * expect: 12: _MARK() in noinstr code: markers must not be used there
 */
noinstr void sample_enter(int v)
{
	MARK(sample_enter_noinstr, "%d", v);
	_MARK(sample_enter_plain, "%d", v);
}
