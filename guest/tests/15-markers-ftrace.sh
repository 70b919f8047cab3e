# SPDX-License-Identifier: GPL-2.0
#
# Markers switch while the function tracer is on: the markers suite runs
# again with the function tracer on the functions that switch markers
# (registration, the batch of immediate values, the site tables, the
# patcher), whose call sites ftrace has patched (the kernel's int3
# patcher, ours, both under text_mutex): the patcher then runs from
# functions that ftrace traces. The functions that fire markers are left
# out: tracing millions of hits would only slow the suite down. Every case
# must pass again, and the trace must show the switches.

suite markers_ftrace
T=/sys/kernel/tracing
S=/sys/kernel/debug/kunit/markers

if ! grep -qw function "$T/available_tracers" 2>/dev/null || [ ! -d "$S" ]; then
	skip "the markers suite under the function tracer" \
		"no function tracer or no KUnit debugfs markers suite"
	return 0
fi

echo 0 > "$T/tracing_on"
echo > "$T/trace"
# One pattern a write; a pattern that matches nothing (an inlined static
# function) fails its write and is left out.
for f in 'marker_probe_*register*' 'marker_switch_apply' 'arch_marker_switch' \
	 'imv_update_batch*' 'site_tables_*' 'poke_sites_apply'; do
	echo "$f" >> "$T/set_ftrace_filter" 2>/dev/null
done
expect "the filter has the markers' functions" grep -q '^marker_probe_register' \
	"$T/set_ftrace_filter"
echo function > "$T/current_tracer"
echo 1 > "$T/tracing_on"

echo run > "$S/run"

echo 0 > "$T/tracing_on"
# Before the tracer changes: that empties the buffer.
traced=$(grep -c ' marker_probe_register <-' "$T/trace")
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"
results=$(cat "$S/results")
echo > "$T/trace"
echo 1 > "$T/tracing_on"

diag "$(printf '%s\n' "$results" | grep -E '^ *(not )?ok ' | tail -n 3)"
expect_eq "no case of the markers suite fails under the function tracer" "" \
	"$(printf '%s\n' "$results" | grep -E '^ *not ok ')"
expect "the cases ran" sh -c "[ $(printf '%s\n' "$results" | grep -cE '^ +ok ') -ge 20 ]"
expect "marker_probe_register() was traced while the suite ran" sh -c "[ $traced -gt 0 ]"
