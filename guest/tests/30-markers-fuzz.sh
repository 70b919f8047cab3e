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
i=0
bad=""
while [ $i -lt $WRITES ]; do
	len=$(( $(od -An -tu2 -N2 /dev/urandom) % 300 + 1 ))
	head -c "$len" /dev/urandom > /tmp/fuzz
	if [ $(( i % 4 )) = 0 ]; then
		# Mostly name characters, a NUL or a newline here and there.
		tr -c 'a-z_!\n' '\000' < /tmp/fuzz > /tmp/fuzz2
		mv /tmp/fuzz2 /tmp/fuzz
	fi
	# dd reports "dd: error writing '...': REASON", then its record counts.
	if err=$(dd if=/tmp/fuzz of="$M/enable" bs=65536 conv=notrunc 2>&1 >/dev/null); then
		bad="$bad$(od -An -c /tmp/fuzz | head -n 2): accepted\n"
	else
		err=$(printf '%s\n' "$err" | sed -n '1s/.*: //p')
		case "$err" in
		"Invalid argument"|"No such file or directory") ;;
		*) bad="$bad$len bytes: $err\n" ;;
		esac
	fi
	i=$((i + 1))
done
expect_eq "$WRITES random writes fail with EINVAL or ENOENT" "" "$(printf '%b' "$bad")"
expect_eq "and change nothing" "$before" "$(state)"
expect "rmmod marker-example" rmmod marker_example
