# SPDX-License-Identifier: GPL-2.0
#
# Markers switch while the function tracer is on: the markers suite runs
# again with the function tracer on the functions of markers, immediate
# values, the patcher and the suite itself, whose mcount sites ftrace has
# patched (text_poke_bp() next to our int3 patcher, both under
# text_mutex). Every case must pass again, and the trace must show that
# those functions were traced while they ran.

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
# One pattern a write; a pattern that matches nothing fails the write.
for f in 'marker_*' 'imv_*' 'poke_sites_*' 'site_tables_*'; do
	echo "$f" >> "$T/set_ftrace_filter"
done
expect "the filter has the markers' functions" grep -q '^marker_probe_register' \
	"$T/set_ftrace_filter"
echo function > "$T/current_tracer"
echo 1 > "$T/tracing_on"

echo run > "$S/run"

echo 0 > "$T/tracing_on"
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"
results=$(cat "$S/results")
traced=$(grep -c ' marker_probe_register <-' "$T/trace")
echo > "$T/trace"
echo 1 > "$T/tracing_on"

diag "$(printf '%s\n' "$results" | grep -E '^ *(not )?ok ' | tail -n 3)"
expect_eq "no case of the markers suite fails under the function tracer" "" \
	"$(printf '%s\n' "$results" | grep -E '^ *not ok ')"
expect "the cases ran" sh -c "[ $(printf '%s\n' "$results" | grep -cE '^ +ok ') -ge 20 ]"
expect "marker_probe_register() was traced while the suite ran" sh -c "[ $traced -gt 0 ]"
