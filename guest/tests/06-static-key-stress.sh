# SPDX-License-Identifier: GPL-2.0
#
# The control (guest/modules/static_key_stress, built out of tree): an
# upstream static key toggled 10^4 times while the other CPUs run its
# site. If this fails, the emulator is not fit to judge live patching.

suite static_key_stress
dmesg -c >/dev/null
expect "static_key_stress loads: 10000 toggles under 3 readers" modprobe static_key_stress
summary=$(dmesg | sed -n 's/.*static_key_stress: \(.* saw both branches\)$/\1/p')
echo "$summary"
expect_eq "every reader saw both branches" "10000 toggles, 3 readers, 3 saw both branches" \
	"$summary"
expect "static_key_stress unloads" rmmod static_key_stress
