# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=poke (sourced by /init): loads poke_bench, which times static
# key and static call switches while it loads (make bench-poke), and
# sends its "poke_bench: ROW VALUE UNIT" lines to the host in a "bench"
# section.

results_open
section bench
emit "@@ suite poke_bench"
dmesg -c >/dev/null
echo "== modprobe poke_bench"
if modprobe poke_bench; then
	bench_rows poke_bench >&3
else
	emit "modprobe_failed 1 -"
fi
section end
