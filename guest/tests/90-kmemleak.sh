# SPDX-License-Identifier: GPL-2.0
#
# After everything else: kmemleak finds no leak allocated by markers,
# immediate values or the patcher (CONFIG_DEBUG_KMEMLEAK).

suite kmemleak
K=/sys/kernel/debug/kmemleak

if [ ! -e "$K" ]; then
	skip "no leak of markers" "no CONFIG_DEBUG_KMEMLEAK"
	return 0
fi

# Two scans, as kmemleak documents, with a grace period between them.
echo scan > "$K"
sleep 6
echo scan > "$K"
cat "$K" > /tmp/kmemleak
ours=$(grep -E '(marker|imv_|poke_site|trace_marker)[a-z_]*\+0x' /tmp/kmemleak)
diag "kmemleak reports $(grep -c '^unreferenced object' /tmp/kmemleak) objects in all"
expect_eq "no leak allocated by markers, immediate values or the patcher" "" "$ours"
