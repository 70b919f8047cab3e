# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=test (sourced by /init): results of the boot-time KUnit run (text
# still writable), every suite again after boot (text read-only), then the
# end-to-end tests under /guest/tests.

results_open
# wb.phases=: which of boot-kunit, after-boot-kunit and e2e this boot runs
# (the workbench may split them over several boots); all by default.
phases=",$(cmdline_value wb.phases),"
[ "$phases" = ",," ] && phases=",boot-kunit,after-boot-kunit,e2e,"
phase() { case "$phases" in *",$1,"*) return 0 ;; esac; return 1; }

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

if phase after-boot-kunit; then
	section after-boot-kunit
	echo "== running the KUnit suites again, kernel text is now read-only"
	for dir in /sys/kernel/debug/kunit/*/; do
		[ -d "$dir" ] || continue
		echo "== $(basename "$dir")"
		echo run > "$dir/run"
	done
	kunit_dump
fi

if phase e2e; then
	section e2e
	for t in /guest/tests/*.sh; do
		[ -e "$t" ] || continue
		(. "$t")
	done
fi

section end
