// SPDX-License-Identifier: GPL-2.0
/*
 * Randomized model test.  A reference model holds the queued requests (in
 * arrival order, with fake deadlines: it is both the four deadline FIFOs and
 * the per sub-group sub-queues) and mirrors the phase logic of spec section
 * 4.1.  It drives the policy through its API, as the glue does, with random
 * inserts, merges (removes), regroups, tunable changes and dispatches, and
 * checks after every step:
 *
 * - pick returns NONE iff nothing is queued (dispatch never stalls), and
 *   never names an empty sub-queue or FIFO or a sub-group >= nr_channels;
 * - at a phase start the first expired FIFO head in the spec's order
 *   (writes first when writes are starved) is picked, and only then; any
 *   other pick is in the phase's direction, sync before async;
 * - reads: the model keeps its own read matrix flags (spec Algorithms 1 and
 *   3: ZERO -> PEND on insert, END or ZERO when served, ZERO when emptied,
 *   END -> PEND for a new round); the pick is the first sub-group in
 *   rotation after the last read that is PEND, not PROC and has reads of the
 *   wanted type; when there is none, the first such sub-group after a new
 *   round; else the PROC one (the last read's sub-group is skipped in the
 *   first walk and last in the second).  Black-box
 *   consequences, checked on the model's queues alone: a read never goes to
 *   the PROC sub-group while another sub-group has reads of that type, and
 *   never to the sub-group of the previous read while a sub-group other than
 *   it and the PROC one has reads of that type;
 * - writes: one sub-group at a time; a batch ends only when its sub-group
 *   has no writes left or after write_batch writes; a new batch goes to the
 *   first sub-group in rotation after the last one with writes of the wanted
 *   type; within the batch sync writes go first;
 * - counts and flags agree with the model: counts equal, rflag equal to the
 *   model's (so ZERO iff no reads), wflag ZERO iff no writes, PROC iff it is
 *   the model's batch (so at most one PROC, and the PROC sub-group has
 *   writes); the policy's counters of rounds, batches, starved switches and
 *   PROC fallbacks equal the model's;
 * - at the end everything is drained: each request dispatched exactly once
 *   or removed, and the dispatch/expiry counters match.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ac-policy.h"

enum { M_QUEUED, M_DISPATCHED, M_REMOVED };

struct m_req {
	u64 sector;
	u64 deadline;
	u32 group;
	u8 type;
	u8 state;
};

struct m_profile {
	const char *name;
	u64 seed;
	int ops;
	u32 nr_max;		/* nr_channels drawn from 1 .. nr_max */
	u32 expire[AC_NR_TYPES];
	u32 read_pct;		/* share of reads among inserts */
	u32 sync_pct;		/* share of sync among them */
	u32 max_depth;
	u32 regroup_permille;
	u32 tune_permille;
	u32 tune_max;		/* tunables drawn from 0 .. tune_max */
	u64 now0;
	u32 hold_pct;		/* picks made with writes held (not in the drain) */
};

struct model {
	const struct m_profile *prof;
	struct ac_policy p;
	u64 rng;
	u64 now;

	struct m_req *req;
	u32 nreq;
	u32 *q;			/* queued request ids, arrival order */
	u32 qlen;
	u32 cnt[AC_MAX_CHANNELS][AC_NR_TYPES];
	u32 depth_target;

	enum ac_mapping mapping;
	u64 capacity;
	u32 stripe;

	/* mirror of spec section 4.1 and of the write batch */
	u32 phase_left;
	enum ac_dir dir;
	u32 starved;
	int batch;
	u32 batch_cnt;
	u32 last_write;
	int last_read;		/* -1: unknown (start, regroup) */
	u32 rot_read;		/* where the read rotation starts after */
	u8 rflag[AC_MAX_CHANNELS];	/* the model's read matrix */
	u64 rounds, batches, switches, fallbacks;

	u64 dispatched[AC_NR_TYPES];
	u64 expired[AC_NR_TYPES];
	unsigned long picks, expired_picks;
	bool draining;
	u64 held;		/* picks made with writes held */
};

static const enum ac_type m_reads_first[AC_NR_TYPES] = {
	AC_READ_SYNC, AC_READ_ASYNC, AC_WRITE_SYNC, AC_WRITE_ASYNC,
};

static const enum ac_type m_writes_first[AC_NR_TYPES] = {
	AC_WRITE_SYNC, AC_WRITE_ASYNC, AC_READ_SYNC, AC_READ_ASYNC,
};

static u64 m_rand(struct model *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545f4914f6cdd1dULL;
}

static u32 m_below(struct model *m, u32 n)
{
	return n ? (u32)(m_rand(m) % n) : 0;
}

static u32 m_one(u32 v)
{
	return v ? v : 1;
}

static u32 m_nr(const struct model *m)
{
	return m->p.nr_channels;
}

static u32 m_dir_count(const struct model *m, enum ac_dir dir)
{
	u32 g, n = 0;

	for (g = 0; g < AC_MAX_CHANNELS; g++) {
		if (dir == AC_DIR_READ)
			n += m->cnt[g][AC_READ_SYNC] + m->cnt[g][AC_READ_ASYNC];
		else
			n += m->cnt[g][AC_WRITE_SYNC] + m->cnt[g][AC_WRITE_ASYNC];
	}
	return n;
}

static u32 m_type_count(const struct model *m, enum ac_type t)
{
	u32 g, n = 0;

	for (g = 0; g < AC_MAX_CHANNELS; g++)
		n += m->cnt[g][t];
	return n;
}

static u32 m_writes(const struct model *m, u32 g)
{
	return m->cnt[g][AC_WRITE_SYNC] + m->cnt[g][AC_WRITE_ASYNC];
}

static u32 m_reads(const struct model *m, u32 g)
{
	return m->cnt[g][AC_READ_SYNC] + m->cnt[g][AC_READ_ASYNC];
}

/* The model's read flag after a read left sub-group @g. */
static void m_read_left(struct model *m, u32 g, bool served)
{
	if (!m_reads(m, g))
		m->rflag[g] = AC_R_ZERO;
	else if (served)
		m->rflag[g] = AC_R_END;
}

static enum ac_dir m_dir_of(enum ac_type t)
{
	return ac_type_is_write(t) ? AC_DIR_WRITE : AC_DIR_READ;
}

/* Index in q of the oldest queued request of @type (and @group if >= 0). */
static int m_find(const struct model *m, enum ac_type type, int group)
{
	u32 i;

	for (i = 0; i < m->qlen; i++) {
		const struct m_req *r = &m->req[m->q[i]];

		if (r->type == type && (group < 0 || r->group == (u32)group))
			return (int)i;
	}
	return -1;
}

static u32 m_map(const struct model *m, u64 sector)
{
	u32 g = t_ref_map(m->mapping, m_nr(m), sector, m->capacity, m->stripe);

	CHECK_MSG(g < m_nr(m), "the map gave %u for nr %u", g, m_nr(m));
	return g < m_nr(m) ? g : 0;
}

static void m_queue(struct model *m, u32 id)
{
	struct m_req *r = &m->req[id];

	r->group = m_map(m, r->sector);
	m->cnt[r->group][r->type]++;
	if (!ac_type_is_write(r->type) && m->rflag[r->group] == AC_R_ZERO)
		m->rflag[r->group] = AC_R_PEND;
	ac_policy_add(&m->p, r->group, r->type);
}

static void m_insert(struct model *m)
{
	const struct m_profile *pr = m->prof;
	struct m_req *r = &m->req[m->nreq];
	bool read = m_below(m, 100) < pr->read_pct;
	bool sync = m_below(m, 100) < pr->sync_pct;

	if (read)
		r->type = sync ? AC_READ_SYNC : AC_READ_ASYNC;
	else
		r->type = sync ? AC_WRITE_SYNC : AC_WRITE_ASYNC;
	if (m->capacity > (1ULL << 60))
		r->sector = m_rand(m);
	else
		r->sector = m_rand(m) % (m->capacity + m->capacity / 8 + 1);
	r->deadline = m->now + pr->expire[r->type];
	r->state = M_QUEUED;
	m->q[m->qlen++] = m->nreq;
	m_queue(m, m->nreq++);
}

/* Take q[@i] off the model's queues. */
static struct m_req *m_unqueue(struct model *m, u32 i, u8 state)
{
	struct m_req *r = &m->req[m->q[i]];

	CHECK_EQ(r->state, M_QUEUED);
	r->state = state;
	memmove(&m->q[i], &m->q[i + 1], (m->qlen - i - 1) * sizeof(m->q[0]));
	m->qlen--;
	m->cnt[r->group][r->type]--;
	return r;
}

/* A merge: a random queued request leaves without being dispatched. */
static void m_remove(struct model *m)
{
	struct m_req *r;

	if (!m->qlen)
		return;
	r = m_unqueue(m, m_below(m, m->qlen), M_REMOVED);
	ac_policy_remove(&m->p, r->group, r->type);
	if (!ac_type_is_write(r->type))
		m_read_left(m, r->group, false);
	else if (m->batch == (int)r->group && !m_writes(m, r->group))
		m->batch = -1;
}

static void m_regroup(struct model *m)
{
	static const u64 caps[] = { 0, 5, 1000, 1ULL << 30, UINT64_MAX };
	u32 i, nr = 1 + m_below(m, m->prof->nr_max);

	if (m_below(m, 2)) {
		m->mapping = m_below(m, 2) ? AC_MAP_STRIPE : AC_MAP_RANGE;
		m->capacity = caps[m_below(m, ARRAY_SIZE(caps))];
		m->stripe = m_below(m, 3) ? 1u << m_below(m, 9) : 0;
	}
	ac_policy_regroup(&m->p, nr);
	CHECK_EQ(m->p.nr_channels, nr);
	memset(m->cnt, 0, sizeof(m->cnt));
	memset(m->rflag, AC_R_ZERO, sizeof(m->rflag));
	for (i = 0; i < m->qlen; i++)
		m_queue(m, m->q[i]);
	m->batch = -1;
	m->batch_cnt = 0;
	m->phase_left = 0;
	m->last_read = -1;
	if (m->rot_read >= nr)
		m->rot_read = nr - 1;
	if (m->last_write >= nr)
		m->last_write = nr - 1;
}

/* A sysfs write under load. */
static void m_tune(struct model *m)
{
	u32 v = m_below(m, m->prof->tune_max + 1);

	switch (m_below(m, 3)) {
	case 0:
		m->p.fifo_batch = v;
		break;
	case 1:
		m->p.writes_starved = v;
		break;
	default:
		m->p.write_batch = v;
		break;
	}
}

/* First sub-group in rotation after @after with @ok true. */
static int m_rotate(const struct model *m, u32 after, bool with_after,
		    bool (*ok)(const struct model *, u32, enum ac_type),
		    enum ac_type t)
{
	u32 i, nr = m_nr(m), span = with_after ? nr : nr - 1;

	for (i = 1; i <= span; i++) {
		u32 g = (after + i) % nr;

		if (ok(m, g, t))
			return (int)g;
	}
	return -1;
}

static bool m_has(const struct model *m, u32 g, enum ac_type t)
{
	return m->cnt[g][t] != 0;
}

static bool m_pend_free(const struct model *m, u32 g, enum ac_type t)
{
	return m->cnt[g][t] && m->rflag[g] == AC_R_PEND && m->batch != (int)g;
}

/* A new read round in the model: every END becomes PEND. */
static void m_new_round(struct model *m)
{
	bool changed = false;
	u32 g;

	for (g = 0; g < AC_MAX_CHANNELS; g++) {
		if (m->rflag[g] == AC_R_END) {
			m->rflag[g] = AC_R_PEND;
			changed = true;
		}
	}
	m->rounds += changed;
}

/* Does any sub-group other than @x and @y have requests of @t? */
static bool m_other_has(const struct model *m, enum ac_type t, int x, int y)
{
	u32 g;

	for (g = 0; g < m_nr(m); g++)
		if ((int)g != x && (int)g != y && m->cnt[g][t])
			return true;
	return false;
}

static void m_check_read(struct model *m, const struct ac_pick *k)
{
	enum ac_type want = m_type_count(m, AC_READ_SYNC) ?
			    AC_READ_SYNC : AC_READ_ASYNC;
	int g = (int)k->unit, first;

	CHECK_EQ(k->type, want);
	/* never the PROC channel while another channel has such reads */
	CHECK_MSG(g != m->batch || !m_other_has(m, k->type, g, -1),
		  "read to PROC sub-group %d while others have reads", g);
	/* never the same channel twice in a row when another one could go */
	CHECK_MSG(g != m->last_read || !m_other_has(m, k->type, g, m->batch),
		  "read to sub-group %d twice in a row", g);
	/* Algorithm 3's rotation, on the model's read matrix */
	first = m_rotate(m, m->rot_read, false, m_pend_free, k->type);
	if (first < 0) {
		m_new_round(m);
		first = m_rotate(m, m->rot_read, true, m_pend_free, k->type);
	}
	if (first < 0) {
		first = m->batch;
		m->fallbacks++;
	}
	CHECK_MSG(g == first, "read to sub-group %d, rotation says %d",
		  g, first);
}

static void m_check_write(struct model *m, const struct ac_pick *k)
{
	u32 g = k->unit;

	if (m->batch >= 0) {
		CHECK_MSG((int)g == m->batch,
			  "write to sub-group %u during the batch of %d",
			  g, m->batch);
		CHECK_EQ(k->type, m->cnt[g][AC_WRITE_SYNC] ?
			 AC_WRITE_SYNC : AC_WRITE_ASYNC);
		return;
	}
	CHECK_EQ(k->type, m_type_count(m, AC_WRITE_SYNC) ?
		 AC_WRITE_SYNC : AC_WRITE_ASYNC);
	CHECK_EQ((int)g,
		 m_rotate(m, m->last_write, true, m_has, k->type));
	m->batch = (int)g;
	m->batches++;
	m->batch_cnt = 0;
	m->last_write = g;
}

/* Section 4.1 mirrored: returns the expired type expected, or -1. */
static int m_phase(struct model *m, const struct ac_fifo_heads *h, bool *start)
{
	u32 reads = m_dir_count(m, AC_DIR_READ);
	u32 writes = m_dir_count(m, AC_DIR_WRITE);
	const enum ac_type *order;
	bool starving;
	int i;

	if (m->phase_left && !m_dir_count(m, m->dir)) {
		if (m->dir == AC_DIR_READ && writes)
			m->starved++;
		m->phase_left = 0;
	}
	*start = !m->phase_left;
	if (!*start)
		return -1;
	starving = writes && m->starved >= m_one(m->p.writes_starved);
	if (reads && !starving) {
		m->dir = AC_DIR_READ;
	} else {
		m->switches += reads != 0;
		m->dir = AC_DIR_WRITE;
		m->starved = 0;
	}
	m->phase_left = m_one(m->p.fifo_batch);
	order = starving ? m_writes_first : m_reads_first;
	for (i = 0; i < AC_NR_TYPES; i++) {
		enum ac_type t = order[i];

		if (h->valid[t] && (int64_t)(m->now - h->expire[t]) >= 0)
			return t;
	}
	return -1;
}

static void m_after_dispatch(struct model *m, const struct m_req *r)
{
	if (ac_type_is_write(r->type)) {
		if (m->batch == (int)r->group) {
			m->batch_cnt++;
			if (!m_writes(m, r->group) ||
			    m->batch_cnt >= m_one(m->p.write_batch))
				m->batch = -1;
		}
	} else {
		m->last_read = (int)r->group;
		m->rot_read = r->group;
		m_read_left(m, r->group, true);
	}
	if (m->phase_left && !--m->phase_left &&
	    m->dir == AC_DIR_READ && m_dir_count(m, AC_DIR_WRITE))
		m->starved++;
}

/*
 * A pick with writes held: a read in the rotation, or nothing when no read
 * is queued; no phase starts, but the read counts in the phase running.
 */
static bool m_dispatch_held(struct model *m, const struct ac_pick *k)
{
	unsigned long failed = t_failed_checks;
	struct m_req *r;
	int i;

	m->held++;
	if (!m_dir_count(m, AC_DIR_READ)) {
		CHECK_EQ(k->kind, AC_PICK_NONE);
		return failed == t_failed_checks;
	}
	CHECK_MSG(k->kind == AC_PICK_UNIT && !ac_type_is_write(k->type) &&
		  k->unit < m_nr(m) && m->cnt[k->unit][k->type],
		  "held: kind %d type %d group %u", k->kind, k->type, k->unit);
	if (failed != t_failed_checks)
		return false;
	m_check_read(m, k);
	i = m_find(m, k->type, (int)k->unit);
	CHECK(i >= 0);
	if (i < 0)
		return false;
	r = m_unqueue(m, (u32)i, M_DISPATCHED);
	m->dispatched[r->type]++;
	ac_policy_dispatched(&m->p, r->group, r->type, false);
	m_after_dispatch(m, r);
	return failed == t_failed_checks;
}

/* One pick and its dispatch; false once something failed. */
static bool m_dispatch(struct model *m)
{
	unsigned long failed = t_failed_checks;
	struct ac_fifo_heads h = { 0 };
	struct ac_pick k;
	struct m_req *r;
	bool start;
	int t, i, exp;

	for (t = 0; t < AC_NR_TYPES; t++) {
		i = m_find(m, t, -1);
		h.valid[t] = i >= 0;
		if (i >= 0)
			h.expire[t] = m->req[m->q[i]].deadline;
	}
	/* no draw without holds: the other profiles keep their sequences */
	m->p.writes_held = !m->draining && m->prof->hold_pct &&
			   m_below(m, 100) < m->prof->hold_pct;
	k = ac_policy_pick(&m->p, &h, m->now);
	m->picks++;
	if (!m->qlen) {
		CHECK_EQ(k.kind, AC_PICK_NONE);
		return failed == t_failed_checks;
	}
	if (m->p.writes_held)
		return m_dispatch_held(m, &k);
	CHECK_MSG(k.kind != AC_PICK_NONE, "stall: NONE with %u queued",
		  m->qlen);
	exp = m_phase(m, &h, &start);
	if (exp >= 0) {
		CHECK_MSG(k.kind == AC_PICK_EXPIRED && (int)k.type == exp,
			  "phase start: kind %d type %d, want expired %d",
			  k.kind, k.type, exp);
	} else {
		CHECK_MSG(k.kind == AC_PICK_UNIT, "kind %d, want a group pick",
			  k.kind);
		CHECK_EQ(m_dir_of(k.type), m->dir);
	}
	if (failed != t_failed_checks || k.type >= AC_NR_TYPES)
		return false;
	if (k.kind == AC_PICK_EXPIRED) {
		i = m_find(m, k.type, -1);
		m->expired_picks++;
	} else {
		CHECK_MSG(k.unit < m_nr(m) && m->cnt[k.unit][k.type],
			  "pick names empty sub-queue %u/%d", k.unit, k.type);
		if (failed != t_failed_checks)
			return false;
		if (ac_type_is_write(k.type))
			m_check_write(m, &k);
		else
			m_check_read(m, &k);
		i = m_find(m, k.type, (int)k.unit);
	}
	CHECK(i >= 0);
	if (i < 0)
		return false;
	r = m_unqueue(m, (u32)i, M_DISPATCHED);
	m->dispatched[r->type]++;
	if (k.kind == AC_PICK_EXPIRED)
		m->expired[r->type]++;
	ac_policy_dispatched(&m->p, r->group, r->type,
			     k.kind == AC_PICK_EXPIRED);
	m_after_dispatch(m, r);
	return failed == t_failed_checks;
}

static bool m_consistent(const struct model *m)
{
	unsigned long failed = t_failed_checks;
	const struct ac_policy *p = &m->p;
	u32 g, sum[AC_NR_TYPES] = { 0 };
	int t, procs = 0;

	t_check_queued_units(p);
	for (g = 0; g < AC_MAX_CHANNELS; g++) {
		const struct ac_unit *pg = &p->unit[g];
		const struct ac_channel *pc = &p->chan[g];
		u32 reads = m->cnt[g][AC_READ_SYNC] + m->cnt[g][AC_READ_ASYNC];
		u32 writes = m_writes(m, g);

		for (t = 0; t < AC_NR_TYPES; t++) {
			CHECK_EQ(pg->nr[t], m->cnt[g][t]);
			sum[t] += m->cnt[g][t];
		}
		if (g >= m_nr(m))
			CHECK_EQ(reads + writes, 0);
		CHECK(pg->rflag <= AC_R_END && pc->wflag <= AC_W_PROC);
		CHECK_EQ(pg->rflag == AC_R_ZERO, reads == 0);
		CHECK_EQ(pg->rflag, m->rflag[g]);
		CHECK_EQ(pc->wflag == AC_W_ZERO, writes == 0);
		CHECK_EQ(pc->wflag == AC_W_PROC, (int)g == p->proc);
		procs += pc->wflag == AC_W_PROC;
	}
	CHECK(procs <= 1);
	for (t = 0; t < AC_NR_TYPES; t++)
		CHECK_EQ(p->queued[t], sum[t]);
	CHECK_EQ(ac_policy_queued(p), m->qlen);
	CHECK_EQ(p->proc, m->batch);
	if (p->proc >= 0)
		CHECK(m_writes(m, (u32)p->proc) > 0);
	CHECK_EQ(p->stats.read_rounds, m->rounds);
	CHECK_EQ(p->stats.write_batches, m->batches);
	CHECK_EQ(p->stats.writes_held, m->held);
	CHECK_EQ(p->stats.starved_switches, m->switches);
	CHECK_EQ(p->stats.proc_fallbacks, m->fallbacks);
	CHECK_EQ(p->phase_left, m->phase_left);
	CHECK_EQ(p->starved, m->starved);
	if (p->phase_left)
		CHECK_EQ(p->dir, m->dir);
	return failed == t_failed_checks;
}

static void m_step(struct model *m)
{
	const struct m_profile *pr = m->prof;
	u32 roll = m_below(m, 1000);

	m->now += m_below(m, 4);
	if (roll < pr->regroup_permille) {
		m_regroup(m);
		return;
	}
	roll -= pr->regroup_permille;
	if (roll < pr->tune_permille) {
		m_tune(m);
		return;
	}
	if (m_below(m, 500) == 0)
		m->depth_target = 1 + m_below(m, pr->max_depth);
	roll = m_below(m, 100);
	if (m->qlen < m->depth_target ? roll < 60 : roll < 20)
		m_insert(m);
	else if (roll < (m->qlen < m->depth_target ? 95u : 90u))
		m_dispatch(m);
	else
		m_remove(m);
}

static void m_run(const struct m_profile *pr, u64 seed)
{
	struct model *m = calloc(1, sizeof(*m));
	unsigned long failed = t_failed_checks;
	u32 i, n;

	if (!m)
		abort();
	m->prof = pr;
	m->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	m->now = pr->now0;
	/* at most one insert per step: ops slots are enough */
	m->req = calloc((size_t)pr->ops, sizeof(*m->req));
	m->q = calloc((size_t)pr->ops, sizeof(*m->q));
	if (!m->req || !m->q)
		abort();
	m->mapping = AC_MAP_STRIPE;
	m->capacity = 1ULL << 30;
	m->stripe = 8;
	m->depth_target = pr->max_depth;
	n = 1 + m_below(m, pr->nr_max);
	t_policy_init(&m->p, n);
	m->last_write = n - 1;
	m->rot_read = n - 1;
	m->last_read = -1;
	m->batch = -1;
	m->dir = AC_DIR_READ;
	for (i = 0; i < (u32)pr->ops && failed == t_failed_checks; i++) {
		m_step(m);
		if (!m_consistent(m))
			break;
	}
	/* drain: one pick per queued request, no more */
	m->draining = true;
	for (n = m->qlen; n && failed == t_failed_checks; n--) {
		m->now += m_below(m, 4);
		if (m_dispatch(m))
			m_consistent(m);
	}
	if (failed == t_failed_checks) {
		m_dispatch(m);		/* NONE */
		CHECK_EQ(m->qlen, 0);
		for (i = 0; i < m->nreq; i++)
			CHECK(m->req[i].state != M_QUEUED);
		for (i = 0; i < AC_NR_TYPES; i++) {
			CHECK_EQ(m->p.stats.dispatched[i], m->dispatched[i]);
			CHECK_EQ(m->p.stats.expired[i], m->expired[i]);
		}
	}
	if (getenv("AC_TEST_VERBOSE"))
		printf("    %s seed %llu: %lu picks, %lu expired, rounds %llu, "
		       "batches %llu, starved %llu, fallbacks %llu\n",
		       pr->name, (unsigned long long)seed, m->picks,
		       m->expired_picks,
		       (unsigned long long)m->p.stats.read_rounds,
		       (unsigned long long)m->p.stats.write_batches,
		       (unsigned long long)m->p.stats.starved_switches,
		       (unsigned long long)m->p.stats.proc_fallbacks);
	if (failed != t_failed_checks)
		printf("    (%s, seed %llu, step %u, %lu picks)\n", pr->name,
		       (unsigned long long)seed, i, m->picks);
	/* a run that went to the end must have exercised what it claims to */
	if (failed == t_failed_checks) {
		CHECK(m->picks > (unsigned long)pr->ops / 4);
		if (pr->expire[AC_READ_SYNC] < 1000)
			CHECK(m->expired_picks > 0);
	}
	free(m->req);
	free(m->q);
	free(m);
}

#define M_SEEDS		4
#define M_OPS		25000

static const struct m_profile m_profiles[] = {
	{ .name = "defaults", .nr_max = 16,
	  .expire = { 40, 300, 150, 1200 }, .read_pct = 70, .sync_pct = 60,
	  .max_depth = 48, .regroup_permille = 1, .tune_permille = 0,
	  .tune_max = 32 },
	{ .name = "tiny_batches", .nr_max = 4,
	  .expire = { 40, 300, 150, 1200 }, .read_pct = 60, .sync_pct = 50,
	  .max_depth = 16, .regroup_permille = 2, .tune_permille = 20,
	  .tune_max = 2 },
	{ .name = "no_deadlines", .nr_max = 12,
	  .expire = { 1u << 31, 1u << 31, 1u << 31, 1u << 31 },
	  .read_pct = 65, .sync_pct = 50, .max_depth = 40,
	  .regroup_permille = 1, .tune_permille = 5, .tune_max = 20 },
	{ .name = "all_expired", .nr_max = 8, .expire = { 0, 1, 2, 3 },
	  .read_pct = 50, .sync_pct = 50, .max_depth = 24,
	  .regroup_permille = 1, .tune_permille = 5, .tune_max = 8 },
	{ .name = "write_heavy", .nr_max = 8,
	  .expire = { 60, 400, 300, 2000 }, .read_pct = 20, .sync_pct = 40,
	  .max_depth = 64, .regroup_permille = 1, .tune_permille = 5,
	  .tune_max = 24 },
	{ .name = "many_channels", .nr_max = AC_MAX_CHANNELS,
	  .expire = { 200, 1500, 800, 5000 }, .read_pct = 70,
	  .sync_pct = 70, .max_depth = 200, .regroup_permille = 1,
	  .tune_permille = 2, .tune_max = 40 },
	{ .name = "single_channel", .nr_max = 1,
	  .expire = { 40, 300, 150, 1200 }, .read_pct = 70, .sync_pct = 50,
	  .max_depth = 16, .regroup_permille = 1, .tune_permille = 5,
	  .tune_max = 8 },
	{ .name = "clock_wrap", .nr_max = 8,
	  .expire = { 40, 300, 150, 1200 }, .read_pct = 70, .sync_pct = 60,
	  .max_depth = 32, .regroup_permille = 1, .tune_permille = 5,
	  .tune_max = 16, .now0 = UINT64_MAX - 20000 },
	{ .name = "writes_held", .nr_max = 8,
	  .expire = { 40, 300, 150, 1200 }, .read_pct = 50, .sync_pct = 60,
	  .max_depth = 48, .regroup_permille = 1, .tune_permille = 5,
	  .tune_max = 16, .hold_pct = 40 },
};

static void m_profile_run(const char *name)
{
	size_t i;
	u64 s;

	for (i = 0; i < ARRAY_SIZE(m_profiles); i++) {
		struct m_profile pr = m_profiles[i];

		if (strcmp(pr.name, name))
			continue;
		pr.ops = M_OPS;
		for (s = 1; s <= M_SEEDS; s++)
			m_run(&pr, s + 1000 * i);
		return;
	}
	CHECK_MSG(0, "no profile %s", name);
}

#define M_TEST(n) \
	static void test_model_##n(void) \
	{ \
		m_profile_run(#n); \
	}

M_TEST(defaults)
M_TEST(tiny_batches)
M_TEST(no_deadlines)
M_TEST(all_expired)
M_TEST(write_heavy)
M_TEST(many_channels)
M_TEST(single_channel)
M_TEST(clock_wrap)
M_TEST(writes_held)

const struct t_case t_model[] = {
	{ "model/defaults", test_model_defaults },
	{ "model/tiny_batches", test_model_tiny_batches },
	{ "model/no_deadlines", test_model_no_deadlines },
	{ "model/all_expired", test_model_all_expired },
	{ "model/write_heavy", test_model_write_heavy },
	{ "model/many_channels", test_model_many_channels },
	{ "model/single_channel", test_model_single_channel },
	{ "model/clock_wrap", test_model_clock_wrap },
	{ "model/writes_held", test_model_writes_held },
	{ NULL, NULL },
};
