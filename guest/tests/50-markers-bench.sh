# SPDX-License-Identifier: GPL-2.0
#
# The benchmark module works: every row runs and nothing fails (smoke=1
# makes it brief; its figures mean nothing, `make bench` measures).

suite markers_bench_smoke

if ! module_built markers_bench; then
	skip "markers_bench" "not in this config (CONFIG_MARKERS_BENCH needs CONFIG_IMMEDIATE)"
	return 0
fi

dmesg -c >/dev/null
expect "modprobe markers_bench smoke=1" modprobe markers_bench smoke=1
rows=$(dmesg | sed -n 's/.*markers_bench: \([a-z0-9_.]*\) \([0-9]*\) \([^ ]*\)$/\1 \2 \3/p')
expect_eq "it reached the end" "done 1 -" "$(printf '%s\n' "$rows" | grep '^done ')"
expect_eq "no row failed or went missing" "" \
	"$(printf '%s\n' "$rows" | grep -E '(failed|missing|not_optimized|needs_2_cpus) ')"
for row in disabled.mark_jump disabled.mark_imm disabled.static_branch \
	   enabled.mark_1probe enabled.tracepoint_1probe enabled.kprobe enabled.optprobe \
	   switch.1024.mark.on.ipis switch.1024.static_key.on.ipis \
	   switch.1024.stop_machine.on.ns; do
	expect "row $row is there" sh -c "printf '%s\n' \"\$1\" | grep -q '^$row '" _ "$rows"
done
# A marker switch is one int3 batch, 3 rounds of sync IPIs, whatever its
# number of sites; a static key flushes a batch each time text_poke_bp's
# vector (a page of entries) fills.
ipis() { printf '%s\n' "$rows" | sed -n "s/^switch\.$1\.ipis \([0-9]*\) .*/\1/p" | grep . || echo 0; }
expect "switching 1024 marker sites sends at most twice the IPIs of 1 site" \
	test "$(ipis 1024.mark.on)" -le "$((2 * $(ipis 1.mark.on)))"
expect "and fewer than a static key of 1024 sites" \
	test "$(ipis 1024.mark.on)" -lt "$(ipis 1024.static_key.on)"
expect "rmmod markers_bench" rmmod markers_bench
