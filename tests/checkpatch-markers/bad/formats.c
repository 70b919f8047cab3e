// SPDX-License-Identifier: GPL-2.0
#include <linux/marker.h>

static const char *sample_fmt = "%d";

/*
 * expect: 16: the format of sample_variable is not a string literal
 * expect: 17: the format of sample_missing has 2 conversions for 1 arguments
 * expect: 18: the format of sample_extra has 1 conversions for 2 arguments
 * expect: 19: the format of sample_star has 2 conversions for 1 arguments
 * expect: 20: the format of sample_unknown has an unknown conversion
 * expect: 21: MARK_PRIVATE() without a format
 */
void formats(int v)
{
	MARK(sample_variable, sample_fmt, v);
	MARK(sample_missing, "%d %s", v);
	MARK(sample_extra, "%d", v, v);
	MARK(sample_star, "%*d", v);
	MARK(sample_unknown, "%q", v);
	MARK_PRIVATE(sample_no_format, &v);
}
