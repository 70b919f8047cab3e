/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker_probe_pair(): the two fast probes of a marker, see <linux/marker.h>.
 *
 * A site's recorded call comes here with the marker's struct marker_probes
 * in %rdi, and call_private, the marker and at most three arguments in the
 * other five argument registers (a variadic call passes them there). The
 * first probe gets them all back after %rdi is replaced with its
 * probe_private; so does the second, which is jumped to: its return is the
 * site's. Both calls are indirect, through the retpoline thunks.
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/nospec-branch.h>

	.text
SYM_FUNC_START(marker_probe_pair)
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	movq	MARKER_PROBES_fast0(%rdi), %rax
	movq	MARKER_PROBES_private0(%rdi), %rdi
	CALL_NOSPEC rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	movq	MARKER_PROBES_fast1(%rdi), %rax
	movq	MARKER_PROBES_private1(%rdi), %rdi
	JMP_NOSPEC rax
SYM_FUNC_END(marker_probe_pair)
