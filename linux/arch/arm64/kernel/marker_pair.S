/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker_probe_pair(): the two fast probes of a marker, see <linux/marker.h>.
 *
 * A site's recorded call comes here with the marker's struct marker_probes
 * in x0, and call_private, the marker and at most three arguments in x1 to
 * x5 (a variadic call passes them there). The first probe gets them all
 * back after x0 is replaced with its probe_private; so does the second,
 * which is branched to through x16, as a call is for BTI: its return is
 * the site's.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>

	.text
SYM_FUNC_START(marker_probe_pair)
	stp	x29, x30, [sp, #-64]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	ldr	x16, [x0, #MARKER_PROBES_fast0]
	ldr	x0, [x0, #MARKER_PROBES_private0]
	blr	x16
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x29, x30, [sp], #64
	ldr	x16, [x0, #MARKER_PROBES_fast1]
	ldr	x0, [x0, #MARKER_PROBES_private1]
	br	x16
SYM_FUNC_END(marker_probe_pair)
