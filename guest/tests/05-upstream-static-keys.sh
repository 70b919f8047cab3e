# SPDX-License-Identifier: GPL-2.0
#
# Upstream's static key tests (lib/test_static_keys.c, CONFIG_TEST_STATIC_KEYS):
# the modules check every key and branch when they load and refuse to load
# if one is wrong, the way tools/testing/selftests/static_keys drives them.

suite upstream_static_keys
if ! module_built test_static_keys; then
	skip "upstream static key tests" "not in this config (CONFIG_TEST_STATIC_KEYS)"
	return 0
fi
expect "test_static_key_base loads" modprobe test_static_key_base
expect "test_static_keys loads (all keys and branches agree)" modprobe test_static_keys
expect "test_static_keys unloads" rmmod test_static_keys
expect "test_static_key_base unloads" rmmod test_static_key_base
