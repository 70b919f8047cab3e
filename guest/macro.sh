# SPDX-License-Identifier: GPL-2.0
#
# wb.mode=macro (sourced by /init): whole workloads, each timed by
# macro-bench (guest/progs/macro-bench.c) on the guest clock, which under
# QEMU -icount counts guest instructions: first with the MARK_HOT() sites
# of the kernel off, then with a probe on every one of them
# (guest/modules/hot_probes). Rows go to the host in a "bench" section:
#
#	macro.WORKLOAD.off INSTRUCTIONS insn	(the median of RUNS runs;
#	macro.WORKLOAD.off.min, .max		 their extremes)
#	macro.WORKLOAD.probed INSTRUCTIONS insn	(and .min, .max)
#	macro.probe_hits HITS hits		(every site, every workload)
#	macro.WORKLOAD.hits.SITE HITS hits	(one site's, in the probed runs
#						 of WORKLOAD and those before)
#	macro.runs RUNS runs			(of each workload in a phase,
#						 the warm-up included)
#	macro.site.SITE.near 1|0 -		(a marker kernel: whether SITE
#						 runs a NOP off, or its pattern)

RUNS=5

# workload NAME CMD [ARG]...: rows of RUNS timed runs after one that warms
# the caches up: their median (the row the host compares), min and max.
workload() {
	name=$1
	shift
	times=
	for i in $(seq 0 "$RUNS"); do
		t=$(macro-bench time "$@" 2>/dev/null) || { emit "macro.$name.$phase.failed 1 -"; return; }
		[ "$i" = 0 ] || times="$times $t"
	done
	sorted=$(echo "$times" | tr ' ' '\n' | grep . | sort -n)
	emit "macro.$name.$phase $(echo "$sorted" | sed -n "$(((RUNS + 1) / 2))p") insn"
	emit "macro.$name.$phase.min $(echo "$sorted" | head -1) insn"
	emit "macro.$name.$phase.max $(echo "$sorted" | tail -1) insn"
	echo "macro.$name.$phase:$times"
	[ "$phase" = probed ] || return 0
	while read -r site hits; do
		emit "macro.$name.hits.$site $hits hits"
	done < /sys/module/hot_probes/parameters/hits
}

workloads() {
	workload sched_pipe perf bench sched pipe -l 4000
	workload sched_messaging perf bench sched messaging -p -g 2 -l 10
	workload fork_exec sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done'
	workload page_cache_write dd if=/dev/zero of=/dev/ram0 bs=64k count=64 conv=fsync
	workload page_cache_read dd if=/dev/ram0 of=/dev/null bs=64k count=64
	workload unix_pingpong macro-bench pingpong unix 4000
	workload udp_pingpong macro-bench pingpong udp 2000
}

results_open
section bench
emit "@@ suite macro"
emit "macro.runs $((RUNS + 1)) runs"
ifconfig lo 127.0.0.1 up 2>/dev/null || ip link set lo up
dmesg -c >/dev/null
# A near site off starts with its slot, "0f 1f", a NOP; a far one with "66 90".
[ -r /sys/kernel/tracing/markers/sites ] &&
	awk '$1 !~ /^#/ { print $1, ($3 == "0f" && $4 == "1f") }' /sys/kernel/tracing/markers/sites |
	while read -r site near; do
		emit "macro.site.$site.near $near -"
	done

phase=off
workloads
phase=probed
if modprobe hot_probes; then
	workloads
	rmmod hot_probes
	hits=$(dmesg | sed -n 's/.*hot_probes: hits \([0-9]*\)$/\1/p')
	emit "macro.probe_hits ${hits:-0} hits"
else
	emit "macro.probes_failed 1 -"
fi
section end
