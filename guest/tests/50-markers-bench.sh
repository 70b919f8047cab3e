# SPDX-License-Identifier: GPL-2.0
#
# The benchmark module works: every row runs and nothing fails (smoke=1
# makes it brief; its figures mean nothing, `make bench` measures). Its
# record rows enable the marker event markers:bench_fp_mark, which, as any
# marker event, exists only once made through dynamic_events: the marker
# is in the module, which runs the rows as it loads, so the event is made
# first while marker_events holds a probe that gives the marker's format
# (guest/bench.sh does the same).

suite markers_bench_smoke

if ! module_built markers_bench; then
	skip "markers_bench" "not in this config (CONFIG_MARKERS_BENCH needs patched sites)"
	return 0
fi

# x86-64: a batch of the int3 patcher is 3 sync rounds, the IPIs are
# counted and there are optprobes. arm64: one round of IPIs per batch, not
# counted, no optprobes.
case "$(uname -m)" in
aarch64) ROUNDS=1 ARCH_ROWS= ;;
*) ROUNDS=3 ARCH_ROWS="enabled.optprobe switch.1024.mark.on.ipis
	switch.1024.static_key.on.ipis" ;;
esac

if [ -d /sys/kernel/tracing/markers ] && [ -e /sys/kernel/tracing/dynamic_events ]; then
	expect "no event markers:bench_fp_mark before it is made" \
		test ! -e /sys/kernel/tracing/events/markers/bench_fp_mark
	expect "marker_events holds a probe of format %d on bench_fp_mark" \
		sh -c "modprobe marker_events && echo 'hold bench_fp_mark %d' > /proc/marker-events"
	expect "m bench_fp_mark, its module not loaded yet" mev_make bench_fp_mark
	expect_eq "its one field, an int" 'm:markers/bench_fp_mark bench_fp_mark arg0=$arg1:s32' \
		"$(grep '^m:markers/bench_fp_mark ' /sys/kernel/tracing/dynamic_events)"
	expect "marker_events lets go of it" \
		sh -c "echo release > /proc/marker-events && rmmod marker_events"
fi
dmesg -c >/dev/null
# Room for the records of the record rows (10000 of each kind).
echo 2048 > /sys/kernel/tracing/buffer_size_kb
echo > /sys/kernel/tracing/trace
expect "modprobe markers_bench smoke=1" modprobe markers_bench smoke=1
rows=$(bench_rows)
expect_eq "it reached the end" "done 1 -" "$(printf '%s\n' "$rows" | grep '^done ')"
expect_eq "no row failed or went missing" "" \
	"$(printf '%s\n' "$rows" | grep -E '(failed|missing|not_optimized|needs_2_cpus) ')"
for row in disabled.mark disabled.static_branch \
	   disabled.live.mark disabled.live.static_branch disabled.live.plain \
	   disabled.live.static_branch_probe disabled.live.plain_probe \
	   enabled.mark_1fast enabled.mark_2fast enabled.mark_3fast \
	   enabled.mark_1probe enabled.mark_2probes \
	   enabled.tracepoint_1probe enabled.tracepoint_3probes enabled.kprobe switch.1024.mark.sync.ns \
	   switch.1024.static_key.on.ns \
	   disabled.imv_branch real.csum.plain record.mark_event record.trace_event \
	   record.mark_vsnprintf $ARCH_ROWS; do
	expect "row $row is there" sh -c "printf '%s\n' \"\$1\" | grep -q '^$row '" _ "$rows"
done
# A marker switch is one batch of the patcher, 3 sync rounds (1 on arm64)
# whatever its number of sites (the patcher counts them); a static key flushes a
# batch of the int3 patcher each time its queue (a page of entries) fills,
# which shows in the IPIs (all function-call IPIs of the guest: compared
# only at 1024 sites, where the static key sends several times more).
value() { printf '%s\n' "$rows" | sed -n "s/^switch\.$1 \([0-9]*\) .*/\1/p" | grep . || echo -1; }
# One fast probe: the site calls it straight, never through the iterator.
expect_eq "with one fast probe, the site called it straight 1000 times" 1000 \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_1fast\.direct \([0-9]*\) .*/\1/p')"
expect_eq "with one fast probe, the site never called the iterator" 0 \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_1fast\.via_iterator \([0-9]*\) .*/\1/p')"
# Two: the site calls marker_probe_pair(), which jumps to the second probe,
# so that it returns straight to the site. A kCFI kernel (CONFIG_CFI,
# 6.12's CONFIG_CFI_CLANG: its functions have __cfi_ preambles) keeps them
# on the iterator, since the pair's indirect calls carry no type hash: the
# second returns there.
if grep -q ' __cfi_' /proc/kallsyms; then
	to_site=0 elsewhere=1000 how="through the iterator (kCFI)" how3=$how
else
	to_site=1000 elsewhere=0 how="through marker_probe_pair()"
	how3="through marker_probe_triple()"
fi
expect_eq "with two fast probes $how, the second returned to the site $to_site times" \
	$to_site \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_2fast\.second_to_site \([0-9]*\) .*/\1/p')"
expect_eq "with two fast probes $how, the second returned elsewhere $elsewhere times" \
	$elsewhere \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_2fast\.second_elsewhere \([0-9]*\) .*/\1/p')"
# Three: marker_probe_triple(), which jumps to the third (kCFI: the iterator).
expect_eq "with three fast probes $how3, the third returned to the site $to_site times" \
	$to_site \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_3fast\.third_to_site \([0-9]*\) .*/\1/p')"
expect_eq "with three fast probes $how3, the third returned elsewhere $elsewhere times" \
	$elsewhere \
	"$(printf '%s\n' "$rows" | sed -n 's/^enabled\.mark_3fast\.third_elsewhere \([0-9]*\) .*/\1/p')"
for n in 1 64 1024; do
	expect_eq "switching $n marker sites on takes $ROUNDS sync rounds" $ROUNDS \
		"$(value $n.mark.on.rounds)"
	expect_eq "switching $n marker sites off takes $ROUNDS sync rounds" $ROUNDS \
		"$(value $n.mark.off.rounds)"
done
if [ "$(uname -m)" != aarch64 ]; then
	# Each of the 3 steps maps every page of patch points once, not each point.
	expect "switching 1024 marker sites on maps fewer pages than it has sites" \
		test "$(value 1024.mark.on.mappings)" -gt 0 -a \
		"$(value 1024.mark.on.mappings)" -lt 1024
	expect "switching 1024 marker sites sends fewer IPIs than a static key of 1024" \
		test "$(value 1024.mark.on.ipis)" -lt "$(value 1024.static_key.on.ipis)"
fi
# The record rows enabled each event for 10000 calls: the trace has them.
expect "the marker event rows recorded markers:bench_fp_mark" \
	grep -q ' bench_fp_mark: [0-9]' /sys/kernel/tracing/trace
expect "the v1 rows recorded their formatted string" \
	grep -q ' markers_bench_v1: bench_fp_mark: [0-9]' /sys/kernel/tracing/trace
expect_eq "no event of the benchmark is left enabled" "" \
	"$(grep -E '^markers(_bench)?:(bench_|markers_bench_)' /sys/kernel/tracing/set_event)"
expect "rmmod markers_bench" rmmod markers_bench
if [ -d /sys/kernel/tracing/markers ] && [ -e /sys/kernel/tracing/dynamic_events ]; then
	expect "markers/bench_fp_mark removed" mev_drop bench_fp_mark
fi
