/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness for the user-space unit tests: CHECK macros that record
 * a failure and go on, and a runner (harness.c) that runs every test in a
 * child process, so that a crash or a sanitizer abort fails that test only.
 */
#ifndef AC_TEST_HARNESS_H
#define AC_TEST_HARNESS_H

#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Print at most this many failed checks per test: the rest only count. */
#define T_MAX_REPORTS	12

extern unsigned long t_failed_checks;

void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			t_fail(__FILE__, __LINE__, "%s", #cond); \
	} while (0)

#define CHECK_MSG(cond, ...) \
	do { \
		if (!(cond)) \
			t_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

#define CHECK_EQ(a, b) \
	do { \
		long long t_a_ = (long long)(a), t_b_ = (long long)(b); \
		if (t_a_ != t_b_) \
			t_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", \
			       #a, #b, t_a_, t_b_); \
	} while (0)

struct t_case {
	const char *name;
	void (*fn)(void);
};

struct ac_policy;
struct ac_fifo_heads;
struct ac_pick;

/*
 * ac_policy_pick(), checking on the way that whenever
 * ac_policy_heads_due() says no, the same pick with NULL heads gives the
 * same result and leaves the policy in the same state (the glue then
 * skips reading its FIFO heads).  t_heads_skipped counts those picks.
 * Every pick is also made by ac_policy_pick_general() from the same
 * state: the picks and the states after them must be equal, whether or
 * not ac_policy_pick() took its shortcut (t_shortcut_picks counts those
 * it took).
 */
struct ac_pick t_pick(struct ac_policy *p, const struct ac_fifo_heads *heads,
		      unsigned long long now);
extern unsigned long t_heads_skipped;
extern unsigned long t_shortcut_picks;

/*
 * From @p with nothing queued, ac_policy_lone() for a request of @type in
 * unit @group with deadline @expire, against ac_policy_add(), the general
 * pick and ac_policy_dispatched(): the same pick and the same state, in
 * several variants (late, busy unit, writes held); t_lone_applied counts
 * the comparisons where it did not decline.  @p is not changed.
 */
void t_lone_check(const struct ac_policy *p, unsigned int group, int type,
		  unsigned long long expire, unsigned long long now);
extern unsigned long t_lone_applied;

/* Check that the picks' bitmaps (queued_units) match grp[].nr, unit by unit. */
void t_check_queued_units(const struct ac_policy *p);

/* Each test file exports its table, terminated by { NULL, NULL }. */
extern const struct t_case t_examples[];
extern const struct t_case t_map[];
extern const struct t_case t_model[];
extern const struct t_case t_occupancy[];

#endif /* AC_TEST_HARNESS_H */
