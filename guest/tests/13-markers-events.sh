# SPDX-License-Identifier: GPL-2.0
#
# Marker events as a tracer user makes and uses them: none exists until a
# command of dynamic_events makes it, "m[:[GROUP/]EVENT] MARKER
# [NAME=$argN[:TYPE] ...]": without fields, every argument of the format
# as a field typed from it; with fields, the user's own (named, retyped, a
# subset, reordered). Bad commands fail with their errno and a line in
# error_log. Then the trace, filters, hist triggers, strings cut or
# unreadable, the enable file of markers/, and Debian's perf, trace-cmd and
# bpftrace and a BPF program (guest/progs/marker-bpf.c) on the same events,
# in the guests that have them (x86; has_tool in lib.sh). The sites are
# those of guest/modules/marker_events: "hit N" fires mev_hit for
# i = 0 .. N-1 with key i % 4, val -i, big i << 33, name "even"/"odd" and
# tag 'a' + i % 3. Every case checks exact counts or values. What holds an
# event, its removal and its life without its module are
# 14-markers-event-lifetimes.sh's.

suite markers_events
T=/sys/kernel/tracing
E=$T/events/markers
M=$T/markers
D=$T/dynamic_events
P=/proc/marker-events

if [ ! -d "$M" ] || [ ! -e "$D" ]; then
	skip "marker events" "no $M or no $D (no CONFIG_EVENT_TRACING)"
	return 0
fi

# expect_grep NAME PATTERN FILE: a case that FILE has a line matching
# PATTERN (grep -E); its diagnostic is the start of FILE.
expect_grep() {
	if grep -Eq "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "no line matches '$2' in $3: $(head -n 8 "$3")"
	fi
}

# fire CMD: one command to the test module.
fire() { echo "$1" > "$P"; }
# count EVENT CMD: the records of markers:EVENT in the trace after CMD,
# with the event enabled around it only.
count() {
	echo > "$T/trace"
	echo 1 > "$E/$1/enable"
	fire "$2"
	echo 0 > "$E/$1/enable"
	grep -c " $1: " "$T/trace"
}
# fields EVENT: "TYPE NAME OFFSET SIZE SIGNED," for each field of
# markers:EVENT's format file but the common ones.
fields() {
	grep -o 'field:[^;]*;.offset:[0-9]*;.size:[0-9]*;.signed:[01]' "$E/$1/format" |
		sed 's/^field://; s/;.offset:/ /; s/;.size:/ /; s/;.signed:/ /' | tail -n +5 |
		tr '\n' ','
}
# line EVENT: the line of markers/EVENT in dynamic_events.
line() { grep "^m:markers/$1 " "$D"; }
# logged TEXT: the kernel log has a line with TEXT.
logged() { dmesg | grep -qF "$1"; }

# No marker event exists until somebody makes one: none at boot, the
# kernel command line having no marker_event= here (10 and 12, which run
# before, remove the events they made, so it still holds now).
if [ -n "$(cmdline_value marker_event)" ]; then
	skip "no marker event at boot" "marker_event= is on the kernel command line"
else
	expect_eq "no marker event at boot: no event directory under events/markers" "" \
		"$(mev_dirs | tr '\n' ' ')"
	expect_eq "no marker event at boot: available_events has no markers: line" "" \
		"$(grep '^markers:' "$T/available_events" | tr '\n' ' ')"
	expect_eq "no marker event at boot: dynamic_events has no m: line" "" \
		"$(mev_events | tr '\n' ' ')"
	expect_eq "no marker event at boot: markers/events has its header only" 1 \
		"$(grep -c . "$M/events")"
fi

# Every marker of the kernel that has a format makes its event on request,
# with its directory and its line in available_events, or is refused with
# EINVAL when its format makes no fields, error_log saying so; removed,
# each leaves nothing.
core=$(awk '$5 == "vmlinux" && $6 != "\"\"" { print $1 }' "$M/list" | sort -u)
expect "the kernel has markers with a format" test -n "$core"
bad=
made=0
refused=
for name in $core; do
	echo > "$T/error_log"
	got=$(dyn_cmd "m $name")
	case "$got" in
	ok)
		made=$((made + 1))
		[ -d "$E/$name" ] || bad="$bad $name: no directory;"
		grep -qx "markers:$name" "$T/available_events" ||
			bad="$bad $name: not in available_events;"
		got=$(dyn_cmd "-:markers/$name")
		[ "$got" = ok ] || bad="$bad -:markers/$name: $got;"
		;;
	"Invalid argument")
		refused="$refused $name"
		grep -qF "trace_markers: error: The marker's format cannot be turned into fields" \
			"$T/error_log" || bad="$bad $name: EINVAL, not for its format;"
		;;
	*)
		bad="$bad $name: $got;"
		;;
	esac
done
diag "markers of the kernel: $made made an event; refused for their format:${refused:- none}"
expect_eq "each marker of the kernel with a format makes its event, or is refused for its format" \
	"" "$bad"
expect "some marker of the kernel makes an event" [ "$made" -gt 0 ]
expect_eq "their events removed, no marker event is left" "" \
	"$(mev_events; mev_dirs; grep '^markers:' "$T/available_events")"

expect "modprobe marker_events" modprobe marker_events
expect_eq "no event comes with the module" "" "$(mev_dirs | tr '\n' ' ')"
# markers/list writes a format as a C string literal: that of mev_quoted
# has quotes, a backslash and a newline, and stays on its row.
expect_eq "markers/list: mev_quoted's format as a C string, on its row" \
	'"said \"%d\" \\ ok\n"' \
	"$(awk '$1 == "mev_quoted" { sub(/^[^"]*/, ""); print }' "$M/list")"
expect_eq "markers/list: each row starts with a marker's name" "" \
	"$(grep -v '^[#A-Za-z_]' "$M/list")"
expect "m:markers/mev_hit mev_hit: made" mev_make mev_hit
for f in enable filter trigger format id; do
	expect "events/markers/mev_hit/$f" test -e "$E/mev_hit/$f"
done
expect "available_events lists markers:mev_hit" grep -qx markers:mev_hit "$T/available_events"
expect_eq "dynamic_events shows mev_hit with every field of its format written out" \
	'm:markers/mev_hit mev_hit key=$arg1:u32 val=$arg2:s32 big=$arg3:s64 name=$arg4:string tag=$arg5:char' \
	"$(line mev_hit)"

expect_eq "format: the fields of \"key %u val %d big %lld name %s tag %c\"" \
	"unsigned int key 8 4 0,int val 12 4 1,s64 big 16 8 1,__data_loc char[] name 24 4 0,char tag 28 1 1,unsigned char __cut 29 1 0," \
	"$(fields mev_hit)"
# libtraceevent prints no %c: the print fmt gives tools a char as %d.
expect_eq "format: print fmt, the marker's own format" \
	'print fmt: "key %u val %d big %lld name %s tag %d", REC->key, REC->val, REC->big, __get_str(name), REC->tag' \
	"$(grep '^print fmt' "$E/mev_hit/format")"
expect "events: mev_hit, its id and typed fields" sh -c \
	"grep -Eq '^markers/mev_hit +mev_hit +$(cat "$E/mev_hit/id") +0 +[0-9]+ unsigned int key, int val, s64 big, __data_loc char\[\] name, char tag$' $M/events"

expect_eq "10 hits, 10 records" 10 "$(count mev_hit 'hit 10')"
expect "the record of i = 5 shows its values with the marker's format" \
	grep -q "mev_hit: key 1 val -5 big 42949672960 name odd tag c$" "$T/trace"
expect_eq "no record while the event is off" 0 \
	"$(echo > "$T/trace"; fire 'hit 10'; grep -c ' mev_hit: ' "$T/trace")"
expect_eq "the enable file lists no marker" "" "$(cat "$M/enable")"

# Bad commands: each fails with its errno, leaves one line in error_log
# saying why, and makes nothing.
# bad_cmd NAME CMD ERROR MESSAGE: CMD gives ERROR (as try_write prints it) and
# error_log then has one line "trace_markers: error: MESSAGE".
bad_cmd() {
	echo > "$T/error_log"
	expect_eq "$1" "$3; 1 line in error_log" \
		"$(dyn_cmd "$2"); $(grep -cF "trace_markers: error: $4" "$T/error_log") line in error_log"
}
# The command of error_log's last error from its caret on: where the
# kernel says the error is (the caret's line has the 11 columns of
# "  Command: " before the command's).
caret_text() {
	awk '/^  Command: /{ cmd = substr($0, 12) } /^ *\^$/{ at = substr(cmd, length($0) - 11) }
	     END { print at }' "$T/error_log"
}
N31=f234567890123456789012345678901
N65=e2345678901234567890123456789012345678901234567890123456789012345
EINVAL="Invalid argument"
before=$(cat "$D")
events_before=$(grep -c . "$T/available_events")
bad_cmd "a group that is no identifier: EINVAL" 'm:mark-ers/x mev_hit' "$EINVAL" \
	"Group or event name is no C identifier of at most 64 characters"
bad_cmd "an event name that is no identifier: EINVAL" 'm:markers/9x mev_hit' "$EINVAL" \
	"Group or event name is no C identifier of at most 64 characters"
bad_cmd "an event name of 65 characters: EINVAL" "m:markers/$N65 mev_hit" "$EINVAL" \
	"Group or event name is no C identifier of at most 64 characters"
bad_cmd "no marker: EINVAL" 'm:markers/x' "$EINVAL" "Marker name is missing or no C identifier"
bad_cmd "a marker name that is no identifier: EINVAL" 'm mev-hit' "$EINVAL" \
	"Marker name is missing or no C identifier"
bad_cmd "a marker nobody defined: ENOENT" 'm no_such_marker' "No such file or directory" \
	"No such marker: unknown, or its module is not loaded"
bad_cmd "a marker of a module not loaded (marker-example's sample_read): ENOENT" 'm sample_read' \
	"No such file or directory" "No such marker: unknown, or its module is not loaded"
bad_cmd "a marker_enabled() guard, which has no format: EINVAL" 'm mev_guard' "$EINVAL" \
	"The marker has no format: it is a marker_enabled() guard"
bad_cmd "a field without =\$argN: EINVAL" 'm:markers/x mev_hit k' "$EINVAL" \
	'A field is NAME=$argN or NAME=$argN:TYPE'
bad_cmd "a field of \$key, not \$argN: EINVAL" 'm:markers/x mev_hit k=$key' "$EINVAL" \
	'A field is NAME=$argN or NAME=$argN:TYPE'
bad_cmd "a field named common_k: EINVAL" 'm:markers/x mev_hit common_k=$arg1' "$EINVAL" \
	"Field name is no identifier, too long, or reserved"
bad_cmd "a field named __k: EINVAL" 'm:markers/x mev_hit __k=$arg1' "$EINVAL" \
	"Field name is no identifier, too long, or reserved"
bad_cmd "a field name of 32 characters: EINVAL" "m:markers/x mev_hit ${N31}x=\$arg1" "$EINVAL" \
	"Field name is no identifier, too long, or reserved"
bad_cmd "a field name that is no identifier: EINVAL" 'm:markers/x mev_hit k-1=$arg1' "$EINVAL" \
	"Field name is no identifier, too long, or reserved"
bad_cmd "two fields named k: EINVAL" 'm:markers/x mev_hit k=$arg1 k=$arg2' "$EINVAL" \
	"Another field has this name"
expect_eq "error_log's caret is under the second field k" 'k=$arg2' "$(caret_text)"
bad_cmd "\$arg0 (arguments count from 1): EINVAL" 'm:markers/x mev_hit k=$arg0' "$EINVAL" \
	"The marker has no such argument"
bad_cmd "\$arg6 of a format of 5: EINVAL" 'm:markers/x mev_hit k=$arg6' "$EINVAL" \
	"The marker has no such argument"
expect_eq "error_log's caret is under the 6 of \$arg6" '6' "$(caret_text)"
bad_cmd "\$argx: EINVAL" 'm:markers/x mev_hit k=$argx' "$EINVAL" "The marker has no such argument"
bad_cmd "one argument in two fields: EINVAL" 'm:markers/x mev_hit k=$arg1 j=$arg1' "$EINVAL" \
	"Another field records this argument"
bad_cmd "an unknown type: EINVAL" 'm:markers/x mev_hit k=$arg1:float' "$EINVAL" \
	"Unknown type, or not of the argument's size"
expect_eq "error_log's caret is under the type float" 'float' "$(caret_text)"
bad_cmd "a type of another size (u64 for a %u): EINVAL" 'm:markers/x mev_hit k=$arg1:u64' \
	"$EINVAL" "Unknown type, or not of the argument's size"
bad_cmd "string for a %u: EINVAL" 'm:markers/x mev_hit k=$arg1:string' "$EINVAL" \
	"Unknown type, or not of the argument's size"
bad_cmd "ptr for a %s: EINVAL" 'm:markers/x mev_hit s=$arg4:ptr' "$EINVAL" \
	"Unknown type, or not of the argument's size"
bad_cmd "m mev_hit again: EEXIST" 'm mev_hit' "File exists" "An event of this group and name exists"
bad_cmd "another marker under the name markers/mev_hit: EEXIST" 'm:markers/mev_hit mev_str' \
	"File exists" "An event of this group and name exists"
if [ -d "$T/events/sched/sched_switch" ]; then
	bad_cmd "the name of a tracepoint's event, sched/sched_switch: EEXIST" \
		'm:sched/sched_switch mev_hit' "File exists" "An event of this group and name exists"
fi
expect_eq "no bad command made or changed an event: dynamic_events is as it was" "$before" \
	"$(cat "$D")"
expect_eq "nor available_events" "$events_before" "$(grep -c . "$T/available_events")"
expect "no event x was made" test ! -e "$E/x"
# At the limit: a field name of 31 characters is taken.
expect_write "a field name of 31 characters: made" "$D" "m:markers/mev_n31 mev_hit $N31=\$arg1\n" ok
expect_eq "its format has the field" "unsigned int $N31 8 4 0," "$(fields mev_n31)"
expect "and it is removed" mev_drop mev_n31

# An instance has its own user of the event: its records go to its own
# buffer only.
I=$T/instances/markers_test
if mkdir "$I" 2>/dev/null; then
	echo > "$T/trace"
	echo 1 > "$I/events/markers/mev_hit/enable"
	fire "hit 5"
	echo 0 > "$I/events/markers/mev_hit/enable"
	expect_eq "an instance: 5 records in its buffer" 5 "$(grep -c ' mev_hit: ' "$I/trace")"
	expect_eq "an instance: none in the top buffer" 0 "$(grep -c ' mev_hit: ' "$T/trace")"
	expect "an instance: removed, its probe with it" rmdir "$I"
	expect "no probe left on mev_hit after the instance" \
		sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"
else
	fail "an instance for the events" "mkdir $I failed"
fi

# Filters on the typed fields.
expect_write "filter: key == 1 && val < -3" "$E/mev_hit/filter" "key == 1 && val < -3" ok
expect_eq "filtered: i = 5 and 9" 2 "$(count mev_hit 'hit 10')"
expect_write "filter on a string: name == \"even\"" "$E/mev_hit/filter" 'name == "even"' ok
expect_eq "filtered: the even i" 5 "$(count mev_hit 'hit 10')"
expect_write "filter: big > 0x600000000" "$E/mev_hit/filter" "big > 0x600000000" ok
expect_eq "filtered: i > 3" 6 "$(count mev_hit 'hit 10')"
expect_write "a filter on a missing field: EINVAL" "$E/mev_hit/filter" "nokey == 1" \
	"Invalid argument"
expect_write "a malformed filter: EINVAL" "$E/mev_hit/filter" "key == == 1" "Invalid argument"
expect_grep "a bad filter shows its error in the filter file" "^parse_error: " \
	"$E/mev_hit/filter"
echo 0 > "$E/mev_hit/filter"
expect_eq "filter cleared" none "$(cat "$E/mev_hit/filter")"

# A hist trigger keyed on a field.
expect_write "trigger hist:keys=key" "$E/mev_hit/trigger" "hist:keys=key" ok
fire "hit 10"
hist=$(grep -E '^\{ key: +[0-9]+ \} hitcount: +[0-9]+$' "$E/mev_hit/hist" |
	sed -E 's/^\{ key: +([0-9]+) \} hitcount: +([0-9]+)$/\1=\2/' | sort | tr '\n' ' ')
expect_eq "hist: hits per key" "0=3 1=3 2=2 3=2 " "$hist"
expect_write "remove the trigger" "$E/mev_hit/trigger" "!hist:keys=key" ok
expect_write "a hist trigger on a missing field: EINVAL" "$E/mev_hit/trigger" \
	"hist:keys=nokey" "Invalid argument"
expect_eq "no trigger left" "" "$(grep -v '^#' "$E/mev_hit/trigger")"
expect "no probe left on mev_hit" sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"

# Fields of the user's own. A subset of the arguments, under names of its
# choosing; dynamic_events writes each field out with its type. A record
# whose fields are not the format's arguments in order prints NAME=VALUE,
# each value by its field's type.
expect_write "m:markers/mev_kv mev_hit k=\$arg1 v=\$arg2:s32: made" "$D" \
	'm:markers/mev_kv mev_hit k=$arg1 v=$arg2:s32\n' ok
expect_eq "dynamic_events shows mev_kv's fields with their types" \
	'm:markers/mev_kv mev_hit k=$arg1:u32 v=$arg2:s32' "$(line mev_kv)"
expect_eq "mev_kv: its two fields" "unsigned int k 8 4 0,int v 12 4 1," "$(fields mev_kv)"
expect_eq "mev_kv: print fmt, NAME=conversion of each field" \
	'print fmt: "k=%u v=%d", REC->k, REC->v' "$(grep '^print fmt' "$E/mev_kv/format")"
expect "events: mev_kv, on marker mev_hit, its two fields" sh -c \
	"grep -Eq '^markers/mev_kv +mev_hit +$(cat "$E/mev_kv/id") +0 +[0-9]+ unsigned int k, int v$' $M/events"
expect_eq "mev_kv: 10 hits, 10 records" 10 "$(count mev_kv 'hit 10')"
expect "mev_kv: the record of i = 5 prints k=1 v=-5" grep -q " mev_kv: k=1 v=-5$" "$T/trace"
expect_write "mev_kv: trigger hist:keys=k" "$E/mev_kv/trigger" "hist:keys=k" ok
fire "hit 10"
expect_eq "mev_kv: hist, hits per k" "0=3 1=3 2=2 3=2 " \
	"$(sed -n 's/^{ k: *\([0-9]*\) } hitcount: *\([0-9]*\)$/\1=\2/p' "$E/mev_kv/hist" |
	   sort | tr '\n' ' ')"
echo '!hist:keys=k' > "$E/mev_kv/trigger"
# Reordered and retyped, a string first: the layout follows the fields'
# order, each aligned to its size: who's __data_loc at 8, n at 12, t at
# 16, hi aligned to 24, __cut after it at 32.
expect_write "m:markers/mev_rev mev_hit who=\$arg4 n=\$arg2:u32 t=\$arg5 hi=\$arg3:u64: made" \
	"$D" 'm:markers/mev_rev mev_hit who=$arg4 n=$arg2:u32 t=$arg5 hi=$arg3:u64\n' ok
expect_eq "dynamic_events shows mev_rev's fields in their order, with their types" \
	'm:markers/mev_rev mev_hit who=$arg4:string n=$arg2:u32 t=$arg5:char hi=$arg3:u64' \
	"$(line mev_rev)"
expect_eq "mev_rev: its fields in their order, at their alignment" \
	"__data_loc char[] who 8 4 0,unsigned int n 12 4 0,char t 16 1 1,u64 hi 24 8 0,unsigned char __cut 32 1 0," \
	"$(fields mev_rev)"
expect_eq "mev_rev: print fmt" \
	'print fmt: "who=%s n=%u t=%d hi=%llu", __get_str(who), REC->n, REC->t, REC->hi' \
	"$(grep '^print fmt' "$E/mev_rev/format")"
expect_eq "mev_rev: 10 hits, 10 records" 10 "$(count mev_rev 'hit 10')"
expect "mev_rev: the record of i = 5, val -5 as a u32, tag as a char" \
	grep -q " mev_rev: who=odd n=4294967291 t=c hi=42949672960$" "$T/trace"
# A filter on the renamed fields: who is "odd" and n, -i as a u32, above
# 2^32 - 6 for i = 1 .. 5: i = 1, 3, 5.
expect_write "mev_rev: filter 'who == \"odd\" && n > 4294967290'" "$E/mev_rev/filter" \
	'who == "odd" && n > 4294967290' ok
expect_eq "mev_rev: filtered: i = 1, 3 and 5" 3 "$(count mev_rev 'hit 10')"
expect_write "mev_rev: a filter on the argument's own name: EINVAL" "$E/mev_rev/filter" \
	'name == "odd"' "Invalid argument"
echo 0 > "$E/mev_rev/filter"
expect_write "mev_rev: trigger hist:keys=who, a string" "$E/mev_rev/trigger" "hist:keys=who" ok
fire "hit 10"
expect_eq "mev_rev: hist, hits per who" "even=5 odd=5 " \
	"$(sed -n 's/^{ who: *\([a-z]*\) *} hitcount: *\([0-9]*\)$/\1=\2/p' "$E/mev_rev/hist" |
	   sort | tr '\n' ' ')"
echo '!hist:keys=who' > "$E/mev_rev/trigger"
# The line dynamic_events shows makes the same event again.
saved=$(line mev_rev)
format=$(grep -v '^ID:' "$E/mev_rev/format")
expect "mev_rev removed" mev_drop mev_rev
expect_write "mev_rev made again from its saved line" "$D" "$saved\n" ok
expect_eq "made again: the same line in dynamic_events" "$saved" "$(line mev_rev)"
expect_eq "made again: the same format file, but for its id" "$format" \
	"$(grep -v '^ID:' "$E/mev_rev/format")"
# Renamed, but the arguments in order: the record prints with the
# marker's format.
expect_write "m:markers/mev_same mev_hit a=\$arg1 b=\$arg2 c=\$arg3 d=\$arg4 e=\$arg5: made" \
	"$D" 'm:markers/mev_same mev_hit a=$arg1 b=$arg2 c=$arg3 d=$arg4 e=$arg5\n' ok
expect_eq "mev_same: print fmt, the marker's format on the renamed fields" \
	'print fmt: "key %u val %d big %lld name %s tag %d", REC->a, REC->b, REC->c, __get_str(d), REC->e' \
	"$(grep '^print fmt' "$E/mev_same/format")"
expect_eq "mev_same: one hit, one record" 1 "$(count mev_same 'hit 1')"
expect "mev_same: printed with the marker's format" \
	grep -q " mev_same: key 0 val 0 big 0 name even tag a$" "$T/trace"
# A removal may name the marker and the fields, as dynamic_events shows
# them (a field's type may be left out); it removes nothing otherwise.
expect_write "-:markers/mev_same naming another marker: ENOENT" "$D" \
	'-:markers/mev_same mev_str\n' "No such file or directory"
expect_write "-:markers/mev_same with other fields: ENOENT" "$D" \
	'-:markers/mev_same mev_hit a=$arg1\n' "No such file or directory"
expect "it is still there" test -d "$E/mev_same"
expect_write "-:markers/mev_same with its marker and fields: removed" "$D" \
	'-:markers/mev_same mev_hit a=$arg1 b=$arg2:s32 c=$arg3 d=$arg4:string e=$arg5\n' ok
expect "mev_same is gone" test ! -e "$E/mev_same"

# Strings: copied, bounded (cut and marked), NULL and unreadable ones.
expect "m mev_str" mev_make mev_str
expect_eq "4 string hits, 4 records" 4 "$(count mev_str str)"
expect "a short string" grep -q "mev_str: text short$" "$T/trace"
expect "a NULL string reads (null)" grep -q "mev_str: text (null)$" "$T/trace"
expect "an unreadable string reads (fault)" grep -q "mev_str: text (fault)$" "$T/trace"
long=$(head -c 255 /dev/zero | tr '\0' x)
expect "a long string is cut to 255 characters" grep -q "mev_str: text $long$" "$T/trace"
expect "events: mev_str counts 1 record cut" \
	sh -c "grep -Eq '^markers/mev_str +mev_str +[0-9]+ +1 ' $M/events"
expect_eq "a string of 255 characters: 1 record" 1 "$(count mev_str 'strlen 255')"
expect "it is recorded whole" grep -q "mev_str: text $long$" "$T/trace"
expect "and not counted as cut" sh -c "grep -Eq '^markers/mev_str +mev_str +[0-9]+ +1 ' $M/events"
expect_eq "a string of 256 characters: 1 record" 1 "$(count mev_str 'strlen 256')"
expect "it is cut to 255" grep -q "mev_str: text $long$" "$T/trace"
expect "and counted as cut" sh -c "grep -Eq '^markers/mev_str +mev_str +[0-9]+ +2 ' $M/events"
expect_write "filter on the mark of cut strings: __cut == 1" "$E/mev_str/filter" "__cut == 1" ok
expect_eq "filtered: the long string only" 1 "$(count mev_str str)"
expect_eq "filtered: not a string of 255 characters" 0 "$(count mev_str 'strlen 255')"
echo 0 > "$E/mev_str/filter"

# Formats without arguments, without words, and refused.
expect "m mev_noargs" mev_make mev_noargs
expect_eq "dynamic_events shows mev_noargs without fields" "m:markers/mev_noargs mev_noargs" \
	"$(line mev_noargs)"
expect_eq "mev_noargs: 3 records" 3 "$(count mev_noargs 'noargs 3')"
expect "m mev_anon" mev_make mev_anon
expect_eq "dynamic_events: mev_anon's fields arg0 and arg1 are its arguments 1 and 2" \
	'm:markers/mev_anon mev_anon arg0=$arg1:s32 arg1=$arg2:s32' "$(line mev_anon)"
expect_eq "mev_anon: fields arg0 and arg1" "int arg0;int arg1;" \
	"$(sed -n 's/^\tfield:\(int arg[01];\).*/\1/p' "$E/mev_anon/format" | tr -d '\n')"
expect_eq "mev_anon: one record" 1 "$(count mev_anon anon)"
expect "mev_anon: printed with its format" grep -q "mev_anon: 1:2$" "$T/trace"

# Fields that need padding, signed ones, and "%%": after the header (8
# bytes), a char at 8, an s64 aligned to 16, an int (%hd travels as one)
# at 24, a string's __data_loc at 28, a long aligned to 32, __cut at 40.
expect "m mev_pad" mev_make mev_pad
expect_eq "mev_pad: fields padded to their alignment" \
	"char c 8 1 1,s64 big 16 8 1,int h 24 4 1,__data_loc char[] s 28 4 0,long neg 32 8 1,unsigned char __cut 40 1 0," \
	"$(fields mev_pad)"
expect_eq "mev_pad: one record" 1 "$(count mev_pad pad)"
expect "mev_pad: printed with its format, %% as %" \
	grep -q "mev_pad: c Z big -1099511627779 h -1234 s pad neg -5 pct % end$" "$T/trace"
expect_write "mev_pad: filter 'neg == -5 && big < -1099511627778'" "$E/mev_pad/filter" \
	'neg == -5 && big < -1099511627778' ok
expect_eq "mev_pad: the negative values pass it" 1 "$(count mev_pad pad)"
expect_write "mev_pad: filter 'neg > -5'" "$E/mev_pad/filter" 'neg > -5' ok
expect_eq "mev_pad: -5 does not pass 'neg > -5'" 0 "$(count mev_pad pad)"
echo 0 > "$E/mev_pad/filter"
# Every conversion, flag and length modifier the format parser takes,
# printed from the record as vsnprintf() prints the format with the
# arguments of the site: the module printed each so at "conv" and gives
# them back, "NAME: text", when its file is read.
conv="mev_conv_int mev_conv_long mev_conv_flags mev_conv_ptr"
conv="$conv mev_conv_short mev_conv_rest mev_conv_more"
conv="$conv mev_plan_int mev_plan_word mev_plan_char mev_plan_mixed mev_plan_words mev_plan_four"
unmade=
for e in $conv; do
	out=$(mev_make "$e") || unmade="$unmade $out;"
done
expect_eq "m of each mev_conv_ and mev_plan_ marker: all made" "" "$unmade"
echo > "$T/trace"
for e in $conv; do echo 1 > "$E/$e/enable"; done
fire conv
for e in $conv; do echo 0 > "$E/$e/enable"; done
printed=$(cat "$P")
expect_eq "conv: vsnprintf()'s line of each marker" "$conv" \
	"$(printf '%s\n' "$printed" | cut -d: -f1 | tr '\n' ' ' | sed 's/ $//')"
for e in $conv; do
	expect_eq "$e: printed as vsnprintf() prints its format" \
		"$(printf '%s\n' "$printed" | grep "^$e: ")" \
		"$(grep -o " $e: .*\$" "$T/trace" | cut -c2-)"
done
diag "conv: $printed"
# Each field's type and sign, as the format file gives them (the common
# fields and __cut left out): the signed conversions (d, i) of each length
# are signed, the unsigned ones (u, x, X, o) are not, whatever they print.
signs() {
	grep -o 'field:[^;]*;.offset:[0-9]*;.size:[0-9]*;.signed:[01]' "$E/$1/format" |
		sed 's/^field://; s/;.offset:[0-9]*;.size:[0-9]*;.signed:/ /' |
		tail -n +5 | grep -v ' __cut ' | tr '\n' ,
}
expect_eq "mev_conv_short: each field's type and sign" \
	"int hi 1,unsigned int hu 0,unsigned int hx 0,unsigned int hX 0,unsigned int ho 0,int hhi 1,unsigned int hhx 0,unsigned int hhX 0," \
	"$(signs mev_conv_short)"
expect_eq "mev_conv_rest: each field's type and sign" \
	"long li 1,unsigned long lX 0,unsigned long lo 0,s64 lli 1,u64 llX 0,long zi 1,__data_loc char[] ws 0,void * wp 0," \
	"$(signs mev_conv_rest)"
expect_eq "mev_conv_more: each field's type and sign" \
	"unsigned int hho 0,u64 llo 0,unsigned long zx 0,unsigned long zX 0,unsigned long zo 0,int prec 1,__data_loc char[] sp 0," \
	"$(signs mev_conv_more)"
# A char, an s64 and an int: the record must put each value where the
# format file says, the char at 8, the s64 after it aligned to 16, the int
# at 24. Its line above shows the values.
expect_eq "mev_plan_mixed: a char, an s64 and an int at the offsets of its format" \
	"char c 8 1 1,s64 big 16 8 1,int n 24 4 1," "$(fields mev_plan_mixed)"
# A format that makes no fields (%pI4 reads through its pointer) makes no
# event: EINVAL, and error_log and the kernel log say why.
echo > "$T/error_log"
expect_write "m mev_refused, a format with %pI4: EINVAL" "$D" 'm mev_refused\n' \
	"Invalid argument"
expect "a format with %pI4 has no event" test ! -e "$E/mev_refused"
expect "error_log says why" grep -qF \
	"trace_markers: error: The marker's format cannot be turned into fields" "$T/error_log"
expect "the kernel log says why" logged \
	'trace_markers: marker mev_refused: format "addr %pI4", at offset 5: %p extension reads what the pointer points to'

# The enable file of markers/ is a shorthand for the event markers/NAME of
# the top instance, which it makes first if there is none.
expect_write "markers/enable: mev_hit" "$M/enable" mev_hit ok
expect_eq "the event is on" 1 "$(cat "$E/mev_hit/enable")"
expect_eq "the enable file lists it" mev_hit "$(cat "$M/enable")"
expect_write "markers/enable: mev_refused makes no event: EINVAL" "$M/enable" mev_refused \
	"Invalid argument"
expect_write "markers/enable: the guard mev_guard makes no event: EINVAL" "$M/enable" mev_guard \
	"Invalid argument"
expect_write "markers/enable: !mev_hit" "$M/enable" '!mev_hit' ok
expect_eq "the event is off" 0 "$(cat "$E/mev_hit/enable")"
expect "and stays" test -d "$E/mev_hit"
expect "remove markers/mev_anon" mev_drop mev_anon
expect_write "markers/enable: mev_anon, which has no event" "$M/enable" mev_anon ok
expect_eq "it made m:markers/mev_anon, every argument a field" \
	'm:markers/mev_anon mev_anon arg0=$arg1:s32 arg1=$arg2:s32' "$(line mev_anon)"
expect_eq "and enabled it: one hit, one record" 1 \
	"$(echo > "$T/trace"; fire anon; grep -c ' mev_anon: ' "$T/trace")"
expect_write "markers/enable: !mev_anon" "$M/enable" '!mev_anon' ok
expect_eq "mev_anon stays, off" 0 "$(cat "$E/mev_anon/enable")"
expect_write "markers/enable: !mev_anon again: ENOENT" "$M/enable" '!mev_anon' \
	"No such file or directory"

# perf, as Debian ships it (the host's build: x86 guests only, lib.sh).
#
# perf stat prints "<not counted>" for a counter that ran for no time. The
# guests' clock is jiffies (TCG: the TSC cannot be calibrated, and there is
# no HPET or PM timer), so a workload that ends within one tick on every
# CPU ran for no time: seen in the clang guest with a loaded host, which
# printed "<not counted>,,markers:sample_read,0,100.00,,". The workloads
# of perf stat sleep one tick and more (HZ is at least 100) after their
# hits, which they do not change.
TICK=0.02
# perf record of the event markers:$1 while sh runs $2, then perf script
# of what it recorded, into /tmp/perf.out.
perf_recorded() {
	rm -f /tmp/perf.data
	(cd /tmp && perf record -q -a -e "markers:$1" -o /tmp/perf.data -- \
		sh -c "$2" && perf script -i /tmp/perf.data) > /tmp/perf.out 2>&1
}
if has_tool perf; then
	out=$(perf stat -a -x, -e markers:mev_hit -- sh -c "echo 'hit 10' > $P; sleep $TICK" 2>&1)
	diag "perf stat: $(echo "$out" | grep mev_hit)"
	expect_eq "perf stat counts the 10 hits" 10 \
		"$(echo "$out" | sed -n 's/^\([0-9]*\),.*markers:mev_hit.*/\1/p')"
	perf_recorded mev_hit "echo 'hit 4' > $P"
	expect_eq "perf record + perf script: 4 samples" 4 \
		"$(grep -c 'markers:mev_hit:' /tmp/perf.out)"
	expect_grep "perf script shows the fields of i = 1" \
		'markers:mev_hit: +key 1 val -1 big 8589934592 name odd tag 98$' /tmp/perf.out
	perf_recorded mev_anon "echo anon > $P"
	expect_grep "perf script shows the two ints of mev_anon" \
		'markers:mev_anon: +1:2$' /tmp/perf.out
	# An event of the user's fields: perf prints them by its print fmt.
	perf_recorded mev_kv "echo 'hit 4' > $P"
	expect_eq "perf record + perf script of mev_kv: 4 samples" 4 \
		"$(grep -c 'markers:mev_kv:' /tmp/perf.out)"
	expect_grep "perf script shows the fields k and v of i = 3" \
		'markers:mev_kv: +k=3 v=-3$' /tmp/perf.out
else
	skip_without perf "perf stat counts the 10 hits" "perf record + perf script: 4 samples" \
		"perf script shows the fields of i = 1" \
		"perf script shows the two ints of mev_anon" \
		"perf record + perf script of mev_kv: 4 samples" \
		"perf script shows the fields k and v of i = 3"
fi

# trace-cmd, as Debian ships it. trace-cmd 3.1 forks a recorder for each
# CPU, runs the command, then stops the recorders; one stopped before its
# loop began flushes nothing, and its CPU's records stay in the kernel's
# buffer (1 round in 120 of a loop of this case in the clang guest: "CPU:
# 0 entries: 4, read events: 0" in the statistics trace-cmd record
# prints). The command fires once every CPU's trace_pipe_raw is open, so
# that the case checks the marker's records, not how soon recorders run.
if has_tool trace-cmd; then
	cpus=$(ls -d $T/per_cpu/cpu* | wc -l)
	cat > /tmp/fire-when-recording.sh <<-EOF
		tries=0
		while [ \$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c '/trace_pipe_raw\$') -lt $cpus ] &&
			[ \$tries -lt 300 ]; do
			tries=\$((tries + 1))
			sleep 0.1
		done
		echo \$tries > /tmp/fire-waited
		echo 'hit 4' > $P
	EOF
	rm -f /tmp/trace.dat
	(cd /tmp && trace-cmd record -e markers:mev_hit -e markers:mev_rev -o /tmp/trace.dat \
		sh /tmp/fire-when-recording.sh) > /tmp/trace-cmd-record.out 2>&1
	trace-cmd report -i /tmp/trace.dat > /tmp/trace-cmd.out 2>&1
	records=$(grep -c 'mev_hit:' /tmp/trace-cmd.out)
	expect_eq "trace-cmd record + report: 4 records" 4 "$records"
	if [ "$records" != 4 ]; then
		# What reached the file, and what each CPU left unread.
		diag "$(grep -H '' /tmp/trace-cmd.out | head -20)"
		diag "$(grep -E '^(CPU|entries|read events)' /tmp/trace-cmd-record.out)"
		diag "fired after $(cat /tmp/fire-waited) waits of 0.1 s for $cpus recorders"
	fi
	expect_grep "trace-cmd report shows the fields of i = 2" \
		'mev_hit: +key 2 val -2 big 17179869184 name even tag 99$' /tmp/trace-cmd.out
	expect_eq "trace-cmd record + report of mev_rev, beside it: 4 records" 4 \
		"$(grep -c 'mev_rev:' /tmp/trace-cmd.out)"
	expect_grep "trace-cmd report shows the reordered fields of i = 3" \
		'mev_rev: +who=odd n=4294967293 t=97 hi=25769803776$' /tmp/trace-cmd.out
else
	skip_without trace-cmd "trace-cmd record + report: 4 records" \
		"trace-cmd report shows the fields of i = 2" \
		"trace-cmd record + report of mev_rev, beside it: 4 records" \
		"trace-cmd report shows the reordered fields of i = 3"
fi

# BPF: a tracepoint program counts the hits per key in an array map. Its
# perf event is CPU 0's; the hits run on CPU 1: a program runs on every
# hit, whichever CPU its perf event is bound to. Then the same on an event
# whose key is its second field: v at 8, k at 12.
if has_tool marker-bpf; then
	id=$(cat "$E/mev_hit/id")
	out=$(marker-bpf "$id" 8 4 "taskset 2 sh -c 'echo hit 10 > $P'" 2>&1)
	expect_eq "BPF: hits per key" "0 3,1 3,2 2,3 2," "$(echo "$out" | tr '\n' ',')"
	expect_write "m:markers/mev_vk mev_hit v=\$arg2 k=\$arg1: made" "$D" \
		'm:markers/mev_vk mev_hit v=$arg2 k=$arg1\n' ok
	expect_eq "mev_vk: v at 8, k at 12" "int v 8 4 1,unsigned int k 12 4 0," "$(fields mev_vk)"
	out=$(marker-bpf "$(cat "$E/mev_vk/id")" 12 4 "taskset 2 sh -c 'echo hit 10 > $P'" 2>&1)
	expect_eq "BPF: hits per k of mev_vk, read at offset 12" "0 3,1 3,2 2,3 2," \
		"$(echo "$out" | tr '\n' ',')"
	expect "mev_vk removed" mev_drop mev_vk
else
	skip_without marker-bpf "BPF: hits per key" "m:markers/mev_vk mev_hit v=\$arg2 k=\$arg1: made" \
		"mev_vk: v at 8, k at 12" "BPF: hits per k of mev_vk, read at offset 12" \
		"mev_vk removed"
fi

# A perf event of a marker event switches the marker on, counting alone:
# it needs what a tracepoint's raw data needs (perf_allow_tracepoint()).
# At perf_event_paranoid 2, uid 65534 counting its own task without the
# kernel is refused, and the marker stays off; root's open of the same
# switches it on while it holds it (guest/progs/perf-open.c).
if has_tool perf-open; then
	id=$(cat "$E/mev_hit/id")
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 > /proc/sys/kernel/perf_event_paranoid
	expect_eq "perf_event_open of mev_hit as uid 65534: EPERM" EPERM \
		"$(perf-open "$id" 65534 < /dev/null)"
	expect "and mev_hit stays off" sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"
	rm -f /tmp/perf-open.in /tmp/perf-open.out
	mkfifo /tmp/perf-open.in
	perf-open "$id" 0 hold < /tmp/perf-open.in > /tmp/perf-open.out &
	# It holds the event until the fifo closes; fd 3 is lib.sh's results.
	exec 6> /tmp/perf-open.in
	# Until it has printed "opened" or its error: no time limit of its own.
	while [ ! -s /tmp/perf-open.out ] && kill -0 $! 2>/dev/null; do
		sleep 0.1
	done
	expect_eq "perf_event_open of mev_hit as root" opened "$(cat /tmp/perf-open.out)"
	expect "switches mev_hit on while it is open" \
		sh -c "grep -Eq '^mev_hit +on +1 ' $M/list"
	exec 6>&-
	wait $!
	echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid
	expect "and off when it is closed" sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"
	rm -f /tmp/perf-open.in /tmp/perf-open.out
else
	skip_without perf-open "perf_event_open of mev_hit as uid 65534: EPERM" \
		"and mev_hit stays off" "perf_event_open of mev_hit as root" \
		"switches mev_hit on while it is open" "and off when it is closed"
fi

# bpftrace, as Debian ships it (0.17): it lists the events and their typed
# fields from tracefs, and without kernel BTF compiles its programs against
# the kernel's headers in /lib/modules/RELEASE/build (tools/wb/initramfs.py).
# -c runs the hits once the probes are attached and ends the run; the maps
# print at its end. hit 10: big is i << 33, summed per name; val is -i,
# below -5 for i = 6 .. 9.
# bpftrace_maps PROGRAM SCRIPT: the map lines bpftrace prints at the end
# of PROGRAM, run around /bin/sh SCRIPT, comma-separated; what it printed
# goes to the diagnostics when it printed no map.
bpftrace_maps() {
	bpftrace -e "$1" -c "/bin/sh $2" > /tmp/bpftrace.out 2>&1
	grep -q '^@' /tmp/bpftrace.out || diag "bpftrace: $(head -n 20 /tmp/bpftrace.out)"
	grep '^@' /tmp/bpftrace.out | tr '\n' ,
}

if has_tool bpftrace; then
	printf 'echo hit 10 > %s\n' "$P" > /tmp/hit10.sh
	expect_eq "bpftrace -l lists the marker events made on the module" \
		"$(ls "$E" | sed -n 's/^mev_/tracepoint:markers:mev_/p' | tr '\n' ,)" \
		"$(bpftrace -l 'tracepoint:markers:mev_*' 2>&1 | tr '\n' ,)"
	expect_eq "bpftrace -lv shows the typed fields of mev_hit" \
		"unsigned int key,int val,s64 big,__data_loc char[] name,char tag,unsigned char __cut," \
		"$(bpftrace -lv tracepoint:markers:mev_hit 2>&1 | sed -n 's/^ \{4\}//p' | tr '\n' ,)"
	expect_eq "bpftrace -lv shows the user's fields of mev_rev, in their order" \
		"__data_loc char[] who,unsigned int n,char t,u64 hi,unsigned char __cut," \
		"$(bpftrace -lv tracepoint:markers:mev_rev 2>&1 | sed -n 's/^ \{4\}//p' | tr '\n' ,)"
	expect_eq "bpftrace: big summed per name string over 10 hits" \
		"@big[even]: 171798691840,@big[odd]: 214748364800," \
		"$(bpftrace_maps 'tracepoint:markers:mev_hit { @big[str(args->name)] = sum(args->big); }' \
			/tmp/hit10.sh)"
	expect_eq "bpftrace: hi summed per who string over 10 hits of mev_rev" \
		"@hi[even]: 171798691840,@hi[odd]: 214748364800," \
		"$(bpftrace_maps 'tracepoint:markers:mev_rev { @hi[str(args->who)] = sum(args->hi); }' \
			/tmp/hit10.sh)"
	expect_eq "bpftrace: a predicate on a signed int field lets 4 of 10 hits through" \
		"@below: 4," \
		"$(bpftrace_maps 'tracepoint:markers:mev_hit /args->val < -5/ { @below = count(); }' \
			/tmp/hit10.sh)"
	printf 'echo pad > %s\n' "$P" > /tmp/pad.sh
	expect_eq "bpftrace reads the padded fields of mev_pad at the offsets of its format" \
		"@big: -1099511627779,@c: 90,@h: -1234,@neg: -5," \
		"$(bpftrace_maps 'tracepoint:markers:mev_pad { @big = sum(args->big); @c = sum(args->c); @h = sum(args->h); @neg = sum(args->neg); }' \
			/tmp/pad.sh | tr ',' '\n' | sort | tr '\n' ,)"
else
	skip_without bpftrace "bpftrace -l lists the marker events made on the module" \
		"bpftrace -lv shows the typed fields of mev_hit" \
		"bpftrace -lv shows the user's fields of mev_rev, in their order" \
		"bpftrace: big summed per name string over 10 hits" \
		"bpftrace: hi summed per who string over 10 hits of mev_rev" \
		"bpftrace: a predicate on a signed int field lets 4 of 10 hits through" \
		"bpftrace reads the padded fields of mev_pad at the offsets of its format"
fi
expect "no probe left on mev_hit after perf, BPF and bpftrace" \
	sh -c "grep -Eq '^mev_hit +off +0 ' $M/list"

# The examples of Documentation/markers.txt, on samples/markers.
expect "modprobe marker-example" modprobe marker-example
expect "docs: m sample_read" mev_make sample_read
expect "docs: m sample_write" mev_make sample_write
S=$E/sample_read
expect_write "docs: filter 'pos == 0 && count > 4096'" "$S/filter" 'pos == 0 && count > 4096' ok
expect_write "docs: trigger 'hist:keys=pid if pos == 0'" "$S/trigger" 'hist:keys=pid if pos == 0' ok
cat /proc/marker-example >/dev/null
cat /proc/marker-example >/dev/null
expect_eq "docs: the hist has two pids, one hit each (the reads at pos 0)" "1 1 " \
	"$(sed -n 's/^{ pid: *[0-9]* } hitcount: *\([0-9]*\)$/\1/p' "$S/hist" | tr '\n' ' ')"
echo '!hist:keys=pid if pos == 0' > "$S/trigger"
expect_eq "docs: no trigger left on sample_read" "" "$(grep -v '^#' "$S/trigger")"
echo 0 > "$S/filter"
expect_write "docs: filter 'data ~ \"hel*\"'" "$E/sample_write/filter" 'data ~ "hel*"' ok
expect_eq "docs: the glob lets hello through, not bye" "hello" \
	"$(echo > "$T/trace"; echo 1 > "$E/sample_write/enable"; echo hello > /proc/marker-example
	   echo bye > /proc/marker-example; echo 0 > "$E/sample_write/enable"
	   sed -n 's/.* sample_write: pid [0-9]* len [0-9]* data //p' "$T/trace")"
echo 0 > "$E/sample_write/filter"
# The user's fields of the documentation's example.
expect_write "docs: m:rw/size sample_read pid=\$arg1 bytes=\$arg2" "$D" \
	'm:rw/size sample_read pid=$arg1 bytes=$arg2\n' ok
expect_eq "docs: dynamic_events shows both events as the documentation does" \
	'm:markers/sample_read sample_read pid=$arg1:s32 count=$arg2:ulong pos=$arg3:s64|m:rw/size sample_read pid=$arg1:s32 bytes=$arg2:ulong|' \
	"$(grep -E '^m:(markers/sample_read|rw/size) ' "$D" | tr '\n' '|')"
if has_tool bpftrace; then
	printf 'printf hello > /proc/marker-example\nprintf hello > /proc/marker-example\n%s\n' \
		'printf bye > /proc/marker-example' > /tmp/write3.sh
	expect_eq "docs: bpftrace counts the writes per data string" "@[bye]: 1,@[hello]: 2," \
		"$(bpftrace_maps 'tracepoint:markers:sample_write { @[str(args->data)] = count(); }' \
			/tmp/write3.sh)"
else
	skip_without bpftrace "docs: bpftrace counts the writes per data string"
fi
if has_tool perf; then
	out=$(perf stat -a -x, -e markers:sample_read -- \
		sh -c "cat /proc/marker-example; sleep $TICK" 2>&1 >/dev/null)
	n=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\),.*markers:sample_read.*/\1/p')
	if [ "$n" = 2 ]; then
		pass "docs: perf stat counts the two reads of one cat"
	else
		fail "docs: perf stat counts the two reads of one cat" \
			"got '$n'; perf said: $(printf '%s' "$out" | tr '\n' '|' | cut -c1-600)"
	fi
else
	skip_without perf "docs: perf stat counts the two reads of one cat"
fi
expect "rmmod marker-example" rmmod marker_example
for e in sample_read sample_write; do
	expect "docs: markers/$e removed" mev_drop "$e"
done
expect_write "docs: rw/size removed" "$D" '-:rw/size\n' ok

# The events stay with their module gone (14-markers-event-lifetimes.sh
# tests it in depth); a file opened before the removal of its event no
# longer enables anything; every event of the script is removed.
exec 5>"$E/mev_hit/enable"
expect "rmmod marker_events" rmmod marker_events
expect "its events stay: mev_hit" test -d "$E/mev_hit"
expect "remove markers/mev_hit" mev_drop mev_hit
expect_fail "enabling through a file opened before the removal fails" sh -c "echo 1 >&5"
exec 5>&-
left=
for e in $(mev_events | sed -n 's|^m:markers/\([^ ]*\) .*|\1|p'); do
	mev_drop "$e" > /dev/null || left="$left $e"
done
expect_eq "every other event of the script removed" "" "$left"
expect "available_events has no mev_ event" sh -c "! grep -q '^markers:mev_' $T/available_events"
expect_eq "no marker event is left" "" "$(mev_events; mev_dirs)"
expect "no marker of the module is left" sh -c "! grep -q '^mev_' $M/list"
