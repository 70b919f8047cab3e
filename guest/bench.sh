# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=bench (sourced by /init): loads markers_bench, which measures
# while it loads, and sends its "markers_bench: ROW VALUE UNIT" lines to
# the host in a "bench" section. wb.bench_args= passes module parameters,
# comma-separated.
#
# Its record rows enable the marker event markers:bench_fp_mark, which,
# as any marker event, exists only once made through dynamic_events. Its
# marker is in markers_bench itself, which runs the rows as it loads: the
# event is made before, while marker_events holds a probe that gives the
# registry the marker's format ("hold NAME FORMAT", released before the
# benchmark loads, so that the event's probe is the marker's only one).
# Without the event the module reports record.mark_event_missing, and a
# failure to make it is the row record.mark_event.make_failed: the host
# (tools/wb/bench.py) refuses a run with either.

T=/sys/kernel/tracing

results_open
section bench
emit "@@ suite markers_bench"
args=$(cmdline_value wb.bench_args | tr ',' ' ')
if ! { modprobe marker_events && echo 'hold bench_fp_mark %d' > /proc/marker-events; }; then
	emit "record.mark_event.make_failed 1 -"
elif ! made=$(mev_make bench_fp_mark); then
	echo "$made"
	emit "record.mark_event.make_failed 1 -"
fi
{ echo release > /proc/marker-events; } 2>/dev/null
rmmod marker_events 2>/dev/null
dmesg -c >/dev/null
echo "== modprobe markers_bench $args"
# shellcheck disable=SC2086 # the parameters are words on purpose
if modprobe markers_bench $args; then
	bench_rows >&3
	# What the event of a marker of one int argument allocates (the
	# footprint rows of a TRACE_EVENT are measured on the host): the
	# bytes column of markers/events.
	bytes=$(awk '$1 == "markers/bench_fp_mark" { print $5 }' "$T/markers/events")
	if [ -n "$bytes" ]; then
		emit "footprint.mark_event.data $bytes bytes"
	else
		emit "footprint.mark_event.missing 1 -"
	fi
else
	emit "modprobe_failed 1 -"
fi
rmmod markers_bench 2>/dev/null
dyn_cmd "-:markers/bench_fp_mark" > /dev/null
section end
