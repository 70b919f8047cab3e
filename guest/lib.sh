# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the guest scripts (sourced by /init).
#
# The results channel is the device that wb.results= names on the kernel
# command line (settings.Arch: /dev/hvc0, a virtio console, on arm64), or
# else ttyS1, the second UART of x86 guests. The host turns what it
# receives into KTAP:
#   @@ section NAME     starts a section (boot-kunit, after-boot-kunit,
#                       after-boot-log, e2e, kmemleak, end)
#   @@ suite NAME       starts a suite inside a section
#   ok NAME / not ok NAME / # diagnostic
#   @@ token UUID       the token test.sh wrote to /dev/kmsg before the
#                       after-boot KUnit run (after-boot-log: dmesg after it)
#   @@ script STEM / @@ script-end STEM STATUS
#                       around each end-to-end script (guest/tests/STEM.sh)
# A KUnit section carries the suites' debugfs results verbatim. The host
# (tools/wb/expect.py) fails by name a suite or script that is missing,
# stopped half-way or reported no case; a script must return 0 (it does
# when it ends with a case or a skip).

# cmdline_values KEY: the value of each KEY= on the kernel command line,
# one a line; cmdline_value KEY: the first.
cmdline_values() {
	for word in $(cat /proc/cmdline); do
		case "$word" in
		"$1="*) echo "${word#*=}" ;;
		esac
	done
}
cmdline_value() { cmdline_values "$1" | head -n 1; }

results_open() {
	RESULTS_TTY=$(cmdline_value wb.results)
	: "${RESULTS_TTY:=/dev/ttyS1}"
	stty -F "$RESULTS_TTY" raw -echo 2>/dev/null
	exec 3>"$RESULTS_TTY"
}

emit() { printf '%s\n' "$*" >&3; }
# Seconds since boot, as /proc/uptime has them (two decimals).
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# A section also goes to the console with the uptime, as a suite does, and
# so does each end-to-end script (test.sh): where a boot spends its time.
section() { emit "@@ section $1"; echo "== section $1 (uptime $(uptime_s) s)"; }
suite() { emit "@@ suite $1"; echo "== $1 (uptime $(uptime_s) s)"; }
diag() { printf '%s\n' "$*" | sed 's/^/# /' >&3; }
pass() { emit "ok $1"; echo "ok $1"; }
# A case failed in this boot: wb.stop_at_failure=1 ends it (test.sh).
FAILED_MARK=/tmp/wb.failed
fail() {
	emit "not ok $1"
	echo "not ok $1"
	: > "$FAILED_MARK"
	[ -n "$2" ] && diag "$2" && printf '%s\n' "$2" | sed 's/^/#   /'
	return 0
}

# expect NAME CMD...: one case that passes when CMD exits 0; CMD's output
# becomes the diagnostic of a failure.
expect() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		pass "$_name"
	else
		fail "$_name" "$_out"
	fi
}

# expect_fail NAME CMD...: one case that passes when CMD fails.
expect_fail() {
	_name=$1
	shift
	if _out=$("$@" 2>&1); then
		fail "$_name" "succeeded unexpectedly: $_out"
	else
		pass "$_name"
	fi
}

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# kunit_dump: every KUnit suite's last results, as "@@ suite" blocks; a
# failed case among them marks the boot as failed (FAILED_MARK).
kunit_dump() {
	for dir in /sys/kernel/debug/kunit/*/; do
		[ -d "$dir" ] || continue
		name=$(basename "$dir")
		emit "@@ suite $name"
		cat "$dir/results" >&3
		grep -q '^ *not ok ' "$dir/results" && : > "$FAILED_MARK"
	done
}

# module_built NAME: the kernel's modules include NAME.ko. The configs are
# validated on the host (every option of their fragments is set), so a
# module is missing only where the config does not ask for it.
module_built() {
	grep -q "/$1\.ko:" "/lib/modules/$(uname -r)/modules.dep"
}

# skip NAME REASON: a case that could not run here.
skip() { emit "ok $1 # SKIP $2"; echo "skip $1: $2"; }

# kernel_has CONFIG_X: the kernel was built with CONFIG_X=y or =m (the
# host puts its .config in the initramfs, tools/wb/initramfs.py).
kernel_has() { grep -Eq "^$1=[ym]\$" /etc/wb/kernel.config; }

# has_tool NAME: the host put tracer tool NAME in the initramfs
# (settings.GUEST_PROGRAMS, GUEST_PROGS_BUILT: host binaries, which only
# the guests of its architecture get).
has_tool() { grep -qx "$1" /etc/wb/tools; }

# skip_without TOOL NAME...: skips each case NAME, for want of TOOL.
skip_without() {
	_tool=$1
	shift
	for _case; do
		skip "$_case" "no $_tool in this guest: a binary of the host, only in its architecture's guests"
	done
}

# try_write FILE DATA: writes DATA (printf %b escapes) to FILE in a single
# write(2); prints "ok", or the error, e.g. "Invalid argument".
try_write() {
	if _err=$(printf '%b' "$2" | dd of="$1" bs=65536 conv=notrunc 2>&1 >/dev/null); then
		echo ok
	else
		printf '%s\n' "$_err" | sed -n 's/.*: //p' | tail -n 1
	fi
}

# expect_write NAME FILE DATA RESULT: try_write prints RESULT.
expect_write() {
	expect_eq "$1" "$4" "$(try_write "$2" "$3")"
}

# Marker events (kernel/trace/trace_markers.c) are dynamic events: none
# exists until a command of dynamic_events makes it,
#   m[:[GROUP/]EVENT] MARKER [NAME=$argN[:TYPE] ...]
# and it stays, its marker's module loaded or not, until "-:[GROUP/]EVENT"
# removes it. Commands go through try_write, which opens the file without
# O_TRUNC: a shell's ">" would remove every dynamic event first (or, with
# EBUSY, none if one is in use); append with ">>" if not through these.
DYNAMIC_EVENTS=/sys/kernel/tracing/dynamic_events

# dyn_cmd CMD: writes the command CMD and a newline to dynamic_events in one
# write(2); prints "ok" or the error, as try_write does.
dyn_cmd() { try_write "$DYNAMIC_EVENTS" "$1\n"; }

# mev_make NAME [FIELD...]: makes the marker event markers/NAME on the
# marker NAME ("m:markers/NAME NAME FIELD..."), with the fields given
# (NAME=$argN[:TYPE]) or else every argument of the format; fails, saying
# why, unless the write worked and events/markers/NAME is there.
mev_make() {
	_ev=$1
	shift
	_got=$(dyn_cmd "m:markers/$_ev $_ev${1:+ $*}")
	if [ "$_got" != ok ]; then
		echo "m:markers/$_ev $_ev $*: $_got"
		return 1
	fi
	if [ ! -d "/sys/kernel/tracing/events/markers/$_ev" ]; then
		echo "m:markers/$_ev: made, yet no events/markers/$_ev"
		return 1
	fi
}

# mev_drop NAME: removes the marker event markers/NAME ("-:markers/NAME");
# fails, saying why, unless the write worked and its directory went.
mev_drop() {
	_got=$(dyn_cmd "-:markers/$1")
	if [ "$_got" != ok ]; then
		echo "-:markers/$1: $_got"
		return 1
	fi
	if [ -e "/sys/kernel/tracing/events/markers/$1" ]; then
		echo "-:markers/$1: removed, yet events/markers/$1 is still there"
		return 1
	fi
}

# mev_events: the marker events, as dynamic_events shows them ("m:" lines).
mev_events() { grep '^m:' "$DYNAMIC_EVENTS" 2>/dev/null; }

# mev_dirs: the event directories under events/markers, one name a line.
mev_dirs() {
	for _d in /sys/kernel/tracing/events/markers/*/; do
		[ -d "$_d" ] && basename "$_d"
	done
}

# kmemleak_check: one case, no leak allocated by markers, immediate values
# or the patcher (their functions in a backtrace), after two scans with a
# grace period between them, as kmemleak documents; a skip without
# CONFIG_DEBUG_KMEMLEAK. A scan that cannot run fails: an empty report
# proves nothing.
KMEMLEAK=/sys/kernel/debug/kmemleak
KMEMLEAK_OURS='(marker|imv_|poke_site|site_table|trace_marker)[a-z_]*\+0x'
kmemleak_check() {
	_name="no leak allocated by markers, immediate values or the patcher"
	if [ ! -e "$KMEMLEAK" ]; then
		skip "no leak of markers" "no CONFIG_DEBUG_KMEMLEAK"
		return 0
	fi
	if ! _err=$( { echo scan > "$KMEMLEAK" && sleep 6 && echo scan > "$KMEMLEAK" &&
			cat "$KMEMLEAK" > /tmp/kmemleak; } 2>&1); then
		fail "$_name" "kmemleak could not scan: $_err"
		return 0
	fi
	diag "kmemleak reports $(grep -c '^unreferenced object' /tmp/kmemleak) objects in all"
	expect_eq "$_name" "" "$(grep -E "$KMEMLEAK_OURS" /tmp/kmemleak)"
}

# bench_rows [MODULE]: the "ROW VALUE UNIT" lines MODULE (markers_bench by
# default) left in the kernel log.
bench_rows() {
	dmesg | sed -n "s/.*${1:-markers_bench}: \\([a-z0-9_.]* [0-9]* [^ ]*\\)\$/\\1/p"
}

# built_markers FILE: the lines of a Module.markers the build wrote (the
# host puts them in /etc/wb/, tools/wb/initramfs.py) for vmlinux and the
# modules loaded now, as "name<TAB>module<TAB>format" with the module named
# as the kernel names it; sorted.
built_markers() {
	awk -F'\t' -v loaded=" vmlinux $(cut -d' ' -f1 /proc/modules | tr '\n' ' ') " '{
		m = $2
		sub(".*/", "", m)
		gsub("-", "_", m)
		if (index(loaded, " " m " "))
			print $1 "\t" m "\t" $3
	}' "$1" | sort -u
}

# listed_markers: the markers of tracefs' markers/list that have sites and
# a format, in the form of built_markers; sorted. A name that only has
# marker_enabled() guards has no format, and no line in Module.markers.
listed_markers() {
	awk 'NR > 1 && $5 != "-" {
		f = $0
		sub(/^[^"]*"/, "", f)
		sub(/"$/, "", f)
		if (f != "")
			print $1 "\t" $5 "\t" f
	}' /sys/kernel/tracing/markers/list | sort -u
}

# same_markers MODULE BUILT LISTED: the markers of MODULE are the same in
# both lists; prints those of one only.
same_markers() {
	_b=$(printf '%s\n' "$2" | awk -F'\t' -v m="$1" '$2 == m')
	_l=$(printf '%s\n' "$3" | awk -F'\t' -v m="$1" '$2 == m')
	[ -n "$_b" ] && [ "$_b" = "$_l" ] && return 0
	printf 'Module.markers:\n%s\nmarkers/list:\n%s\n' "$_b" "$_l"
	return 1
}
