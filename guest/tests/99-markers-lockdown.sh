# SPDX-License-Identifier: GPL-2.0
#
# Last, since it cannot be undone: under lockdown=confidentiality the
# markers' tracefs files refuse to open (LOCKDOWN_TRACEFS).

suite markers_lockdown
M=/sys/kernel/tracing/markers
L=/sys/kernel/security/lockdown

if [ ! -d "$M" ]; then
	skip "lockdown refuses the markers files" "no $M (no CONFIG_EVENT_TRACING)"
	return 0
fi
# The configs with tracefs have the lockdown LSM and securityfs.
expect "$L is there" [ -w "$L" ]

expect "raise lockdown to confidentiality" sh -c "echo confidentiality > $L"
expect_write "enable refuses to open" "$M/enable" "sample_read" "Operation not permitted"
out=$(cat "$M/list" 2>&1)
case "$out" in
*"Operation not permitted"*) pass "list refuses to open" ;;
*) fail "list refuses to open" "$out" ;;
esac
