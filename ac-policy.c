// SPDX-License-Identifier: GPL-2.0
/*
 * AC dispatch policy.  Dispatch runs in phases of up to fifo_batch picks in
 * one direction, as mq-deadline's batches; a phase starts with the late
 * FIFO heads.  A read goes to the best unit (ac_read_rank()); writes go one
 * channel at a time (PROC).  With dies the caps hold reads back from busy
 * dies; writes are never held for a die.  docs/ac-iosched.rst has the rules.
 */
#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#else
#include <string.h>
#endif

#include "ac-policy.h"

#define AC_NONE			(-1)
/* No unit to take a read from, and caps passed some over. */
#define AC_UNITS_HELD		(-2)

/* The remainder of a 64-bit division by a 32-bit divisor. */
static u32 ac_mod64(u64 dividend, u32 divisor)
{
	u32 rem;

	div_u64_rem(dividend, divisor, &rem);
	return rem;
}

static u32 ac_chan_of(const struct ac_policy *p, u32 unit)
{
	return unit % p->nr_channels;
}

static u32 ac_reads(const struct ac_unit *u)
{
	return u->nr[AC_READ_SYNC] + u->nr[AC_READ_ASYNC];
}

static u32 ac_chan_writes(const struct ac_policy *p, u32 c)
{
	return p->chan[c].writes[0] + p->chan[c].writes[1];
}

/* Sync before async. */
static enum ac_type ac_want(const struct ac_policy *p, enum ac_type sync,
			    enum ac_type async)
{
	return p->queued[sync] ? sync : async;
}

#define AC_PICK(_kind, _type, _unit) \
	((struct ac_pick){ .kind = (_kind), .type = (_type), .unit = (_unit) })

static bool ac_in_proc(const struct ac_policy *p, u32 u)
{
	return p->proc >= 0 && ac_chan_of(p, u) == (u32)p->proc;
}

void ac_policy_init(struct ac_policy *p, u32 nr_channels)
{
	*p = (struct ac_policy){
		.dies_per_channel = 1,
		/* regroup clamps these: the first rotation starts at 0 */
		.last_read = AC_MAX_CHANNELS - 1,
		.last_write = AC_MAX_CHANNELS - 1,
		.last_write_unit = AC_MAX_UNITS - 1,
		.dir = AC_DIR_READ,
	};
	ac_policy_regroup(p, nr_channels);
}

void ac_policy_regroup(struct ac_policy *p, u32 nr_channels)
{
	p->nr_channels = clamp(nr_channels, 1U, AC_MAX_CHANNELS);
	p->dies_per_channel = clamp(p->dies_per_channel, 1U,
				    min(AC_MAX_DIES, AC_MAX_UNITS / p->nr_channels));
	p->units = p->nr_channels * p->dies_per_channel;

	memset(p->unit, 0, sizeof(p->unit));
	memset(p->chan, 0, sizeof(p->chan));
	memset(p->queued, 0, sizeof(p->queued));
	memset(p->queued_units, 0, sizeof(p->queued_units));
	p->proc = AC_NONE;
	p->batch_writes = 0;
	p->phase_left = 0;
	p->last_read = min(p->last_read, p->units - 1);
	p->last_write = min(p->last_write, p->nr_channels - 1);
	p->last_write_unit = min(p->last_write_unit, p->units - 1);
}

static void ac_end_batch(struct ac_policy *p, u8 wflag)
{
	p->chan[p->proc].wflag = wflag;
	p->proc = AC_NONE;
}

/* Take one request of @type off unit @u's counts. */
static void ac_take(struct ac_policy *p, u32 u, enum ac_type type)
{
	if (!--p->unit[u].nr[type])
		p->queued_units[type][u / 64] &= ~(1ULL << (u % 64));
	p->queued[type]--;
	if (ac_type_is_write(type))
		p->chan[ac_chan_of(p, u)].writes[type - AC_WRITE_SYNC]--;
}

/* A read left unit @u: @served by a dispatch, or removed. */
static void ac_left_read(struct ac_policy *p, u32 u, bool served)
{
	struct ac_unit *unit = &p->unit[u];

	if (!ac_reads(unit))
		unit->rflag = AC_R_ZERO;
	else if (served)
		unit->rflag = AC_R_END;
}

/* A write left channel @c: @served by a dispatch, or removed. */
static void ac_left_write(struct ac_policy *p, u32 c, bool served)
{
	if (!ac_chan_writes(p, c)) {
		p->chan[c].wflag = AC_W_ZERO;
		if (p->proc == (int)c)
			p->proc = AC_NONE;
		return;
	}
	if (!served || p->proc != (int)c)
		return;
	/* one channel cannot hold the write path for ever */
	if (++p->batch_writes >= max(p->write_batch, 1U))
		ac_end_batch(p, AC_W_PEND);
}

void ac_policy_add(struct ac_policy *p, u32 u, enum ac_type type)
{
	struct ac_unit *unit = &p->unit[u];

	if (!unit->nr[type]++)
		p->queued_units[type][u / 64] |= 1ULL << (u % 64);
	p->queued[type]++;
	/* insert keeps END and PROC: a new request does not restart a round */
	if (ac_type_is_write(type)) {
		struct ac_channel *chan = &p->chan[ac_chan_of(p, u)];

		chan->writes[type - AC_WRITE_SYNC]++;
		if (chan->wflag == AC_W_ZERO)
			chan->wflag = AC_W_PEND;
	} else if (unit->rflag == AC_R_ZERO) {
		unit->rflag = AC_R_PEND;
	}
}

void ac_policy_remove(struct ac_policy *p, u32 u, enum ac_type type)
{
	ac_take(p, u, type);
	if (ac_type_is_write(type))
		ac_left_write(p, ac_chan_of(p, u), false);
	else
		ac_left_read(p, u, false);
}

static void ac_phase_end(struct ac_policy *p)
{
	p->phase_left = 0;
	if (p->dir == AC_DIR_READ && ac_policy_dir_queued(p, AC_DIR_WRITE))
		p->starved++;
}

void ac_policy_dispatched(struct ac_policy *p, u32 u, enum ac_type type,
			  bool expired)
{
	p->stats.dispatched[type]++;
	if (expired)
		p->stats.expired[type]++;
	ac_take(p, u, type);
	if (ac_type_is_write(type)) {
		ac_left_write(p, ac_chan_of(p, u), true);
		p->last_write_unit = u;
	} else {
		ac_left_read(p, u, true);
		p->last_read = u;
	}
	if (p->phase_left && !--p->phase_left)
		ac_phase_end(p);
}

static bool ac_writes_starving(const struct ac_policy *p)
{
	return ac_policy_dir_queued(p, AC_DIR_WRITE) &&
	       p->starved >= max(p->writes_starved, 1U);
}

/* Choose the direction of a new phase; something is queued. */
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
	p->phase_left = max(p->fifo_batch, 1U);
}

static bool ac_head_late(const struct ac_policy *p,
			 const struct ac_fifo_heads *heads, enum ac_type type,
			 u64 now)
{
	return heads && heads->valid[type] && p->queued[type] &&
	       (s64)(now - heads->expire[type]) >= 0;
}

/*
 * Whether the late head of FIFO @type, a read, must still wait for its die.
 * A die serves one command at a time: sent past its cap, the late read
 * would wait at the device anyway, holding a command slot other dies could
 * use.
 */
static bool ac_head_held(const struct ac_policy *p,
			 const struct ac_fifo_heads *heads, enum ac_type type)
{
	u32 u = heads->unit[type];

	return !ac_type_is_write(type) && u < p->units && ac_policy_dies(p) &&
	       p->unit_depth && ac_occ_reads(p->occ, u) >= p->unit_depth;
}

static bool ac_expired(const struct ac_policy *p,
		       const struct ac_fifo_heads *heads, enum ac_type type,
		       u64 now)
{
	return ac_head_late(p, heads, type, now) &&
	       !ac_head_held(p, heads, type);
}

/* The first late head that may go, reads first unless writes starve; or -1. */
static int ac_find_expired(const struct ac_policy *p,
			   const struct ac_fifo_heads *heads, u64 now)
{
	int first = ac_writes_starving(p) ? AC_WRITE_SYNC : AC_READ_SYNC, i;

	for (i = first; i < first + AC_NR_TYPES; i++)
		if (ac_expired(p, heads, i % AC_NR_TYPES, now))
			return i % AC_NR_TYPES;
	return AC_NONE;
}

/*
 * A new read round: every END becomes PEND.  This and ac_best_read() walk
 * the units with reads queued in order: the set bits of queued_units, a
 * word at a time, below p->units.
 */
static void ac_new_round(struct ac_policy *p)
{
	bool changed = false;
	u32 w, u;
	u64 bits;

	for (w = 0; w * 64 < p->units; w++) {
		bits = p->queued_units[AC_READ_SYNC][w] |
		       p->queued_units[AC_READ_ASYNC][w];
		for (; bits; bits &= bits - 1) {
			u = w * 64 + __ffs64(bits);
			if (u >= p->units)
				break;
			if (p->unit[u].rflag == AC_R_END) {
				p->unit[u].rflag = AC_R_PEND;
				changed = true;
			}
		}
	}
	if (changed)
		p->stats.read_rounds++;
}

/*
 * Rank of unit @u as a read's target, lower is better, most significant
 * first: idle before busy; fewer reads at the device; not PROC; not served
 * this round; rotation after last_read.  With nothing at the device this
 * is the thesis's walk: the first PEND unit after last_read that is not
 * PROC.
 */
#define AC_RANK_BUSY	0x40000000U
#define AC_RANK_OCC	21		/* bits 21-28: reads at the device */
#define AC_RANK_PROC	0x100000U
#define AC_RANK_SERVED	0x80000U

static u32 ac_read_rank(const struct ac_policy *p, u32 u, u32 occ)
{
	u32 rank = (u + p->units - p->last_read - 1) % p->units;

	if (occ)
		rank |= AC_RANK_BUSY | (occ < 255 ? occ : 255) << AC_RANK_OCC;
	if (ac_in_proc(p, u))
		rank |= AC_RANK_PROC;
	/* served: END, or last_read (not twice in a row while others wait) */
	if (p->unit[u].rflag != AC_R_PEND || u == p->last_read)
		rank |= AC_RANK_SERVED;
	return rank;
}

/*
 * The best-ranked unit with reads of @type that @past lets through; -1 if
 * none, AC_UNITS_HELD if caps passed some over.  When no eligible unit is
 * PEND outside the PROC channel a new round starts, and the winner is the
 * best rank with every unit PEND.
 */
static int ac_best_read(struct ac_policy *p, enum ac_type type, bool past)
{
	u32 rank, best_rank = ~0U, round_rank = ~0U, w, u, occ;
	/* reads at a unit that hold more back: unit_depth, or one past it */
	u32 cap = ac_policy_dies(p) && p->unit_depth ? p->unit_depth + past : 0;
	int best = AC_NONE, round_best = AC_NONE;
	bool fresh = false, skipped = false;
	u64 bits;

	for (w = 0; w * 64 < p->units; w++) {
		bits = p->queued_units[type][w];
		for (; bits; bits &= bits - 1) {
			u = w * 64 + __ffs64(bits);
			if (u >= p->units)
				break;
			occ = ac_occ_reads(p->occ, u);
			if (cap && occ >= cap) {
				skipped = true;
				continue;
			}
			rank = ac_read_rank(p, u, occ);
			/* PEND and not PROC */
			fresh |= !(rank & (AC_RANK_PROC | AC_RANK_SERVED));
			if (rank < best_rank) {
				best_rank = rank;
				best = u;
			}
			rank &= ~AC_RANK_SERVED;
			if (rank < round_rank) {
				round_rank = rank;
				round_best = u;
			}
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
 * Whether the device has more command slots free than AC has idle dies
 * with reads waiting: a read sent past a cap then keeps no idle die
 * waiting for a slot, and it hides the round trip from the running
 * command's end to AC's next dispatch there.
 */
static bool ac_slots_spare(const struct ac_policy *p)
{
	u32 total = p->occ ? atomic_read(&p->occ->total) : 0;
	u32 free, waiting = 0, u;

	if (!ac_policy_dies(p) || !p->unit_spare || !p->dev_slots ||
	    total >= p->dev_slots)
		return false;
	free = p->dev_slots - total;
	for (u = 0; u < p->units && waiting < free; u++)
		waiting += !ac_occ_reads(p->occ, u) && ac_reads(&p->unit[u]);
	return free > waiting;
}

/* ac_best_read() of *@type; if caps hold every sync read, an async one. */
static int ac_best_read_or_async(struct ac_policy *p, enum ac_type *type,
				 bool past)
{
	int u = ac_best_read(p, *type, past);

	if (u == AC_UNITS_HELD && *type == AC_READ_SYNC &&
	    p->queued[AC_READ_ASYNC]) {
		*type = AC_READ_ASYNC;
		u = ac_best_read(p, *type, past);
		if (u < 0)
			u = AC_UNITS_HELD;
	}
	return u;
}

static struct ac_pick ac_pick_read(struct ac_policy *p)
{
	enum ac_type want = ac_want(p, AC_READ_SYNC, AC_READ_ASYNC);
	enum ac_type type = want;
	int u = ac_best_read_or_async(p, &type, false);

	/* every read held, and slots to spare: past the cap, by one */
	if (u == AC_UNITS_HELD && ac_slots_spare(p)) {
		type = want;
		u = ac_best_read_or_async(p, &type, true);
		if (u >= 0)
			p->stats.cap_spare++;
		else
			u = AC_UNITS_HELD;
	}
	if (u == AC_UNITS_HELD)
		return (struct ac_pick){ .kind = AC_PICK_NONE, .capped = true };
	if (u < 0)
		return AC_PICK(AC_PICK_NONE, type, 0);
	if (ac_in_proc(p, u))
		p->stats.proc_fallbacks++;
	if (ac_occ_reads(p->occ, u))
		p->stats.reads_busy++;
	else
		p->stats.reads_idle++;
	return AC_PICK(AC_PICK_UNIT, type, u);
}

/* The next PEND channel with writes of @type after last_write, or -1. */
static int ac_next_write(const struct ac_policy *p, enum ac_type type)
{
	u32 nr = p->nr_channels, i, c;

	for (i = 1; i <= nr; i++) {
		c = (p->last_write + i) % nr;
		if (p->chan[c].writes[type - AC_WRITE_SYNC] &&
		    p->chan[c].wflag == AC_W_PEND)
			return c;
	}
	for (c = 0; c < nr; c++)
		if (p->chan[c].writes[type - AC_WRITE_SYNC])
			return c;
	return AC_NONE;
}

/*
 * A write of channel @c, sync first: from its first die with such writes
 * in rotation after the last write's unit.  Never held: where the write is
 * programmed is the device's choice, not its address's.
 */
static u32 ac_write_in(const struct ac_policy *p, u32 c, enum ac_type *type)
{
	u32 dies = p->dies_per_channel;
	u32 last = p->last_write_unit / p->nr_channels, i, u = c;

	*type = p->chan[c].writes[0] ? AC_WRITE_SYNC : AC_WRITE_ASYNC;
	for (i = 1; i <= dies; i++) {
		u = c + (last + i) % dies * p->nr_channels;
		if (p->unit[u].nr[*type])
			break;
	}
	return u;
}

static struct ac_pick ac_pick_write(struct ac_policy *p)
{
	enum ac_type type;
	int c;
	u32 u;

	if (p->proc >= 0 && !ac_chan_writes(p, p->proc))
		ac_end_batch(p, AC_W_ZERO);
	if (p->proc < 0) {
		c = ac_next_write(p, ac_want(p, AC_WRITE_SYNC, AC_WRITE_ASYNC));
		if (c < 0)
			return AC_PICK(AC_PICK_NONE, AC_WRITE_SYNC, 0);
		/* a new write batch */
		p->chan[c].wflag = AC_W_PROC;
		p->proc = c;
		p->last_write = c;
		p->batch_writes = 0;
		p->stats.write_batches++;
	}
	u = ac_write_in(p, p->proc, &type);
	return AC_PICK(AC_PICK_UNIT, type, u);
}

struct ac_pick ac_policy_pick(struct ac_policy *p,
			      const struct ac_fifo_heads *heads, u64 now)
{
	struct ac_pick pick;
	int type;

	if (!ac_policy_queued(p))
		return AC_PICK(AC_PICK_NONE, AC_READ_SYNC, 0);

	if (heads && ac_policy_dies(p)) {
		for (type = 0; type < AC_NR_TYPES; type++) {
			if (ac_head_late(p, heads, type, now) &&
			    ac_head_held(p, heads, type)) {
				p->stats.expired_waits++;
				break;
			}
		}
	}

	if (p->writes_held) {
		/* write_inflight: the device holds enough writes */
		p->stats.writes_held++;
		if (!ac_policy_dir_queued(p, AC_DIR_READ))
			return AC_PICK(AC_PICK_NONE, AC_WRITE_SYNC, 0);
		pick = ac_pick_read(p);
	} else {
		if (p->phase_left && !ac_policy_dir_queued(p, p->dir))
			ac_phase_end(p);
		if (!p->phase_left) {
			/* a new phase: every deadline is checked */
			type = ac_find_expired(p, heads, now);
			ac_phase_start(p);
			if (type >= 0)
				return AC_PICK(AC_PICK_EXPIRED, type, 0);
		} else if (ac_policy_dies(p)) {
			/*
			 * Occupancy reorders reads far more than the read
			 * matrix: with dies a late sync read goes at once, and
			 * in a write phase a late write goes before the batch.
			 */
			if (ac_expired(p, heads, AC_READ_SYNC, now)) {
				p->stats.sync_read_expired++;
				return AC_PICK(AC_PICK_EXPIRED, AC_READ_SYNC, 0);
			}
			for (type = AC_WRITE_SYNC; p->dir == AC_DIR_WRITE &&
			     type <= AC_WRITE_ASYNC; type++) {
				if (ac_expired(p, heads, type, now)) {
					p->stats.write_expired++;
					return AC_PICK(AC_PICK_EXPIRED, type, 0);
				}
			}
		}
		pick = p->dir == AC_DIR_READ ? ac_pick_read(p) :
					       ac_pick_write(p);
		/* caps hold every read: a write */
		if (pick.capped && ac_policy_dir_queued(p, AC_DIR_WRITE))
			pick = ac_pick_write(p);
	}
	if (!pick.capped)
		return pick;

	/* every queued read is held by caps: a late head with room */
	type = ac_find_expired(p, heads, now);
	if (type >= 0) {
		p->stats.cap_expired++;
		return AC_PICK(AC_PICK_EXPIRED, type, 0);
	}
	p->stats.cap_holds++;
	return pick;
}

void ac_admit_init(struct ac_admit *a)
{
	*a = (struct ac_admit){ .limit = 1, .ceiling = 1 };
}

void ac_admit_reads(struct ac_admit *a, u32 late, u32 slots)
{
	if (late * 10 > AC_ADMIT_READS)
		a->ceiling = max(min(a->ceiling, a->limit) / 2, 1U);
	else if (late <= 1 && a->ceiling < slots)
		a->ceiling++;
}

void ac_admit_update(struct ac_admit *a, u32 lat_us, u32 held16, bool blocked,
		     u32 slots)
{
	u32 busy16, queued16, ratio16;

	lat_us = max(lat_us, 1U);
	if (a->probe) {
		if (!a->probe_us || lat_us < a->probe_us)
			a->probe_us = lat_us;
		if (--a->probe)
			return;
		a->base_us = a->probe_us;
		a->limit = a->saved;
		return;
	}
	if (!a->base_us || lat_us < a->base_us)
		a->base_us = lat_us;

	busy16 = (u64)held16 * a->base_us / lat_us;
	queued16 = held16 - busy16;
	ratio16 = (u64)lat_us * 16 / a->base_us;
	if ((queued16 < 4 || ratio16 < 18) && blocked)
		a->limit++;
	else if (queued16 > 16 && ratio16 > 20)
		a->limit = (busy16 + 8) / 16;
	a->limit = max(min(a->limit, slots), 1U);

	if (++a->windows >= AC_ADMIT_PROBE_EVERY) {
		a->windows = 0;
		a->saved = a->limit;
		a->limit = max(a->limit / 2, 1U);
		a->probe = 2;
		a->probe_us = 0;
	}
}

void ac_map_prepare(struct ac_map *m)
{
	m->nr = max(m->nr_channels, 1U);
	m->nr_dies = max(m->dies, 1U);
	m->stripe_sectors = max(m->stripe_sectors, 1U);
	m->per_chan = div64_u64(m->capacity, m->nr);
	m->per_die = div64_u64(m->per_chan, m->nr_dies);
}

u32 ac_map_chan(const struct ac_map *m, u64 sector)
{
	u64 c;

	if (m->nr == 1)
		return 0;
	if (m->mapping == AC_MAP_STRIPE)
		return ac_mod64(div64_u64(sector, m->stripe_sectors), m->nr);
	if (!m->per_chan)
		return 0;
	c = div64_u64(sector, m->per_chan);
	return c < m->nr ? (u32)c : m->nr - 1;
}

u32 ac_map_unit(const struct ac_map *m, u64 sector)
{
	u64 die;
	u32 c;

	if (!m->nr_channels)
		return 0;
	if (m->mapping == AC_MAP_STRIPE)
		return ac_mod64(div64_u64(sector, m->stripe_sectors),
				m->nr * m->nr_dies);
	c = ac_map_chan(m, sector);
	if (m->nr_dies == 1 || !m->per_die)
		return c;
	die = div64_u64(sector - (u64)c * m->per_chan, m->per_die);
	if (die >= m->nr_dies)
		die = m->nr_dies - 1;
	return (u32)die * m->nr + c;
}

u32 ac_map_span(const struct ac_map *m, u64 sector, u64 nr_sectors)
{
	u64 last, chunks;

	if (m->nr == 1 || nr_sectors <= 1)
		return 1;
	last = sector + nr_sectors - 1;
	if (last < sector)
		last = ~0ULL;
	if (m->mapping == AC_MAP_STRIPE) {
		chunks = div64_u64(last, m->stripe_sectors) -
			 div64_u64(sector, m->stripe_sectors) + 1;
		return chunks < m->nr ? (u32)chunks : m->nr;
	}
	return ac_map_chan(m, last) - ac_map_chan(m, sector) + 1;
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
