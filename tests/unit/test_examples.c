// SPDX-License-Identifier: GPL-2.0
/*
 * The spec's examples (sections 3 and 4) and the behaviour ac-policy.c
 * documents for the cases the spec leaves open.
 */
#include "harness.h"
#include "ac-policy.h"

#define RS	AC_READ_SYNC
#define RA	AC_READ_ASYNC
#define WS	AC_WRITE_SYNC
#define WA	AC_WRITE_ASYNC

/* Large enough that no phase or starvation limit interferes. */
#define T_HUGE	1000000

static const struct ac_fifo_heads no_heads;

static void add_n(struct ac_policy *p, u32 group, enum ac_type type, int n)
{
	while (n-- > 0)
		ac_policy_add(p, group, type);
}

/* Pick with no deadline passed and dispatch what was picked. */
static struct ac_pick step(struct ac_policy *p)
{
	struct ac_pick k = ac_policy_pick(p, &no_heads, 0);

	if (k.kind == AC_PICK_UNIT)
		ac_policy_dispatched(p, k.unit, k.type, false);
	return k;
}

/* The next @n dispatches go to @groups[i] with @types[i]. */
static void expect_seq(struct ac_policy *p, const u32 *groups,
		       const enum ac_type *types, int n, int line)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ac_pick k = step(p);

		CHECK_MSG(k.kind == AC_PICK_UNIT && k.unit == groups[i] &&
			  k.type == types[i],
			  "line %d, dispatch %d: got kind %d group %u type %d, want group %u type %d",
			  line, i, k.kind, k.unit, k.type, groups[i], types[i]);
	}
}

#define EXPECT_SEQ(p, groups, types) \
	expect_seq(p, groups, types, (int)ARRAY_SIZE(groups), \
		   __LINE__)

static void expect_empty(struct ac_policy *p)
{
	struct ac_pick k = ac_policy_pick(p, &no_heads, 0);

	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK_EQ(ac_policy_queued(p), 0);
}

static void no_limits(struct ac_policy *p)
{
	p->fifo_batch = T_HUGE;
	p->writes_starved = T_HUGE;
	p->write_batch = T_HUGE;
}

/* 4.2: reads queued in sub-groups 3, 5, 6 dispatch as 3 -> 5 -> 6 -> 3 ... */
static void test_read_rotation(void)
{
	static const u32 g[] = { 3, 5, 6, 3, 5, 6, 3, 5, 6 };
	static const enum ac_type t[] = { RS, RS, RS, RS, RS, RS, RS, RS, RS };
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 3, RS, 3);
	add_n(&p, 5, RS, 3);
	add_n(&p, 6, RS, 3);
	EXPECT_SEQ(&p, g, t);
	expect_empty(&p);
	CHECK_EQ(p.stats.read_rounds, 2);
	CHECK_EQ(p.stats.dispatched[RS], 9);
}

/* Unequal sub-queues: the rotation skips emptied sub-groups. */
static void test_read_rotation_uneven(void)
{
	static const u32 g[] = { 3, 5, 6, 3, 6, 3 };
	static const enum ac_type t[] = { RS, RS, RS, RS, RS, RS };
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 3, RS, 3);
	add_n(&p, 5, RS, 1);
	add_n(&p, 6, RS, 2);
	EXPECT_SEQ(&p, g, t);
	expect_empty(&p);
}

/*
 * A sub-group served last that emptied and got a new read (ZERO -> PEND)
 * still waits for the other channels: no two reads in a row to it.
 */
static void test_read_not_twice_after_refill(void)
{
	static const u32 g[] = { 1, 2 };
	static const u32 g2[] = { 1, 2 };
	static const enum ac_type t[] = { RS, RS };
	struct ac_policy p;

	t_policy_init(&p, 4);
	no_limits(&p);
	add_n(&p, 1, RS, 2);
	add_n(&p, 2, RS, 1);
	EXPECT_SEQ(&p, g, t);
	CHECK_EQ(p.unit[2].rflag, AC_R_ZERO);
	ac_policy_add(&p, 2, RS);
	CHECK_EQ(p.unit[2].rflag, AC_R_PEND);
	CHECK_EQ(p.unit[1].rflag, AC_R_END);
	EXPECT_SEQ(&p, g2, t);
	expect_empty(&p);
}

/* Make @group PROC by dispatching one of its writes (nothing else queued). */
static void make_proc(struct ac_policy *p, u32 group, int writes)
{
	struct ac_pick k;

	add_n(p, group, WS, writes + 1);
	k = step(p);
	CHECK(k.kind == AC_PICK_UNIT && k.unit == group && k.type == WS);
	CHECK_EQ(p->proc, (int)group);
	CHECK_EQ(p->chan[group].wflag, AC_W_PROC);
}

/* 4.2: if sub-group 4 is PROC, reads in 3, 4, 5 go to 3 and 5 first. */
static void test_read_avoids_proc(void)
{
	static const u32 g[] = { 3, 5, 3, 5, 4, 4 };
	static const enum ac_type t[] = { RS, RS, RS, RS, RS, RS };
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	make_proc(&p, 4, 5);
	p.phase_left = 0;	/* end the write phase: reads come first */
	add_n(&p, 3, RS, 2);
	add_n(&p, 4, RS, 2);
	add_n(&p, 5, RS, 2);
	EXPECT_SEQ(&p, g, t);
	/* 4 was the only sub-group with reads left, twice */
	CHECK_EQ(p.stats.proc_fallbacks, 2);
	CHECK_EQ(p.proc, 4);
	CHECK_EQ(p.chan[4].wflag, AC_W_PROC);
}

/* 4.3: writes go out one channel at a time: all of 3, then 5, then 7. */
static void test_write_one_channel(void)
{
	static const u32 g[] = { 3, 3, 3, 5, 5, 7, 7, 7, 7 };
	static const enum ac_type t[] = { WS, WS, WS, WS, WS, WS, WS, WS, WS };
	struct ac_policy p;
	struct ac_pick k;
	int i;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 7, WS, 4);
	add_n(&p, 3, WS, 3);
	add_n(&p, 5, WS, 2);
	for (i = 0; i < 8; i++)
		CHECK_EQ(p.chan[i].wflag, (i == 3 || i == 5 || i == 7) ?
			 AC_W_PEND : AC_W_ZERO);
	/* first batch: 3 is PROC, the others stay PEND */
	k = step(&p);
	CHECK(k.kind == AC_PICK_UNIT && k.unit == 3);
	CHECK_EQ(p.chan[3].wflag, AC_W_PROC);
	CHECK_EQ(p.chan[5].wflag, AC_W_PEND);
	CHECK_EQ(p.chan[7].wflag, AC_W_PEND);
	expect_seq(&p, &g[1], &t[1], 8, __LINE__);
	expect_empty(&p);
	CHECK_EQ(p.stats.write_batches, 3);
	CHECK_EQ(p.proc, -1);
	for (i = 0; i < 8; i++)
		CHECK_EQ(p.chan[i].wflag, AC_W_ZERO);
}

/* 4.3 clarification: a PROC batch ends after write_batch writes. */
static void test_write_batch_limit(void)
{
	static const u32 g[] = { 3, 3, 5, 3, 3, 3 };
	static const enum ac_type t[] = { WA, WA, WA, WA, WA, WA };
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	p.write_batch = 2;
	add_n(&p, 3, WA, 5);
	add_n(&p, 5, WA, 1);
	EXPECT_SEQ(&p, g, t);
	expect_empty(&p);
	CHECK_EQ(p.stats.write_batches, 4);

	/* the batch ends with the limit: back to PEND, rotation moves on */
	t_policy_init(&p, 8);
	no_limits(&p);
	p.write_batch = 2;
	add_n(&p, 3, WA, 5);
	add_n(&p, 5, WA, 5);
	step(&p);
	CHECK_EQ(p.chan[3].wflag, AC_W_PROC);
	step(&p);
	CHECK_EQ(p.chan[3].wflag, AC_W_PEND);
	CHECK_EQ(p.proc, -1);
	CHECK_EQ(step(&p).unit, 5);
	CHECK_EQ(p.chan[5].wflag, AC_W_PROC);
}

/* Build FIFO heads: one request of each type, all expired at @now. */
static void all_heads(struct ac_fifo_heads *h, u64 expire)
{
	int t;

	for (t = 0; t < AC_NR_TYPES; t++) {
		h->valid[t] = true;
		h->expire[t] = expire;
	}
}

/* Pick, expect an expired @type and dispatch it from @group. */
static void expect_expired(struct ac_policy *p, struct ac_fifo_heads *h,
			   u64 now, enum ac_type type, u32 group)
{
	struct ac_pick k = ac_policy_pick(p, h, now);

	CHECK_MSG(k.kind == AC_PICK_EXPIRED && k.type == type,
		  "got kind %d type %d, want expired type %d",
		  k.kind, k.type, type);
	if (k.kind == AC_PICK_EXPIRED) {
		ac_policy_dispatched(p, group, k.type, true);
		h->valid[k.type] = false;
	}
}

/* 4.1: expired heads in the order sync read, async read, sync write, async write. */
static void test_expired_order(void)
{
	struct ac_fifo_heads h = { 0 };
	struct ac_policy p;
	int t;

	t_policy_init(&p, 8);
	p.fifo_batch = 1;		/* every dispatch starts a phase */
	p.writes_starved = T_HUGE;	/* writes never starved here */
	for (t = 0; t < AC_NR_TYPES; t++)
		ac_policy_add(&p, t, t);
	all_heads(&h, 100);
	for (t = 0; t < AC_NR_TYPES; t++)
		expect_expired(&p, &h, 100, t, t);
	expect_empty(&p);
	for (t = 0; t < AC_NR_TYPES; t++) {
		CHECK_EQ(p.stats.expired[t], 1);
		CHECK_EQ(p.stats.dispatched[t], 1);
	}
}

/* 4.1: when writes are starved the order is sync write, async write, reads. */
static void test_expired_order_starved(void)
{
	struct ac_fifo_heads h = { 0 };
	struct ac_policy p;
	int t;

	t_policy_init(&p, 8);
	p.fifo_batch = 1;
	p.writes_starved = 1;
	for (t = 0; t < AC_NR_TYPES; t++)
		ac_policy_add(&p, t, t);
	all_heads(&h, 100);
	/* starved 0: reads first; that read phase starves the writes */
	expect_expired(&p, &h, 100, RS, RS);
	CHECK_EQ(p.starved, 1);
	/* starved: writes first, and the phase is a write phase */
	expect_expired(&p, &h, 100, WS, WS);
	CHECK_EQ(p.dir, AC_DIR_WRITE);
	CHECK_EQ(p.stats.starved_switches, 1);
	CHECK_EQ(p.starved, 0);
	expect_expired(&p, &h, 100, RA, RA);
	expect_expired(&p, &h, 100, WA, WA);
	expect_empty(&p);
}

/* Deadlines are checked at phase starts only; the clock may wrap. */
static void test_expired_phase_start_only(void)
{
	struct ac_fifo_heads h = { 0 };
	struct ac_policy p;
	struct ac_pick k;
	u64 now = ~0ULL - 2;	/* the clock wraps during this test */
	int i;

	t_policy_init(&p, 4);
	p.fifo_batch = 4;
	add_n(&p, 0, RS, 8);
	add_n(&p, 1, WA, 1);
	h.valid[RS] = true;
	h.expire[RS] = now + 1000;
	h.valid[WA] = true;
	h.expire[WA] = now + 3;		/* wraps to 0 */
	/* not expired yet: a read phase */
	k = ac_policy_pick(&p, &h, now);
	CHECK(k.kind == AC_PICK_UNIT && k.type == RS && k.unit == 0);
	ac_policy_dispatched(&p, k.unit, k.type, false);
	/* expired now, but the phase has 3 slots left */
	now += 10;
	for (i = 0; i < 3; i++) {
		k = ac_policy_pick(&p, &h, now);
		CHECK(k.kind == AC_PICK_UNIT && k.type == RS);
		ac_policy_dispatched(&p, k.unit, k.type, false);
	}
	CHECK_EQ(p.phase_left, 0);
	/* next phase start: the expired write goes first, in a read phase */
	k = ac_policy_pick(&p, &h, now);
	CHECK(k.kind == AC_PICK_EXPIRED && k.type == WA);
	CHECK_EQ(p.dir, AC_DIR_READ);
	ac_policy_dispatched(&p, 1, WA, true);
	h.valid[WA] = false;
	/* the expired dispatch used one slot of the phase */
	CHECK_EQ(p.phase_left, 3);
	CHECK_EQ(p.stats.expired[WA], 1);

	/* a deadline exactly now counts as passed; one tick later does not */
	t_policy_init(&p, 4);
	add_n(&p, 2, RA, 1);
	add_n(&p, 3, RS, 1);
	h.valid[RS] = false;
	h.valid[RA] = true;
	h.expire[RA] = 51;
	k = ac_policy_pick(&p, &h, 50);
	CHECK(k.kind == AC_PICK_UNIT && k.type == RS && k.unit == 3);
	ac_policy_dispatched(&p, k.unit, k.type, false);
	p.phase_left = 0;
	k = ac_policy_pick(&p, &h, 51);
	CHECK(k.kind == AC_PICK_EXPIRED && k.type == RA);
}

/*
 * 4.1: writes_starved read phases while writes wait force a write phase.
 * fifo_batch 2, writes_starved 2: R R | R R | W W | R R | R R | W W
 */
static void test_writes_starved(void)
{
	static const char want[] = "RRRRWWRRRRWW";
	struct ac_policy p;
	int i;

	t_policy_init(&p, 8);
	p.fifo_batch = 2;
	p.writes_starved = 2;
	p.write_batch = T_HUGE;
	for (i = 0; i < 8; i++)
		add_n(&p, i, RS, 4);
	add_n(&p, 2, WS, 10);
	for (i = 0; want[i]; i++) {
		struct ac_pick k = step(&p);
		char got = ac_type_is_write(k.type) ? 'W' : 'R';

		CHECK_MSG(k.kind == AC_PICK_UNIT && got == want[i],
			  "dispatch %d: got %c, want %c", i, got, want[i]);
	}
	CHECK_EQ(p.stats.starved_switches, 2);

	/* no writes waiting: reads never count as starving anything */
	t_policy_init(&p, 8);
	p.fifo_batch = 1;
	add_n(&p, 0, RS, 10);
	for (i = 0; i < 10; i++)
		step(&p);
	CHECK_EQ(p.starved, 0);
	CHECK_EQ(p.stats.starved_switches, 0);
}

/* A read phase that runs out of reads counts as starving waiting writes. */
static void test_read_phase_runs_out(void)
{
	struct ac_policy p;
	struct ac_pick k;

	t_policy_init(&p, 8);
	p.fifo_batch = 8;
	add_n(&p, 1, RS, 1);
	add_n(&p, 2, WS, 3);
	k = step(&p);
	CHECK(k.kind == AC_PICK_UNIT && k.type == RS);
	CHECK_EQ(p.phase_left, 7);
	/* no reads left: the phase ends, the writes were starved once */
	k = step(&p);
	CHECK(k.kind == AC_PICK_UNIT && k.type == WS && k.unit == 2);
	CHECK_EQ(p.dir, AC_DIR_WRITE);
	CHECK_EQ(p.starved, 0);		/* reset by the write phase */
	CHECK_EQ(p.stats.starved_switches, 0);	/* not forced: no reads */
	/* a read arriving in a write phase waits for the phase end */
	add_n(&p, 1, RS, 1);
	k = step(&p);
	CHECK(k.type == WS);
	k = step(&p);
	CHECK(k.type == WS);
	k = step(&p);
	CHECK(k.type == RS);
	expect_empty(&p);
}

/* 4.1: within a direction, sync sub-queues first, then async. */
static void test_sync_before_async(void)
{
	static const u32 rg[] = { 2, 2, 1 };
	static const enum ac_type rt[] = { RS, RS, RA };
	static const u32 wg[] = { 6, 6, 6, 5, 5 };
	static const enum ac_type wt[] = { WS, WA, WA, WA, WA };
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 1, RA, 1);
	add_n(&p, 2, RS, 2);
	EXPECT_SEQ(&p, rg, rt);
	expect_empty(&p);

	/*
	 * A new batch goes to a sub-group with sync writes; the PROC sub-group
	 * serves its sync writes, then its async ones, then the batch moves.
	 */
	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 5, WA, 2);
	add_n(&p, 6, WA, 2);
	add_n(&p, 6, WS, 1);
	EXPECT_SEQ(&p, wg, wt);
	expect_empty(&p);
}

/* Documented choice: a PROC sub-group keeps the batch for its async writes. */
static void test_proc_keeps_other_write_type(void)
{
	struct ac_policy p;
	struct ac_pick k;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 1, WA, 3);
	k = step(&p);
	CHECK(k.unit == 1 && k.type == WA);
	add_n(&p, 4, WS, 2);
	k = step(&p);
	CHECK(k.unit == 1 && k.type == WA);
	k = step(&p);
	CHECK(k.unit == 1 && k.type == WA);
	k = step(&p);
	CHECK(k.unit == 4 && k.type == WS);
}

/* Reads of the other type must not make a sub-group a candidate. */
static void test_read_type_per_group(void)
{
	static const u32 g[] = { 1, 1, 1, 0 };
	static const enum ac_type t[] = { RS, RS, RS, RA };
	struct ac_policy p;

	t_policy_init(&p, 4);
	no_limits(&p);
	add_n(&p, 0, RA, 1);	/* PEND, but only for async reads */
	add_n(&p, 1, RS, 3);
	EXPECT_SEQ(&p, g, t);
	expect_empty(&p);
	/* each later sync read found only END: a new round each time */
	CHECK_EQ(p.stats.read_rounds, 2);
}

/* Section 3: insert keeps END and PROC; remove turns empty to ZERO. */
static void test_insert_remove_flags(void)
{
	struct ac_policy p;

	t_policy_init(&p, 8);
	no_limits(&p);
	add_n(&p, 2, RS, 2);
	add_n(&p, 3, RS, 1);
	CHECK_EQ(p.unit[2].rflag, AC_R_PEND);
	CHECK_EQ(step(&p).unit, 2);
	CHECK_EQ(p.unit[2].rflag, AC_R_END);
	ac_policy_add(&p, 2, RA);
	CHECK_EQ(p.unit[2].rflag, AC_R_END);	/* kept: not twice in a row */
	CHECK_EQ(step(&p).unit, 3);
	CHECK_EQ(p.unit[3].rflag, AC_R_ZERO);
	ac_policy_remove(&p, 2, RS);
	CHECK_EQ(p.unit[2].rflag, AC_R_END);	/* one async read left */
	ac_policy_remove(&p, 2, RA);
	CHECK_EQ(p.unit[2].rflag, AC_R_ZERO);
	CHECK_EQ(ac_policy_queued(&p), 0);

	t_policy_init(&p, 8);
	no_limits(&p);
	make_proc(&p, 5, 2);
	ac_policy_add(&p, 5, WA);
	CHECK_EQ(p.chan[5].wflag, AC_W_PROC);	/* kept: batch goes on */
	ac_policy_remove(&p, 5, WS);
	ac_policy_remove(&p, 5, WS);
	CHECK_EQ(p.chan[5].wflag, AC_W_PROC);
	ac_policy_remove(&p, 5, WA);
	CHECK_EQ(p.chan[5].wflag, AC_W_ZERO);
	CHECK_EQ(p.proc, -1);
}

/* An expired write from a non-PROC sub-group leaves the batch alone. */
static void test_expired_write_elsewhere(void)
{
	struct ac_fifo_heads h = { 0 };
	struct ac_policy p;
	struct ac_pick k;

	t_policy_init(&p, 8);
	no_limits(&p);
	p.write_batch = 3;
	make_proc(&p, 1, 3);		/* one dispatched, 3 left */
	add_n(&p, 6, WA, 2);
	p.phase_left = 0;
	h.valid[WA] = true;
	h.expire[WA] = 0;
	k = ac_policy_pick(&p, &h, 10);
	CHECK(k.kind == AC_PICK_EXPIRED && k.type == WA);
	ac_policy_dispatched(&p, 6, WA, true);
	CHECK_EQ(p.proc, 1);
	CHECK_EQ(p.chan[6].wflag, AC_W_PEND);
	CHECK_EQ(p.batch_writes, 1);
	/* an expired write of the PROC sub-group counts towards the batch */
	ac_policy_dispatched(&p, 1, WS, true);
	CHECK_EQ(p.batch_writes, 2);
	CHECK_EQ(step(&p).unit, 1);
	CHECK_EQ(p.proc, -1);			/* write_batch 3 reached */
	CHECK_EQ(p.chan[1].wflag, AC_W_PEND);
	/* the last write of sub-group 6 goes out expired: ZERO */
	ac_policy_dispatched(&p, 6, WA, true);
	CHECK_EQ(p.chan[6].wflag, AC_W_ZERO);
}

/* Only one direction queued: it is used whatever the preference. */
static void test_direction_fallback(void)
{
	struct ac_policy p;
	int i;

	t_policy_init(&p, 8);
	p.fifo_batch = 3;
	add_n(&p, 0, WA, 7);
	for (i = 0; i < 7; i++)
		CHECK_EQ(step(&p).type, WA);
	expect_empty(&p);
	add_n(&p, 7, RA, 5);
	for (i = 0; i < 5; i++)
		CHECK_EQ(step(&p).type, RA);
	expect_empty(&p);
	CHECK_EQ(p.stats.starved_switches, 0);
}

/* Regroup forgets what is queued, keeps tunables and counters. */
static void test_regroup(void)
{
	struct ac_policy p;
	int i;

	t_policy_init(&p, 16);
	p.fifo_batch = 5;
	p.writes_starved = 3;
	p.write_batch = 7;
	add_n(&p, 15, RS, 3);
	add_n(&p, 14, WS, 3);
	step(&p);
	p.phase_left = 0;
	p.starved = 3;
	step(&p);
	CHECK_EQ(p.proc, 14);
	CHECK_EQ(p.last_read, 15);
	ac_policy_regroup(&p, 4);
	CHECK_EQ(p.nr_channels, 4);
	CHECK_EQ(p.fifo_batch, 5);
	CHECK_EQ(p.writes_starved, 3);
	CHECK_EQ(p.write_batch, 7);
	CHECK_EQ(p.stats.dispatched[RS] + p.stats.dispatched[WS], 2);
	CHECK_EQ(p.proc, -1);
	CHECK_EQ(p.phase_left, 0);
	CHECK(p.last_read < 4 && p.last_write < 4);
	CHECK_EQ(ac_policy_queued(&p), 0);
	for (i = 0; i < (int)AC_MAX_CHANNELS; i++) {
		CHECK_EQ(p.unit[i].rflag, AC_R_ZERO);
		CHECK_EQ(p.chan[i].wflag, AC_W_ZERO);
		CHECK_EQ(p.unit[i].nr[RS] + p.unit[i].nr[WS], 0);
	}
	expect_empty(&p);
	ac_policy_regroup(&p, 0);
	CHECK_EQ(p.nr_channels, 1);
	ac_policy_regroup(&p, 1000);
	CHECK_EQ(p.nr_channels, AC_MAX_CHANNELS);
}

/* Defaults of spec section 5; an all-empty policy picks nothing. */
static void test_init_defaults(void)
{
	struct ac_policy p;

	t_policy_init(&p, 8);
	CHECK_EQ(p.nr_channels, 8);
	CHECK_EQ(p.fifo_batch, 16);
	CHECK_EQ(p.writes_starved, 2);
	CHECK_EQ(p.write_batch, 16);
	CHECK_EQ(p.proc, -1);
	expect_empty(&p);
	CHECK_EQ(ac_policy_pick(&p, NULL, 0).kind, AC_PICK_NONE);
}

/* Tunables of 0 behave as 1 instead of stalling or starving. */
static void test_zero_tunables(void)
{
	struct ac_policy p;
	int i;

	t_policy_init(&p, 8);
	p.fifo_batch = 0;
	p.writes_starved = 0;
	p.write_batch = 0;
	add_n(&p, 1, RS, 4);
	add_n(&p, 2, WS, 2);
	add_n(&p, 3, WS, 2);
	for (i = 0; i < 8; i++)
		CHECK_EQ(step(&p).kind, AC_PICK_UNIT);
	expect_empty(&p);
	CHECK_EQ(p.stats.write_batches, 4);
}

/*
 * Held writes: while the glue holds writes, only reads are picked (in the
 * rotation, writes starving or not), or nothing; once released, the write
 * phase the starvation rule asks for comes at once.
 */
static void test_writes_held(void)
{
	struct ac_policy p;
	struct ac_pick k;
	int i;

	t_policy_init(&p, 4);
	p.fifo_batch = 2;
	p.writes_starved = 1;
	add_n(&p, 0, WS, 4);
	add_n(&p, 1, RS, 3);
	add_n(&p, 2, RS, 3);
	p.writes_held = true;
	for (i = 0; i < 6; i++) {
		k = step(&p);
		CHECK_MSG(k.kind == AC_PICK_UNIT && !ac_type_is_write(k.type),
			  "dispatch %d: kind %d type %d", i, k.kind, k.type);
		CHECK_EQ(k.unit, 1 + i % 2);
	}
	/* only writes left: nothing while held, and nothing changes */
	k = ac_policy_pick(&p, &no_heads, 0);
	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK_EQ(p.queued[WS], 4);
	CHECK_EQ(p.proc, -1);
	CHECK_EQ(p.stats.writes_held, 7);
	/* expired writes wait too */
	{
		struct ac_fifo_heads heads = { .valid = { [WS] = true } };

		k = ac_policy_pick(&p, &heads, 100);
		CHECK_EQ(k.kind, AC_PICK_NONE);
	}
	p.writes_held = false;
	for (i = 0; i < 4; i++) {
		k = step(&p);
		CHECK(k.kind == AC_PICK_UNIT && k.type == WS && k.unit == 0);
	}
	expect_empty(&p);
}

const struct t_case t_examples[] = {
	{ "examples/writes_held", test_writes_held },
	{ "example/read_rotation", test_read_rotation },
	{ "example/read_rotation_uneven", test_read_rotation_uneven },
	{ "example/read_not_twice_after_refill",
	  test_read_not_twice_after_refill },
	{ "example/read_avoids_proc", test_read_avoids_proc },
	{ "example/write_one_channel", test_write_one_channel },
	{ "example/write_batch_limit", test_write_batch_limit },
	{ "example/expired_order", test_expired_order },
	{ "example/expired_order_starved", test_expired_order_starved },
	{ "example/expired_phase_start_only", test_expired_phase_start_only },
	{ "example/writes_starved", test_writes_starved },
	{ "example/read_phase_runs_out", test_read_phase_runs_out },
	{ "example/sync_before_async", test_sync_before_async },
	{ "example/proc_keeps_other_write_type", test_proc_keeps_other_write_type },
	{ "example/read_type_per_group", test_read_type_per_group },
	{ "example/insert_remove_flags", test_insert_remove_flags },
	{ "example/expired_write_elsewhere", test_expired_write_elsewhere },
	{ "example/direction_fallback", test_direction_fallback },
	{ "example/regroup", test_regroup },
	{ "example/init_defaults", test_init_defaults },
	{ "example/zero_tunables", test_zero_tunables },
	{ NULL, NULL },
};
