# SPDX-License-Identifier: GPL-2.0
#
# samples/markers: probe-example connects its probes, fast ones and one
# that takes a va_list, before marker-example, whose sites they count and
# format, is loaded; both unload cleanly.

suite markers_samples
P=/proc/marker-probe-example

expect "modprobe probe-example, before its markers exist" modprobe probe-example
expect "modprobe marker-example: its sites are armed when it comes" modprobe marker-example
dd if=/proc/marker-example of=/dev/null bs=4096 count=1 2>/dev/null
dd if=/proc/marker-example of=/dev/null bs=4096 count=1 2>/dev/null
echo hello > /proc/marker-example
expect "probe-example counted 2 reads" grep -q '^sample_read 2 hits' "$P"
expect "probe-example counted 1 write, and decoded the pid" \
	sh -c "grep -Eq '^sample_write 1 hits, last pid [1-9][0-9]*$' $P"
expect "probe-example's va_list probe formatted the write with the marker's format" \
	sh -c "grep -Eq '^last write: pid [1-9][0-9]* len 6 data hello$' $P"
expect "rmmod marker-example" rmmod marker_example
dmesg -c >/dev/null
expect "rmmod probe-example" rmmod probe_example
expect "probe-example reported its counts on unload" \
	sh -c "dmesg | grep -q 'probe_example: sample_read: 2 hits'"
