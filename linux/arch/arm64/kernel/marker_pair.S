/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker_probe_pair() and marker_probe_triple(): the two or three fast
 * probes of a marker, see <linux/marker.h>.
 *
 * A site's recorded call comes here with the marker's struct marker_probes
 * in x0, and call_private, the marker and at most three arguments in x1 to
 * x5 (a variadic call passes them there). Each probe but the last is
 * called with them all, x0 replaced with its probe_private, and they are
 * read back from the frame after it returns; the last is branched to
 * through x16, as a call is for BTI: its return is the site's.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>

/* A frame that keeps x0 to x5 above the frame record. */
.macro marker_save_args
	stp	x29, x30, [sp, #-64]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
.endm

/* Reads them back, for the next probe; the frame stays. */
.macro marker_reload_args
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
.endm

/* Reads them back for the last probe, and drops the frame. */
.macro marker_restore_args
	marker_reload_args
	ldp	x29, x30, [sp], #64
.endm

/* Probe \i of the array in x0: its function in x16, its data in x0. */
.macro marker_load_probe i
	ldr	x16, [x0, #MARKER_PROBES_fast0 + \i * MARKER_PROBE_size]
	ldr	x0, [x0, #MARKER_PROBES_private0 + \i * MARKER_PROBE_size]
.endm

/* Calls probe \i of the array in x0, which it loses. */
.macro marker_call_probe i
	marker_load_probe \i
	blr	x16
.endm

/* Branches to probe \i of the array in x0, which returns to the site. */
.macro marker_branch_probe i
	marker_load_probe \i
	br	x16
.endm

	.text
SYM_FUNC_START(marker_probe_pair)
	marker_save_args
	marker_call_probe 0
	marker_restore_args
	marker_branch_probe 1
SYM_FUNC_END(marker_probe_pair)

SYM_FUNC_START(marker_probe_triple)
	marker_save_args
	marker_call_probe 0
	marker_reload_args
	marker_call_probe 1
	marker_restore_args
	marker_branch_probe 2
SYM_FUNC_END(marker_probe_triple)
