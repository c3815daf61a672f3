/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AC dispatch policy: the read and write matrices, the choice of sub-group,
 * batching, starvation control and the deadline check order.
 *
 * This file and ac-policy.c touch no kernel structure, take no lock and
 * allocate nothing.  The scheduler glue (ac-iosched.c) owns the requests and
 * their lists; it tells the policy what it queued, removed and dispatched, and
 * asks it what to dispatch next.  The same two files are compiled into the
 * user-space unit tests (tests/unit), which replay the spec's examples.
 *
 * Dispatch proceeds in phases, as in mq-deadline: a phase is up to
 * fifo_batch dispatches in one direction.  At the start of each phase the
 * heads of the four deadline FIFOs are checked (Algorithm 2) and the
 * direction is chosen: reads, unless writes have waited through
 * writes_starved read phases in a row.  writes_starved therefore counts read
 * phases, not single reads, exactly as mq-deadline counts batches; with the
 * defaults (16, 2) reads get two thirds of a contended device.
 */
#ifndef AC_POLICY_H
#define AC_POLICY_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#include "ac-user-types.h"	/* tests/unit: u8..s64 and atomic_t in user space */
#endif

/* Upper bound of nr_channels. */
#define AC_MAX_CHANNELS		64
/* Upper bound of dies_per_channel. */
#define AC_MAX_DIES		64
/*
 * Upper bound of nr_channels * dies_per_channel, the parallel units (spec
 * 4.4): each is a sub-group, with its own sub-queues and occupancy.  A unit
 * index is stored in 8 bits of a request.
 */
#define AC_MAX_UNITS		256
#define AC_UNIT_WORDS		(AC_MAX_UNITS / 64)

enum ac_type {
	AC_READ_SYNC,
	AC_READ_ASYNC,
	AC_WRITE_SYNC,
	AC_WRITE_ASYNC,
	AC_NR_TYPES,
};

static inline bool ac_type_is_write(enum ac_type t)
{
	return t == AC_WRITE_SYNC || t == AC_WRITE_ASYNC;
}

/* Read matrix flags. */
enum ac_read_flag {
	AC_R_ZERO,	/* no reads queued */
	AC_R_PEND,	/* reads queued, not served this round */
	AC_R_END,	/* served this round: low priority until the next round */
};

/* Write matrix flags. */
enum ac_write_flag {
	AC_W_ZERO,	/* no writes queued */
	AC_W_PEND,	/* writes queued, not being batched */
	AC_W_PROC,	/* the sub-group whose writes are being batched now */
};

enum ac_mapping {
	AC_MAP_RANGE,	/* sector / (capacity / nr_channels), the thesis's */
	AC_MAP_STRIPE,	/* (sector / stripe) mod nr_channels */
};

/*
 * A sub-group: one parallel unit (a die of a channel).  Unit u is die
 * u / nr_channels of channel u % nr_channels, so units 0 .. nr_channels - 1
 * are the channels' first dies, and with dies_per_channel 1 a unit is a
 * channel, the thesis's sub-group.  Writes are batched per channel: wflag of
 * grp[c], c < nr_channels, is channel c's write flag (the other units' wflag
 * stays ZERO).
 */
struct ac_group {
	u32 nr[AC_NR_TYPES];	/* queued requests of each type */
	u8 rflag;		/* enum ac_read_flag, of this unit */
	u8 wflag;		/* enum ac_write_flag, of channel (index) */
};

/*
 * Occupancy (spec 4.4): AC's requests at the device, per unit.  The glue
 * counts a request at dispatch and uncounts it at completion or requeue,
 * without the scheduler lock; the policy only reads it.
 */
struct ac_occupancy {
	atomic_t all[AC_MAX_UNITS];	/* requests at the device */
	atomic_t writes[AC_MAX_UNITS];	/* of which writes */
	atomic_t total;			/* requests at the device, all units */
};

struct ac_stats {
	u64 dispatched[AC_NR_TYPES];	/* all dispatches, by type */
	u64 expired[AC_NR_TYPES];	/* dispatched because the deadline passed */
	u64 read_rounds;		/* END -> PEND resets of the read matrix */
	u64 write_batches;		/* sub-groups made PROC */
	u64 starved_switches;		/* write phases forced by writes_starved */
	u64 proc_fallbacks;		/* reads sent to the PROC sub-group: no other */
	u64 writes_held;		/* picks made while writes were held */
	u64 reads_idle;			/* reads sent to an idle unit */
	u64 reads_busy;			/* reads sent to a unit already busy */
	u64 reads_by_write;		/* of those, to a unit with a write out */
	u64 cap_holds;			/* picks that found every request capped */
	u64 cap_spare;			/* reads sent past unit_depth: slots to spare */
	u64 cap_spare_writes;		/* writes sent past their caps: slots to spare, no reads */
	u64 cap_skips;			/* picks that passed over a capped unit */
	u64 cap_expired;		/* expired requests sent while all else was capped */
	u64 sync_read_expired;		/* expired sync reads sent mid-phase */
	u64 write_expired;		/* expired writes sent mid-phase (write phases) */
	u64 expired_waits;		/* picks that found an expired head waiting for its unit */
	u64 writes_behind_reads;	/* picks that kept writes off dies with reads waiting */
};

enum ac_dir {
	AC_DIR_READ,
	AC_DIR_WRITE,
};

struct ac_policy {
	/* tunables; the glue writes them under its lock */
	u32 nr_channels;	/* 1 .. AC_MAX_CHANNELS */
	u32 fifo_batch;		/* dispatches per phase, >= 1 */
	u32 writes_starved;	/* read phases before a write phase, >= 1 */
	u32 write_batch;	/* writes per PROC batch, >= 1 */
	u32 dies_per_channel;	/* 1 .. AC_MAX_DIES; units = channels x dies */
	u32 unit_depth;		/* requests at one die, 0: no cap (dies only) */
	u32 unit_writes;	/* writes at one die, 0: no cap (dies only) */
	u32 reads_first;	/* 1: no write to a die with reads waiting (dies only) */
	u32 unit_spare;		/* 1: reads past unit_depth with slots to spare (dies only) */
	/*
	 * nr_channels x dies_per_channel as ac_policy_regroup() clamped them:
	 * every pick needs it, and the layout changes only there.
	 */
	u32 units;

	/* The glue's occupancy counts; NULL: every unit idle. */
	const struct ac_occupancy *occ;
	/*
	 * Commands the device holds at once (its tags), set by the glue; 0:
	 * unknown.  With unit_spare, a read may go past unit_depth while more
	 * of them are free than there are idle units with requests waiting
	 * (ac_slots_spare()).
	 */
	u32 dev_slots;

	/*
	 * Set by the glue before each pick: the device holds as many writes
	 * as it may while reads are about, so pick a read or nothing.
	 */
	bool writes_held;
	/*
	 * Set by the glue before each pick: with reads_first, writes wait for
	 * their die's reads while fewer than this many are queued, the tags
	 * writes may take less what the device may hold, so that holding
	 * writes does not by itself make a submitter wait for a tag.
	 */
	u32 write_hold;

	struct ac_group grp[AC_MAX_UNITS];
	u32 queued[AC_NR_TYPES];	/* sum of grp[].nr */
	/*
	 * Bit u of word u / 64: grp[u].nr[type] > 0.  The picks walk these
	 * instead of every unit: a queue that holds a few requests (a fast
	 * device) costs a few steps, not one per unit (issue 16).
	 */
	u64 queued_units[AC_NR_TYPES][AC_UNIT_WORDS];

	u32 chan_writes[AC_MAX_CHANNELS][2];	/* queued writes: sync, async */

	int proc;		/* channel in PROC, or -1 */
	u32 last_read;		/* unit a read was last taken from */
	u32 last_write;		/* channel last made PROC */
	u32 last_write_unit;	/* unit a write was last taken from */

	enum ac_dir dir;	/* direction of the current phase */
	u32 phase_left;		/* dispatches left in the current phase; 0: new phase */
	u32 starved;		/* read phases in a row while writes waited */
	u32 batch_writes;	/* writes dispatched in the current PROC batch */

	struct ac_stats stats;
};

/* The heads of the four deadline FIFOs, as the glue sees them. */
struct ac_fifo_heads {
	bool valid[AC_NR_TYPES];	/* FIFO not empty */
	u64 expire[AC_NR_TYPES];	/* head's deadline, in the glue's clock */
	u32 unit[AC_NR_TYPES];		/* head's unit (group) */
};

enum ac_pick_kind {
	AC_PICK_NONE,		/* nothing queued */
	AC_PICK_EXPIRED,	/* dispatch the head of FIFO @type */
	AC_PICK_GROUP,		/* dispatch the next request of sub-queue @type of @group */
};

struct ac_pick {
	enum ac_pick_kind kind;
	enum ac_type type;
	u32 group;		/* the unit */
	/*
	 * With AC_PICK_NONE: requests are queued but every one is held by
	 * unit_depth.  The glue must make the next completion run the queue.
	 */
	bool capped;
};

/* Set defaults (spec section 5) for @nr_channels sub-groups, all empty. */
void ac_policy_init(struct ac_policy *p, u32 nr_channels);

/*
 * Forget every queued request and use @nr_channels channels of
 * dies_per_channel dies (dies clamped so that the units fit AC_MAX_UNITS);
 * the glue then re-adds what it still holds with ac_policy_add().  Counters
 * are kept.
 */
void ac_policy_regroup(struct ac_policy *p, u32 nr_channels);

/* Units in use: nr_channels x dies_per_channel. */
u32 ac_policy_units(const struct ac_policy *p);

/*
 * Whether the units are dies (dies_per_channel > 1): only then do the caps,
 * the prompt expiry of sync reads and arrival order inside a unit apply.
 * With one die per channel a unit is a whole channel, or an unknown part of
 * a device whose geometry AC was not told, which serves many commands at
 * once: capping it would only cost parallelism.  Inline, as the two below:
 * the glue asks on every dispatch (issue 16).
 */
static inline bool ac_policy_dies(const struct ac_policy *p)
{
	return p->dies_per_channel > 1;
}

/* Channel of unit @unit under the current layout. */
static inline u32 ac_unit_channel(const struct ac_policy *p, u32 unit)
{
	return p->nr_channels ? unit % p->nr_channels : 0;
}

/* Occupancy helpers: the same in the glue and the user-space tests. */
static inline u32 ac_occ_all(const struct ac_occupancy *occ, u32 unit)
{
	return occ && unit < AC_MAX_UNITS ? atomic_read(&occ->all[unit]) : 0;
}

static inline u32 ac_occ_writes(const struct ac_occupancy *occ, u32 unit)
{
	return occ && unit < AC_MAX_UNITS ? atomic_read(&occ->writes[unit]) : 0;
}

static inline u32 ac_occ_total(const struct ac_occupancy *occ)
{
	return occ ? atomic_read(&occ->total) : 0;
}

/* Index into grp[] that stays in bounds whatever the caller passed. */
static inline u32 ac_idx(u32 group)
{
	return group < AC_MAX_UNITS ? group : AC_MAX_UNITS - 1;
}

/*
 * The glue calls ac_policy_add() and ac_policy_dispatched() for every
 * request, and as calls they cost about a third of their work: what every
 * request does is inline below, what only writes do is out of line in
 * ac-policy.c (issue 16).  The three out-of-line parts are for these two
 * and the policy only.
 */
void ac_policy_write_in(struct ac_policy *p, u32 idx, enum ac_type type);
void ac_policy_write_out(struct ac_policy *p, u32 idx, enum ac_type type);
void ac_phase_end(struct ac_policy *p);

/* Count one more request of @type in unit @idx. */
static __always_inline void ac_count(struct ac_policy *p, u32 idx,
				     enum ac_type type)
{
	if (!p->grp[idx].nr[type]++)
		p->queued_units[type][idx / 64] |= 1ULL << (idx % 64);
	p->queued[type]++;
}

/* Count one request of @type fewer in unit @idx; false if there was none. */
static __always_inline bool ac_uncount(struct ac_policy *p, u32 idx,
				       enum ac_type type)
{
	struct ac_group *g = &p->grp[idx];

	if (!g->nr[type] || !p->queued[type])
		return false;
	if (!--g->nr[type])
		p->queued_units[type][idx / 64] &= ~(1ULL << (idx % 64));
	p->queued[type]--;
	return true;
}

/* Reads queued in unit @g. */
static inline u32 ac_reads(const struct ac_group *g)
{
	return g->nr[AC_READ_SYNC] + g->nr[AC_READ_ASYNC];
}

/* Read flag of unit @idx after a read left it: @served, or removed. */
static __always_inline void ac_left_read(struct ac_policy *p, u32 idx,
					 bool served)
{
	struct ac_group *g = &p->grp[idx];

	if (!ac_reads(g))
		g->rflag = AC_R_ZERO;
	else if (served)
		g->rflag = AC_R_END;
}

/* A request of @type was queued in unit @group (Algorithm 1, steps 4 and 5). */
static __always_inline void ac_policy_add(struct ac_policy *p, u32 group,
					  enum ac_type type)
{
	u32 idx = ac_idx(group);

	ac_count(p, idx, type);
	/* keep END (spec section 3, clarification) */
	if (ac_type_is_write(type))
		ac_policy_write_in(p, idx, type);
	else if (p->grp[idx].rflag == AC_R_ZERO)
		p->grp[idx].rflag = AC_R_PEND;
}

/* A queued request left without being dispatched (merged into another). */
void ac_policy_remove(struct ac_policy *p, u32 group, enum ac_type type);

/*
 * What to dispatch next (Algorithms 2 to 4).  May start a phase, a read
 * round or a write batch.  The glue must then dispatch exactly that request
 * and report it with ac_policy_dispatched().  @now and the FIFO deadlines use
 * the same clock; a deadline is passed when (s64)(now - expire) >= 0.
 */
struct ac_pick ac_policy_pick(struct ac_policy *p,
			      const struct ac_fifo_heads *heads, u64 now);

/*
 * ac_policy_pick() without its shortcut for the common case: the same pick
 * and the same state after it (tests/unit checks that the two agree).
 */
struct ac_pick ac_policy_pick_general(struct ac_policy *p,
				      const struct ac_fifo_heads *heads,
				      u64 now);

/*
 * A request of @type in unit @group, queued while nothing else was, leaves
 * before anything else is queued: ac_policy_add(), ac_policy_pick() (with
 * @expire its FIFO deadline, the only head) and ac_policy_dispatched() in
 * one step, the same pick and the same state after it.  AC_PICK_NONE, and
 * nothing changed, where it does not apply (dies, writes held, anything
 * queued): then the caller adds the request and picks as usual.
 */
struct ac_pick ac_policy_lone(struct ac_policy *p, u32 group,
			      enum ac_type type, u64 expire, u64 now);

/* A request of @type from @group was dispatched; @expired as picked. */
static __always_inline void ac_policy_dispatched(struct ac_policy *p,
						 u32 group, enum ac_type type,
						 bool expired)
{
	u32 idx = ac_idx(group);

	p->stats.dispatched[type]++;
	if (expired)
		p->stats.expired[type]++;
	if (ac_type_is_write(type)) {
		ac_policy_write_out(p, idx, type);
	} else if (ac_uncount(p, idx, type)) {
		ac_left_read(p, idx, true);
		p->last_read = idx;
	}
	if (p->phase_left && !--p->phase_left)
		ac_phase_end(p);
}

/*
 * Sub-group of a request starting at @sector on a device of @capacity
 * sectors.  Never divides by zero: a capacity of 0 or below nr_channels
 * sectors maps everything to 0; a stripe of 0 is treated as 1.  Always
 * returns a value below @nr_channels (and 0 when @nr_channels is 0).
 */
u32 ac_map_sector(enum ac_mapping mapping, u32 nr_channels, u64 sector,
		  u64 capacity, u32 stripe_sectors);

/*
 * Division by a divisor fixed when the layout changes, without a divide
 * instruction on the I/O path: a shift for a power of two, otherwise a
 * multiply by the divisor's reciprocal rounded up, which is exact for every
 * dividend below 2^AC_RECIP_BITS (a device of 2^48 sectors holds 128 PiB);
 * a larger dividend is divided.
 */
#define AC_RECIP_BITS	48

struct ac_recip {
	u64 div;		/* the divisor, at least 1 */
	u64 mul;		/* 0: div is 1 << shift */
	u32 shift;
};

void ac_recip_init(struct ac_recip *r, u64 div);
u64 ac_recip_div_slow(const struct ac_recip *r, u64 n);

static __always_inline u64 ac_mul_shr(u64 a, u64 b, u32 shift)
{
#ifdef __KERNEL__
	return mul_u64_u64_shr(a, b, shift);
#else
	return (u64)(((__uint128_t)a * b) >> shift);
#endif
}

/*
 * @n / the divisor of @r.  Inline, as are the mappings built on it below:
 * a sector is mapped at every insert, and the call cost about as much as
 * the mapping (issue 16).
 */
static __always_inline u64 ac_recip_div(const struct ac_recip *r, u64 n)
{
	if (!r->mul)
		return r->shift < 64 ? n >> r->shift : ac_recip_div_slow(r, n);
	if (n >> AC_RECIP_BITS)
		return ac_recip_div_slow(r, n);
	return ac_mul_shr(n, r->mul, r->shift);
}

/* @n mod the divisor of @r. */
static __always_inline u64 ac_recip_mod(const struct ac_recip *r, u64 n)
{
	return n - ac_recip_div(r, n) * r->div;
}

/*
 * A channel mapping: the arguments of ac_map_sector() in one place, and
 * what ac_map_prepare() derives from them for the I/O path.  Set the first
 * five fields, then call ac_map_prepare() before any other ac_map_*().
 */
struct ac_map {
	enum ac_mapping mapping;
	u32 nr_channels;
	u64 capacity;		/* sectors */
	u32 stripe_sectors;
	u32 dies;		/* per channel; 0 is taken as 1 */
	/* derived by ac_map_prepare() */
	u32 nr;			/* channels mapped to: 1 when nr_channels <= 1 */
	u32 nr_dies;		/* dies, at least 1 */
	u64 per_chan;		/* range: sectors per channel, 0: all on 0 */
	u64 per_die;		/* range: sectors per die, 0: die 0 */
	struct ac_recip by_stripe;
	struct ac_recip by_nr;
	struct ac_recip by_units;	/* nr * nr_dies */
	struct ac_recip by_chan;	/* per_chan */
	struct ac_recip by_die;		/* per_die */
};

void ac_map_prepare(struct ac_map *m);

/* Channel of @sector under @m: ac_map_group(), inline for ac_map_unit(). */
static __always_inline u32 ac_map_chan(const struct ac_map *m, u64 sector)
{
	u64 group;

	if (m->nr <= 1)
		return 0;
	if (m->mapping == AC_MAP_STRIPE)
		return (u32)ac_recip_mod(&m->by_nr,
					 ac_recip_div(&m->by_stripe, sector));
	if (!m->per_chan)
		return 0;
	group = ac_recip_div(&m->by_chan, sector);
	return group < m->nr ? (u32)group : m->nr - 1;
}

/*
 * Unit (spec 4.4) of a request starting at @sector: die * nr_channels +
 * channel.  Stripe: chunk k = sector / stripe is on channel k mod
 * nr_channels, die (k / nr_channels) mod dies.  Range: the channel's range
 * (ac_map_sector()) is split into dies equal parts.  Always below
 * nr_channels * dies (0 when that is 0 or 1).
 */
static __always_inline u32 ac_map_unit(const struct ac_map *m, u64 sector)
{
	u64 die;
	u32 c;

	if (!m->nr_channels)
		return 0;
	if (m->mapping == AC_MAP_STRIPE)
		return (u32)ac_recip_mod(&m->by_units,
					 ac_recip_div(&m->by_stripe, sector));
	c = ac_map_chan(m, sector);
	if (m->nr_dies == 1 || !m->per_die)
		return c;
	die = ac_recip_div(&m->by_die, sector - (u64)c * m->per_chan);
	if (die >= m->nr_dies)
		die = m->nr_dies - 1;
	return (u32)die * m->nr + c;
}

/* ac_map_sector() of @sector under @m, without dividing. */
u32 ac_map_group(const struct ac_map *m, u64 sector);

/*
 * Sub-groups covered by @nr_sectors sectors from @sector: 1 for a request
 * inside one channel's stripe or range, up to nr_channels.
 */
u32 ac_map_span(const struct ac_map *m, u64 sector, u64 nr_sectors);

/*
 * Whether two adjacent extents (a queued request and a bio, or two queued
 * requests) may become one: not if the result covers more sub-groups than
 * the wider of the two.
 */
bool ac_map_merge_ok(const struct ac_map *m, u64 a_pos, u64 a_len,
		     u64 b_pos, u64 b_len);

/*
 * Whether a request of @len sectors at @pos may be appended to whatever
 * queued request ends at @pos without widening it: true when the sector
 * before @pos and the whole request lie in one sub-group.
 */
bool ac_map_append_ok(const struct ac_map *m, u64 pos, u64 len);

/* Sum of queued requests over all types. */
static inline u32 ac_policy_queued(const struct ac_policy *p)
{
	return p->queued[AC_READ_SYNC] + p->queued[AC_READ_ASYNC] +
	       p->queued[AC_WRITE_SYNC] + p->queued[AC_WRITE_ASYNC];
}

/* Queued requests of direction @dir. */
static inline u32 ac_policy_dir_queued(const struct ac_policy *p,
				       enum ac_dir dir)
{
	if (dir == AC_DIR_READ)
		return p->queued[AC_READ_SYNC] + p->queued[AC_READ_ASYNC];
	return p->queued[AC_WRITE_SYNC] + p->queued[AC_WRITE_ASYNC];
}

/*
 * Whether the next ac_policy_pick() may look at @heads (with writes_held
 * as it will be then).  When it is false the pick is the same with NULL
 * heads, so the glue need not read its FIFOs' heads: it reads them at the
 * start of each phase, and on every pick when units are dies.
 */
static inline bool ac_policy_heads_due(const struct ac_policy *p)
{
	/* with dies: an expired sync read goes as soon as its unit has room */
	if (ac_policy_dies(p))
		return true;
	if (p->writes_held || !ac_policy_queued(p))
		return false;
	/* a phase starts: its first pick checks every deadline */
	return !p->phase_left || !ac_policy_dir_queued(p, p->dir);
}

#endif /* AC_POLICY_H */
