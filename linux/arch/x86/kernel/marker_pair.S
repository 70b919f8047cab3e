/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker_probe_pair() and marker_probe_triple(): the two or three fast
 * probes of a marker, see <linux/marker.h>.
 *
 * A site's recorded call comes here with the marker's struct marker_probes
 * in %rdi, and call_private, the marker and at most three arguments in the
 * other five argument registers (a variadic call passes them there). Each
 * probe but the last is called with them all, %rdi replaced with its
 * probe_private, and they are read back from the stack after it returns;
 * the last is jumped to with them: its return is the site's. Every call
 * is indirect, through the retpoline thunks.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/nospec-branch.h>

/* Keeps the six argument registers: %r9 at 0(%rsp), ..., %rdi at 40(%rsp). */
.macro MARKER_SAVE_ARGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
.endm

/* Reads them back, for the next probe; they stay on the stack. */
.macro MARKER_RELOAD_ARGS
	movq	0(%rsp), %r9
	movq	8(%rsp), %r8
	movq	16(%rsp), %rcx
	movq	24(%rsp), %rdx
	movq	32(%rsp), %rsi
	movq	40(%rsp), %rdi
.endm

/* Reads them back for the last probe. */
.macro MARKER_RESTORE_ARGS
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
.endm

/* Probe \i of the array in %rdi: its function in %rax, its data in %rdi. */
.macro MARKER_LOAD_PROBE i
	movq	MARKER_PROBES_fast0 + \i * MARKER_PROBE_size(%rdi), %rax
	movq	MARKER_PROBES_private0 + \i * MARKER_PROBE_size(%rdi), %rdi
.endm

/* Calls probe \i of the array in %rdi, which it loses. */
.macro MARKER_CALL_PROBE i
	MARKER_LOAD_PROBE \i
	CALL_NOSPEC rax
.endm

/* Jumps to probe \i of the array in %rdi, which returns to the site. */
.macro MARKER_JMP_PROBE i
	MARKER_LOAD_PROBE \i
	JMP_NOSPEC rax
.endm

	.text
SYM_FUNC_START(marker_probe_pair)
	/* Only the sites' direct calls come here: no ENDBR, objtool knows. */
	ANNOTATE_NOENDBR
	/*
	 * And none under kCFI, where two or three fast probes stay on the
	 * C iterators (MARKER_KCFI): the calls below carry no type check.
	 */
	ANNOTATE_NOCFI_SYM
	MARKER_SAVE_ARGS
	MARKER_CALL_PROBE 0
	MARKER_RESTORE_ARGS
	MARKER_JMP_PROBE 1
SYM_FUNC_END(marker_probe_pair)

SYM_FUNC_START(marker_probe_triple)
	ANNOTATE_NOENDBR
	ANNOTATE_NOCFI_SYM
	MARKER_SAVE_ARGS
	MARKER_CALL_PROBE 0
	MARKER_RELOAD_ARGS
	MARKER_CALL_PROBE 1
	MARKER_RESTORE_ARGS
	MARKER_JMP_PROBE 2
SYM_FUNC_END(marker_probe_triple)
