# SPDX-License-Identifier: GPL-2.0
#
# /sys/kernel/tracing/markers from a root shell: the list, switching a
# marker's event on and off with the enable file (which makes the event,
# a dynamic event, when there is none), its records in the trace, and
# every kind of bad input, which must fail with its error and change
# nothing. The events stay when their module goes, until removed through
# dynamic_events, as this script does at its end. 13-markers-events.sh
# tests the events themselves.

suite markers_tracefs
T=/sys/kernel/tracing
M=$T/markers

if [ ! -d "$M" ]; then
	skip "tracefs markers directory" "no $M (no CONFIG_EVENT_TRACING)"
	return 0
fi

D=$T/dynamic_events
state() { cat "$M/list" "$M/enable" "$D"; }

expect "the list has a header" grep -q '^# name' "$M/list"
expect "modprobe marker-example" modprobe marker-example

# Module.markers, which the build wrote for SystemTap, against the list
# of the kernel: every marker that has sites here is in it, with its
# module and format, and those of marker-example are exactly the list's.
cat /etc/wb/Module.markers /etc/wb/Module.markers.extmod > /tmp/Module.markers
built_markers /tmp/Module.markers > /tmp/built-markers
listed=$(listed_markers)
expect_eq "Module.markers has every marker of the list that has sites, with its module and format" \
	"" "$(printf '%s\n' "$listed" | grep -vxF -f /tmp/built-markers)"
expect "Module.markers lists the markers of marker-example as the kernel does" \
	same_markers marker_example "$(cat /tmp/built-markers)" "$listed"
expect "list: sample_read of marker_example, off, 0 probes, 1 site" \
	sh -c "grep -Eq '^sample_read +off +0 +1 +marker_example +\"pid %d count %zu pos %lld\"' $M/list"
# Its guard and its MARK() are 2 sites, or more where GCC copies one into
# the probe block before it (arm64).
expect "list: the marker_enabled() guard sample_write_crc is a site" \
	sh -c "grep -Eq '^sample_write_crc +off +0 +([2-9]|[1-9][0-9]+) +marker_example ' $M/list"

echo > "$T/trace"
expect_eq "no event comes with the module" "" "$(mev_dirs | tr '\n' ' ')"
expect_write "switch sample_read on" "$M/enable" "sample_read\n" ok
expect_eq "enable lists sample_read" sample_read "$(cat "$M/enable")"
expect_eq "it made the event m:markers/sample_read, every argument a field" \
	'm:markers/sample_read sample_read pid=$arg1:s32 count=$arg2:ulong pos=$arg3:s64' \
	"$(grep '^m:markers/sample_read ' "$D")"
expect "list: sample_read on, 1 probe" sh -c "grep -Eq '^sample_read +on +1 +1 ' $M/list"
cat /proc/marker-example >/dev/null
expect "the trace has a markers:sample_read event with its arguments" \
	grep -Eq " sample_read: pid [0-9]+ count [0-9]+ pos 0$" "$T/trace"

before=$(state)
expect_write "on twice: EBUSY" "$M/enable" "sample_read" "Device or resource busy"
expect_write "unknown marker (no event): ENOENT" "$M/enable" "no_such_marker" "No such file or directory"
expect_write "off an unknown marker: ENOENT" "$M/enable" "!no_such_marker" "No such file or directory"
expect_write "off a marker not on here: ENOENT" "$M/enable" "!sample_write" "No such file or directory"
expect_write "empty: EINVAL" "$M/enable" "\n" "Invalid argument"
expect_write "not an identifier: EINVAL" "$M/enable" "sample-read" "Invalid argument"
expect_write "two names: EINVAL" "$M/enable" "sample_read sample_write" "Invalid argument"
expect_write "a NUL byte: EINVAL" "$M/enable" "sample_write\0x" "Invalid argument"
expect_write "a lone !: EINVAL" "$M/enable" "!" "Invalid argument"
expect_write "65 characters: EINVAL" "$M/enable" \
	"a234567890123456789012345678901234567890123456789012345678901234x" "Invalid argument"
expect_write "a page of data: EINVAL" "$M/enable" "$(head -c 4096 /dev/zero | tr '\0' a)" \
	"Invalid argument"
# At the limit: "!", a name of MARKER_NAME_MAX (64) characters and a
# newline make the longest command, 66 bytes; one byte more is refused
# before it is read.
N64=a234567890123456789012345678901234567890123456789012345678901234
expect_write "65 bytes, a name of 64 and a newline: read (ENOENT)" "$M/enable" "$N64\n" \
	"No such file or directory"
expect_write "66 bytes, the longest command: read (ENOENT)" "$M/enable" "!$N64\n" \
	"No such file or directory"
expect_write "67 bytes: EINVAL" "$M/enable" " !$N64\n" "Invalid argument"
expect_write "66 bytes of blanks around sample_read, on: read (EBUSY)" "$M/enable" \
	"$(printf '%27s%-38s' '' sample_read)\n" "Device or resource busy"
expect_write "67 bytes of blanks around sample_read: EINVAL" "$M/enable" \
	"$(printf '%28s%-38s' '' sample_read)\n" "Invalid argument"
expect_eq "no error changed anything" "$before" "$(state)"

if id nobody >/dev/null 2>&1; then
	out=$(su nobody -s /bin/sh -c "echo sample_write > $M/enable" 2>&1)
	case "$out" in
	*"Permission denied"*) pass "non-root cannot switch a marker on" ;;
	*) fail "non-root cannot switch a marker on" "$out" ;;
	esac
	out=$(su nobody -s /bin/sh -c "cat $M/list" 2>&1)
	case "$out" in
	*"Permission denied"*) pass "non-root cannot read the list" ;;
	*) fail "non-root cannot read the list" "$out" ;;
	esac
else
	fail "non-root cannot switch a marker on" "no user nobody in the guest"
fi
expect_eq "non-root changed nothing" "$before" "$(state)"

expect_write "switch sample_read off" "$M/enable" "!sample_read" ok
expect_eq "enable is empty" "" "$(cat "$M/enable")"
expect "the event stays once off" test -d "$T/events/markers/sample_read"
echo > "$T/trace"
cat /proc/marker-example >/dev/null
expect_eq "no event once off" 0 "$(grep -c ' sample_read: ' "$T/trace")"
expect "list: sample_read off, 0 probes" sh -c "grep -Eq '^sample_read +off +0 +1 ' $M/list"

expect_write "switch sample_write on, then unload its module" "$M/enable" "sample_write" ok
expect "rmmod marker-example" rmmod marker_example
expect "list: sample_write waits for its module (-), still on" \
	sh -c "grep -Eq '^sample_write +on +1 +0 +- ' $M/list"
expect "modprobe marker-example again" modprobe marker-example
echo > "$T/trace"
echo hello > /proc/marker-example
expect "reloaded, sample_write fires at once" \
	grep -Eq " sample_write: pid [0-9]+ len 6 data hello$" "$T/trace"
expect_write "switch sample_write off" "$M/enable" "!sample_write" ok
expect "rmmod marker-example" rmmod marker_example
expect "list: no sample marker left" sh -c "! grep -q '^sample_' $M/list"
expect_eq "the two events the enable file made stay without their module" \
	"sample_read sample_write " "$(mev_dirs | tr '\n' ' ')"
expect_write "off an event whose module went: ENOENT" "$M/enable" "!sample_read" \
	"No such file or directory"
for e in sample_read sample_write; do
	expect "remove markers/$e" mev_drop "$e"
done
expect_eq "no marker event is left" "" "$(mev_events; mev_dirs)"
