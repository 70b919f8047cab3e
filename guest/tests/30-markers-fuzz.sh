# SPDX-License-Identifier: GPL-2.0
#
# A bounded fuzz of /sys/kernel/tracing/markers/enable: random, oversized
# and NUL-containing writes fail with EINVAL or ENOENT, and change nothing.

suite markers_fuzz
M=/sys/kernel/tracing/markers
WRITES=200

if [ ! -d "$M" ]; then
	skip "fuzz of the enable file" "no $M (no CONFIG_EVENT_TRACING)"
	return 0
fi

state() { cat "$M/list" "$M/enable"; }

modprobe marker-example
before=$(state)
# Two pools of random bytes, read at random offsets: one process per write.
# The second pool is mostly name characters, with NULs where tr put them.
head -c 65536 /dev/urandom > /tmp/fuzz.raw
tr -c 'a-z_!\n' '\000' < /tmp/fuzz.raw > /tmp/fuzz.name
i=0
bad=""
while [ $i -lt $WRITES ]; do
	len=$((RANDOM % 300 + 1))
	pool=/tmp/fuzz.raw
	[ $((i % 4)) = 0 ] && pool=/tmp/fuzz.name
	# Block $i of $len bytes: offset i * len stays below 200 * 300.
	# dd reports "dd: error writing '...': REASON", then its record counts.
	if err=$(dd if=$pool of="$M/enable" bs="$len" skip=$i count=1 conv=notrunc 2>&1); then
		bad="$bad$len bytes at block $i of $pool: accepted\n"
	else
		case "$err" in
		*"error writing"*": Invalid argument"*) ;;
		*"error writing"*": No such file or directory"*) ;;
		*) bad="$bad$len bytes at block $i of $pool: $err\n" ;;
		esac
	fi
	i=$((i + 1))
done
rm -f /tmp/fuzz.raw /tmp/fuzz.name
expect_eq "$WRITES random writes fail with EINVAL or ENOENT" "" "$(printf '%b' "$bad")"
expect_eq "and change nothing" "$before" "$(state)"
expect "rmmod marker-example" rmmod marker_example
