# SPDX-License-Identifier: GPL-2.0
#
# After everything else (but lockdown, which closes debugfs): kmemleak
# finds no leak allocated by markers, immediate values or the patcher
# (CONFIG_DEBUG_KMEMLEAK). The last scan of a boot that runs the end-to-end
# tests; test.sh scans at the end of the other boots (lib.sh).

suite kmemleak
kmemleak_check
