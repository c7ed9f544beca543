// SPDX-License-Identifier: GPL-2.0
/*
 * handover_selftest: the handover project's own KUnit suite, built into the
 * kunit variant of the tiny test kernel (tests/kernel/kunit.config) so that
 * `handover --kunit` can check both a passing and a failing KTAP report.
 *
 * The object is lib/handover_selftest/handover_selftest.o, so KBUILD_MODNAME
 * is "handover_selftest" and the parameter below is set from the kernel
 * command line as handover_selftest.fail=1.
 */

#include <kunit/test.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static bool fail;
module_param(fail, bool, 0444);
MODULE_PARM_DESC(fail, "make handover_selftest_param_controlled fail");

/* Always passes: the suite ran at all. */
static void handover_selftest_sanity(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
	KUNIT_EXPECT_STREQ(test, KBUILD_MODNAME, "handover_selftest");
}

/* Passes unless handover_selftest.fail=1 is on the kernel command line. */
static void handover_selftest_param_controlled(struct kunit *test)
{
	/*
	 * No _MSG variant: KUnit 6.1 prints assertion messages on an
	 * unindented line of their own, which breaks the KTAP nesting.
	 */
	if (fail)
		kunit_info(test, "handover_selftest.fail=1: failing on request\n");
	KUNIT_EXPECT_FALSE(test, fail);
}

/* The command line reached the kernel and agrees with the parameter. */
static void handover_selftest_cmdline(struct kunit *test)
{
	KUNIT_ASSERT_NOT_NULL(test, saved_command_line);
	kunit_info(test, "cmdline: %s\n", saved_command_line);
	if (fail)
		KUNIT_EXPECT_NOT_NULL(test, strstr(saved_command_line,
						   "handover_selftest.fail"));
}

static struct kunit_case handover_selftest_cases[] = {
	KUNIT_CASE(handover_selftest_sanity),
	KUNIT_CASE(handover_selftest_param_controlled),
	KUNIT_CASE(handover_selftest_cmdline),
	{}
};

static struct kunit_suite handover_selftest_suite = {
	.name = "handover_selftest",
	.test_cases = handover_selftest_cases,
};

kunit_test_suite(handover_selftest_suite);
