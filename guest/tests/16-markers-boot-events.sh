# SPDX-License-Identifier: GPL-2.0
#
# Marker events made at boot by the kernel command line, as kprobe_event=
# makes kprobe events: marker_event="CMD;CMD", a command of dynamic_events
# each with ',' for a blank, given once or more, and by bootconfig's
# kernel.marker_event, whose array of two the kernel passes as two
# marker_event= before the command line's. The workbench gives this
# script a boot of its own with settings.E2E_CMDLINE's line and
# E2E_BOOTCONFIG's bootconfig; any other boot skips it. The events are on
# the MARK_HOT() sites of the core kernel (patch 19), which a shell hits:
# vfs_openat at every open, task_clone at every fork, task_exit at every
# exit, pipe_write at every write to a pipe. They are enabled in the top
# instance before user space starts, so their records are in the buffer
# before this script writes anything; a bad command fails alone, with its
# error in the kernel log.

suite markers_boot_events
T=/sys/kernel/tracing
M=$T/markers
D=$T/dynamic_events
BUSY="Device or resource busy"
BOOTCONFIG='kernel.marker_event = "m:bconf/exit,task_exit,code=$arg2:long", "m:bconf/pipe,pipe_write"'
BOOT_CMDS='m:bconf/exit,task_exit,code=$arg2:long m:bconf/pipe,pipe_write'
BOOT_CMDS="$BOOT_CMDS m,vfs_openat;m:boot/clone,task_clone,sig=\$arg2,fl=\$arg1:u64"
BOOT_CMDS="$BOOT_CMDS m,no_such_marker"

if [ -z "$(cmdline_value marker_event)" ]; then
	skip "marker events made at boot" "no marker_event= on the kernel command line"
	return 0
fi

# records EVENT: the records of EVENT in the top instance's buffer.
records() { grep -c " $1: " "$T/trace"; }

# Counted before anything below opens a file with O_CREAT or forks on
# purpose: what the boot itself recorded.
at_start_open=$(records vfs_openat)
at_start_clone=$(records clone)

expect_eq "/proc/bootconfig has the initrd's kernel.marker_event" "$BOOTCONFIG" \
	"$(grep '^kernel.marker_event' /proc/bootconfig)"
expect_eq "bootconfig's two values, then the command line's two marker_event=" "$BOOT_CMDS" \
	"$(cmdline_values marker_event | tr '\n' ' ' | sed 's/ $//')"
expect_eq "dynamic_events has the four good commands' events, every field written out" \
	'm:bconf/exit task_exit code=$arg2:long,m:bconf/pipe pipe_write len=$arg1:ulong flags=$arg2:s32,m:boot/clone task_clone sig=$arg2:s32 fl=$arg1:u64,m:markers/vfs_openat vfs_openat dfd=$arg1:s32 flags=$arg2:u64' \
	"$(mev_events | sort | tr '\n' ',' | sed 's/,$//')"
expect_eq "the bad command made no event" "" "$(grep no_such_marker "$D")"
expect "the bad command's error is in the kernel log (ENOENT)" \
	sh -c "dmesg | grep -qF 'marker_event: \"m no_such_marker\": error -2'"
for ev in markers/vfs_openat boot/clone bconf/exit bconf/pipe; do
	expect_eq "events/$ev is enabled in the top instance" 1 "$(cat "$T/events/$ev/enable")"
done
expect_eq "markers/enable lists vfs_openat, the markers group's event enabled at boot" \
	vfs_openat "$(cat "$M/enable")"
for marker in vfs_openat task_clone task_exit pipe_write; do
	expect "markers/list: $marker on, one probe" grep -Eq "^$marker +on +1 " "$M/list"
done
expect "the boot recorded opens before this script ran" test "$at_start_open" -gt 0
expect "the boot recorded forks before this script ran" test "$at_start_clone" -gt 0

# The fields are typed as the commands say: int for %d, u64 given for a
# %llx, in the order given.
expect "boot/clone's format: sig is an int" \
	grep -q 'field:int sig;.*size:4;.*signed:1;' "$T/events/boot/clone/format"
expect "boot/clone's format: fl is a u64" \
	grep -q 'field:u64 fl;.*size:8;.*signed:0;' "$T/events/boot/clone/format"
sigchld=$(grep -c ' clone: sig=17 fl=' "$T/trace")
sh -c :
expect "a fork records SIGCHLD, 17, as sig" \
	test "$(grep -c ' clone: sig=17 fl=' "$T/trace")" -gt "$sigchld"
expect "bconf/exit's format: code is a long" \
	grep -q 'field:long code;.*size:8;.*signed:1;' "$T/events/bconf/exit/format"
sh -c 'exit 3'
expect_eq "an exit with status 3 records code=768 once" 1 \
	"$(grep -c ' exit: code=768$' "$T/trace")"
# A pipe write of 13 bytes, a length no count this script reads from a
# pipe of its own has: the event without fields prints the format.
before=$(grep -c ' pipe: len 13 flags ' "$T/trace")
printf 'markers-boot\n' | cat > /dev/null
expect_eq "a write of 13 bytes to a pipe records len 13 once" 1 \
	$(($(grep -c ' pipe: len 13 flags ' "$T/trace") - before))

# A filter on a field of a boot-time event: only opens with O_CREAT
# (0x40) from here on; three files made, three more records, and none for
# two files read. The buffer is read, not cleared: clearing it is itself an
# open with O_CREAT.
echo 'flags & 0x40' > "$T/events/markers/vfs_openat/filter"
before=$(records vfs_openat)
for i in 1 2 3; do
	: > "/tmp/boot-events-$i"
done
expect_eq "filter flags & 0x40: three files made, three records" 3 \
	$(($(records vfs_openat) - before))
# Read through a pipe: "> /dev/null" would open with O_CREAT.
before=$(records vfs_openat)
: "$(cat /tmp/boot-events-1 /tmp/boot-events-2)"
expect_eq "filter flags & 0x40: two files read, no record" 0 \
	$(($(records vfs_openat) - before))
echo 0 > "$T/events/markers/vfs_openat/filter"

# Made at boot, they are dynamic events as any other: refused while
# enabled, removed once off, and their markers' sites go off with them.
expect_write "-:markers/vfs_openat while enabled: EBUSY" "$D" '-:markers/vfs_openat\n' "$BUSY"
for ev in markers/vfs_openat boot/clone bconf/exit bconf/pipe; do
	echo 0 > "$T/events/$ev/enable"
	expect_write "-:$ev once disabled" "$D" "-:$ev\n" ok
done
expect_eq "no marker event left" "" "$(mev_events)"
for marker in vfs_openat task_clone task_exit pipe_write; do
	expect "markers/list: $marker off, no probe" grep -Eq "^$marker +off +0 " "$M/list"
done
