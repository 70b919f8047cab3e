# SPDX-License-Identifier: GPL-2.0
#
# The lifetime of a marker event, a dynamic event that only its user
# removes: what holds it (an eprobe, an instance or the top instance it is
# enabled in, perf, an enable_event trigger), which the removal must
# refuse with EBUSY; the buffers its removal resets; its life without its
# marker's module, parked with its state until the module comes back;
# reads that change nothing; an event made before its module loads; an
# instance whose removal of its user meets failing allocations; and all of
# it at once while the module comes and goes. The sites are those of
# guest/modules/marker_events (see 13-markers-events.sh). A kernel that
# frees what is still used shows it here as a KASAN report or an Oops on
# the console, which fails the run; every case also checks exact counts.

suite markers_event_lifetimes
T=/sys/kernel/tracing
E=$T/events/markers
M=$T/markers
D=$T/dynamic_events
P=/proc/marker-events
BUSY="Device or resource busy"

if [ ! -d "$M" ] || [ ! -e "$D" ]; then
	skip "marker event lifetimes" "no $M or no dynamic_events (CONFIG_PROBE_EVENTS)"
	return 0
fi

fire() { echo "$1" > "$P"; }
records() { grep -c "$1" "$2"; }
# line EVENT: the line of markers/EVENT in dynamic_events.
line() { grep "^m:markers/$1 " "$D"; }

# 1. An eprobe holds the event it reads, as it holds any dynamic event:
# the event's removal is refused while the eprobe exists, enabled or not.
# The module unloads under it, the event stays, and the eprobe's records
# print with it.
expect "modprobe marker_events" modprobe marker_events
expect "m mev_hit" mev_make mev_hit
echo > "$T/trace"
expect_write "an eprobe on markers:mev_hit" "$D" \
	'e:mev_ep markers.mev_hit key=$key:u32 val=$val:s32\n' ok
echo 1 > "$T/events/eprobes/mev_ep/enable"
fire "hit 3"
echo 0 > "$T/events/eprobes/mev_ep/enable"
expect_write "-:markers/mev_hit under the eprobe: EBUSY" "$D" '-:markers/mev_hit\n' "$BUSY"
expect "mev_hit stays while the eprobe holds it" test -d "$E/mev_hit"
expect "rmmod marker_events under the eprobe" rmmod marker_events
expect "mev_hit stays without its module" test -d "$E/mev_hit"
expect_eq "the eprobe's 3 records read after the unload" 3 \
	"$(records 'mev_ep: (markers.mev_hit) key=' "$T/trace")"
expect "the record of i = 2 shows its fields" \
	grep -q 'mev_ep: (markers.mev_hit) key=2 val=-2$' "$T/trace"
expect "modprobe marker_events again" modprobe marker_events
echo > "$T/trace"
echo 1 > "$T/events/eprobes/mev_ep/enable"
fire "hit 2"
expect_eq "the eprobe records the reloaded module's hits" 2 \
	"$(records 'mev_ep: (markers.mev_hit) key=' "$T/trace")"
expect "rmmod marker_events under the enabled eprobe" rmmod marker_events
echo 0 > "$T/events/eprobes/mev_ep/enable"
expect_write "-:markers/mev_hit, the eprobe off but there: EBUSY" "$D" '-:markers/mev_hit\n' \
	"$BUSY"
expect "mev_hit stays while the eprobe exists" test -d "$E/mev_hit"
expect_write "delete the eprobe" "$D" '-:mev_ep\n' ok
expect "mev_hit can be removed once the eprobe is gone" mev_drop mev_hit
expect "no mev_ event is left" sh -c "! grep -q '^markers:mev_' $T/available_events"

# 2. The removal of a marker event resets the buffers it was enabled in,
# as dynamic_events does for every event it removes: no record is left to
# be decoded with the layout of an event that takes its id.
expect "modprobe marker_events" modprobe marker_events
expect "m mev_hit" mev_make mev_hit
echo > "$T/trace"
echo 1 > "$E/mev_hit/enable"
fire "hit 3"
echo 0 > "$E/mev_hit/enable"
old_id=$(cat "$E/mev_hit/id")
expect_eq "3 records of mev_hit in the buffer" 3 "$(records ' mev_hit: ' "$T/trace")"
expect "remove markers/mev_hit" mev_drop mev_hit
expect "modprobe marker-example" modprobe marker-example
expect "m sample_read, which may take the id" mev_make sample_read
expect "m sample_write, which may take the id" mev_make sample_write
diag "mev_hit had id $old_id; sample_read has $(cat "$E/sample_read/id")," \
	"sample_write $(cat "$E/sample_write/id")"
expect_eq "no record is left of the event that went" "" "$(grep -v '^#' "$T/trace")"
expect "rmmod marker-example" rmmod marker_example
expect "remove markers/sample_read" mev_drop sample_read
expect "remove markers/sample_write" mev_drop sample_write

# 2b. The same when, in the same removal, an event that stays follows it:
# "-:mev_hit" names the events mev_hit of every group, markers/mev_hit
# (made first, recorded in the top buffer, idle) and mev_busy/mev_hit (on
# in an instance), whose removal is refused (EBUSY) once the first went.
expect "m mev_hit" mev_make mev_hit
expect_write "m:mev_busy/mev_hit mev_hit, the same name in another group" "$D" \
	'm:mev_busy/mev_hit mev_hit\n' ok
I=$T/instances/mev_busy
mkdir "$I"
echo 1 > "$I/events/mev_busy/mev_hit/enable"
echo > "$T/trace"
echo 1 > "$E/mev_hit/enable"
fire "hit 3"
echo 0 > "$E/mev_hit/enable"
expect_eq "3 records of mev_hit in the top buffer" 3 "$(records ' mev_hit: ' "$T/trace")"
expect_eq "3 records of mev_busy/mev_hit in the instance's" 3 \
	"$(records ' mev_hit: ' "$I/trace")"
expect_write "-:mev_hit, both groups: EBUSY, for the event on in the instance" "$D" \
	'-:mev_hit\n' "$BUSY"
expect "markers/mev_hit went" test ! -e "$E/mev_hit"
expect "mev_busy/mev_hit stays while the instance has it on" test -d "$T/events/mev_busy/mev_hit"
expect_eq "no record is left of the event that went before one that stays" "" \
	"$(grep -v '^#' "$T/trace")"
echo 0 > "$I/events/mev_busy/mev_hit/enable"
expect "the instance goes" rmdir "$I"
expect_write "mev_busy/mev_hit can be removed once off" "$D" '-:mev_busy/mev_hit\n' ok
expect "rmmod marker_events" rmmod marker_events

# 3. A marker event is removed only when nothing uses it: the removal is
# refused with EBUSY while it is enabled (in the top instance, or in
# another only), open in perf, or referred to by an enable_event trigger
# of another event; so is the O_TRUNC of dynamic_events, which then
# removes nothing. It works once that has gone.
expect "modprobe marker_events" modprobe marker_events
expect "m mev_hit" mev_make mev_hit
expect "m mev_str" mev_make mev_str
echo 1 > "$E/mev_hit/enable"
expect_write "-:markers/mev_hit while enabled: EBUSY" "$D" '-:markers/mev_hit\n' "$BUSY"
before=$(cat "$D")
out=$(sh -c ": > $D" 2>&1)
case "$out" in
*"$BUSY"*) pass "O_TRUNC of dynamic_events while mev_hit is enabled: EBUSY" ;;
*) fail "O_TRUNC of dynamic_events while mev_hit is enabled: EBUSY" "${out:-it worked}" ;;
esac
expect_eq "and it removed nothing" "$before" "$(cat "$D")"
echo 0 > "$E/mev_hit/enable"
I=$T/instances/mev_only
mkdir "$I"
echo 1 > "$I/events/markers/mev_hit/enable"
expect_write "-:markers/mev_hit while enabled in an instance only: EBUSY" "$D" \
	'-:markers/mev_hit\n' "$BUSY"
echo 0 > "$I/events/markers/mev_hit/enable"
expect "the instance goes" rmdir "$I"
if has_tool perf-open; then
	rm -f /tmp/perf-open.in /tmp/perf-open.out
	mkfifo /tmp/perf-open.in
	perf-open "$(cat "$E/mev_hit/id")" 0 hold < /tmp/perf-open.in > /tmp/perf-open.out &
	# It holds the event until the fifo closes; fd 3 is lib.sh's results.
	exec 6> /tmp/perf-open.in
	while [ ! -s /tmp/perf-open.out ] && kill -0 $! 2>/dev/null; do
		sleep 0.1
	done
	expect_eq "perf_event_open of mev_hit, held" opened "$(cat /tmp/perf-open.out)"
	expect_write "-:markers/mev_hit while perf holds it: EBUSY" "$D" '-:markers/mev_hit\n' \
		"$BUSY"
	exec 6>&-
	wait $!
	rm -f /tmp/perf-open.in /tmp/perf-open.out
else
	skip_without perf-open "perf_event_open of mev_hit, held" \
		"-:markers/mev_hit while perf holds it: EBUSY"
fi
expect_write "an enable_event trigger of mev_hit on mev_str" "$E/mev_hit/trigger" \
	'enable_event:markers:mev_str' ok
expect_write "-:markers/mev_str under the enable_event trigger: EBUSY" "$D" \
	'-:markers/mev_str\n' "$BUSY"
expect_eq "the trigger enables mev_str at the first hit of mev_hit: 4 records of str" 4 \
	"$(echo > "$T/trace"; fire 'hit 1'; fire str; records ' mev_str: ' "$T/trace")"
expect_write "remove the trigger" "$E/mev_hit/trigger" '!enable_event:markers:mev_str' ok
echo 0 > "$E/mev_str/enable"
expect "mev_hit can be removed once nothing uses it" mev_drop mev_hit
expect "mev_str can be removed once nothing refers to it" mev_drop mev_str
expect_eq "no mev_ event is left" "" "$(mev_events | grep ' mev_')"

# 4. An event outlives its marker's module: parked, with its directory,
# its line in dynamic_events and its state. One enabled stays enabled, its
# probe waiting for the sites, which the module switches on when it comes
# back; one can be enabled without its module; neither can be made again.
expect "m mev_hit" mev_make mev_hit
expect "m mev_str" mev_make mev_str
line_hit=$(line mev_hit)
line_str=$(line mev_str)
echo 1 > "$E/mev_hit/enable"
expect "rmmod marker_events with mev_hit enabled" rmmod marker_events
expect "parked: events/markers/mev_hit is still there" test -d "$E/mev_hit"
expect "parked: events/markers/mev_str, never enabled, too" test -d "$E/mev_str"
expect_eq "parked: dynamic_events still has both lines" "$line_hit|$line_str" \
	"$(line mev_hit)|$(line mev_str)"
expect_eq "parked: mev_hit is still enabled" 1 "$(cat "$E/mev_hit/enable")"
expect_eq "parked: markers/enable still lists it" mev_hit "$(cat "$M/enable")"
expect "parked: the list shows mev_hit on, 1 probe, no site (-)" \
	sh -c "grep -Eq '^mev_hit +on +1 +0 +- ' $M/list"
expect_write "parked: m mev_hit again: EEXIST" "$D" 'm mev_hit\n' "File exists"
expect_write "parked: mev_str enabled without its module" "$E/mev_str/enable" 1 ok
expect "modprobe marker_events again" modprobe marker_events
expect_eq "back: 3 hits of mev_hit, 3 records" 3 \
	"$(echo > "$T/trace"; fire 'hit 3'; records ' mev_hit: ' "$T/trace")"
expect_eq "back: mev_str, enabled while parked, records the 4 string hits" 4 \
	"$(echo > "$T/trace"; fire str; records ' mev_str: ' "$T/trace")"
# Twice more, an unload and a load with both on: each time the exact count.
round=1
counts=
while [ $round -le 2 ]; do
	rmmod marker_events
	modprobe marker_events
	echo > "$T/trace"
	fire "hit 5"
	counts="$counts $(records ' mev_hit: ' "$T/trace")"
	round=$((round + 1))
done
expect_eq "two more unloads and loads, enabled: 5 records of 5 hits each time" " 5 5" "$counts"
echo 0 > "$E/mev_hit/enable"
echo 0 > "$E/mev_str/enable"

# 5. No read changes anything: every file under markers/ and under
# events/markers/ (the group's and each event's), dynamic_events and
# available_events, read while the events are parked (their module gone,
# nothing using them) and the buffer holds records: no event goes or
# comes, the records stay.
echo > "$T/trace"
echo 1 > "$E/mev_hit/enable"
fire "hit 5"
echo 0 > "$E/mev_hit/enable"
expect "rmmod marker_events, nothing using its events" rmmod marker_events
dyn_before=$(cat "$D")
dirs_before=$(mev_dirs)
available_before=$(grep '^markers:' "$T/available_events")
expect_eq "5 records of mev_hit before the reads" 5 "$(records ' mev_hit: ' "$T/trace")"
n=0
for f in "$M"/* "$E"/* "$E"/*/* "$D" "$T/available_events"; do
	[ -f "$f" ] || continue
	cat "$f" > /dev/null 2>&1
	cat "$f" > /dev/null 2>&1
	n=$((n + 1))
done
diag "read $n files twice"
expect "the reads took markers/list, enable, sites, events and the files of both events" \
	[ "$n" -ge 16 ]
expect_eq "after the reads: dynamic_events is as it was" "$dyn_before" "$(cat "$D")"
expect_eq "after the reads: the same event directories" "$dirs_before" "$(mev_dirs)"
expect_eq "after the reads: the same markers: lines in available_events" "$available_before" \
	"$(grep '^markers:' "$T/available_events")"
expect_eq "after the reads: the 5 records are still in the buffer" 5 \
	"$(records ' mev_hit: ' "$T/trace")"
expect "a parked event that nothing uses can be removed: mev_hit" mev_drop mev_hit
expect "and mev_str" mev_drop mev_str
expect "no marker of the module is left" sh -c "! grep -q '^mev_' $M/list"

# 6. A marker is known, and takes an event, while a probe gives its format,
# its module not loaded yet: probe-example's probes give those of
# marker-example's markers. The event records from the module's first hit.
expect "modprobe probe-example, before marker-example" modprobe probe-example
expect "m sample_read, marker-example not loaded" mev_make sample_read
expect_eq "it records the format probe-example gave" \
	'm:markers/sample_read sample_read pid=$arg1:s32 count=$arg2:ulong pos=$arg3:s64' \
	"$(line sample_read)"
echo > "$T/trace"
echo 1 > "$E/sample_read/enable"
expect "modprobe marker-example" modprobe marker-example
dd if=/proc/marker-example of=/dev/null bs=4096 count=1 2>/dev/null
expect_eq "one read, one record of sample_read" 1 "$(records ' sample_read: ' "$T/trace")"
echo 0 > "$E/sample_read/enable"
expect "rmmod marker-example" rmmod marker_example
expect "rmmod probe-example" rmmod probe_example
expect "remove markers/sample_read" mev_drop sample_read

# 7. Removing an instance's user of the event cannot fail: with the event
# on in the top instance and in $1 more that keep it, another instance's
# user is removed from the event's tracepoint while each of its
# allocations fails in turn; the event then writes the records of the
# users left only, and still does once that instance is gone. The marker
# keeps the event's one probe throughout.
removal_nomem() {
	local kept=$1 users=$(($1 + 1)) K=$T/instances/mev_kept I=$T/instances/mev_nomem
	local n=1 bad="" finished=0 out left c

	modprobe marker_events
	echo 1 > "$E/mev_hit/enable"
	if [ "$kept" = 1 ]; then
		mkdir "$K"
		echo 1 > "$K/events/markers/mev_hit/enable"
	fi
	mkdir "$I"
	while [ $n -le 200 ]; do
		echo 1 > "$I/events/markers/mev_hit/enable"
		out=$(sh -c "echo $n > /proc/self/fail-nth
			echo 0 > $I/events/markers/mev_hit/enable || echo failed
			read left < /proc/self/fail-nth || left=unread
			echo left=\$left" 2>&1)
		left=${out##*left=}
		case "$out" in
		*failed*)
			# The write failed before the removal: nothing changed.
			[ "$(cat "$I/events/markers/mev_hit/enable")" = 1 ] ||
				bad="${bad}n=$n: the write failed, yet the event is off\n"
			echo 0 > "$I/events/markers/mev_hit/enable"
			;;
		esac
		echo > "$T/trace"
		echo > "$I/trace"
		[ "$kept" = 1 ] && echo > "$K/trace"
		fire "hit 2"
		c=$(records ' mev_hit: ' "$T/trace")
		[ "$c" = 2 ] || bad="${bad}n=$n: $c records in the top instance, not 2\n"
		if [ "$kept" = 1 ]; then
			c=$(records ' mev_hit: ' "$K/trace")
			[ "$c" = 2 ] || bad="${bad}n=$n: $c records in the kept instance, not 2\n"
		fi
		c=$(records ' mev_hit: ' "$I/trace")
		[ "$c" = 0 ] || bad="${bad}n=$n: $c records in the instance, not 0\n"
		grep -Eq "^mev_hit +on +1 " "$M/list" ||
			bad="${bad}n=$n: $(grep '^mev_hit ' "$M/list")\n"
		if [ "$left" != 0 ]; then
			finished=1
			break
		fi
		n=$((n + 1))
	done
	echo "$((users + 1)) -> $users users: the removal met $((n - 1)) allocations"
	expect_eq "$((users + 1)) -> $users users, each allocation of the removal failing in turn: the users left write records, the removed one never" \
		"" "$(printf '%b' "$bad")"
	expect "$((users + 1)) -> $users users: past the removal's last allocation" \
		[ "$finished" = 1 ]
	expect "$((users + 1)) -> $users users: the removal allocates" [ "$n" -gt 1 ]
	expect "$((users + 1)) -> $users users: the instance goes" rmdir "$I"
	expect_eq "$((users + 1)) -> $users users: after it, 2 hits give 2 records in the top instance" \
		2 "$(echo > "$T/trace"; fire 'hit 2'; records ' mev_hit: ' "$T/trace")"
	if [ "$kept" = 1 ]; then
		echo 0 > "$K/events/markers/mev_hit/enable"
		rmdir "$K"
	fi
	echo 0 > "$E/mev_hit/enable"
	expect "$((users + 1)) -> $users users: no probe left on mev_hit" \
		sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"
	expect "$((users + 1)) -> $users users: rmmod marker_events" rmmod marker_events
}

if [ -e /proc/self/fail-nth ] && [ -d /sys/kernel/debug/failslab ]; then
	modprobe marker_events
	expect "m mev_hit, for the removals under failing allocations" mev_make mev_hit
	rmmod marker_events
	removal_nomem 0
	removal_nomem 1
	expect "mev_hit removed after the removals under failing allocations" mev_drop mev_hit
else
	skip "a removal whose allocations fail in turn" "no fault injection (the debug config's)"
fi

# 8. All of it at once: the event on in two instances, an eprobe and a
# hist trigger on it, a reader on one instance's trace_pipe, while the
# module is unloaded and loaded again; 11 rounds of 4 hits.
A=$T/instances/mev_a
B=$T/instances/mev_b
mkdir "$A" "$B"
modprobe marker_events
expect "m mev_hit, for the rounds" mev_make mev_hit
echo 'e:mev_ep2 markers.mev_hit key=$key:u32' >> "$T/dynamic_events"
echo > "$T/trace"
for f in "$E" "$A/events/markers" "$B/events/markers"; do
	echo 1 > "$f/mev_hit/enable"
done
echo 1 > "$T/events/eprobes/mev_ep2/enable"
echo 'hist:keys=key' > "$E/mev_hit/trigger"
cat "$B/trace_pipe" > /tmp/mev_pipe &
reader=$!
round=1
unloads=0
while [ $round -le 11 ]; do
	fire "hit 4"
	cat "$T/trace" "$A/trace" > /dev/null
	if [ $round -lt 11 ]; then
		rmmod marker_events && unloads=$((unloads + 1))
		cat "$A/trace" > /dev/null
		modprobe marker_events
	fi
	round=$((round + 1))
done
kill "$reader"
wait "$reader" 2>/dev/null
expect_eq "10 unloads under two instances, an eprobe and a hist trigger" 10 "$unloads"
expect_eq "the top instance has the 44 hits" 44 "$(records ' mev_hit: ' "$T/trace")"
expect_eq "instance a has the 44 hits" 44 "$(records ' mev_hit: ' "$A/trace")"
expect_eq "the eprobe has the 44 hits" 44 "$(records 'mev_ep2: (markers.mev_hit)' "$T/trace")"
hist=$(sed -n 's/^{ key: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1=\2/p' "$E/mev_hit/hist" |
	sort | tr '\n' ' ')
expect_eq "the hist trigger counts 11 hits per key" "0=11 1=11 2=11 3=11 " "$hist"
expect_eq "every record trace_pipe gave is whole" 0 \
	"$(grep -Evc ' mev_hit: key [0-3] val -?[0-9]+ big [0-9]+ name (even|odd) tag [abc]$' \
	   /tmp/mev_pipe)"
echo '!hist:keys=key' > "$E/mev_hit/trigger"
echo 0 > "$T/events/eprobes/mev_ep2/enable"
echo '-:mev_ep2' >> "$T/dynamic_events"
for f in "$E" "$A/events/markers" "$B/events/markers"; do
	echo 0 > "$f/mev_hit/enable"
done
expect "the instances go" rmdir "$A" "$B"
expect "rmmod marker_events" rmmod marker_events
expect "mev_hit removed once nothing uses it" mev_drop mev_hit
expect "no mev_ event is left" sh -c "! grep -q '^markers:mev_' $T/available_events"
expect "no marker of the module is left" sh -c "! grep -q '^mev_' $M/list"
