# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=test (sourced by /init): results of the boot-time KUnit run (text
# still writable), every suite again after boot (text read-only), then the
# end-to-end tests under /guest/tests; a kmemleak scan ends every boot.

results_open
# What the kernel chose against each CPU vulnerability: the host checks the
# mitigation a config is there to run (settings.KernelConfig.vulnerabilities:
# call depth tracking's "Mitigation: Stuffing" of retbleed, in debug).
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	if [ -r "$f" ]; then
		emit "@@ vulnerability $(basename "$f"): $(cat "$f")"
	fi
done
# wb.phases=: which of boot-kunit, after-boot-kunit, e2e and ftracetest this
# boot runs (the workbench splits them over several boots); all but
# ftracetest by default.
phases=",$(cmdline_value wb.phases),"
[ "$phases" = ",," ] && phases=",boot-kunit,after-boot-kunit,e2e,"
phase() { case "$phases" in *",$1,"*) return 0 ;; esac; return 1; }

# wb.stop_at_failure=1, given to the boots of a mutated kernel by make
# mutate: once a case has failed (a KUnit phase's results, or an end-to-end
# case), the boot runs no further phase or script. One failure kills a
# mutation; the rest would only cost time. The host reports what did not
# run as missing, after the failed case.
stop_at_failure=$(cmdline_value wb.stop_at_failure)
stop_said=
stopped() {
	[ "$stop_at_failure" = 1 ] && [ -e "$FAILED_MARK" ] || return 1
	[ -n "$stop_said" ] && return 0
	stop_said=1
	echo "== wb.stop_at_failure: a case failed, the boot runs nothing more"
}

if phase boot-kunit; then
	section boot-kunit
	kunit_dump
fi

# Let the suites' fault injection (current->fail_nth) fail sleeping
# allocations of any order, without dumping a stack each time.
for dir in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
	[ -d "$dir" ] || continue
	echo N > "$dir/ignore-gfp-wait"
	echo 0 > "$dir/verbose"
	[ -e "$dir/min-order" ] && echo 0 > "$dir/min-order"
done

# Freshness of the after-boot run: the debugfs results of a suite that did
# not run again are those of the boot-time run. KUnit prints every result
# line to the kernel log as well, so a random token goes to the log right
# before the run, and the log from the token line on (dmesg, the ring
# buffer: complete, whatever the console level) to the host after it. The
# host requires each suite's run after the token line, and its debugfs
# results to be that run, line for line. No line logged before the token
# can pass for the run: the token is drawn here, per boot, and is not on
# the kernel command line.
if ! stopped && phase after-boot-kunit; then
	section after-boot-kunit
	token=$(cat /proc/sys/kernel/random/uuid)
	emit "@@ token $token"
	echo "wb: after-boot KUnit run, token $token" > /dev/kmsg
	echo "== running the KUnit suites again, kernel text is now read-only"
	for dir in /sys/kernel/debug/kunit/*/; do
		[ -d "$dir" ] || continue
		echo "== $(basename "$dir")"
		echo run > "$dir/run"
	done
	kunit_dump
	section after-boot-log
	emit "@@ suite dmesg"
	dmesg | sed -n "/ token $token\$/,\$p" >&3
fi

# wb.scripts=: the end-to-end scripts to run, by file stem, comma-separated;
# all by default. The host gives a boot some of them when another boot of
# the kernel runs the others (settings.E2E_SOME); in a developer's boot,
# it fails the others as missing.
scripts=",$(cmdline_value wb.scripts),"
scanned=
if ! stopped && phase e2e; then
	section e2e
	for t in /guest/tests/*.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		case "$scripts" in ",,"|*",$name,"*) ;; *) continue ;; esac
		emit "@@ script $name"
		echo "== script $name (uptime $(uptime_s) s)"
		(. "$t")
		emit "@@ script-end $name $?"
		[ "$name" = 90-kmemleak ] && scanned=1
		stopped && break
	done
fi

if ! stopped && phase ftracetest; then
	section ftracetest
	. /guest/ftracetest.sh
	ftracetest_run
fi

# kmemleak at the end of the boot, after whatever phases it ran: the
# end-to-end tests end with their own scan (90-kmemleak.sh), the last one
# debugfs allows, since 99-markers-lockdown.sh raises lockdown after it.
if [ -e "$KMEMLEAK" ] && [ -z "$scanned" ] && ! stopped; then
	section kmemleak
	suite kmemleak
	kmemleak_check
fi

section end
