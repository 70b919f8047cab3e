# SPDX-License-Identifier: GPL-2.0
#
# Fault injection (CONFIG_FAULT_INJECTION, failslab and fail_page_alloc set
# up by test.sh) fails each allocation of switching a marker on through
# tracefs in turn, with /proc/self/fail-nth: every failure is ENOMEM and
# leaves everything as it was (the list, the enable file, dynamic_events);
# past the last allocation the switch works. The marker's event is made
# beforehand through dynamic_events, so that the failures are those of
# switching it on, not of making it.
#
# Another marker's event is on meanwhile, so that the recording of command
# names is already on: the injection then covers the markers' allocations
# and not those of starting it, where upstream 6.12 does not propagate a
# failure of tracing_start_cmdline_record() and WARNs later in
# tracepoint_probe_unregister().

suite markers_nomem
M=/sys/kernel/tracing/markers

if [ ! -d "$M" ] || [ ! -e /proc/self/fail-nth ] || [ ! -d /sys/kernel/debug/failslab ]; then
	skip "allocation failures of the enable file" "no fault injection or no tracefs markers"
	return 0
fi

state() { cat "$M/list" "$M/enable" /sys/kernel/tracing/dynamic_events; }

modprobe marker-example
expect_write "switch sample_write on, enabling the event" "$M/enable" sample_write ok
expect "m sample_read, the event to switch on" mev_make sample_read
before=$(state)
n=1
failed=0
bad=""
finished=0
while [ $n -le 200 ]; do
	# One shell writes its fail-nth, switches the marker on, and reads how
	# many fault points were left: 0 means the Nth one failed.
	out=$(sh -c "echo $n > /proc/self/fail-nth
		echo sample_read > $M/enable || echo failed
		read left < /proc/self/fail-nth || left=unread
		echo left=\$left" 2>&1)
	left=${out##*left=}
	if [ "$left" != 0 ]; then
		# The write met fewer than N fault points: it must have worked.
		finished=1
		grep -qx sample_read "$M/enable" || bad="${bad}n=$n: not on: $out\n"
		break
	fi
	case "$out" in
	*failed*)
		failed=$((failed + 1))
		case "$out" in
		*"Cannot allocate memory"*) ;;
		*) bad="${bad}n=$n: $out\n" ;;
		esac
		[ "$(state)" = "$before" ] || bad="${bad}n=$n: state changed\n"
		;;
	*)
		# The failure was absorbed (a retry, a fallback): switched on.
		grep -qx sample_read "$M/enable" || bad="${bad}n=$n: not on: $out\n"
		echo '!sample_read' > "$M/enable"
		;;
	esac
	n=$((n + 1))
done
expect_eq "every failed allocation gives ENOMEM and changes nothing" "" "$(printf '%b' "$bad")"
echo "failed $failed of the first $n allocations"
expect "some allocations were failed" [ "$failed" -gt 0 ]
expect "past the last allocation, the switch works" [ "$finished" = 1 ]
expect_write "switch sample_read off" "$M/enable" "!sample_read" ok
expect_write "switch sample_write off" "$M/enable" "!sample_write" ok
expect "rmmod marker-example" rmmod marker_example
for e in sample_read sample_write; do
	expect "remove markers/$e" mev_drop "$e"
done
