# SPDX-License-Identifier: GPL-2.0
#
# A kprobe event defined on a marker site of a module before the module is
# loaded ("p:MOD:FUNC+OFF"). trace_kprobe arms such pending probes from its
# own module notifier, which runs before those of immediate values and
# markers: the kprobe must be refused with a clear message, the module must
# load, and its marker must work, with no foreign int3 in the site. The
# marker event that the enable file makes for it is removed at the end.

suite markers_kprobe_events
T=/sys/kernel/tracing
M=$T/markers
K=$T/kprobe_events

if [ ! -d "$M" ] || [ ! -e "$K" ]; then
	skip "kprobe event on a module's site before it loads" "no $M or $K"
	return 0
fi
# Without patched sites a site tests a variable: nothing is patched or
# reserved.
if ! kernel_has CONFIG_MARKER_SITES; then
	skip "kprobe event on a module's site before it loads" \
		"no patched sites without CONFIG_MARKER_SITES"
	return 0
fi
# A site's bytes off and on (include/linux/marker.h); a breakpoint (int3,
# BRK) in it matches neither. On arm64 a site is its slot: "nop" off,
# "b block" on. On x86-64 a near site (short jb) changes its slot, a long
# NOP off and a jump on; a far one (jb rel32) its guard's immediate.
case "$(uname -m)" in
aarch64)
	SITE_OFF='^ *1f 20 03 d5 *$'
	SITE_ON='^ *.. .. .. 1[4-7] *$'
	;;
*)
	SITE_OFF='^ *(0f 1f 83 fc 00 72|66 90 83 fc 00 0f 82) '
	SITE_ON='^ *(eb [0-9a-f]{2} 83 fc 00 72|66 90 83 fc ff 0f 82) '
	;;
esac

# sample_read's site as "FUNC+OFF" (the sites file prints it with %pS).
site_of() { awk '$1 == "sample_read" { sub(/\/.*/, "", $2); print $2; exit }' "$M/sites"; }
bytes_of() { awk '$1 == "sample_read" { $1 = $2 = $3 = ""; print; exit }' "$M/sites"; }

modprobe marker-example
where=$(site_of)
rmmod marker_example
expect_eq "sample_read's site is sample_read+OFF" "sample_read+0x" \
	"$(printf '%s' "$where" | sed -n 's/^\(sample_read+0x\)[0-9a-f]*$/\1/p')"

expect "a kprobe event on that site is accepted while the module is not loaded" \
	sh -c "echo 'p:markers_site marker_example:$where' >> $K"
# kprobe_events prints the offset in decimal.
expect "it is pending" grep -q "markers_site marker_example:sample_read+[0-9]" "$K"

echo "wb: markers_kprobe_events: loading marker_example" > /dev/kmsg
expect "the module loads" modprobe marker-example
log=$(dmesg | sed -n '/wb: markers_kprobe_events: loading/,$p')
expect "the kprobe is refused when the module comes, with trace_kprobe's message" \
	sh -c "printf '%s\n' \"\$1\" | grep -q 'Failed to re-register probe markers_site on marker_example: -22'" \
	- "$log"
expect "the site holds the documented 'off' bytes, no breakpoint" \
	sh -c "echo '$(bytes_of)' | grep -Eq '$SITE_OFF'"

echo > "$T/trace"
expect_write "switch sample_read on" "$M/enable" "sample_read\n" ok
cat /proc/marker-example >/dev/null
expect "the marker writes its event" \
	grep -Eq "sample_read: pid [0-9]+ count [0-9]+ pos 0" "$T/trace"
on=$(bytes_of)
expect "its site holds the 'on' bytes" \
	sh -c "echo '$on' | grep -Eq '$SITE_ON' && ! echo '$on' | grep -Eq '$SITE_OFF'"
expect_write "switch sample_read off" "$M/enable" "!sample_read\n" ok

expect "the kprobe event can be removed" sh -c "echo '-:markers_site' >> $K"
expect "rmmod marker_example" rmmod marker_example
expect "the event markers/sample_read that the enable file made is removed" \
	mev_drop sample_read
