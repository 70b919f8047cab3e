# SPDX-License-Identifier: GPL-2.0
#
# Markers in a module built out of tree and unsigned
# (guest/modules/oot_markers): it checks its own site at load, on and off;
# with tracefs, an event made on its marker outlives its unload and
# records every hit of its next load.

suite markers_out_of_tree
M=/sys/kernel/tracing/markers

dmesg -c >/dev/null
expect "oot_markers loads: its probe saw every hit on and none off" modprobe oot_markers
dmesg | grep 'oot_markers: '
if [ -d "$M" ]; then
	expect "list: oot_markers_tick of oot_markers, off" \
		sh -c "grep -Eq '^oot_markers_tick +off +0 +1 +oot_markers +\"v %d\"' $M/list"
	# make M= wrote the module's Module.markers, as SystemTap reads it.
	expect "Module.markers of make M= lists the markers of oot_markers as the kernel does" \
		same_markers oot_markers "$(built_markers /etc/wb/Module.markers.extmod)" \
		"$(listed_markers)"
fi
expect "oot_markers unloads" rmmod oot_markers
if [ -d "$M" ]; then
	expect "list: oot_markers_tick is gone" sh -c "! grep -q '^oot_markers_tick ' $M/list"
fi

# Its checks fire the site 100 times off, on (for its own probe) and off
# again, v 1 .. 100 each time: with the event enabled, its site is on
# from the start of the load, and the event records all 300 hits.
T=/sys/kernel/tracing
if [ -d "$M" ] && [ -e "$T/dynamic_events" ]; then
	expect "oot_markers loads again" modprobe oot_markers
	expect "m oot_markers_tick" mev_make oot_markers_tick
	echo 1 > "$T/events/markers/oot_markers_tick/enable"
	expect "oot_markers unloads, its event enabled" rmmod oot_markers
	echo > "$T/trace"
	expect "oot_markers loads under its enabled event: its checks still pass" \
		modprobe oot_markers
	expect_eq "the event recorded the 300 hits of the load" 300 \
		"$(grep -c ' oot_markers_tick: v [0-9]*$' "$T/trace")"
	expect_eq "v 100 once per round of 100: 3 records" 3 \
		"$(grep -c ' oot_markers_tick: v 100$' "$T/trace")"
	echo 0 > "$T/events/markers/oot_markers_tick/enable"
	expect "oot_markers unloads again" rmmod oot_markers
	expect "m:markers/oot_markers_tick removed" mev_drop oot_markers_tick
	expect "list: oot_markers_tick is gone again" \
		sh -c "! grep -q '^oot_markers_tick ' $M/list"
fi
