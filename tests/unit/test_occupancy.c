// SPDX-License-Identifier: GPL-2.0
/*
 * Occupancy (spec 4.4): the two-level geometry of ac_map_unit(), the
 * examples of the read and write choice with requests at the device, caps,
 * and randomized runs against an emulated device whose completions arrive
 * in random order, checking after every step:
 *
 * - a read never goes to a busy unit while a queued read of the same type
 *   targets an idle one that is not capped (expired dispatches aside);
 * - a read never goes to a unit at unit_depth, expired or not; except
 *   while the device has more command slots free than there are idle
 *   units with reads queued, and then past the cap by one;
 * - a write is never held for a die: with a write queued, something is
 *   picked; no stall: with requests queued and none at the device, the
 *   pick is a request;
 * - a pick held by caps says so (capped), and only when every queued
 *   request is a read at a capped unit, and no read could go past its cap;
 * - every request leaves: in a single-type load (sync reads, or sync
 *   writes), an expired FIFO head whose unit has room is the pick, at once,
 *   so an expired request is dispatched within (requests ahead of it in its
 *   FIFO + 1) such picks, even when most requests target one unit;
 * - the device sees every request exactly once and the counts drain.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ac-policy.h"

#define RS	AC_READ_SYNC
#define RA	AC_READ_ASYNC
#define WS	AC_WRITE_SYNC
#define WA	AC_WRITE_ASYNC

static const struct ac_fifo_heads no_heads;
static struct ac_occupancy occ;

static void occ_reset(void)
{
	memset(&occ, 0, sizeof(occ));
}

/* @n requests at the device: reads count at @unit, writes at no unit. */
static void busy(u32 unit, int n, bool write)
{
	if (!write)
		occ.reads[unit].counter += n;
	occ.total.counter += n;
}

static void setup(struct ac_policy *p, u32 channels, u32 dies, u32 depth)
{
	occ_reset();
	t_policy_init(p, 1);
	p->dies_per_channel = dies;
	p->unit_depth = depth;
	p->occ = &occ;
	p->fifo_batch = 1000000;
	p->write_batch = 1000000;
	p->writes_starved = 1000000;
	ac_policy_regroup(p, channels);
}

static struct ac_pick step(struct ac_policy *p)
{
	struct ac_pick k = ac_policy_pick(p, &no_heads, 0);

	if (k.kind == AC_PICK_UNIT) {
		ac_policy_dispatched(p, k.unit, k.type, false);
		busy(k.unit, 1, ac_type_is_write(k.type));
	}
	return k;
}

/* ---------------------------------------------------------- geometry */

/* The emulated SSD's placement, written from sim/README.md's words. */
static u32 sim_unit(int stripe, u64 sector, u64 cap, u32 ch, u32 dies,
		    u32 stripe_sectors)
{
	u64 k;
	u32 c, d;

	if (stripe) {
		k = sector / stripe_sectors;
		c = k % ch;
		d = (k / ch) % dies;
	} else {
		/* die u = c * dies + d holds [u * range, (u + 1) * range) */
		u64 range = cap / ch / dies;

		k = sector / range;
		c = k / dies;
		d = k % dies;
	}
	return d * ch + c;
}

static void test_unit_stripe_8x4(void)
{
	struct ac_map m = { .mapping = AC_MAP_STRIPE, .nr_channels = 8,
			    .stripe_sectors = 128, .dies = 4,
			    .capacity = 1 << 22 };
	u64 s;

	ac_map_prepare(&m);

	/* chunk k: channel k mod 8, die (k / 8) mod 4: unit k mod 32 */
	CHECK_EQ(ac_map_unit(&m, 0), 0);
	CHECK_EQ(ac_map_unit(&m, 127), 0);
	CHECK_EQ(ac_map_unit(&m, 128), 1);
	CHECK_EQ(ac_map_unit(&m, 8 * 128), 8);		/* ch 0, die 1 */
	CHECK_EQ(ac_map_unit(&m, 9 * 128 + 5), 9);	/* ch 1, die 1 */
	CHECK_EQ(ac_map_unit(&m, 31 * 128), 31);	/* ch 7, die 3 */
	CHECK_EQ(ac_map_unit(&m, 32 * 128), 0);
	for (s = 0; s < (1 << 22); s += 61)
		CHECK_EQ(ac_map_unit(&m, s), sim_unit(1, s, m.capacity, 8, 4, 128));
}

static void test_unit_range_8x4(void)
{
	u64 cap = 8ULL * 4 * 1000;	/* 1000 sectors per die */
	struct ac_map m = { .mapping = AC_MAP_RANGE, .nr_channels = 8,
			    .stripe_sectors = 128, .dies = 4,
			    .capacity = cap };
	u64 s;

	ac_map_prepare(&m);

	CHECK_EQ(ac_map_unit(&m, 0), 0);
	CHECK_EQ(ac_map_unit(&m, 999), 0);
	CHECK_EQ(ac_map_unit(&m, 1000), 8);	/* ch 0, die 1 */
	CHECK_EQ(ac_map_unit(&m, 3999), 24);	/* ch 0, die 3 */
	CHECK_EQ(ac_map_unit(&m, 4000), 1);	/* ch 1, die 0 */
	CHECK_EQ(ac_map_unit(&m, cap - 1), 31);
	CHECK_EQ(ac_map_unit(&m, cap + 5000), 31);	/* beyond: last unit */
	for (s = 0; s < cap; s += 7)
		CHECK_EQ(ac_map_unit(&m, s), sim_unit(0, s, cap, 8, 4, 128));
	/* the channel is ac_map_chan()'s, whatever the dies */
	for (s = 0; s < cap; s += 13)
		CHECK_EQ(ac_map_unit(&m, s) % 8, ac_map_chan(&m, s));
}

static void test_unit_degenerate(void)
{
	struct ac_map m = { .mapping = AC_MAP_RANGE, .nr_channels = 8,
			    .dies = 4, .capacity = 5 };
	u32 i;

	/* capacity below the units: everything on unit 0 */
	ac_map_prepare(&m);
	CHECK_EQ(ac_map_unit(&m, 3), 0);
	m.capacity = 0;
	ac_map_prepare(&m);
	CHECK_EQ(ac_map_unit(&m, 3), 0);
	m.nr_channels = 0;
	ac_map_prepare(&m);
	CHECK_EQ(ac_map_unit(&m, 3), 0);
	/* dies 0 is 1: the channel */
	m = (struct ac_map){ .mapping = AC_MAP_STRIPE, .nr_channels = 8,
			     .stripe_sectors = 8, .dies = 0 };
	ac_map_prepare(&m);
	for (i = 0; i < 100; i++)
		CHECK_EQ(ac_map_unit(&m, i * 8), i % 8);
	/* dies 1 is the thesis's model: unit == sub-group */
	m.dies = 1;
	m.mapping = AC_MAP_RANGE;
	m.capacity = 8000;
	ac_map_prepare(&m);
	for (i = 0; i < 8000; i += 3)
		CHECK_EQ(ac_map_unit(&m, i), ac_map_chan(&m, i));
}

static void test_units_clamped(void)
{
	struct ac_policy p;

	t_policy_init(&p, 1);
	p.dies_per_channel = 64;
	ac_policy_regroup(&p, 64);
	CHECK(p.units <= AC_MAX_UNITS);
	CHECK_EQ(p.dies_per_channel, AC_MAX_UNITS / 64);
	p.dies_per_channel = 0;
	ac_policy_regroup(&p, 8);
	CHECK_EQ(p.units, 8);
}

/* ---------------------------------------------------------- examples */

/* Reads go to idle units first, then to the least occupied. */
static void test_read_idle_first(void)
{
	struct ac_policy p;
	struct ac_pick k;

	setup(&p, 4, 2, 0);		/* 8 units */
	ac_policy_add(&p, 1, RS);
	ac_policy_add(&p, 2, RS);
	ac_policy_add(&p, 5, RS);
	busy(1, 2, false);
	busy(2, 1, false);
	k = step(&p);
	CHECK_EQ(k.unit, 5);		/* the only idle one */
	k = step(&p);
	CHECK_EQ(k.unit, 2);		/* 1 at the device against 2 */
	k = step(&p);
	CHECK_EQ(k.unit, 1);
	CHECK_EQ(p.stats.reads_idle, 1);
	CHECK_EQ(p.stats.reads_busy, 2);
}

/* An idle unit wins over the rotation and over END. */
static void test_read_idle_beats_rotation(void)
{
	struct ac_policy p;
	struct ac_pick k;

	setup(&p, 8, 1, 0);
	ac_policy_add(&p, 3, RS);
	ac_policy_add(&p, 3, RS);
	ac_policy_add(&p, 4, RS);
	k = step(&p);
	CHECK_EQ(k.unit, 3);
	/* 3 is END and busy; 4 is PEND and idle */
	k = step(&p);
	CHECK_EQ(k.unit, 4);
	/* only 3 left, busy: still dispatched (no cap) */
	k = step(&p);
	CHECK_EQ(k.unit, 3);
}

/*
 * A write at the device is counted at no die (the device chose where it
 * programs it): a unit with only our write out is idle to reads and caps.
 */
static void test_write_counts_at_no_die(void)
{
	struct ac_policy p;
	struct ac_pick k;

	setup(&p, 4, 1, 0);
	ac_policy_add(&p, 0, RS);
	ac_policy_add(&p, 1, RS);
	busy(0, 1, true);		/* a write, sent for unit 0 */
	busy(1, 1, false);		/* a read at unit 1 */
	k = step(&p);
	CHECK_EQ(k.unit, 0);
	CHECK_EQ(p.stats.reads_idle, 1);
	/* with dies, cap 1: our write out does not hold a read back */
	setup(&p, 2, 2, 1);
	busy(3, 2, true);
	ac_policy_add(&p, 3, RS);
	k = step(&p);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 3);
	CHECK_EQ(atomic_read(&occ.total), 3);
}

/*
 * Writes of the PROC channel go to its dies in rotation, whatever is at the
 * device: occupancy does not steer them.
 */
static void test_write_spreads_dies(void)
{
	static const u32 want[] = { 3, 5, 7, 1, 3, 5, 7, 1 };
	struct ac_policy p;
	struct ac_pick k;
	u32 i;

	setup(&p, 2, 4, 1);		/* units of channel 1: 1, 3, 5, 7 */
	for (i = 0; i < 2; i++) {
		ac_policy_add(&p, 1, WA);
		ac_policy_add(&p, 3, WA);
		ac_policy_add(&p, 5, WA);
		ac_policy_add(&p, 7, WA);
	}
	ac_policy_add(&p, 0, WA);
	busy(3, 1, false);		/* unit 3 busy, at its cap to reads */
	/* the batch starts on channel 1 (rotation after 0), then moves on */
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		k = step(&p);
		CHECK_EQ(k.kind, AC_PICK_UNIT);
		CHECK_EQ(k.unit, want[i]);
	}
	k = step(&p);
	CHECK_EQ(k.unit, 0);
	CHECK_EQ(p.stats.write_batches, 2);
	CHECK_EQ(p.stats.cap_holds, 0);
}

/*
 * A write is never held for a die: reads waiting on its die, the die busy
 * with reads, every read capped: the write goes, and a read phase whose
 * reads are all capped sends a write rather than nothing.
 */
static void test_write_never_held(void)
{
	struct ac_policy p;
	struct ac_pick k;

	setup(&p, 2, 2, 1);		/* channel 1: units 1, 3 */
	busy(1, 1, false);
	busy(3, 1, false);
	ac_policy_add(&p, 1, RS);
	ac_policy_add(&p, 3, RS);
	ac_policy_add(&p, 1, WS);
	k = step(&p);			/* a read phase, every read capped */
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 1);
	CHECK_EQ(k.type, WS);
	k = step(&p);
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	/* a write phase: the write goes to a die with reads waiting */
	ac_policy_add(&p, 3, WS);
	p.dir = AC_DIR_WRITE;
	p.phase_left = 4;
	k = step(&p);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 3);
	CHECK_EQ(k.type, WS);
}

/* Two requests of @type on @unit, cap 1: one goes, the other is held. */
static void fill_capped(struct ac_policy *p, u32 unit, enum ac_type type)
{
	struct ac_pick k;

	setup(p, 4, 2, 1);
	ac_policy_add(p, unit, type);
	ac_policy_add(p, unit, type);
	k = step(p);
	CHECK_EQ(k.unit, unit);
	k = step(p);
	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK(k.capped);
	CHECK_EQ(p->stats.cap_holds, 1);
}

/* The head of FIFO @type, at @unit, with deadline @expire. */
static void set_head(struct ac_fifo_heads *heads, enum ac_type type,
		     u64 expire, u32 unit)
{
	heads->valid[type] = true;
	heads->expire[type] = expire;
	heads->unit[type] = unit;
}

/* The pick at @now is FIFO @type's expired head, at @unit: dispatch it. */
static void expect_expired(struct ac_policy *p, const struct ac_fifo_heads *heads,
			   u64 now, enum ac_type type, u32 unit)
{
	struct ac_pick k = ac_policy_pick(p, heads, now);

	CHECK_EQ(k.kind, AC_PICK_EXPIRED);
	CHECK_EQ(k.type, type);
	ac_policy_dispatched(p, unit, type, true);
	busy(unit, 1, ac_type_is_write(type));
}

/*
 * Caps hold everything back: NONE, capped.  An expired read waits for its
 * unit like any other request (a die serves one command at a time: sent
 * past the cap it would only wait at the device), and goes first once the
 * unit has room.
 */
static void test_cap_holds_and_expiry(void)
{
	struct ac_fifo_heads heads = { 0 };
	struct ac_policy p;
	struct ac_pick k;

	fill_capped(&p, 2, RS);
	/* a write elsewhere is not held: the device is not left idle */
	ac_policy_add(&p, 1, WA);
	k = step(&p);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 1);
	CHECK_EQ(k.type, WA);
	/* the read's deadline passes: it still waits for unit 2 */
	set_head(&heads, RS, 10, 2);
	k = ac_policy_pick(&p, &heads, 10);
	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK(k.capped);
	CHECK_EQ(p.stats.expired_waits, 1);
	CHECK_EQ(p.stats.cap_expired, 0);
	/* meanwhile a read of an idle unit goes */
	ac_policy_add(&p, 3, RS);
	k = ac_policy_pick(&p, &heads, 11);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 3);
	ac_policy_dispatched(&p, 3, RS, false);
	busy(3, 1, false);
	CHECK_EQ(p.stats.expired_waits, 2);
	/* unit 2 frees: the expired read goes at the next pick */
	occ.reads[2].counter = 0;
	expect_expired(&p, &heads, 12, RS, 2);
	CHECK_EQ(p.stats.sync_read_expired, 1);
	CHECK_EQ(ac_policy_queued(&p), 0);
	/* the unit frees: a new read goes at once */
	occ.reads[2].counter = 0;
	ac_policy_add(&p, 2, RS);
	k = step(&p);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
}

/*
 * In a write phase, an expired write head goes at the next pick, before the
 * batch's own writes, whatever its die holds: checked only at phase starts,
 * the batch went first, and a writer whose writes sat behind another's in
 * sector order waited three deadlines.
 */
static void test_expired_write_mid_phase(void)
{
	struct ac_fifo_heads heads = { 0 };
	struct ac_policy p;
	struct ac_pick k;

	setup(&p, 4, 2, 1);
	/* channel 0: units 0 and 4; the head is unit 0's */
	ac_policy_add(&p, 0, WS);
	ac_policy_add(&p, 4, WS);
	ac_policy_add(&p, 4, WS);
	set_head(&heads, WS, 100, 0);
	k = ac_policy_pick(&p, &heads, 0);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 4);		/* rotation after unit 0 */
	ac_policy_dispatched(&p, 4, WS, false);
	busy(4, 1, true);
	busy(0, 1, false);		/* a read of ours at the head's die */
	/* late: it goes mid-phase, before the batch's next write (unit 4's) */
	expect_expired(&p, &heads, 200, WS, 0);
	CHECK_EQ(p.stats.write_expired, 1);
	CHECK_EQ(p.stats.expired_waits, 0);
	/* in a read phase a late write waits for the next phase start */
	ac_policy_add(&p, 5, RS);
	ac_policy_add(&p, 6, RS);
	p.phase_left = 0;
	set_head(&heads, WS, 1000, 4);
	set_head(&heads, RS, 1000, 5);
	k = ac_policy_pick(&p, &heads, 300);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.type, RS);
	ac_policy_dispatched(&p, k.unit, RS, false);
	busy(k.unit, 1, false);
	set_head(&heads, RS, 1000, k.unit == 5 ? 6 : 5);
	set_head(&heads, WS, 100, 4);
	k = ac_policy_pick(&p, &heads, 301);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.type, RS);
	CHECK_EQ(p.stats.write_expired, 1);
}

/* An expired async read waits for its unit too. */
static void test_cap_expired_async(void)
{
	struct ac_fifo_heads heads = { 0 };
	struct ac_policy p;
	struct ac_pick k;

	fill_capped(&p, 3, RA);
	set_head(&heads, RA, 5, 3);
	k = ac_policy_pick(&p, &heads, 5);
	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK(k.capped);
	CHECK_EQ(p.stats.expired_waits, 1);
	/* its unit frees: it goes (async expiry is looked at per phase) */
	occ.reads[3].counter = 0;
	k = ac_policy_pick(&p, &heads, 6);
	CHECK(k.kind == AC_PICK_EXPIRED ||
	      (k.kind == AC_PICK_UNIT && k.unit == 3));
	CHECK_EQ(k.type, RA);
}

/*
 * Writes held back by write_inflight and every read at a capped unit: an
 * expired write whose unit has room goes (cap_expired), the device is not
 * left to idle.
 */
static void test_cap_expired_write(void)
{
	struct ac_fifo_heads heads = { 0 };
	struct ac_policy p;
	struct ac_pick k;

	fill_capped(&p, 3, RS);
	ac_policy_add(&p, 4, WS);
	p.writes_held = true;
	set_head(&heads, WS, 5, 4);
	k = ac_policy_pick(&p, &heads, 4);
	CHECK_EQ(k.kind, AC_PICK_NONE);
	CHECK(k.capped);
	k = ac_policy_pick(&p, &heads, 5);
	CHECK_EQ(k.kind, AC_PICK_EXPIRED);
	CHECK_EQ(k.type, WS);
	CHECK_EQ(p.stats.cap_expired, 1);
}

/* With one die per channel a unit is a channel: caps do not apply. */
static void test_no_caps_without_dies(void)
{
	struct ac_policy p;
	struct ac_pick k;
	int i;

	setup(&p, 8, 1, 1);
	for (i = 0; i < 3; i++)
		ac_policy_add(&p, 5, RS);
	for (i = 0; i < 3; i++) {
		k = step(&p);
		CHECK_EQ(k.kind, AC_PICK_UNIT);
		CHECK_EQ(k.unit, 5);
	}
	CHECK_EQ(p.stats.cap_holds, 0);
}

/* With no occupancy known, dies change nothing but the sub-groups. */
static void test_no_occupancy_is_rotation(void)
{
	static const u32 want[] = { 1, 9, 17, 1, 9, 1 };
	struct ac_policy p;
	struct ac_pick k;
	u32 i;

	setup(&p, 8, 4, 0);
	p.occ = NULL;
	ac_policy_add(&p, 1, RS);
	ac_policy_add(&p, 1, RS);
	ac_policy_add(&p, 1, RS);
	ac_policy_add(&p, 9, RS);
	ac_policy_add(&p, 9, RS);
	ac_policy_add(&p, 17, RS);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		k = ac_policy_pick(&p, &no_heads, 0);
		CHECK_EQ(k.unit, want[i]);
		ac_policy_dispatched(&p, k.unit, k.type, false);
	}
}

/* 2 channels x 2 dies, cap 1, unit_spare on, slots for two per unit. */
static void setup_spare(struct ac_policy *p)
{
	setup(p, 2, 2, 1);
	p->dev_slots = 8;
	p->unit_spare = 1;
}

/*
 * Slots to spare (ac_slots_spare()): 2 channels x 2 dies, cap 1.  Reads
 * queued on units 0 and 1 only, both busy.  With 4 slots and 2 taken, the
 * two idle units have nothing queued: a read goes past the cap, by one.
 * Not further, and not once a read waits for an idle unit that the free
 * slots must keep room for.  Our writes take slots, not dies.
 */
static void test_cap_spare_slots(void)
{
	struct ac_policy p;
	struct ac_pick k;

	setup_spare(&p);
	p.dev_slots = 4;
	busy(0, 1, false);
	busy(1, 1, false);
	ac_policy_add(&p, 0, RS);
	ac_policy_add(&p, 1, RS);
	k = step(&p);			/* 2 free, 0 waiting: past the cap */
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(p.stats.cap_spare, 1);
	k = step(&p);			/* the other, past its cap too */
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(p.stats.cap_spare, 2);
	ac_policy_add(&p, 0, RS);	/* unit 0 is at unit_depth + 1: held */
	k = step(&p);
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	CHECK_EQ(p.stats.cap_spare, 2);

	/* a write at the device takes the last free slot */
	setup_spare(&p);
	p.dev_slots = 4;
	busy(0, 1, false);
	busy(1, 1, false);
	busy(2, 1, true);
	ac_policy_add(&p, 0, RS);
	k = step(&p);			/* 1 free, 0 waiting: past the cap */
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 0);
	ac_policy_add(&p, 1, RS);
	k = step(&p);			/* no slot free */
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	CHECK_EQ(p.stats.cap_spare, 1);

	/* no slots known, or unit_spare off: the cap holds */
	setup(&p, 2, 2, 1);
	p.unit_spare = 1;
	busy(0, 1, false);
	ac_policy_add(&p, 0, RS);
	k = step(&p);
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	p.dev_slots = 4;
	p.unit_spare = 0;
	k = step(&p);
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	CHECK_EQ(p.stats.cap_spare, 0);

	/* 1 free slot and an idle unit (2) with a read queued: it keeps it */
	setup_spare(&p);
	p.dev_slots = 4;
	busy(0, 1, false);
	busy(1, 1, false);
	busy(3, 1, false);
	ac_policy_add(&p, 0, RS);
	ac_policy_add(&p, 2, RS);
	k = step(&p);
	CHECK_EQ(k.kind, AC_PICK_UNIT);
	CHECK_EQ(k.unit, 2);
	k = step(&p);			/* no slot free: unit 0's read waits */
	CHECK(k.kind == AC_PICK_NONE && k.capped);
	CHECK_EQ(p.stats.cap_spare, 0);
}

/* ---------------------------------------------------------- random runs */

struct o_req {
	u32 unit;
	u8 type;
	u8 state;		/* 0 queued, 1 at device, 2 done */
	u64 deadline;		/* in dispatch counts */
	u64 expired_at;		/* step when first seen expired */
	u32 ahead;		/* requests ahead in its FIFO then */
	u32 due_picks;		/* picks since, with the FIFO head expired and room at its unit */
};

struct o_prof {
	const char *name;
	u64 seed;
	u32 channels, dies, depth;
	u32 device_depth;
	u32 hot_pct;		/* share of requests on unit 0 */
	u32 read_pct;
	int one_type;		/* 0, or all of type one_type - 1: the deadline bound holds */
	u32 expire;		/* deadline, in steps (the clock) from insert */
	int ops;
	u32 slots;		/* the device's command slots as the glue tells them; 0: unknown */
};

static u64 o_rng;

static u32 o_rand(u32 n)
{
	o_rng ^= o_rng << 13;
	o_rng ^= o_rng >> 7;
	o_rng ^= o_rng << 17;
	return n ? (u32)(o_rng % n) : 0;
}

#define O_MAX	4096

static struct o_req oreq[O_MAX];

/* The FIFO head of @type: the oldest queued request of it. */
static int o_head(u32 n, u8 type)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (oreq[i].state == 0 && oreq[i].type == type)
			return i;
	return -1;
}

/* Queued request of unit @u and @type (any one: which one is the glue's choice). */
static int o_find(u32 n, u32 u, u8 type)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (oreq[i].state == 0 && oreq[i].unit == u &&
		    oreq[i].type == type)
			return i;
	return -1;
}

/*
 * The rule, restated: the device has more slots free than there are idle
 * units with reads queued.
 */
static bool o_spare(const struct ac_policy *p, u32 n)
{
	u32 i, u, waiting = 0, total = atomic_read(&occ.total);
	u32 units = p->units;

	if (!p->unit_spare || !p->dev_slots || total >= p->dev_slots)
		return false;
	for (u = 0; u < units; u++) {
		if (atomic_read(&occ.reads[u]))
			continue;
		for (i = 0; i < n; i++) {
			if (oreq[i].state == 0 && oreq[i].unit == u &&
			    !ac_type_is_write(oreq[i].type)) {
				waiting++;
				break;
			}
		}
	}
	return p->dev_slots - total > waiting;
}

/* Whether unit_depth holds a request of @type back from unit @u. */
static bool o_held(const struct ac_policy *p, u32 u, u8 type)
{
	return !ac_type_is_write(type) && ac_policy_dies(p) && p->unit_depth &&
	       atomic_read(&occ.reads[u]) >= (int)p->unit_depth;
}

static bool o_writes_queued(u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (oreq[i].state == 0 && ac_type_is_write(oreq[i].type))
			return true;
	return false;
}

static void o_check_pick(const struct ac_policy *p, const struct ac_pick *k,
			 u32 n, bool spare)
{
	u32 i, u = k->unit;

	if (k->kind != AC_PICK_UNIT)
		return;
	CHECK_MSG(!o_held(p, u, k->type) ||
		  (spare && atomic_read(&occ.reads[u]) <= (int)p->unit_depth),
		  "unit %u at its cap %u got a read", u, p->unit_depth);
	if (!ac_type_is_write(k->type) && atomic_read(&occ.reads[u])) {
		for (i = 0; i < n; i++) {
			const struct o_req *r = &oreq[i];

			if (r->state == 0 && r->type == k->type &&
			    !atomic_read(&occ.reads[r->unit]))
				t_fail(__FILE__, __LINE__,
				       "read to busy unit %u while unit %u is idle",
				       u, r->unit);
		}
	}
}

/* An expired pick obeys the caps too: a read's unit has room. */
static void o_check_room(const struct ac_policy *p, const struct o_req *r,
			 const char *name)
{
	CHECK_MSG(!o_held(p, r->unit, r->type),
		  "%s: expired read sent to unit %u at its cap %u", name,
		  r->unit, p->unit_depth);
}

/*
 * Nothing picked: only with reads held by caps, every one of them, never
 * while a write is queued (no write is held for a die), never stalled.
 */
static void o_check_none(const struct ac_policy *p, const struct ac_pick *k,
			 u32 n, u32 at_device, bool spare)
{
	u32 i;

	if (k->kind != AC_PICK_NONE)
		return;
	CHECK_MSG(!ac_policy_queued(p) || at_device,
		  "stall: %u queued, none at the device", ac_policy_queued(p));
	CHECK_MSG(!o_writes_queued(n), "a write queued, nothing picked");
	if (!k->capped)
		return;
	for (i = 0; i < n; i++) {
		const struct o_req *r = &oreq[i];

		if (r->state == 0 && !o_held(p, r->unit, r->type))
			t_fail(__FILE__, __LINE__,
			       "held by caps, but unit %u (%d reads at the device) has a request",
			       r->unit, atomic_read(&occ.reads[r->unit]));
		if (r->state == 0 && spare &&
		    atomic_read(&occ.reads[r->unit]) <= (int)p->unit_depth)
			t_fail(__FILE__, __LINE__,
			       "held by caps with slots to spare, but a read of unit %u could go",
			       r->unit);
	}
}

static void o_run(const struct o_prof *pf)
{
	struct ac_fifo_heads heads;
	struct ac_policy p;
	u32 n = 0, at_device = 0, dev[64], ndev = 0, i;
	bool head_due;
	u32 units;
	int op, t;

	o_rng = pf->seed;
	setup(&p, pf->channels, pf->dies, pf->depth);
	p.fifo_batch = 1 + o_rand(16);
	p.writes_starved = 1 + o_rand(3);
	p.write_batch = 1 + o_rand(16);
	p.dev_slots = pf->slots;
	p.unit_spare = 1;
	units = p.units;
	memset(oreq, 0, sizeof(oreq));

	for (op = 0; op < pf->ops || ac_policy_queued(&p) || ndev; op++) {
		u32 r = o_rand(100);

		/* insert */
		if (op < pf->ops && n < O_MAX && r < 45) {
			struct o_req *q = &oreq[n];

			q->unit = o_rand(100) < pf->hot_pct ? 0 : o_rand(units);
			if (pf->one_type)
				q->type = pf->one_type - 1;
			else if (o_rand(100) < pf->read_pct)
				q->type = o_rand(4) ? RS : RA;
			else
				q->type = o_rand(2) ? WS : WA;
			q->deadline = (u64)op + pf->expire;
			q->expired_at = ~0ULL;
			ac_policy_add(&p, q->unit, q->type);
			n++;
			continue;
		}
		/* a completion, in random order */
		if (ndev && (r < 75 || ndev >= pf->device_depth ||
			     op >= pf->ops)) {
			u32 j = o_rand(ndev);
			struct o_req *q = &oreq[dev[j]];

			atomic_dec(&occ.total);
			if (!ac_type_is_write(q->type))
				atomic_dec(&occ.reads[q->unit]);
			CHECK(atomic_read(&occ.reads[q->unit]) >= 0);
			q->state = 2;
			dev[j] = dev[--ndev];
			at_device--;
			if (op < pf->ops || !ac_policy_queued(&p))
				continue;
		}
		if (ndev >= pf->device_depth)
			continue;
		/* dispatch */
		memset(&heads, 0, sizeof(heads));
		for (t = 0; t < AC_NR_TYPES; t++) {
			int h = o_head(n, t);

			if (h >= 0) {
				heads.valid[t] = true;
				heads.expire[t] = oreq[h].deadline;
				heads.unit[t] = oreq[h].unit;
			}
		}
		/* note when each queued request is first seen expired */
		for (i = 0; i < n; i++) {
			if (oreq[i].state == 0 && oreq[i].expired_at == ~0ULL &&
			    (u64)op >= oreq[i].deadline) {
				u32 j, ahead = 0;

				for (j = 0; j < i; j++)
					ahead += oreq[j].state == 0 &&
						 oreq[j].type == oreq[i].type;
				oreq[i].expired_at = op;
				oreq[i].ahead = ahead;
			}
		}
		head_due = false;
		if (pf->one_type && heads.valid[pf->one_type - 1] &&
		    (u64)op >= heads.expire[pf->one_type - 1]) {
			u32 hu = heads.unit[pf->one_type - 1];

			head_due = !o_held(&p, hu, pf->one_type - 1);
		}
		for (i = 0; head_due && i < n; i++)
			if (oreq[i].state == 0 && oreq[i].expired_at != ~0ULL)
				oreq[i].due_picks++;
		t_check_queued_units(&p);
		{
			bool spare = o_spare(&p, n);
			struct ac_pick k = ac_policy_pick(&p, &heads, op);
			int idx = -1;

			CHECK_MSG(!head_due || (k.kind == AC_PICK_EXPIRED &&
						(int)k.type == pf->one_type - 1),
				  "%s: expired head with room at unit %u not picked (%d/%d)",
				  pf->name, heads.unit[pf->one_type - 1], k.kind, k.type);
			o_check_pick(&p, &k, n, spare);
			o_check_none(&p, &k, n, at_device, spare);
			if (k.kind == AC_PICK_EXPIRED)
				idx = o_head(n, k.type);
			else if (k.kind == AC_PICK_UNIT)
				idx = o_find(n, k.unit, k.type);
			if (k.kind == AC_PICK_NONE) {
				/* queued, none at the device: a stall, reported */
				if (!ndev && ac_policy_queued(&p))
					break;
				continue;
			}
			CHECK_MSG(idx >= 0, "%s: pick %d/%u/%d names nothing",
				  pf->name, k.kind, k.unit, k.type);
			if (idx < 0)
				break;
			if (k.kind == AC_PICK_EXPIRED)
				o_check_room(&p, &oreq[idx], pf->name);
			if (pf->one_type && oreq[idx].expired_at != ~0ULL)
				CHECK_MSG(oreq[idx].due_picks <= oreq[idx].ahead + 1,
					  "%s: expired request left after %u due picks, %u ahead",
					  pf->name, oreq[idx].due_picks, oreq[idx].ahead);
			ac_policy_dispatched(&p, oreq[idx].unit, oreq[idx].type,
					     k.kind == AC_PICK_EXPIRED);
			atomic_inc(&occ.total);
			if (!ac_type_is_write(oreq[idx].type))
				atomic_inc(&occ.reads[oreq[idx].unit]);
			oreq[idx].state = 1;
			dev[ndev++] = idx;
			at_device++;
		}
	}
	for (i = 0; i < n; i++)
		CHECK_MSG(oreq[i].state == 2, "%s: request %u left in state %u",
			  pf->name, i, oreq[i].state);
	for (i = 0; i < AC_MAX_UNITS; i++)
		CHECK_EQ(atomic_read(&occ.reads[i]), 0);
	CHECK_EQ(atomic_read(&occ.total), 0);
	CHECK_EQ(ac_policy_queued(&p), 0);

	/* more slots than dies: the runs must have gone past the cap */
	CHECK_MSG(pf->slots <= units || p.stats.cap_spare > 0 || !pf->read_pct,
		  "%s: no read went past its cap", pf->name);
}

static const struct o_prof o_profiles[] = {
	{ "reads_8x4_cap1", 11, 8, 4, 1, 32, 0, 100, 0, 200, 20000, 0 },
	{ "mixed_8x4_cap1", 12, 8, 4, 1, 32, 0, 90, 0, 200, 20000, 0 },
	{ "mixed_8x4_nocap", 13, 8, 4, 0, 32, 0, 70, 0, 200, 20000, 0 },
	{ "mixed_4x2_cap2", 14, 4, 2, 2, 8, 10, 50, 0, 100, 20000, 0 },
	{ "hot_unit_cap1", 15, 8, 4, 1, 32, 80, 100, 1 + RS, 50, 20000, 0 },
	{ "hot_unit_cap3", 16, 16, 4, 3, 128, 90, 100, 1 + RS, 20, 20000, 0 },
	{ "one_unit", 17, 1, 1, 1, 4, 0, 60, 0, 30, 10000, 0 },
	{ "writes_cap1", 18, 8, 4, 1, 32, 30, 10, 0, 400, 20000, 0 },
	/* a hot unit's reads run late while writes wait elsewhere */
	{ "late_reads_writes", 19, 8, 4, 1, 6, 60, 70, 0, 30, 20000, 0 },
	/* sync writes only, deadlines short: the batch must not starve a late head */
	{ "sync_writes_late", 20, 8, 4, 1, 32, 20, 0, 1 + WS, 40, 20000, 0 },
	{ "sync_writes_hot", 21, 8, 4, 2, 32, 80, 0, 1 + WS, 20, 20000, 0 },
	/*
	 * The device holds more commands than it has dies: reads past the
	 * cap (a hot unit keeps the queue deep enough for every read to be
	 * held).
	 */
	{ "reads_8x4_spare", 22, 8, 4, 1, 64, 50, 100, 0, 200, 20000, 64 },
	{ "mixed_8x4_spare", 23, 8, 4, 1, 64, 50, 80, 0, 200, 20000, 64 },
	/* as many slots as dies: spare only while idle dies have nothing queued */
	{ "mixed_8x4_slots_eq", 24, 8, 4, 1, 32, 30, 90, 0, 200, 20000, 32 },
	{ "hot_unit_spare", 25, 8, 4, 1, 64, 80, 100, 1 + RS, 50, 20000, 64 },
	{ "mixed_4x2_cap2_spare", 26, 4, 2, 2, 32, 40, 90, 0, 100, 20000, 32 },
	/* writes only: never held */
	{ "writes_8x4_spare", 27, 8, 4, 1, 64, 80, 0, 0, 200, 20000, 64 },
	{ "writes_8x4_slots_eq", 28, 8, 4, 1, 32, 0, 0, 0, 200, 20000, 32 },
	{ "mixed_8x4_writes_spare", 29, 8, 4, 1, 64, 30, 20, 0, 200, 20000, 64 },
	/* sync writes, more slots than dies, deadlines short: no late head starves */
	{ "sync_writes_spare", 30, 8, 4, 1, 64, 60, 0, 1 + WS, 40, 20000, 64 },
};

static void test_random_occupancy(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(o_profiles); i++)
		o_run(&o_profiles[i]);
}

const struct t_case t_occupancy[] = {
	{ "occupancy/unit_stripe_8x4", test_unit_stripe_8x4 },
	{ "occupancy/unit_range_8x4", test_unit_range_8x4 },
	{ "occupancy/unit_degenerate", test_unit_degenerate },
	{ "occupancy/units_clamped", test_units_clamped },
	{ "occupancy/read_idle_first", test_read_idle_first },
	{ "occupancy/read_idle_beats_rotation", test_read_idle_beats_rotation },
	{ "occupancy/write_counts_at_no_die", test_write_counts_at_no_die },
	{ "occupancy/write_spreads_dies", test_write_spreads_dies },
	{ "occupancy/write_never_held", test_write_never_held },
	{ "occupancy/cap_holds_and_expiry", test_cap_holds_and_expiry },
	{ "occupancy/cap_expired_async", test_cap_expired_async },
	{ "occupancy/cap_expired_write", test_cap_expired_write },
	{ "occupancy/no_caps_without_dies", test_no_caps_without_dies },
	{ "occupancy/no_occupancy_is_rotation", test_no_occupancy_is_rotation },
	{ "occupancy/expired_write_mid_phase", test_expired_write_mid_phase },
	{ "occupancy/cap_spare_slots", test_cap_spare_slots },
	{ "occupancy/random", test_random_occupancy },
	{ NULL, NULL },
};
