# SPDX-License-Identifier: GPL-2.0
#
# The lifetime of a marker event, held by what the tracing subsystem lets a
# root user attach to it, across its module's unload: an eprobe, the
# records it left in a buffer, an instance whose removal of its probe meets
# failing allocations, and all of them at once while the module comes and
# goes. The sites are those of guest/modules/marker_events (see
# 13-markers-events.sh). A kernel that frees what is still used shows it
# here as a KASAN report or an Oops on the console, which fails the run;
# every case also checks exact counts.

suite markers_event_lifetimes
T=/sys/kernel/tracing
E=$T/events/markers
M=$T/markers
P=/proc/marker-events

if [ ! -d "$M" ] || [ ! -e "$T/dynamic_events" ]; then
	skip "marker event lifetimes" "no $M or no dynamic_events (CONFIG_PROBE_EVENTS)"
	return 0
fi

fire() { echo "$1" > "$P"; }
records() { grep -c "$1" "$2"; }
# resync: reading the events file drops the events nothing holds any more.
resync() { cat "$M/events" > /dev/null; }

# 1. An eprobe holds the event it reads: the module may go, the event
# stays (without sites) until the eprobe goes, and the eprobe's records
# print with it.
expect "modprobe marker_events" modprobe marker_events
echo > "$T/trace"
expect_write "an eprobe on markers:mev_hit" "$T/dynamic_events" \
	'e:mev_ep markers.mev_hit key=$key:u32 val=$val:s32\n' ok
echo 1 > "$T/events/eprobes/mev_ep/enable"
fire "hit 3"
echo 0 > "$T/events/eprobes/mev_ep/enable"
expect "rmmod marker_events under the eprobe" rmmod marker_events
expect "mev_hit stays while the eprobe holds it" test -d "$E/mev_hit"
expect "mev_str, which nothing holds, went" test ! -e "$E/mev_str"
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
resync
expect "mev_hit stays while the eprobe exists" test -d "$E/mev_hit"
expect_write "delete the eprobe" "$T/dynamic_events" '-:mev_ep\n' ok
resync
expect "mev_hit goes with the eprobe's reference" test ! -e "$E/mev_hit"
expect "no mev_ event is left" sh -c "! grep -q '^markers:mev_' $T/available_events"

# 2. A marker event that goes while its records are in a buffer resets
# that buffer, as upstream does for module and dynamic events: no record
# is left to be decoded with the layout of an event that takes its id.
expect "modprobe marker_events" modprobe marker_events
echo > "$T/trace"
echo 1 > "$E/mev_hit/enable"
fire "hit 3"
echo 0 > "$E/mev_hit/enable"
old_id=$(cat "$E/mev_hit/id")
expect_eq "3 records of mev_hit in the buffer" 3 "$(records ' mev_hit: ' "$T/trace")"
expect "rmmod marker_events" rmmod marker_events
expect "modprobe marker-example, whose events may take the ids" modprobe marker-example
diag "mev_hit had id $old_id; sample_read has $(cat "$E/sample_read/id")," \
	"sample_write $(cat "$E/sample_write/id")"
expect_eq "no record is left of the event that went" "" "$(grep -v '^#' "$T/trace")"
expect "rmmod marker-example" rmmod marker_example

# 2b. The same when, in the same pass, an event that stays follows it: the
# removal of an event enabled in an instance fails (-EBUSY), and such a
# failure clears every instance's flag for a reset. marker_events' events
# come first (it is loaded first); marker-example's sample_read, on in an
# instance, stays without sites after its module went.
expect "modprobe marker_events, then marker-example" \
	sh -c "modprobe marker_events && modprobe marker-example"
I=$T/instances/mev_busy
mkdir "$I"
echo 1 > "$I/events/markers/sample_read/enable"
echo > "$T/trace"
echo 1 > "$E/mev_hit/enable"
fire "hit 3"
echo 0 > "$E/mev_hit/enable"
expect_eq "3 records of mev_hit in the top buffer" 3 "$(records ' mev_hit: ' "$T/trace")"
expect "rmmod marker_example under the instance" rmmod marker_example
expect "rmmod marker_events, sample_read still on" rmmod marker_events
resync
expect "sample_read stays while the instance has it on" test -d "$E/sample_read"
expect "mev_hit went" test ! -e "$E/mev_hit"
expect_eq "no record is left of the event that went before one that stays" "" \
	"$(grep -v '^#' "$T/trace")"
echo 0 > "$I/events/markers/sample_read/enable"
expect "the instance goes" rmdir "$I"
resync
expect "sample_read goes once nothing has it on" test ! -e "$E/sample_read"

# 3. Removing an instance's probe cannot fail: with the event on in the
# top instance and in $1 more that keep it (the site calls $1 + 2 fast
# probes: the pair, or the triple with one kept instance), another
# instance's probe is removed while each of its allocations fails in turn;
# the marker then calls the probes left only, and still does once that
# instance is gone.
removal_nomem() {
	local kept=$1 probes=$(($1 + 1)) K=$T/instances/mev_kept I=$T/instances/mev_nomem
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
		grep -Eq "^mev_hit +on +$probes " "$M/list" ||
			bad="${bad}n=$n: $(grep '^mev_hit ' "$M/list")\n"
		if [ "$left" != 0 ]; then
			finished=1
			break
		fi
		n=$((n + 1))
	done
	echo "$((probes + 1)) -> $probes probes: the removal met $((n - 1)) allocations"
	expect_eq "$((probes + 1)) -> $probes probes, each allocation of the removal failing in turn: the probes left called, the removed one never" \
		"" "$(printf '%b' "$bad")"
	expect "$((probes + 1)) -> $probes probes: past the removal's last allocation" \
		[ "$finished" = 1 ]
	expect "$((probes + 1)) -> $probes probes: the removal allocates" [ "$n" -gt 1 ]
	expect "$((probes + 1)) -> $probes probes: the instance goes" rmdir "$I"
	expect_eq "$((probes + 1)) -> $probes probes: after it, 2 hits give 2 records in the top instance" \
		2 "$(echo > "$T/trace"; fire 'hit 2'; records ' mev_hit: ' "$T/trace")"
	if [ "$kept" = 1 ]; then
		echo 0 > "$K/events/markers/mev_hit/enable"
		rmdir "$K"
	fi
	echo 0 > "$E/mev_hit/enable"
	expect "$((probes + 1)) -> $probes probes: no probe left on mev_hit" \
		sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"
	expect "$((probes + 1)) -> $probes probes: rmmod marker_events" rmmod marker_events
}

if [ -e /proc/self/fail-nth ] && [ -d /sys/kernel/debug/failslab ]; then
	removal_nomem 0
	removal_nomem 1
else
	skip "a removal whose allocations fail in turn" "no fault injection (the debug config's)"
fi

# 4. All of it at once: the event on in two instances, an eprobe and a
# hist trigger on it, a reader on one instance's trace_pipe, while the
# module is unloaded and loaded again; 11 rounds of 4 hits.
A=$T/instances/mev_a
B=$T/instances/mev_b
mkdir "$A" "$B"
modprobe marker_events
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
resync
expect "no mev_ event is left" sh -c "! grep -q '^markers:mev_' $T/available_events"
expect "no marker of the module is left" sh -c "! grep -q '^mev_' $M/list"
