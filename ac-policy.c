// SPDX-License-Identifier: GPL-2.0
/*
 * AC dispatch policy (spec sections 2 to 4): the read and write matrices,
 * the choice of sub-group, write batching, starvation control and the
 * deadline check order.  Pure C: see ac-policy.h for the contract.
 *
 * Choices the spec leaves open, made here:
 *
 * - Phases.  Every phase, read or write, lasts up to fifo_batch dispatches
 *   and then a new phase starts with a deadline check.  A phase also ends
 *   early when its direction has nothing queued.  A read phase that ends
 *   while writes wait counts as a starved phase.  Any write phase resets
 *   the starved count (writes were served); stats.starved_switches counts
 *   only the write phases chosen over waiting reads.
 * - An expired dispatch happens only at a phase start and consumes the first
 *   slot of the phase; the next deadline check is at the next phase start.
 *   The phase's direction is chosen at the same time, as if nothing had
 *   expired, so an expired write may take a slot of a read phase.
 * - Reads.  The wanted type is sync if any sync read is queued, else async.
 *   Candidates are the sub-groups with reads of that type.  The first PEND
 *   candidate after last_read that is not PROC is taken, last_read itself
 *   excepted: it was served last, so it counts as END even when it emptied
 *   (ZERO) and got new reads (PEND) since; otherwise it could get two reads
 *   in a row while another channel has work.  If there is no such
 *   candidate, a new round starts (every END becomes PEND; counted in
 *   read_rounds only when some flag changed) and the walk is repeated, now
 *   with last_read as the last choice.  If still only the PROC sub-group has
 *   reads of that type, it gets the read (proc_fallbacks): sync before async
 *   wins over avoiding the PROC channel.
 * - Writes.  A new batch goes to the first sub-group after last_write that
 *   has sync writes, or async writes if no sync write is queued anywhere.
 *   The PROC sub-group then serves its own sync writes first and its async
 *   writes next, even when other sub-groups hold sync writes: one channel at
 *   a time matters more to the SSD, and the batch is bounded by write_batch
 *   and the deadlines.  Every write from the PROC sub-group counts towards
 *   write_batch, expired ones included; a write from another sub-group
 *   (expired) leaves the batch alone.  A batch survives the read phases in
 *   between: the next write phase resumes it, and reads keep avoiding its
 *   channel meanwhile.
 * - Expired dispatches update the flags as any dispatch does: a read leaves
 *   its sub-group END (or ZERO) and becomes last_read.
 * - Tunables of 0 are treated as 1; a sub-group index beyond the array is
 *   clamped into it, so a confused caller cannot write out of bounds.
 *   @heads may be NULL: then no deadline is checked.
 * - Regroup also ends the phase and any write batch; the starved count is
 *   kept, as the writes that waited are still queued.
 * - Held writes (writes_held, set by the glue when the device already
 *   holds write_inflight writes and reads are about).  The pick is then a
 *   read, in the read rotation, or nothing: no phase starts, no deadline is
 *   checked, and a read taken during a write phase uses one of its slots.
 *   The writes in flight complete and the glue releases the hold, so no
 *   write waits for ever.  Why: reads queue inside the device behind the
 *   programs of every write it holds, whatever order AC sent them in; the
 *   read/write matrices only protect reads if few writes are in the device.
 * - Units and occupancy (spec 4.4).  A sub-group is a parallel unit, a die
 *   of a channel; with dies_per_channel 1 it is the thesis's channel.  The
 *   read matrix is per unit; write batches (PROC) are per channel, and the
 *   PROC channel's writes go to its least occupied die.  The glue counts
 *   its requests at the device per unit (struct ac_occupancy); a read goes
 *   to the best unit by, in this order: idle, no write of ours at the
 *   device, fewest at the device, not PROC, PEND before END, rotation
 *   (ac_read_rank()).  With nothing at the device that is the thesis's
 *   walk.  A new round starts when no unit that a cap lets through is PEND
 *   outside the PROC channel.
 * - Dies.  With dies_per_channel > 1 a unit is a die, which serves one
 *   command at a time and programs one page at a time; the rules below
 *   then apply.  With 1 (the thesis's model, and AC's default) a unit is a
 *   channel or an unknown part of a device, and they do not.
 * - Prompt expiry.  With dies, occupancy reorders reads far more than the
 *   thesis's walk, and reads of a die that writes keep busy can wait long
 *   behind reads of idle dies: besides the check at each phase start, an
 *   expired sync read goes at the next pick (README, "Occupancy", has the
 *   measurement).  The glue also takes a die's reads in arrival order.
 * - Caps (unit_depth, unit_writes, with dies).  A unit at unit_depth
 *   requests of ours, or at unit_writes writes of ours for a write, is
 *   passed over.  If every sync
 *   read is held, an async read goes; if every read is held, a write goes,
 *   and the other way round; if every die of the PROC channel with writes
 *   is held, the batch moves on to the next channel whose writes can go.
 *   With unit_spare, a read still goes past unit_depth, by one, to the
 *   least busy die with no write of ours there or waiting, while the
 *   device has more command slots free than there are idle dies with
 *   requests queued (ac_slots_spare()); so does a write, past unit_depth
 *   and unit_writes by one each, while no read of ours is queued or at
 *   the device (ac_write_spare()).
 *   Only when every queued request is held does the pick return NONE with
 *   capped set; the glue then waits for a completion.  Caps hold an
 *   expired FIFO head too (with dies; a departure from spec 4.4, in
 *   README): it goes at the first pick at which its unit has room, so a
 *   request waits past its deadline at most one service per request ahead
 *   of it in its FIFO for its unit.
 * - Merges (ac_map_merge_ok()).  Two adjacent extents become one request
 *   only if the result covers no more sub-groups than the wider of the
 *   two: merging work of two channels into one command makes both channels
 *   finish together, as slow as the slower, and costs a command slot's
 *   worth of parallelism (README, "Tunables", has the measurement).
 *   Merges inside one stripe or range, and any merge with nr_channels 1,
 *   are unaffected.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/math64.h>
#endif

#include "ac-policy.h"

/* Spec section 5: mq-deadline's fifo_batch and writes_starved. */
#define AC_DEF_FIFO_BATCH	16
#define AC_DEF_WRITES_STARVED	2
/* Spec section 5: one write batch as long as one phase. */
#define AC_DEF_WRITE_BATCH	16

/* No sub-group: the value of ac_policy.proc when no batch runs. */
#define AC_NO_GROUP		(-1)
/* No unit to take a read from, and caps passed some over (ac_best_read()). */
#define AC_UNITS_HELD		(-2)

/* Deadline check order (Algorithm 2): read-over-write ... */
static const enum ac_type ac_order_reads_first[AC_NR_TYPES] = {
	AC_READ_SYNC, AC_READ_ASYNC, AC_WRITE_SYNC, AC_WRITE_ASYNC,
};

/* ... unless writes are starved: then writes go first. */
static const enum ac_type ac_order_writes_first[AC_NR_TYPES] = {
	AC_WRITE_SYNC, AC_WRITE_ASYNC, AC_READ_SYNC, AC_READ_ASYNC,
};

/* @dividend / @divisor; @divisor must not be 0. */
static u64 ac_div64(u64 dividend, u64 divisor)
{
#ifdef __KERNEL__
	return div64_u64(dividend, divisor);
#else
	return dividend / divisor;
#endif
}

/* @dividend mod @divisor; @divisor must not be 0. */
static u32 ac_mod64(u64 dividend, u32 divisor)
{
#ifdef __KERNEL__
	u32 rem;

	div_u64_rem(dividend, divisor, &rem);
	return rem;
#else
	return (u32)(dividend % divisor);
#endif
}

static u32 ac_at_least_one(u32 v)
{
	return v ? v : 1;
}

static u32 ac_clamp_nr(u32 nr_channels)
{
	if (nr_channels > AC_MAX_CHANNELS)
		return AC_MAX_CHANNELS;
	return ac_at_least_one(nr_channels);
}

/*
 * Dies per channel such that @nr_channels x dies fits AC_MAX_UNITS (the
 * divide only when the product is over).
 */
static u32 ac_clamp_dies(u32 dies, u32 nr_channels)
{
	u32 nr = ac_clamp_nr(nr_channels);

	dies = ac_at_least_one(dies);
	if (dies > AC_MAX_DIES)
		dies = AC_MAX_DIES;
	if (dies * nr <= AC_MAX_UNITS)
		return dies;
	return AC_MAX_UNITS / nr;
}

/* Channels in use (clamped by ac_policy_regroup()). */
static u32 ac_nr(const struct ac_policy *p)
{
	return p->nr_channels;
}

u32 ac_policy_units(const struct ac_policy *p)
{
	return p->units;
}

/* Lowest set bit of @w, which is not 0. */
static u32 ac_ffs64(u64 w)
{
#ifdef __KERNEL__
	return __ffs64(w);
#else
	return (u32)__builtin_ctzll(w);
#endif
}

/*
 * Helpers marked __always_inline are on every pick or dispatch: out of line
 * (the compiler's choice, as they have several callers) their calls cost
 * about as much as their bodies (issue 16,
 * bench/experiments/2026-11-26-cpu-inlining.md).
 */

/*
 * The first unit at or after @from and below @units whose bit is set in @a
 * or @b (queued_units[] rows), or -1.  Pass one row twice for one.
 */
static __always_inline int ac_next_unit(const u64 *a, const u64 *b, u32 from,
					u32 units)
{
	u32 w = from / 64, u;
	u64 bits;

	if (from >= units)
		return AC_NO_GROUP;
	bits = (a[w] | b[w]) & (~0ULL << (from % 64));
	while (!bits) {
		if (++w >= AC_UNIT_WORDS || w * 64 >= units)
			return AC_NO_GROUP;
		bits = a[w] | b[w];
	}
	u = w * 64 + ac_ffs64(bits);
	return u < units ? (int)u : AC_NO_GROUP;
}

/*
 * @x mod @n for the I/O path, where @x is almost always below 2 * @n (a
 * unit index plus an offset below the units): no divide then.
 */
static u32 ac_wrap(u32 x, u32 n)
{
	if (likely(x < n))
		return x;
	if (likely(x - n < n))
		return x - n;
	return x % n;
}

/* Channel of unit @idx, an index into chan_writes[]. */
static u32 ac_chan(const struct ac_policy *p, u32 idx)
{
	return ac_wrap(idx, ac_nr(p));
}

static u32 ac_writes(const struct ac_group *g)
{
	return g->nr[AC_WRITE_SYNC] + g->nr[AC_WRITE_ASYNC];
}

/* Writes queued on channel @c. */
static u32 ac_chan_writes(const struct ac_policy *p, u32 c)
{
	return p->chan_writes[c][0] + p->chan_writes[c][1];
}

/* Index of @type (a write) in chan_writes[][]. */
static u32 ac_wi(enum ac_type type)
{
	return type == AC_WRITE_SYNC ? 0 : 1;
}

/* Sync sub-queues first, then async (section 4.1). */
static enum ac_type ac_want(const struct ac_policy *p, enum ac_type sync,
			    enum ac_type async)
{
	return p->queued[sync] ? sync : async;
}

static struct ac_pick ac_make_pick(enum ac_pick_kind kind, enum ac_type type,
				   u32 group)
{
	struct ac_pick pick = { .kind = kind, .type = type, .group = group };

	return pick;
}

/* Nothing to dispatch now: every queued request is held by unit_depth. */
static struct ac_pick ac_capped_pick(void)
{
	struct ac_pick pick = { .kind = AC_PICK_NONE, .capped = true };

	return pick;
}

/* Whether unit @u is on the channel being batched for writes. */
static __always_inline bool ac_in_proc(const struct ac_policy *p, u32 u)
{
	return p->proc >= 0 && ac_chan(p, u) == (u32)p->proc;
}

/* Whether unit @u holds as many of our writes as it may. */
static bool ac_write_capped(const struct ac_policy *p, u32 u)
{
	return ac_policy_dies(p) && p->unit_writes &&
	       ac_occ_writes(p->occ, u) >= p->unit_writes;
}

/* Whether unit @u is at its cap. */
static __always_inline bool ac_capped(const struct ac_policy *p, u32 u)
{
	return ac_policy_dies(p) && p->unit_depth &&
	       ac_occ_all(p->occ, u) >= p->unit_depth;
}

/* Whether a request of @type may not go to unit @u now: its caps. */
static bool ac_held(const struct ac_policy *p, u32 u, enum ac_type type)
{
	return ac_capped(p, u) ||
	       (ac_type_is_write(type) && ac_write_capped(p, u));
}

void ac_policy_init(struct ac_policy *p, u32 nr_channels)
{
	p->fifo_batch = AC_DEF_FIFO_BATCH;
	p->writes_starved = AC_DEF_WRITES_STARVED;
	p->write_batch = AC_DEF_WRITE_BATCH;
	/* regroup clamps these: the first rotation starts at sub-group 0 */
	p->last_read = AC_MAX_CHANNELS - 1;
	p->last_write = AC_MAX_CHANNELS - 1;
	p->last_write_unit = AC_MAX_UNITS - 1;
	p->dies_per_channel = 1;
	p->unit_depth = 0;
	p->unit_writes = 0;
	p->reads_first = 0;
	p->write_hold = 0;
	p->dev_slots = 0;
	p->unit_spare = 0;
	p->occ = NULL;
	p->dir = AC_DIR_READ;
	p->starved = 0;
	p->writes_held = false;
	p->stats = (struct ac_stats){ 0 };
	ac_policy_regroup(p, nr_channels);
}

void ac_policy_regroup(struct ac_policy *p, u32 nr_channels)
{
	u32 i, w;

	p->nr_channels = ac_clamp_nr(nr_channels);
	p->dies_per_channel = ac_clamp_dies(p->dies_per_channel, p->nr_channels);
	p->units = p->nr_channels * p->dies_per_channel;
	for (i = 0; i < AC_MAX_UNITS; i++)
		p->grp[i] = (struct ac_group){ 0 };
	for (i = 0; i < AC_MAX_CHANNELS; i++) {
		p->chan_writes[i][0] = 0;
		p->chan_writes[i][1] = 0;
	}
	for (i = 0; i < AC_NR_TYPES; i++) {
		p->queued[i] = 0;
		for (w = 0; w < AC_UNIT_WORDS; w++)
			p->queued_units[i][w] = 0;
	}
	p->proc = AC_NO_GROUP;
	p->batch_writes = 0;
	p->phase_left = 0;
	if (p->last_read >= ac_policy_units(p))
		p->last_read = ac_policy_units(p) - 1;
	if (p->last_write >= p->nr_channels)
		p->last_write = p->nr_channels - 1;
	if (p->last_write_unit >= ac_policy_units(p))
		p->last_write_unit = ac_policy_units(p) - 1;
}

static void ac_end_batch(struct ac_policy *p, u8 wflag)
{
	p->grp[p->proc].wflag = wflag;
	p->proc = AC_NO_GROUP;
}

/* Flags after a write left unit @idx (of channel @c). */
static __always_inline void ac_left_write(struct ac_policy *p, u32 c,
					  bool served)
{
	struct ac_group *g = &p->grp[c];

	if (!ac_chan_writes(p, c)) {
		g->wflag = AC_W_ZERO;
		if (p->proc == (int)c)
			p->proc = AC_NO_GROUP;
		return;
	}
	if (!served || p->proc != (int)c)
		return;
	/* starvation limit: one channel cannot hold the write path */
	if (++p->batch_writes >= ac_at_least_one(p->write_batch))
		ac_end_batch(p, AC_W_PEND);
}

/* Take one request of @type off sub-group @idx; false if there was none. */
static __always_inline bool ac_take(struct ac_policy *p, u32 idx,
				    enum ac_type type)
{
	if (!ac_uncount(p, idx, type))
		return false;
	if (ac_type_is_write(type)) {
		u32 *cw = &p->chan_writes[ac_chan(p, idx)][ac_wi(type)];

		if (*cw)
			(*cw)--;
	}
	return true;
}

void ac_policy_write_in(struct ac_policy *p, u32 idx, enum ac_type type)
{
	u32 c = ac_chan(p, idx);

	p->chan_writes[c][ac_wi(type)]++;
	/* keep PROC (spec section 3, clarification) */
	if (p->grp[c].wflag == AC_W_ZERO)
		p->grp[c].wflag = AC_W_PEND;
}

void ac_policy_remove(struct ac_policy *p, u32 group, enum ac_type type)
{
	u32 idx = ac_idx(group);

	if (!ac_take(p, idx, type))
		return;
	if (ac_type_is_write(type))
		ac_left_write(p, ac_chan(p, idx), false);
	else
		ac_left_read(p, idx, false);
}

void ac_phase_end(struct ac_policy *p)
{
	p->phase_left = 0;
	if (p->dir == AC_DIR_READ && ac_policy_dir_queued(p, AC_DIR_WRITE))
		p->starved++;
}

void ac_policy_write_out(struct ac_policy *p, u32 idx, enum ac_type type)
{
	if (!ac_take(p, idx, type))
		return;
	ac_left_write(p, ac_chan(p, idx), true);
	p->last_write_unit = idx;
}

static bool ac_writes_starving(const struct ac_policy *p)
{
	return ac_policy_dir_queued(p, AC_DIR_WRITE) &&
	       p->starved >= ac_at_least_one(p->writes_starved);
}

/* Choose the direction of a new phase; something must be queued. */
static void ac_phase_start(struct ac_policy *p)
{
	bool reads = ac_policy_dir_queued(p, AC_DIR_READ);

	if (reads && !ac_writes_starving(p)) {
		p->dir = AC_DIR_READ;
	} else {
		if (reads)
			p->stats.starved_switches++;
		p->dir = AC_DIR_WRITE;
		p->starved = 0;
	}
	p->phase_left = ac_at_least_one(p->fifo_batch);
}

/* Whether the head of FIFO @type is past its deadline. */
static bool ac_head_late(const struct ac_policy *p,
			 const struct ac_fifo_heads *heads, enum ac_type type,
			 u64 now)
{
	return heads && heads->valid[type] && p->queued[type] &&
	       (s64)(now - heads->expire[type]) >= 0;
}

/*
 * Whether the head of FIFO @type must wait for its unit: caps hold expired
 * requests too.  A die serves one command at a time, so an expired read
 * sent past the cap would only wait at the device, behind the die's
 * command, holding one of the device's few command slots while other dies
 * idle; measured, that tipped the 90/10 mix into serving reads in arrival
 * order (README, "Occupancy").  Held here, it is its unit's oldest read and
 * leaves at the first pick after its unit has room.
 */
static __always_inline bool ac_head_held(const struct ac_policy *p,
					 const struct ac_fifo_heads *heads,
					 enum ac_type type)
{
	u32 u = heads->unit[type];

	return u < ac_policy_units(p) && ac_held(p, u, type);
}

/* Whether the head of FIFO @type is due now: late, and its unit has room. */
static __always_inline bool ac_expired(const struct ac_policy *p,
				       const struct ac_fifo_heads *heads,
				       enum ac_type type, u64 now)
{
	return ac_head_late(p, heads, type, now) &&
	       !ac_head_held(p, heads, type);
}

/* Count a pick that found a late head waiting for its unit. */
static void ac_count_waits(struct ac_policy *p,
			   const struct ac_fifo_heads *heads, u64 now)
{
	enum ac_type t;

	if (!heads || !ac_policy_dies(p))
		return;
	for (t = 0; t < AC_NR_TYPES; t++) {
		if (ac_head_late(p, heads, t, now) &&
		    ac_head_held(p, heads, t)) {
			p->stats.expired_waits++;
			return;
		}
	}
}

/*
 * With dies, in a write phase: the expired write head (sync first) whose
 * unit has room, to go before the batch's own writes; -1 if none.  Checked
 * only at phase starts, such a head waits while the batch refills its die
 * first: two sequential writers, one behind the other in sector order, had
 * the second's writes wait three times the write deadline (README,
 * "Occupancy").  (Types are returned, not stored through a pointer: an
 * address taken on the pick's path costs it a stack canary check.)
 */
static int ac_expired_write(const struct ac_policy *p,
			    const struct ac_fifo_heads *heads, u64 now)
{
	if (p->dir != AC_DIR_WRITE)
		return -1;
	if (ac_expired(p, heads, AC_WRITE_SYNC, now))
		return AC_WRITE_SYNC;
	if (ac_expired(p, heads, AC_WRITE_ASYNC, now))
		return AC_WRITE_ASYNC;
	return -1;
}

/*
 * Algorithm 2: the type of the first expired FIFO head in the order of the
 * moment, -1 if none.
 */
static int ac_find_expired(const struct ac_policy *p,
			   const struct ac_fifo_heads *heads, u64 now)
{
	const enum ac_type *order = ac_order_reads_first;
	int i;

	if (!heads)
		return -1;
	if (ac_writes_starving(p))
		order = ac_order_writes_first;
	for (i = 0; i < AC_NR_TYPES; i++) {
		if (ac_expired(p, heads, order[i], now))
			return order[i];
	}
	return -1;
}

/* The first unit with requests of @type, or AC_NO_GROUP. */
static __always_inline int ac_first_unit(const struct ac_policy *p,
					 enum ac_type type)
{
	const u64 *q = p->queued_units[type];

	return ac_next_unit(q, q, 0, ac_policy_units(p));
}

/* Whether unit @u (from ac_first_unit()) holds every request of @type. */
static __always_inline bool ac_sole_unit(const struct ac_policy *p,
					 enum ac_type type, int u)
{
	return u >= 0 && p->grp[u].nr[type] == p->queued[type];
}

/* Any unit with requests of @type: only if the flags were corrupted. */
static int ac_any_group(const struct ac_policy *p, enum ac_type type)
{
	return ac_next_unit(p->queued_units[type], p->queued_units[type], 0,
			    AC_MAX_UNITS);
}

/*
 * A new read round: every END becomes PEND (units beyond those in use stay
 * ZERO).  A unit is END only while it has reads queued (ac_left_read()).
 */
static void ac_new_round(struct ac_policy *p)
{
	const u64 *rs = p->queued_units[AC_READ_SYNC];
	const u64 *ra = p->queued_units[AC_READ_ASYNC];
	u32 units = ac_policy_units(p);
	bool changed = false;
	int i;

	for (i = ac_next_unit(rs, ra, 0, units); i >= 0;
	     i = ac_next_unit(rs, ra, i + 1, units)) {
		if (p->grp[i].rflag == AC_R_END) {
			p->grp[i].rflag = AC_R_PEND;
			changed = true;
		}
	}
	if (changed)
		p->stats.read_rounds++;
}

/*
 * Whether unit @u was served this round: END, or (@last_served) the unit
 * that got the last read, which must not get two in a row.
 */
static bool ac_read_served(const struct ac_policy *p, u32 u, bool last_served)
{
	return p->grp[u].rflag != AC_R_PEND ||
	       (last_served && u == p->last_read);
}

/*
 * Rank of unit @u as the target of a read, lower is better (spec 4.2 and
 * 4.4), most significant first:
 *
 *   busy       the unit holds requests of ours at the device: an idle unit
 *              always goes first;
 *   write out  a write of ours is at the unit (read/write interference);
 *   occupancy  fewer requests at the device first;
 *   PROC       the unit's channel is being batched for writes: with the
 *              occupancy known, the writes at the device are what a read
 *              must avoid, so this only breaks ties (above it, reads of
 *              the PROC channel starved for whole batches: README,
 *              "Occupancy");
 *   served     END, or the unit served last (not twice in a row);
 *   rotation   distance after last_read, last_read itself last.
 *
 * With no occupancy (all idle) this is the thesis's order: the first PEND
 * unit in rotation that is not PROC, then the PROC one.
 */
#define AC_RANK_SERVED_SHIFT	19

static u32 ac_read_rank(const struct ac_policy *p, u32 u, u32 units,
			bool last_served)
{
	u32 occ = ac_occ_all(p->occ, u);
	u32 dist = ac_wrap(u + units - p->last_read - 1, units);
	bool served = ac_read_served(p, u, last_served);
	bool proc = ac_in_proc(p, u);

	if (occ > 255)
		occ = 255;
	return (u32)(occ > 0) << 30 |
	       (u32)(ac_occ_writes(p->occ, u) > 0) << 29 |
	       occ << 21 | (u32)proc << 20 |
	       (u32)served << AC_RANK_SERVED_SHIFT | dist;
}

/* Whether unit @u counts as PEND and not PROC in the current round. */
static __always_inline bool ac_read_fresh(const struct ac_policy *p, u32 u,
					  bool last_served)
{
	return !ac_read_served(p, u, last_served) && !ac_in_proc(p, u);
}

/*
 * Whether a read may go past unit_depth to unit @u, a write of ours there
 * or not: by one request at most, and not while writes wait for @u to
 * have room (a read stacked on a die keeps it from ever falling idle for
 * them).
 */
static __always_inline bool ac_lift_any_ok(const struct ac_policy *p, u32 u)
{
	return ac_occ_all(p->occ, u) <= p->unit_depth && !ac_writes(&p->grp[u]);
}

/* The same, and not behind a write of ours. */
static __always_inline bool ac_lift_ok(const struct ac_policy *p, u32 u)
{
	return ac_lift_any_ok(p, u) && !ac_occ_writes(p->occ, u);
}

/*
 * How a read pick treats the caps: it obeys them; it goes past them as
 * ac_lift_ok() lets it; or, when that finds nothing, by one onto a die
 * with writes of ours there or waiting (ac_lift_held()).
 */
enum ac_lift {
	AC_LIFT_NONE,
	AC_LIFT_CLEAR,
	AC_LIFT_ANY,
};

/*
 * Whether unit @u's reads are held under @lift.  AC_LIFT_ANY: every read
 * is held and no die without a write of ours can take one past its cap;
 * a read that must wait for its die's program waits at the device as well
 * as here, and there it starts when its die is free, not when the whole
 * write (counted at its first die only, and maybe covering others) has
 * completed and AC has run again.  Never where a write of ours waits for
 * room: the read would take the slot that write is held for, and with
 * many device slots reads kept taking it until writes expired.
 */
static __always_inline bool ac_lift_held(const struct ac_policy *p, u32 u,
					 enum ac_lift lift)
{
	if (lift == AC_LIFT_NONE)
		return ac_capped(p, u);
	if (lift == AC_LIFT_CLEAR)
		return !ac_lift_ok(p, u);
	return !ac_lift_any_ok(p, u);
}

/*
 * Whether a write may go past its caps to unit @u: by one at most, in
 * requests (unit_depth) and in writes (unit_writes) of ours there.
 */
static bool ac_write_lift_ok(const struct ac_policy *p, u32 u)
{
	return (!p->unit_depth || ac_occ_all(p->occ, u) <= p->unit_depth) &&
	       (!p->unit_writes || ac_occ_writes(p->occ, u) <= p->unit_writes);
}

/*
 * Algorithm 3 with occupancy, over every unit from @u (the first with reads
 * of @type): the best-ranked one that is not at its cap (@lift: that
 * ac_lift_ok() lets past it); AC_NO_GROUP if none, AC_UNITS_HELD if none
 * and caps passed some over.  A new round starts when no eligible unit is
 * PEND outside the PROC channel.
 *
 * One pass ranks every eligible unit twice: as the round stands (@fresh
 * units exist) and as it would after a new round, where every unit with
 * reads is PEND, so the served bit is clear for all.  Which of the two
 * winners is taken is known at the end; the new round itself only changes
 * flags, which the ranks no longer need.
 */
static int ac_best_read_scan(struct ac_policy *p, enum ac_type type,
			     enum ac_lift lift, int u)
{
	u32 units = ac_policy_units(p);
	u32 rank, best_rank = ~0U, round_rank = ~0U;
	bool fresh = false, skipped = false;
	const u64 *q = p->queued_units[type];
	int best = AC_NO_GROUP, round_best = AC_NO_GROUP;

	for (; u >= 0; u = ac_next_unit(q, q, u + 1, units)) {
		if (ac_lift_held(p, u, lift)) {
			skipped = true;
			continue;
		}
		fresh |= ac_read_fresh(p, u, true);
		rank = ac_read_rank(p, u, units, true);
		if (rank < best_rank) {
			best_rank = rank;
			best = u;
		}
		rank &= ~(1U << AC_RANK_SERVED_SHIFT);
		if (rank < round_rank) {
			round_rank = rank;
			round_best = u;
		}
	}
	if (!fresh) {
		ac_new_round(p);
		best = round_best;
	}
	if (skipped)
		p->stats.cap_skips++;
	return best < 0 && skipped ? AC_UNITS_HELD : best;
}

/*
 * ac_best_read_scan() for reads of @type.  With one unit holding such reads
 * (a device that keeps up holds AC's queue at a request or two) that unit
 * wins whatever its rank, so it is not ranked, and the round ends as the
 * scan would end it: the unit served or passed over.  It is the only one
 * when it holds every queued read of @type: no second look at the bitmap.
 */
static __always_inline int ac_best_read(struct ac_policy *p,
					enum ac_type type, enum ac_lift lift)
{
	int u = ac_first_unit(p, type);
	bool skipped;

	if (!ac_sole_unit(p, type, u))
		return ac_best_read_scan(p, type, lift, u);
	skipped = ac_lift_held(p, u, lift);
	if (skipped || !ac_read_fresh(p, u, true))
		ac_new_round(p);
	if (skipped) {
		p->stats.cap_skips++;
		return AC_UNITS_HELD;
	}
	return u;
}

/*
 * Whether the device has command slots to spare beyond what AC's idle
 * units can use now: more free than there are idle units with requests
 * queued.  A read sent past unit_depth then keeps none of those waiting
 * for a slot; it queues at its die behind a read and hides the time from
 * that read's end to AC's next dispatch there.  Two cases meet it: a
 * device that holds more commands than it has dies, and requests that
 * cover several dies but count at their first (128 KiB reads over 64 KiB
 * stripes start on every other die only, and the cap alone kept such a
 * device at half its commands: README, "Occupancy").
 */
static bool ac_slots_spare(const struct ac_policy *p)
{
	u32 units = ac_policy_units(p);
	u32 total = ac_occ_total(p->occ);
	u32 free, waiting = 0, u;

	if (!ac_policy_dies(p) || !p->unit_spare || !p->dev_slots ||
	    total >= p->dev_slots)
		return false;
	free = p->dev_slots - total;
	for (u = 0; u < units && waiting < free; u++)
		waiting += !ac_occ_all(p->occ, u) &&
			   (ac_reads(&p->grp[u]) || ac_writes(&p->grp[u]));
	return free > waiting;
}

/*
 * ac_best_read() for *@type; if caps hold every sync read, an async read
 * rather than none (*@type tells which).  AC_UNITS_HELD when caps held the
 * reads it looked at.
 */
static __always_inline int ac_best_read_or_async(struct ac_policy *p,
						 enum ac_type *type,
						 enum ac_lift lift)
{
	int g = ac_best_read(p, *type, lift);

	if (g == AC_UNITS_HELD && *type == AC_READ_SYNC &&
	    p->queued[AC_READ_ASYNC]) {
		*type = AC_READ_ASYNC;
		g = ac_best_read(p, *type, lift);
		if (g < 0)
			g = AC_UNITS_HELD;
	}
	return g;
}

/* A read goes to unit @g: count where it goes. */
static __always_inline void ac_count_read(struct ac_policy *p, u32 g)
{
	if (ac_in_proc(p, g))
		p->stats.proc_fallbacks++;
	if (!ac_occ_all(p->occ, g)) {
		p->stats.reads_idle++;
	} else {
		p->stats.reads_busy++;
		if (ac_occ_writes(p->occ, g))
			p->stats.reads_by_write++;
	}
}

/* A read of @type from unit @g is the pick. */
static __always_inline struct ac_pick ac_read_picked(struct ac_policy *p,
						     enum ac_type type, u32 g)
{
	ac_count_read(p, g);
	return ac_make_pick(AC_PICK_GROUP, type, g);
}

static struct ac_pick ac_pick_read(struct ac_policy *p)
{
	enum ac_type want = ac_want(p, AC_READ_SYNC, AC_READ_ASYNC);
	enum ac_type type = want;
	int g = ac_best_read_or_async(p, &type, AC_LIFT_NONE);

	/*
	 * Every read is held, and the device has slots no idle unit can use:
	 * past the cap, by one, to the least busy unit that no write of ours
	 * is at or waits for; if there is none, to one that has them.
	 */
	if (g == AC_UNITS_HELD && ac_slots_spare(p)) {
		type = want;
		g = ac_best_read_or_async(p, &type, AC_LIFT_CLEAR);
		if (g < 0) {
			type = want;
			g = ac_best_read_or_async(p, &type, AC_LIFT_ANY);
		}
		if (g >= 0)
			p->stats.cap_spare++;
		else
			g = AC_UNITS_HELD;
	}
	if (g == AC_UNITS_HELD)
		return ac_capped_pick();
	if (g < 0)
		g = ac_any_group(p, type);
	if (g < 0)
		return ac_make_pick(AC_PICK_NONE, type, 0);
	return ac_read_picked(p, type, g);
}

/* Algorithm 4: the next PEND channel with writes of @type after last_write. */
static int ac_next_write(const struct ac_policy *p, enum ac_type type)
{
	u32 nr = ac_nr(p);
	u32 i, c;

	for (i = 1; i <= nr; i++) {
		c = ac_wrap(p->last_write + i, nr);
		if (p->chan_writes[c][ac_wi(type)] &&
		    p->grp[c].wflag == AC_W_PEND)
			return c;
	}
	for (c = 0; c < nr; c++)
		if (p->chan_writes[c][ac_wi(type)])
			return c;
	return AC_NO_GROUP;
}

/* Channel @c becomes PROC: a new write batch. */
static void ac_make_proc(struct ac_policy *p, u32 c)
{
	p->grp[c].wflag = AC_W_PROC;
	p->proc = c;
	p->last_write = c;
	p->batch_writes = 0;
	p->stats.write_batches++;
}

static void ac_start_batch(struct ac_policy *p)
{
	int c = ac_next_write(p, ac_want(p, AC_WRITE_SYNC, AC_WRITE_ASYNC));

	if (c >= 0)
		ac_make_proc(p, c);
}

/* reads_first, and fewer than write_hold writes queued: they wait for reads */
static bool ac_writes_wait(const struct ac_policy *p)
{
	return p->reads_first && ac_policy_dies(p) &&
	       ac_policy_dir_queued(p, AC_DIR_WRITE) < p->write_hold;
}

/*
 * The die of channel @c that gets the next write of @type: the least
 * occupied one with such writes, in rotation after the last write's unit on
 * ties; -1 if none, *@capped telling whether caps held some back.
 *
 * reads_first: a die with reads waiting takes no write.  Its program would
 * hold each of those reads for a program's time (ten reads' worth on the
 * emulated SSD); in the 90/10 mix that is where the reads' tail comes from
 * (README, "reads_first").  The write waits until the die's reads have
 * gone, or its deadline (an expired write goes when its die has room), or
 * until write_hold writes are queued; the batch moves on as it does past a
 * capped die.  Past write_hold the batch keeps its channel, and its write
 * goes to the die with the fewest reads waiting, then the least occupied.
 * Against the write that delays the fewest reads of any channel it kept
 * the read p99 and gave 4 % more reads per second on the 90/10 mix (README).
 *
 * @lift: the caps as ac_write_lift_ok() lifts them (ac_write_spare()).
 */
static int ac_best_write(struct ac_policy *p, u32 c, enum ac_type type,
			 bool *capped, bool lift)
{
	u32 nr = ac_nr(p), units = ac_policy_units(p);
	u32 best_occ = ~0U, best_dist = ~0U;
	bool wait = ac_writes_wait(p), behind = false;
	bool past_hold = !wait && p->reads_first && ac_policy_dies(p);
	u32 reads, best_reads = ~0U;
	int best = AC_NO_GROUP;
	u32 u, occ, dist;

	*capped = false;
	for (u = c; u < units; u += nr) {
		if (!p->grp[u].nr[type])
			continue;
		if (lift ? !ac_write_lift_ok(p, u) : ac_held(p, u, type)) {
			*capped = true;
			continue;
		}
		if (wait && ac_reads(&p->grp[u])) {
			behind = true;
			continue;
		}
		reads = past_hold ? ac_reads(&p->grp[u]) : 0;
		occ = ac_occ_all(p->occ, u);
		dist = ac_wrap(u + units - p->last_write_unit - 1, units);
		if (reads > best_reads)
			continue;
		if (reads < best_reads || occ < best_occ ||
		    (occ == best_occ && dist < best_dist)) {
			best_reads = reads;
			best_occ = occ;
			best_dist = dist;
			best = u;
		}
	}
	if (*capped)
		p->stats.cap_skips++;
	if (behind)
		p->stats.writes_behind_reads++;
	*capped = best < 0 && (*capped || behind);
	return best;
}

/*
 * A write of channel @c that no cap holds back: sync first, then async; -1
 * if none, *@capped telling whether caps held some back.
 */
static int ac_write_in(struct ac_policy *p, u32 c, enum ac_type *type,
		       bool *capped, bool lift)
{
	bool held = false;
	int u = AC_NO_GROUP;

	*type = AC_WRITE_SYNC;
	if (p->chan_writes[c][0])
		u = ac_best_write(p, c, AC_WRITE_SYNC, &held, lift);
	*capped = held;
	if (u < 0 && p->chan_writes[c][1]) {
		*type = AC_WRITE_ASYNC;
		u = ac_best_write(p, c, AC_WRITE_ASYNC, &held, lift);
		*capped |= held;
	}
	return u;
}

/*
 * Every die of the PROC channel with writes is at its cap: the batch gives
 * way to the next channel in rotation whose writes can go now, so that caps
 * never leave the device idle while a write could be sent.  @lift: the
 * caps as ac_write_lift_ok() lifts them.
 */
static int ac_write_elsewhere(struct ac_policy *p, enum ac_type *type,
			      bool lift)
{
	u32 nr = ac_nr(p), i, c;
	bool capped;
	int u;

	for (i = 1; i < nr; i++) {
		c = ac_wrap((u32)p->proc + i, nr);
		if (!ac_chan_writes(p, c))
			continue;
		u = ac_write_in(p, c, type, &capped, lift);
		if (u < 0)
			continue;
		ac_end_batch(p, AC_W_PEND);
		ac_make_proc(p, c);
		return u;
	}
	return AC_NO_GROUP;
}

/*
 * A write of the PROC channel, else, if caps held that channel's back, of
 * the next channel in rotation that has one to go (ac_write_elsewhere());
 * -1 if none, *@capped telling whether caps held the PROC channel's.
 * @lift: the caps as ac_write_lift_ok() lifts them.
 */
static int ac_write_batch(struct ac_policy *p, enum ac_type *type,
			  bool *capped, bool lift)
{
	int u = ac_write_in(p, p->proc, type, capped, lift);

	if (u < 0 && *capped)
		u = ac_write_elsewhere(p, type, lift);
	return u;
}

/*
 * Whether writes may go past their caps: slots to spare (ac_slots_spare())
 * and no read of ours queued or at the device, so no read waits behind the
 * second program.  A die holding one write idles from that write's end to
 * AC's next dispatch there; a second write queued behind it hides that
 * gap.  Writes that cover several dies count at their first only, so with
 * the caps alone the device held too few of them: 256 KiB writeback over
 * 64 KiB stripes kept 19-23 of the emulated SSD's 32 commands busy
 * against the other schedulers' 23-32 (README, "Occupancy").
 */
static bool ac_write_spare_ok(const struct ac_policy *p)
{
	u32 units = ac_policy_units(p), u;

	if (ac_policy_dir_queued(p, AC_DIR_READ))
		return false;
	for (u = 0; u < units; u++)
		if (ac_occ_all(p->occ, u) != ac_occ_writes(p->occ, u))
			return false;
	return ac_slots_spare(p);
}

/*
 * Every write is held by caps: one past them (ac_write_lift_ok()), in the
 * PROC channel if it can, else the next channel in rotation that can
 * (ac_write_batch()); -1 if none may go.  Not while a write's deadline
 * has passed: a unit's writes leave in C-SCAN order, so a write sent past
 * the cap to the late write's unit could be another one, and keep the late
 * one waiting for its unit for as long as writes come.
 */
static int ac_write_spare(struct ac_policy *p, enum ac_type *type,
			  const struct ac_fifo_heads *heads, u64 now)
{
	bool capped;
	int u;

	if (ac_head_late(p, heads, AC_WRITE_SYNC, now) ||
	    ac_head_late(p, heads, AC_WRITE_ASYNC, now) ||
	    !ac_write_spare_ok(p))
		return AC_NO_GROUP;
	u = ac_write_batch(p, type, &capped, true);
	if (u >= 0)
		p->stats.cap_spare_writes++;
	return u;
}

static struct ac_pick ac_pick_write(struct ac_policy *p,
				    const struct ac_fifo_heads *heads, u64 now)
{
	enum ac_type type;
	bool capped;
	int u;

	if (p->proc >= 0 && !ac_chan_writes(p, p->proc))
		ac_end_batch(p, AC_W_ZERO);
	if (p->proc < 0)
		ac_start_batch(p);
	if (p->proc < 0) {
		/* only if the counts were corrupted: any write, never stall */
		u = ac_any_group(p, AC_WRITE_SYNC);
		type = AC_WRITE_SYNC;
		if (u < 0) {
			u = ac_any_group(p, AC_WRITE_ASYNC);
			type = AC_WRITE_ASYNC;
		}
		if (u < 0)
			return ac_make_pick(AC_PICK_NONE, AC_WRITE_SYNC, 0);
		return ac_make_pick(AC_PICK_GROUP, type, u);
	}
	u = ac_write_batch(p, &type, &capped, false);
	if (u < 0 && capped) {
		u = ac_write_spare(p, &type, heads, now);
		if (u < 0)
			return ac_capped_pick();
	}
	if (u < 0)
		u = ac_any_group(p, type);
	if (u < 0)
		return ac_make_pick(AC_PICK_NONE, type, 0);
	return ac_make_pick(AC_PICK_GROUP, type, u);
}

static struct ac_pick ac_pick_in(struct ac_policy *p, enum ac_dir dir,
				 const struct ac_fifo_heads *heads, u64 now)
{
	return dir == AC_DIR_READ ? ac_pick_read(p) :
				    ac_pick_write(p, heads, now);
}

/* The pick of @dir; if it is held by caps, one of the other direction. */
static struct ac_pick ac_pick_dir(struct ac_policy *p, enum ac_dir dir,
				  const struct ac_fifo_heads *heads, u64 now)
{
	struct ac_pick pick;
	enum ac_dir other = dir == AC_DIR_READ ? AC_DIR_WRITE : AC_DIR_READ;

	pick = ac_pick_in(p, dir, heads, now);
	if (!pick.capped || !ac_policy_dir_queued(p, other))
		return pick;
	pick = ac_pick_in(p, other, heads, now);
	if (pick.kind == AC_PICK_NONE)
		pick.capped = true;
	return pick;
}

struct ac_pick ac_policy_pick_general(struct ac_policy *p,
				      const struct ac_fifo_heads *heads,
				      u64 now)
{
	struct ac_pick pick;
	int type;

	if (!ac_policy_queued(p))
		return ac_make_pick(AC_PICK_NONE, AC_READ_SYNC, 0);
	ac_count_waits(p, heads, now);
	if (p->writes_held) {
		p->stats.writes_held++;
		if (!ac_policy_dir_queued(p, AC_DIR_READ))
			return ac_make_pick(AC_PICK_NONE, AC_WRITE_SYNC, 0);
		pick = ac_pick_read(p);
	} else {
		if (p->phase_left && !ac_policy_dir_queued(p, p->dir))
			ac_phase_end(p);
		if (!p->phase_left) {
			type = ac_find_expired(p, heads, now);
			ac_phase_start(p);
			if (type >= 0)
				return ac_make_pick(AC_PICK_EXPIRED, type, 0);
		} else if (ac_policy_dies(p) &&
			   ac_expired(p, heads, AC_READ_SYNC, now)) {
			/* with dies, an expired sync read goes at once */
			p->stats.sync_read_expired++;
			return ac_make_pick(AC_PICK_EXPIRED, AC_READ_SYNC, 0);
		} else if (ac_policy_dies(p)) {
			type = ac_expired_write(p, heads, now);
			if (type >= 0) {
				p->stats.write_expired++;
				return ac_make_pick(AC_PICK_EXPIRED, type, 0);
			}
		}
		pick = ac_pick_dir(p, p->dir, heads, now);
	}
	if (!pick.capped)
		return pick;
	/* everything else is held by caps: an expired head whose unit has room */
	type = ac_find_expired(p, heads, now);
	if (type >= 0) {
		p->stats.cap_expired++;
		return ac_make_pick(AC_PICK_EXPIRED, type, 0);
	}
	p->stats.cap_holds++;
	return pick;
}

/*
 * The pick in a read phase under way, without dies, when every queued read
 * of the type it wants is in one unit.  A device that keeps up holds AC's
 * queue at a request or two, and then this is nearly every pick.  It picks
 * and counts what ac_policy_pick_general() would: no deadline is looked at
 * mid-phase without dies, no cap applies, and the one unit wins whatever
 * its rank, the round ending as the general pick ends it (ac_best_read()).
 * It only skips the general pick's walk through phase, caps and rank
 * (issue 16; t_pick() in tests/unit/harness.c makes every pick of the
 * randomized tests both ways and compares them).
 */
struct ac_pick ac_policy_pick(struct ac_policy *p,
			      const struct ac_fifo_heads *heads, u64 now)
{
	enum ac_type type = ac_want(p, AC_READ_SYNC, AC_READ_ASYNC);
	int u;

	if (ac_policy_dies(p) || p->writes_held || !p->phase_left ||
	    p->dir != AC_DIR_READ || !p->queued[type])
		return ac_policy_pick_general(p, heads, now);
	u = ac_first_unit(p, type);
	if (!ac_sole_unit(p, type, u))
		return ac_policy_pick_general(p, heads, now);
	if (!ac_read_fresh(p, u, true))
		ac_new_round(p);
	return ac_read_picked(p, type, u);
}

/*
 * A new phase for the lone request's direction @dir, as the general pick
 * starts it, with the request's deadline the only one to check; whether it
 * has passed.  Nothing else queued, the request's direction wins the phase
 * whatever writes_starved says, and a write phase sets the count of
 * starved read phases back to zero (the general pick first counts the read
 * phase it ends, to no effect).
 */
static bool ac_lone_phase(struct ac_policy *p, enum ac_dir dir, u64 expire,
			  u64 now)
{
	p->dir = dir;
	if (dir == AC_DIR_WRITE)
		p->starved = 0;
	p->phase_left = ac_at_least_one(p->fifo_batch);
	return (s64)(now - expire) >= 0;
}

/* The lone read goes to unit @idx: ac_pick_read()'s counts. */
static void ac_lone_read(struct ac_policy *p, u32 idx)
{
	/* served this round, the only unit with reads: a new round */
	if (p->grp[idx].rflag == AC_R_END)
		p->stats.read_rounds++;
	ac_count_read(p, idx);
}

/*
 * The lone write goes to unit @idx of channel @c: ac_pick_write() ends the
 * batch of a channel without writes and makes @c PROC, and the write
 * leaving (ac_policy_write_out()) ends @c's batch at once.  @picked: false
 * if it expired, which goes without a batch.
 */
static void ac_lone_write(struct ac_policy *p, u32 idx, u32 c, bool picked)
{
	if (picked && p->proc != (int)c) {
		if (p->proc >= 0)
			ac_end_batch(p, AC_W_ZERO);
		ac_make_proc(p, c);
	}
	ac_left_write(p, c, true);
	p->last_write_unit = idx;
}

/*
 * What ac_policy_add(), ac_policy_pick() and ac_policy_dispatched() would
 * do, in one step, for a request that was queued while nothing else was
 * and leaves before anything else is queued (the glue's lone slot): a
 * device that keeps up leaves AC one request at a time, and counting it
 * into the matrices only to find it there again cost each request 100 to
 * 250 instructions (issue 16).  Without dies nothing caps it, no
 * other request competes, and what the three calls leave behind is the
 * phase and its deadline check, the read round or write batch it closes,
 * the last read or write, and the counters; this does exactly that.
 * tests/unit compares it, state and pick, with the three calls in every
 * randomized sequence, whenever nothing is queued.
 *
 * Nothing done, AC_PICK_NONE, with dies (caps, prompt expiry) or writes
 * held, or if anything is queued: the glue then adds the request and picks
 * as usual.
 */
struct ac_pick ac_policy_lone(struct ac_policy *p, u32 group,
			      enum ac_type type, u64 expire, u64 now)
{
	enum ac_dir dir = ac_type_is_write(type) ? AC_DIR_WRITE : AC_DIR_READ;
	u32 idx = ac_idx(group);
	bool expired = false;

	if (ac_policy_dies(p) || p->writes_held || ac_policy_queued(p) ||
	    type >= AC_NR_TYPES)
		return ac_make_pick(AC_PICK_NONE, type, 0);
	if (!p->phase_left || p->dir != dir)
		expired = ac_lone_phase(p, dir, expire, now);
	p->stats.dispatched[type]++;
	if (expired)
		p->stats.expired[type]++;
	if (dir == AC_DIR_WRITE) {
		ac_lone_write(p, idx, ac_chan(p, idx), !expired);
	} else {
		/* an expired read is the FIFO head's pick: no read counts */
		if (!expired)
			ac_lone_read(p, idx);
		ac_left_read(p, idx, true);
		p->last_read = idx;
	}
	/* the phase's last dispatch ends it; nothing waits to be starved */
	p->phase_left--;
	/* the expired head's pick names no unit, as ac_find_expired()'s */
	return ac_make_pick(expired ? AC_PICK_EXPIRED : AC_PICK_GROUP, type,
			    expired ? 0 : idx);
}

u32 ac_map_sector(enum ac_mapping mapping, u32 nr_channels, u64 sector,
		  u64 capacity, u32 stripe_sectors)
{
	u64 per_group, group;

	if (nr_channels <= 1)
		return 0;
	if (mapping == AC_MAP_STRIPE)
		return ac_mod64(ac_div64(sector, ac_at_least_one(stripe_sectors)),
				nr_channels);
	per_group = ac_div64(capacity, nr_channels);
	if (!per_group)
		return 0;
	group = ac_div64(sector, per_group);
	return group < nr_channels ? (u32)group : nr_channels - 1;
}

void ac_recip_init(struct ac_recip *r, u64 div)
{
	u32 l = 0, bit;
	u64 q = 0, rem = 0;

	r->div = div ? div : 1;
	r->mul = 0;
	while (l < 63 && (1ULL << l) < r->div)
		l++;
	if (r->div == 1ULL << l) {
		r->shift = l;
		return;
	}
	if (r->div > 1ULL << l)
		l++;		/* above 2^63 */
	/* now 2^(l - 1) < div < 2^l */
	/* a divisor above every dividend taken this way: divide */
	r->shift = 64;
	if (l > AC_RECIP_BITS)
		return;
	/*
	 * mul = ceil(2^(AC_RECIP_BITS + l) / div), by long division (the
	 * kernel has no 128-bit divide).  It is at most 2^(AC_RECIP_BITS + 1)
	 * as div > 2^(l - 1), and mul * div - 2^(AC_RECIP_BITS + l) < div
	 * <= 2^l, which makes (n * mul) >> (AC_RECIP_BITS + l) == n / div for
	 * every n < 2^AC_RECIP_BITS (Granlund and Montgomery, 1994, thm 4.2).
	 */
	for (bit = AC_RECIP_BITS + l + 1; bit-- > 0;) {
		rem = (rem << 1) | (bit == AC_RECIP_BITS + l);
		if (rem >= r->div) {
			rem -= r->div;
			q |= 1ULL << bit;
		}
	}
	r->mul = q + (rem != 0);
	r->shift = AC_RECIP_BITS + l;
}

/* A dividend ac_recip_div() does not multiply: divided. */
u64 ac_recip_div_slow(const struct ac_recip *r, u64 n)
{
	return ac_div64(n, r->div);
}

void ac_map_prepare(struct ac_map *m)
{
	m->nr = m->nr_channels > 1 ? m->nr_channels : 1;
	m->nr_dies = ac_at_least_one(m->dies);
	m->per_chan = m->nr > 1 ? ac_div64(m->capacity, m->nr) : m->capacity;
	m->per_die = ac_div64(m->per_chan, m->nr_dies);
	ac_recip_init(&m->by_stripe, ac_at_least_one(m->stripe_sectors));
	ac_recip_init(&m->by_nr, m->nr);
	ac_recip_init(&m->by_units, (u64)m->nr * m->nr_dies);
	ac_recip_init(&m->by_chan, m->per_chan);
	ac_recip_init(&m->by_die, m->per_die);
}

u32 ac_map_group(const struct ac_map *m, u64 sector)
{
	return ac_map_chan(m, sector);
}

u32 ac_map_span(const struct ac_map *m, u64 sector, u64 nr_sectors)
{
	u64 last, chunks;

	if (m->nr <= 1 || nr_sectors <= 1)
		return 1;
	last = sector + nr_sectors - 1;
	if (last < sector)		/* wrapped: as far as sectors go */
		last = ~0ULL;
	if (m->mapping == AC_MAP_STRIPE) {
		chunks = ac_recip_div(&m->by_stripe, last) -
			 ac_recip_div(&m->by_stripe, sector) + 1;
		return chunks < m->nr ? (u32)chunks : m->nr;
	}
	/* range: sub-groups grow with the sector */
	return ac_map_group(m, last) - ac_map_group(m, sector) + 1;
}

bool ac_map_merge_ok(const struct ac_map *m, u64 a_pos, u64 a_len,
		     u64 b_pos, u64 b_len)
{
	u64 start = a_pos < b_pos ? a_pos : b_pos;
	u64 end = a_pos + a_len > b_pos + b_len ? a_pos + a_len : b_pos + b_len;
	u32 a = ac_map_span(m, a_pos, a_len);
	u32 b = ac_map_span(m, b_pos, b_len);

	return ac_map_span(m, start, end - start) <= (a > b ? a : b);
}

bool ac_map_append_ok(const struct ac_map *m, u64 pos, u64 len)
{
	return pos && ac_map_span(m, pos - 1, len + 1) == 1;
}
