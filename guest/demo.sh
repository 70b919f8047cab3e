# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=run (sourced by /init): markers at work, for a newcomer.

T=/sys/kernel/tracing
M=$T/markers

# show TITLE: a heading; cmd CMD...: print a command, then run it.
show() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
cmd() { echo "# $*"; sh -c "$*"; }

results_open
show "Markers are listed in $M/list (name, state, probes, sites, module, format)"
cmd "head -n 6 $M/list"

show "Load samples/markers/marker-example: its markers fire on /proc/marker-example"
cmd "modprobe marker-example"
cmd "grep -E '^(# name|sample_)' $M/list"

show "A disabled site: 0f 1f makes its 7 bytes one NOP (a far site: 66 90, then cmp/jb not taken)"
cmd "grep '^sample_read ' $M/sites"

show "No marker is a trace event until somebody makes one: make markers:sample_read through dynamic_events"
cmd "grep -c '^markers:' $T/available_events"
cmd "echo 'm sample_read' >> $T/dynamic_events"
cmd "cat $T/dynamic_events"

show "Switch it on from the shell: the slot now jumps to the probe block (far: the immediate is 1)"
cmd "echo sample_read > $M/enable"
cmd "grep '^sample_read ' $M/sites"
cmd "grep '^sample_read ' $M/list"

show "Fire it three times, and read the events from trace_pipe"
cmd "for i in 1 2 3; do cat /proc/marker-example > /dev/null; done"
cmd "head -n 3 $T/trace_pipe"

show "Switch it off: one NOP again"
cmd "echo '!sample_read' > $M/enable"
cmd "grep '^sample_read ' $M/sites"

show "The event's fields are typed from the marker's format"
cmd "grep -E 'field:.* (pid|count|pos);|print fmt' $T/events/markers/sample_read/format"

show "An event of fields of your own: named, typed, a subset, in your order"
cmd "echo 'm:markers/sample_pos sample_read pos=\$arg3 pid=\$arg1:u32' >> $T/dynamic_events"
cmd "grep -E 'field:.* (pid|pos);|print fmt' $T/events/markers/sample_pos/format"
cmd "echo 1 > $T/events/markers/sample_pos/enable; echo > $T/trace; cat /proc/marker-example > /dev/null"
cmd "grep -m 2 sample_pos: $T/trace"
cmd "echo 0 > $T/events/markers/sample_pos/enable"

show "Record it with trace-cmd, filtered on a field (pos == 0), and read the fields back"
cmd "cd /tmp && trace-cmd record -q -e markers:sample_read -f 'pos == 0' sh -c 'cat /proc/marker-example; cat /proc/marker-example' > /dev/null"
cmd "cd /tmp && trace-cmd report 2>/dev/null | grep sample_read"

show "perf records the same event, and perf script prints its fields"
cmd "cd /tmp && perf record -q -a -e markers:sample_read -- cat /proc/marker-example > /dev/null 2>&1"
cmd "cd /tmp && perf --no-pager script 2>/dev/null"

show "A probe from a module: samples/markers/probe-example counts the hits"
cmd "modprobe probe-example"
cmd "echo hello > /proc/marker-example; cat /proc/marker-example > /dev/null"
cmd "cat /proc/marker-probe-example"
cmd "rmmod probe_example marker_example"

show "The events stay without their module, until removed through dynamic_events"
cmd "cat $T/markers/events"
cmd "echo '-:markers/sample_pos' >> $T/dynamic_events; echo '-:markers/sample_read' >> $T/dynamic_events"
cmd "cat $T/dynamic_events"

emit "@@ section end"
show "Done. Documentation/markers.txt has the rest."
