# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=bench (sourced by /init): loads markers_bench, which measures
# while it loads, and sends its "markers_bench: ROW VALUE UNIT" lines to
# the host in a "bench" section. wb.bench_args= passes module parameters,
# comma-separated.

results_open
section bench
emit "@@ suite markers_bench"
args=$(cmdline_value wb.bench_args | tr ',' ' ')
dmesg -c >/dev/null
echo "== modprobe markers_bench $args"
# shellcheck disable=SC2086 # the parameters are words on purpose
if modprobe markers_bench $args; then
	bench_rows >&3
	# What the event of a marker of one int argument allocates (the
	# footprint rows of a TRACE_EVENT are measured on the host).
	bytes=$(awk '$1 == "bench_fp_mark" { print $4 }' /sys/kernel/tracing/markers/events)
	emit "footprint.mark_event.data ${bytes:-0} bytes"
else
	emit "modprobe_failed 1 -"
fi
rmmod markers_bench 2>/dev/null
section end
