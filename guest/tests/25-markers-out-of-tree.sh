# SPDX-License-Identifier: GPL-2.0
#
# Markers in a module built out of tree and unsigned
# (guest/modules/oot_markers): it checks its own site at load, on and off.

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
