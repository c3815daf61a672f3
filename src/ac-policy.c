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
 * - Merges (ac_map_merge_ok()).  Two adjacent extents become one request
 *   only if the result covers no more sub-groups than the wider of the
 *   two: merging work of two channels into one command makes both channels
 *   finish together, as slow as the slower, and costs a command slot's
 *   worth of parallelism.  Measured on the emulated SSD with 64 KiB
 *   stripes: 128 KiB sequential reads merged into 256 KiB commands gave
 *   10-20 % less bandwidth than unmerged (mq-deadline and AC alike).
 *   Merges inside one stripe or range, and any merge with nr_channels 1,
 *   are unaffected.
 */
#ifdef __KERNEL__
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

/* Sub-groups in use. */
static u32 ac_nr(const struct ac_policy *p)
{
	return ac_clamp_nr(p->nr_channels);
}

/* Index into grp[] that stays in bounds whatever the caller passed. */
static u32 ac_idx(u32 group)
{
	return group < AC_MAX_CHANNELS ? group : AC_MAX_CHANNELS - 1;
}

static u32 ac_reads(const struct ac_group *g)
{
	return g->nr[AC_READ_SYNC] + g->nr[AC_READ_ASYNC];
}

static u32 ac_writes(const struct ac_group *g)
{
	return g->nr[AC_WRITE_SYNC] + g->nr[AC_WRITE_ASYNC];
}

static u32 ac_dir_queued(const struct ac_policy *p, enum ac_dir dir)
{
	if (dir == AC_DIR_READ)
		return p->queued[AC_READ_SYNC] + p->queued[AC_READ_ASYNC];
	return p->queued[AC_WRITE_SYNC] + p->queued[AC_WRITE_ASYNC];
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

void ac_policy_init(struct ac_policy *p, u32 nr_channels)
{
	p->fifo_batch = AC_DEF_FIFO_BATCH;
	p->writes_starved = AC_DEF_WRITES_STARVED;
	p->write_batch = AC_DEF_WRITE_BATCH;
	/* regroup clamps these: the first rotation starts at sub-group 0 */
	p->last_read = AC_MAX_CHANNELS - 1;
	p->last_write = AC_MAX_CHANNELS - 1;
	p->dir = AC_DIR_READ;
	p->starved = 0;
	p->writes_held = false;
	p->stats = (struct ac_stats){ 0 };
	ac_policy_regroup(p, nr_channels);
}

void ac_policy_regroup(struct ac_policy *p, u32 nr_channels)
{
	u32 i;

	p->nr_channels = ac_clamp_nr(nr_channels);
	for (i = 0; i < AC_MAX_CHANNELS; i++)
		p->grp[i] = (struct ac_group){ 0 };
	for (i = 0; i < AC_NR_TYPES; i++)
		p->queued[i] = 0;
	p->proc = AC_NO_GROUP;
	p->batch_writes = 0;
	p->phase_left = 0;
	if (p->last_read >= p->nr_channels)
		p->last_read = p->nr_channels - 1;
	if (p->last_write >= p->nr_channels)
		p->last_write = p->nr_channels - 1;
}

/* Flags after a request left sub-group @idx (dispatched or removed). */
static void ac_left_read(struct ac_policy *p, u32 idx, bool served)
{
	struct ac_group *g = &p->grp[idx];

	if (!ac_reads(g))
		g->rflag = AC_R_ZERO;
	else if (served)
		g->rflag = AC_R_END;
}

static void ac_end_batch(struct ac_policy *p, u8 wflag)
{
	p->grp[p->proc].wflag = wflag;
	p->proc = AC_NO_GROUP;
}

static void ac_left_write(struct ac_policy *p, u32 idx, bool served)
{
	struct ac_group *g = &p->grp[idx];

	if (!ac_writes(g)) {
		g->wflag = AC_W_ZERO;
		if (p->proc == (int)idx)
			p->proc = AC_NO_GROUP;
		return;
	}
	if (!served || p->proc != (int)idx)
		return;
	/* starvation limit: one channel cannot hold the write path */
	if (++p->batch_writes >= ac_at_least_one(p->write_batch))
		ac_end_batch(p, AC_W_PEND);
}

/* Take one request of @type off sub-group @idx; false if there was none. */
static bool ac_take(struct ac_policy *p, u32 idx, enum ac_type type)
{
	struct ac_group *g = &p->grp[idx];

	if (!g->nr[type] || !p->queued[type])
		return false;
	g->nr[type]--;
	p->queued[type]--;
	return true;
}

void ac_policy_add(struct ac_policy *p, u32 group, enum ac_type type)
{
	struct ac_group *g = &p->grp[ac_idx(group)];

	g->nr[type]++;
	p->queued[type]++;
	/* keep END and PROC (spec section 3, clarification) */
	if (ac_type_is_write(type)) {
		if (g->wflag == AC_W_ZERO)
			g->wflag = AC_W_PEND;
	} else if (g->rflag == AC_R_ZERO) {
		g->rflag = AC_R_PEND;
	}
}

void ac_policy_remove(struct ac_policy *p, u32 group, enum ac_type type)
{
	u32 idx = ac_idx(group);

	if (!ac_take(p, idx, type))
		return;
	if (ac_type_is_write(type))
		ac_left_write(p, idx, false);
	else
		ac_left_read(p, idx, false);
}

static void ac_phase_end(struct ac_policy *p)
{
	p->phase_left = 0;
	if (p->dir == AC_DIR_READ && ac_dir_queued(p, AC_DIR_WRITE))
		p->starved++;
}

void ac_policy_dispatched(struct ac_policy *p, u32 group, enum ac_type type,
			  bool expired)
{
	u32 idx = ac_idx(group);

	p->stats.dispatched[type]++;
	if (expired)
		p->stats.expired[type]++;
	if (ac_take(p, idx, type)) {
		if (ac_type_is_write(type)) {
			ac_left_write(p, idx, true);
		} else {
			ac_left_read(p, idx, true);
			p->last_read = idx;
		}
	}
	if (p->phase_left && !--p->phase_left)
		ac_phase_end(p);
}

static bool ac_writes_starving(const struct ac_policy *p)
{
	return ac_dir_queued(p, AC_DIR_WRITE) &&
	       p->starved >= ac_at_least_one(p->writes_starved);
}

/* Choose the direction of a new phase; something must be queued. */
static void ac_phase_start(struct ac_policy *p)
{
	bool reads = ac_dir_queued(p, AC_DIR_READ);

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

static bool ac_expired(const struct ac_policy *p,
		       const struct ac_fifo_heads *heads, enum ac_type type,
		       u64 now)
{
	return heads->valid[type] && p->queued[type] &&
	       (s64)(now - heads->expire[type]) >= 0;
}

/* Algorithm 2: the first expired FIFO head in the order of the moment. */
static bool ac_find_expired(const struct ac_policy *p,
			    const struct ac_fifo_heads *heads, u64 now,
			    enum ac_type *type)
{
	const enum ac_type *order = ac_order_reads_first;
	int i;

	if (!heads)
		return false;
	if (ac_writes_starving(p))
		order = ac_order_writes_first;
	for (i = 0; i < AC_NR_TYPES; i++) {
		if (ac_expired(p, heads, order[i], now)) {
			*type = order[i];
			return true;
		}
	}
	return false;
}

/* Any sub-group with requests of @type: only if the flags were corrupted. */
static int ac_any_group(const struct ac_policy *p, enum ac_type type)
{
	int i;

	for (i = 0; i < AC_MAX_CHANNELS; i++)
		if (p->grp[i].nr[type])
			return i;
	return AC_NO_GROUP;
}

static bool ac_read_ok(const struct ac_group *g, enum ac_type type,
		       bool avoid_proc)
{
	if (!g->nr[type] || g->rflag != AC_R_PEND)
		return false;
	return !avoid_proc || g->wflag != AC_W_PROC;
}

/*
 * Algorithm 3: the first eligible sub-group in rotation after last_read,
 * last_read itself included only if @with_last.
 */
static int ac_next_read(const struct ac_policy *p, enum ac_type type,
			bool avoid_proc, bool with_last)
{
	u32 nr = ac_nr(p);
	u32 span = with_last ? nr : nr - 1;
	u32 i, g;

	for (i = 1; i <= span; i++) {
		g = (p->last_read + i) % nr;
		if (ac_read_ok(&p->grp[g], type, avoid_proc))
			return g;
	}
	return AC_NO_GROUP;
}

/* A new read round: every END becomes PEND. */
static void ac_new_round(struct ac_policy *p)
{
	bool changed = false;
	int i;

	for (i = 0; i < AC_MAX_CHANNELS; i++) {
		if (p->grp[i].rflag == AC_R_END) {
			p->grp[i].rflag = AC_R_PEND;
			changed = true;
		}
	}
	if (changed)
		p->stats.read_rounds++;
}

static struct ac_pick ac_pick_read(struct ac_policy *p)
{
	enum ac_type type = ac_want(p, AC_READ_SYNC, AC_READ_ASYNC);
	int g = ac_next_read(p, type, true, false);

	if (g < 0) {
		ac_new_round(p);
		g = ac_next_read(p, type, true, true);
	}
	if (g < 0) {
		/* only the PROC sub-group has such reads: never stall */
		g = ac_next_read(p, type, false, true);
		if (g >= 0)
			p->stats.proc_fallbacks++;
	}
	if (g < 0)
		g = ac_any_group(p, type);
	if (g < 0)
		return ac_make_pick(AC_PICK_NONE, type, 0);
	return ac_make_pick(AC_PICK_GROUP, type, g);
}

/* Algorithm 4: the next PEND sub-group with writes of @type after last_write. */
static int ac_next_write(const struct ac_policy *p, enum ac_type type)
{
	u32 nr = ac_nr(p);
	u32 i, g;

	for (i = 1; i <= nr; i++) {
		g = (p->last_write + i) % nr;
		if (p->grp[g].nr[type] && p->grp[g].wflag == AC_W_PEND)
			return g;
	}
	return ac_any_group(p, type);
}

static void ac_start_batch(struct ac_policy *p)
{
	int g = ac_next_write(p, ac_want(p, AC_WRITE_SYNC, AC_WRITE_ASYNC));

	if (g < 0)
		return;
	p->grp[g].wflag = AC_W_PROC;
	p->proc = g;
	p->last_write = g;
	p->batch_writes = 0;
	p->stats.write_batches++;
}

static struct ac_pick ac_pick_write(struct ac_policy *p)
{
	const struct ac_group *g;

	if (p->proc >= 0 && !ac_writes(&p->grp[p->proc]))
		ac_end_batch(p, AC_W_ZERO);
	if (p->proc < 0)
		ac_start_batch(p);
	if (p->proc < 0)
		return ac_make_pick(AC_PICK_NONE, AC_WRITE_SYNC, 0);
	g = &p->grp[p->proc];
	if (g->nr[AC_WRITE_SYNC])
		return ac_make_pick(AC_PICK_GROUP, AC_WRITE_SYNC, p->proc);
	return ac_make_pick(AC_PICK_GROUP, AC_WRITE_ASYNC, p->proc);
}

struct ac_pick ac_policy_pick(struct ac_policy *p,
			      const struct ac_fifo_heads *heads, u64 now)
{
	enum ac_type type;

	if (!ac_policy_queued(p))
		return ac_make_pick(AC_PICK_NONE, AC_READ_SYNC, 0);
	if (p->writes_held) {
		p->stats.writes_held++;
		if (!ac_dir_queued(p, AC_DIR_READ))
			return ac_make_pick(AC_PICK_NONE, AC_WRITE_SYNC, 0);
		return ac_pick_read(p);
	}
	if (p->phase_left && !ac_dir_queued(p, p->dir))
		ac_phase_end(p);
	if (!p->phase_left) {
		bool expired = ac_find_expired(p, heads, now, &type);

		ac_phase_start(p);
		if (expired)
			return ac_make_pick(AC_PICK_EXPIRED, type, 0);
	}
	if (p->dir == AC_DIR_READ)
		return ac_pick_read(p);
	return ac_pick_write(p);
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

u32 ac_map_span(const struct ac_map *m, u64 sector, u64 nr_sectors)
{
	u32 nr = m->nr_channels;
	u64 last, stripe, chunks;

	if (nr <= 1 || nr_sectors <= 1)
		return 1;
	last = sector + nr_sectors - 1;
	if (last < sector)		/* wrapped: as far as sectors go */
		last = ~0ULL;
	if (m->mapping == AC_MAP_STRIPE) {
		stripe = ac_at_least_one(m->stripe_sectors);
		chunks = ac_div64(last, stripe) - ac_div64(sector, stripe) + 1;
		return chunks < nr ? (u32)chunks : nr;
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
