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

#include "ac-policy.h"

struct ac_policy;
struct ac_fifo_heads;
struct ac_pick;

/* Spec section 2's mappings by plain division, to check ac_map_chan(). */
u32 t_ref_map(int mapping, u32 nr, u64 sector, u64 capacity, u32 stripe);

/*
 * ac_policy_init() with the scheduling tunables at their defaults from
 * ac-tunables.h (fifo_batch, writes_starved, write_batch); the caps stay
 * 0, the policy's neutral base.
 */
void t_policy_init(struct ac_policy *p, u32 nr_channels);

/* Check that the picks' bitmaps (queued_units) match grp[].nr, unit by unit. */
void t_check_queued_units(const struct ac_policy *p);

/* Each test file exports its table, terminated by { NULL, NULL }. */
extern const struct t_case t_examples[];
extern const struct t_case t_map[];
extern const struct t_case t_model[];
extern const struct t_case t_occupancy[];
extern const struct t_case t_admit[];

#endif /* AC_TEST_HARNESS_H */
