// SPDX-License-Identifier: GPL-2.0
/*
 * ac-test-warn: a module that does nothing but trigger one WARN when loaded.
 *
 * The guest test suite loads it to prove that the kernel log guard notices a
 * WARNING and its call trace.  It is built only for the tests
 * (AC_TEST_MODULES=1) and never installed.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init ac_test_warn_init(void)
{
	WARN(1, "ac_test_warn: deliberate warning for the log guard self-test\n");
	return 0;
}

static void __exit ac_test_warn_exit(void)
{
}

module_init(ac_test_warn_init);
module_exit(ac_test_warn_exit);
MODULE_DESCRIPTION("Test-only module that triggers a WARN (log guard self-test)");
MODULE_LICENSE("GPL");
