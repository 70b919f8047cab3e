/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the immediate and marker suites.
 *
 * Loading and unloading their helper modules: modprobe through
 * request_module(), rmmod through the usermode helper. Both need userspace
 * (an initramfs will do); a test that cannot load its module skips, naming
 * what is missing.
 *
 * Failing allocations: the fault injection of the current task fails its
 * Nth allocation (CONFIG_FAULT_INJECTION with failslab and fail_page_alloc;
 * they must not ignore sleeping allocations: set ignore-gfp-wait to N in
 * their debugfs directories).
 */
#ifndef _KERNEL_TESTS_KUNIT_HELPERS_H
#define _KERNEL_TESTS_KUNIT_HELPERS_H

#include <kunit/test.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/sched.h>

static inline void kunit_load_module(struct kunit *test, const char *name)
{
	int ret = request_module("%s", name);

	if (ret)
		kunit_skip(test, "modprobe %s failed (%d): needs /sbin/modprobe and %s.ko",
			   name, ret, name);
}

static inline void kunit_unload_module(struct kunit *test, const char *name)
{
	static char *envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	char *argv[] = { "/sbin/rmmod", (char *)name, NULL };

	KUNIT_ASSERT_EQ_MSG(test, call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC), 0,
			    "rmmod %s failed", name);
}

#ifdef CONFIG_FAULT_INJECTION
/* Makes the @nth fault injection point the current task meets fail. */
static inline void kunit_fail_nth(struct kunit *test, unsigned int nth)
{
	current->fail_nth = nth;
}

/* Stops failing; true if the @nth point was met and failed. */
static inline bool kunit_fail_nth_met(void)
{
	bool met = !current->fail_nth;

	current->fail_nth = 0;
	return met;
}
#else
static inline void kunit_fail_nth(struct kunit *test, unsigned int nth)
{
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
}

static inline bool kunit_fail_nth_met(void)
{
	return false;
}
#endif

#endif /* _KERNEL_TESTS_KUNIT_HELPERS_H */
