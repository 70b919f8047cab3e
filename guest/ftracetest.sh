# SPDX-License-Identifier: GPL-2.0
#
# The ftracetest phase (sourced by guest/test.sh): upstream's ftrace
# selftests, the tree's tools/testing/selftests/ftrace, which the host puts
# in /opt/ftracetest for the boots that run this phase: the cases of
# settings.FTRACETEST_CASES (marker-cases there) by default, or with
# wb.ftracetest=A,B those cases (make ftracetest gives each of its boots
# a share of them: tools/wb/ftracetest.py), or with wb.ftracetest=all (a
# boot by hand) every case but those of settings.FTRACETEST_EXCLUDED
# (all-cases). Marker events are dynamic events, made on request: none
# exists at boot, and each case starts by removing every dynamic event
# (initialize_ftrace() of test.d/functions writes "-:GROUP/EVENT" for each
# line of dynamic_events, which takes marker events as it takes the
# others). The results go to the host as suite "ftracetest"
# of section ftracetest, one "ok DESCRIPTION" line per case as the
# end-to-end scripts send them; the host checks the plan, and that the
# skipped cases are those settings.FTRACETEST_SKIPS names.

FTRACETEST=/opt/ftracetest

ftracetest_run() {
	suite ftracetest
	if [ ! -x "$FTRACETEST/ftracetest" ]; then
		fail "ftracetest is in the initramfs" "no $FTRACETEST/ftracetest"
		return 0
	fi
	# A shell that is not busybox (settings.FTRACETEST_PROGRAMS): this
	# boot runs nothing else but the kmemleak scan, which needs no /bin/sh.
	ln -sf /usr/bin/dash /bin/sh
	# The inter-event cases ping the loopback.
	ip link set lo up
	# wb.ftracetest=all: every case of all-cases; wb.ftracetest=A,B:
	# the cases A and B (paths under test.d); else marker-cases.
	list="$FTRACETEST/marker-cases"
	chosen=$(cmdline_value wb.ftracetest)
	if [ "$chosen" = all ]; then
		list="$FTRACETEST/all-cases"
	elif [ -n "$chosen" ]; then
		list=/tmp/ftracetest-cases
		printf '%s\n' "$chosen" | tr ',' '\n' | sed 's|^|test.d/|' > "$list"
	fi
	cases=$(tr '\n' ' ' < "$list")
	diag "ftracetest starts at uptime $(uptime_s) s: $cases"
	# Its KTAP result lines lose their numbers, as the end-to-end
	# scripts send theirs (results.e2e_suite_lines() numbers them); its
	# plan and exit status go as diagnostics, with its own (the log of
	# each failed case, the totals); everything goes to the console, the
	# start and each result stamped with the uptime, from which the host
	# tells how long each case took (ftracetest.case_seconds()).
	printf '[uptime %s] ftracetest starts\n' "$(uptime_s)"
	# shellcheck disable=SC2086 # one path per word
	(cd "$FTRACETEST" && ./ftracetest -K -v $cases; echo "ftracetest exit status $?") 2>&1 |
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			printf '[uptime %s] %s\n' "$(uptime_s)" "$line"
			printf '%s\n' "$line" | sed -E 's/^(not ok|ok) [0-9]+ /\1 /' >&3
			continue ;;
		"#"*)
			emit "$line" ;;
		"1.."*|"ftracetest exit status"*)
			diag "ftracetest: $line" ;;
		esac
		printf '%s\n' "$line"
	done
	diag "ftracetest ends at uptime $(uptime_s) s"
	# A case of settings.FTRACETEST_LAST, in a boot of its own, leaves the
	# function profiler on, and ftracetest leaves it so: off before the
	# kmemleak scan.
	if [ -w /sys/kernel/tracing/function_profile_enabled ]; then
		echo 0 > /sys/kernel/tracing/function_profile_enabled
	fi
	ln -sf /bin/busybox /bin/sh
}
