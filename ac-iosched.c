// SPDX-License-Identifier: GPL-2.0
/*
 * AC, the "Alleviate Conflict" I/O scheduler for SSDs.  Each queued request
 * is on the deadline FIFO of its type and on the sub-queue of its unit (a
 * die of a channel) and type; ac-policy.c decides what leaves next.  One
 * lock per queue, as mq-deadline.  docs/ac-iosched.rst has the design.
 */
#include "ac-compat.h"

#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <trace/events/block.h>

#include "block/elevator.h"
#include "block/blk.h"
#include "block/blk-mq.h"
#include "block/blk-mq-debugfs.h"
#include "block/blk-mq-sched.h"

#include "ac-iosched.h"

/*
 * rq->elv.priv[0]: these flags and the unit counted at the device;
 * priv[1]: the unit and type chosen at insert, then for a timed request at
 * the device when it was sent (ac_clock()).
 */
#define AC_RQ_INSERTED	BIT(0)	/* counted in stats.inserted */
#define AC_RQ_SORTED	BIT(1)	/* queued: on a FIFO and a sub-queue */
#define AC_RQ_OUT	BIT(2)	/* at the device: in occ.total */
#define AC_RQ_READ	BIT(3)	/* ... as a read, else a write */
#define AC_RQ_TIMED	BIT(4)	/* timed: for admission, or read_lat_ms */
#define AC_RQ_AT_UNIT	BIT(5)	/* ... counted at its unit */
#define AC_RQ_UNIT_SHIFT	8
#define AC_RQ_UNIT_MASK		(0xffUL << AC_RQ_UNIT_SHIFT)
#define AC_RQ_TYPE_BITS	2

/*
 * Reads are "about" for write admission while one is queued, at the device
 * or finished this recently (a sync reader's gaps must not fill with
 * writes); not while more wait than a quarter of the device's slots (at
 * least AC_FEW_READS): such readers keep the device busy themselves.
 */
#define AC_READ_GONE_JIFFIES	max(2, HZ / 50)
#define AC_FEW_READS		4U

/*
 * admit_done: a count of timed writes above the sum of their latencies;
 * read_done: a count of timed reads above the count of late ones.
 */
#define AC_ADMIT_COUNT_SHIFT	44
#define AC_READ_COUNT_SHIFT	32

/* Write admission's clock, in units of 1024 ns; wraps, as time does. */
static unsigned long ac_clock(void)
{
	return ktime_get_ns() >> 10;
}

static unsigned long ac_rq_flags(struct request *rq)
{
	return (unsigned long)rq->elv.priv[0];
}

static void ac_rq_set_flags(struct request *rq, unsigned long flags)
{
	rq->elv.priv[0] = (void *)flags;
}

static u32 ac_rq_unit(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] >> AC_RQ_TYPE_BITS;
}

static enum ac_type ac_rq_type(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] & ((1UL << AC_RQ_TYPE_BITS) - 1);
}

static struct ac_subqueue *ac_rq_subq(struct ac_data *ad, struct request *rq)
{
	return &ad->subq[ac_rq_unit(rq)][ac_rq_type(rq)];
}

static u64 ac_capacity(struct ac_data *ad)
{
	return ad->q->disk ? get_capacity(ad->q->disk) : 0;
}

static bool ac_deadline_before(struct rb_node *a, const struct rb_node *b)
{
	return time_before64(rb_entry_rq(a)->fifo_time,
			     rb_entry_rq(b)->fifo_time);
}

/* Put @rq on the sub-queue of @unit and @type, and count it there. */
static void ac_subqueue_add(struct ac_data *ad, struct request *rq, u32 unit,
			    enum ac_type type)
{
	struct ac_subqueue *sq = &ad->subq[unit][type];

	rq->elv.priv[1] = (void *)(((unsigned long)unit << AC_RQ_TYPE_BITS) |
				   type);
	if (ac_type_is_write(type))
		elv_rb_add(&sq->writes, rq);
	else
		rb_add_cached(&rq->rb_node, &sq->reads, ac_deadline_before);
	ac_policy_add(&ad->policy, unit, type);
}

/* Take @rq off its sub-queue; the caller undoes the policy's count. */
static void ac_subqueue_del(struct ac_data *ad, struct request *rq)
{
	struct ac_subqueue *sq = ac_rq_subq(ad, rq);

	if (ac_type_is_write(ac_rq_type(rq)))
		elv_rb_del(&sq->writes, rq);
	else
		rb_erase_cached(&rq->rb_node, &sq->reads);
	RB_CLEAR_NODE(&rq->rb_node);
}

/* The next request of @unit and @type: a read's oldest, a write's C-SCAN. */
static struct request *ac_subqueue_next(struct ac_data *ad, u32 unit,
					enum ac_type type)
{
	struct ac_subqueue *sq = &ad->subq[unit][type];
	struct request *best = NULL;
	struct rb_node *node;

	if (!ac_type_is_write(type)) {
		node = rb_first_cached(&sq->reads);
		return node ? rb_entry_rq(node) : NULL;
	}
	for (node = sq->writes.rb_node; node;) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) >= sq->last_pos) {
			best = rq;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	if (!best && !RB_EMPTY_ROOT(&sq->writes))
		best = rb_entry_rq(rb_first(&sq->writes));
	return best;
}

/* Put @rq on the FIFO of @type with deadline @expire, in deadline order. */
static void ac_fifo_place(struct ac_data *ad, struct request *rq,
			  enum ac_type type, u64 expire)
{
	struct list_head *fifo = &ad->fifo[type];
	struct list_head *pos;

	list_del_init(&rq->queuelist);
	/* a new deadline is usually the latest: walk back from the tail */
	pos = fifo->prev;
	while (pos != fifo &&
	       time_after64(list_entry(pos, struct request,
				       queuelist)->fifo_time, expire))
		pos = pos->prev;
	list_add(&rq->queuelist, pos);
	rq->fifo_time = expire;
}

static u64 ac_deadline_now(struct ac_data *ad, enum ac_type type)
{
	return get_jiffies_64() + msecs_to_jiffies(ad->expire_ms[type]);
}

/*
 * Caps held every queued request (cap_waiting) and something changed that
 * may let one go: run the queue, once.  Safe without the lock.
 */
static void ac_wake_capped(struct ac_data *ad)
{
	if (READ_ONCE(ad->cap_waiting)) {
		WRITE_ONCE(ad->cap_waiting, false);
		blk_mq_run_hw_queues(ad->q, true);
	}
}

/*
 * Queued @rq took in I/O of type @from with deadline @expire (a merged bio
 * or request).  Someone waits for sync I/O: an async @rq that takes in sync
 * I/O becomes sync, and its deadline is the earlier of the two.  Without
 * this an fsync()'s write merged into queued writeback would wait for
 * write_async_expire.
 */
static void ac_absorb(struct ac_data *ad, struct request *rq,
		      enum ac_type from, u64 expire)
{
	enum ac_type type = ac_rq_type(rq), to = type;
	u32 unit = ac_rq_unit(rq);

	if (!(ac_rq_flags(rq) & AC_RQ_SORTED))
		return;
	if (from == (ac_type_is_write(type) ? AC_WRITE_SYNC : AC_READ_SYNC))
		to = from;
	if (to == type && !time_before64(expire, rq->fifo_time))
		return;
	if (time_before64(rq->fifo_time, expire))
		expire = rq->fifo_time;
	if (to != type) {
		ac_subqueue_del(ad, rq);
		ac_policy_remove(&ad->policy, unit, type);
		ac_fifo_place(ad, rq, to, expire);
		ac_subqueue_add(ad, rq, unit, to);
		ad->stats.retyped++;
	} else if (!ac_type_is_write(type)) {
		/* a read's place in its sub-queue follows its deadline */
		rb_erase_cached(&rq->rb_node, &ac_rq_subq(ad, rq)->reads);
		ac_fifo_place(ad, rq, to, expire);
		rb_add_cached(&rq->rb_node, &ac_rq_subq(ad, rq)->reads,
			      ac_deadline_before);
	} else {
		ac_fifo_place(ad, rq, to, expire);
	}
	/* if caps held everything, the run armed for the old deadline is late */
	ac_wake_capped(ad);
}

/*
 * Recompute every queued request's unit after the layout or the capacity
 * changed.  The FIFOs hold every queued request once, so walking them
 * rebuilds the sub-queues and the policy's counts from scratch.
 */
void ac_regroup(struct ac_data *ad)
{
	struct ac_policy *p = &ad->policy;
	struct request *rq;
	enum ac_type type;
	u32 unit;

	lockdep_assert_held(&ad->lock);

	for (unit = 0; unit < AC_MAX_UNITS; unit++) {
		for (type = 0; type < AC_NR_TYPES; type++) {
			ad->subq[unit][type].writes = RB_ROOT;
			ad->subq[unit][type].reads = RB_ROOT_CACHED;
			ad->subq[unit][type].last_pos = 0;
		}
	}
	ac_policy_regroup(p, p->nr_channels);
	ad->map = (struct ac_map){
		.mapping = ad->mapping,
		.nr_channels = p->nr_channels,
		.capacity = ac_capacity(ad),
		.stripe_sectors = ad->stripe_kb * 2,
		.dies = p->dies_per_channel,
	};
	ac_map_prepare(&ad->map);
	WRITE_ONCE(ad->cap_waiting, false);

	for (type = 0; type < AC_NR_TYPES; type++) {
		list_for_each_entry(rq, &ad->fifo[type], queuelist) {
			RB_CLEAR_NODE(&rq->rb_node);
			unit = ac_map_unit(&ad->map, blk_rq_pos(rq));
			ac_subqueue_add(ad, rq, unit, type);
		}
	}
}

/* Reads and writes keep to channels; other operations merge as they may. */
static bool ac_channel_bound(struct request *rq)
{
	return req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE;
}

/*
 * Whether @rq and the adjacent extent @pos, @len may become one request: not
 * if the result covers more channels than the wider of the two.  Each
 * channel would then work for one command that ends with the slowest.
 */
static bool ac_merge_ok(struct ac_data *ad, struct request *rq,
			sector_t pos, sector_t len)
{
	if (!ac_channel_bound(rq))
		return true;
	/* the core also asks about requests that are not adjacent */
	if (pos + len != blk_rq_pos(rq) &&
	    blk_rq_pos(rq) + blk_rq_sectors(rq) != pos)
		return true;
	if (ac_map_merge_ok(&ad->map, blk_rq_pos(rq), blk_rq_sectors(rq),
			    pos, len))
		return true;
	ad->stats.merges_refused++;
	return false;
}

/* The queued request the core's merge hash finds ending at @end. */
static struct request *ac_hashed_ending_at(struct request_queue *q,
					   sector_t end)
{
	struct request *rq;

	hash_for_each_possible(q->elevator->hash, rq, hash, end) {
		if (rq_mergeable(rq) &&
		    blk_rq_pos(rq) + blk_rq_sectors(rq) == end)
			return rq;
	}
	return NULL;
}

static void ac_dispatch_list_add(struct ac_data *ad, struct request *rq,
				 bool at_head)
{
	trace_block_rq_insert(rq);
	if (at_head)
		list_add(&rq->queuelist, &ad->dispatch);
	else
		list_add_tail(&rq->queuelist, &ad->dispatch);
	ad->stats.head_inserts++;
}

static void ac_insert_request(struct ac_data *ad, struct request *rq,
			      bool at_head)
{
	struct request_queue *q = ad->q;
	unsigned long flags = ac_rq_flags(rq);
	enum ac_type type;

	lockdep_assert_held(&ad->lock);

	/*
	 * Flushes and passthrough bypass schedulers; should one come, pass it
	 * on untouched: it was never prepared and shares rq->elv with the
	 * flush machinery on some kernels.
	 */
	if (blk_rq_is_passthrough(rq) || req_op(rq) == REQ_OP_FLUSH) {
		ac_dispatch_list_add(ad, rq, at_head);
		return;
	}
	/* a requeued request comes back here: count it once */
	if (!(flags & AC_RQ_INSERTED)) {
		ad->stats.inserted++;
		ac_rq_set_flags(rq, flags | AC_RQ_INSERTED);
	}
	/* at-head inserts (requeues, the data of a FUA write) keep their order */
	if (at_head) {
		ac_dispatch_list_add(ad, rq, true);
		return;
	}
	trace_block_rq_insert(rq);
	/* a resized device moves the ranges: regroup what is queued */
	if (unlikely(ac_capacity(ad) != ad->map.capacity)) {
		ad->stats.resizes++;
		ad->stats.regroups++;
		ac_regroup(ad);
	}
	type = ac_type_of(rq->cmd_flags);
	rq->fifo_time = ac_deadline_now(ad, type);
	ac_rq_set_flags(rq, ac_rq_flags(rq) | AC_RQ_SORTED);
	list_add_tail(&rq->queuelist, &ad->fifo[type]);
	ac_subqueue_add(ad, rq, ac_map_unit(&ad->map, blk_rq_pos(rq)), type);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	WRITE_ONCE(ad->nr_sorted, ad->nr_sorted + 1);
	/* it may go to a unit below its cap */
	if (READ_ONCE(ad->cap_waiting))
		WRITE_ONCE(ad->cap_waiting, false);
}

#ifndef AC_HAVE_INSERT_FLAGS
/* Before 6.4 insert_requests() took a bool at_head. */
#define blk_insert_t		bool
#define BLK_MQ_INSERT_AT_HEAD	true
#endif

static void ac_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, blk_insert_t flags)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);
	bool at_head = flags & BLK_MQ_INSERT_AT_HEAD;
	struct request *rq;

	spin_lock(&ad->lock);
	while (!list_empty(list)) {
		rq = list_first_entry(list, struct request, queuelist);
		list_del_init(&rq->queuelist);
		ac_insert_request(ad, rq, at_head);
	}
	spin_unlock(&ad->lock);
}

/* Take queued @rq off its FIFO, its sub-queue and the merge hash. */
static void ac_unqueue(struct ac_data *ad, struct request *rq)
{
	struct request_queue *q = ad->q;

	lockdep_assert_held(&ad->lock);

	list_del_init(&rq->queuelist);
	ac_subqueue_del(ad, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
	ac_rq_set_flags(rq, ac_rq_flags(rq) & ~AC_RQ_SORTED);
	WRITE_ONCE(ad->nr_sorted, ad->nr_sorted - 1);
}

static u32 ac_dev_slots(struct ac_data *ad)
{
	return ad->q->tag_set->queue_depth * ad->q->nr_hw_queues;
}

/* Whether reads are about, for write admission. */
static bool ac_reads_about(struct ac_data *ad)
{
	int out = atomic_read(&ad->occ.total) - atomic_read(&ad->writes_out);
	u32 reads = ac_policy_dir_queued(&ad->policy, AC_DIR_READ) +
		    max(out, 0);

	if (reads > max(ac_dev_slots(ad) / 4, AC_FEW_READS))
		return false;
	return reads || time_before(jiffies, READ_ONCE(ad->last_read_done) +
					      AC_READ_GONE_JIFFIES);
}

/*
 * The bound of write admission.  When a window of timed writes has
 * finished, their mean latency and the writes at the device when they
 * were sent move it (ac_admit_update()); with read_lat_ms set, a window
 * of timed sync reads moves its ceiling (ac_admit_reads()).
 */
static u32 ac_write_limit(struct ac_data *ad)
{
	struct ac_admit *a = &ad->admit;
	u64 done = atomic64_read(&ad->admit_done);
	u32 n = done >> AC_ADMIT_COUNT_SHIFT, lat_us, held16;

	if (n >= ac_admit_window(a) && ad->admit_sent) {
		done = atomic64_xchg(&ad->admit_done, 0);
		n = done >> AC_ADMIT_COUNT_SHIFT;
		done &= BIT_ULL(AC_ADMIT_COUNT_SHIFT) - 1;
		lat_us = div64_u64(done * 1024, n * 1000ULL);
		held16 = div64_u64(ad->admit_held * 16, ad->admit_sent);
		ac_admit_update(a, lat_us, held16, ad->admit_blocked,
				ac_dev_slots(ad));
		ad->admit_sent = 0;
		ad->admit_held = 0;
		ad->admit_blocked = false;
	}
	if (!ad->read_lat_ms)
		return a->limit;
	done = atomic64_read(&ad->read_done);
	if (done >> AC_READ_COUNT_SHIFT >= AC_ADMIT_READS) {
		done = atomic64_xchg(&ad->read_done, 0);
		n = done >> AC_READ_COUNT_SHIFT;
		/* the late ones of the first AC_ADMIT_READS, about */
		ac_admit_reads(a, div_u64((done & U32_MAX) * AC_ADMIT_READS, n),
			       ac_dev_slots(ad));
	}
	return min(a->limit, a->ceiling);
}

/*
 * Whether writes wait for the device, reads being about.  With admission's
 * bound (write_inflight 0) and only async writes queued (writeback), they
 * go in bursts: once one write of a burst has finished no more are sent
 * until all have, and the next burst waits as long again as its last
 * write took.  The dies then spend about half the time without programs,
 * whatever the bound, for reads to meet none.
 */
static bool ac_writes_held(struct ac_data *ad)
{
	u32 out = atomic_read(&ad->writes_out);
	bool held;

	if (ad->write_inflight)
		held = out >= ad->write_inflight;
	else if (ad->policy.queued[AC_WRITE_SYNC])
		/* someone waits for these writes too: no gaps */
		held = out && out >= ac_write_limit(ad);
	else if (!out)
		held = time_before(jiffies, READ_ONCE(ad->writes_resume));
	else
		held = out >= ac_write_limit(ad) || READ_ONCE(ad->burst_closed);
	return held && ac_reads_about(ad);
}

/*
 * @rq leaves for the device at @unit: count it until it completes or
 * comes back.  The unit is stored in the request, so the count is undone
 * exactly whatever the layout is by then.  A read over several dies is
 * counted at none: no one die's count says when it ends.
 */
static void ac_count_out(struct ac_data *ad, struct request *rq, u32 unit)
{
	unsigned long flags = ac_rq_flags(rq) | AC_RQ_OUT;
	sector_t last;
	u32 held;

	atomic_inc(&ad->occ.total);
	if (req_op(rq) == REQ_OP_READ) {
		flags |= AC_RQ_READ;
		last = blk_rq_pos(rq) + max(blk_rq_sectors(rq), 1U) - 1;
		if (!ac_policy_dies(&ad->policy) ||
		    ac_map_unit(&ad->map, last) == unit) {
			atomic_inc(&ad->occ.reads[unit]);
			flags |= AC_RQ_AT_UNIT | ((unsigned long)unit << AC_RQ_UNIT_SHIFT);
		}
		if (ad->read_lat_ms && rq_is_sync(rq)) {
			rq->elv.priv[1] = (void *)ac_clock();
			flags |= AC_RQ_TIMED;
		}
	} else {
		held = atomic_inc_return(&ad->writes_out);
		if (held == 1)
			WRITE_ONCE(ad->burst_closed, false);
		if (req_op(rq) == REQ_OP_WRITE && !ad->write_inflight &&
		    ac_reads_about(ad)) {
			/* not queued now: priv[1] holds when it was sent */
			rq->elv.priv[1] = (void *)ac_clock();
			ad->admit_sent++;
			ad->admit_held += held;
			flags |= AC_RQ_TIMED;
		}
	}
	ac_rq_set_flags(rq, flags);
}

/*
 * @rq is no longer at the device (@done: it finished, not requeued):
 * uncount it, maybe in interrupt context, without the lock, and run the
 * queue if a pick waits for that (cap_waiting, writes_waiting).
 */
static void ac_count_back(struct ac_data *ad, struct request *rq, bool done)
{
	unsigned long flags = ac_rq_flags(rq), lat = 0;
	u32 unit = (flags & AC_RQ_UNIT_MASK) >> AC_RQ_UNIT_SHIFT;
	bool late;

	if (!(flags & AC_RQ_OUT))
		return;
	if ((flags & AC_RQ_TIMED) && done) {
		lat = ac_clock() - (unsigned long)rq->elv.priv[1];
		if (flags & AC_RQ_READ) {
			late = ((u64)lat << 10) >
			       (u64)READ_ONCE(ad->read_lat_ms) * NSEC_PER_MSEC;
			atomic64_add(BIT_ULL(AC_READ_COUNT_SHIFT) + late,
				     &ad->read_done);
		} else {
			atomic64_add(BIT_ULL(AC_ADMIT_COUNT_SHIFT) + lat,
				     &ad->admit_done);
		}
	}
	if (flags & AC_RQ_AT_UNIT)
		atomic_dec(&ad->occ.reads[unit]);
	if (flags & AC_RQ_READ) {
		WRITE_ONCE(ad->last_read_done, jiffies);
	} else {
		/* a timed write ends its burst; the last one sets the gap */
		if (lat)
			WRITE_ONCE(ad->burst_closed, true);
		if (atomic_dec_and_test(&ad->writes_out))
			WRITE_ONCE(ad->writes_resume,
				   jiffies + nsecs_to_jiffies((u64)lat << 10));
	}
	atomic_dec(&ad->occ.total);
	ac_rq_set_flags(rq, flags & ~(AC_RQ_OUT | AC_RQ_READ | AC_RQ_TIMED |
				      AC_RQ_AT_UNIT | AC_RQ_UNIT_MASK));
	/* the counts before the flags: pairs with dispatch's smp_mb() */
	smp_mb__after_atomic();
	if (READ_ONCE(ad->writes_waiting)) {
		WRITE_ONCE(ad->writes_waiting, false);
		blk_mq_run_hw_queues(ad->q, true);
	}
	ac_wake_capped(ad);
}

/*
 * Caps hold every queued request and has_work() says no until a completion
 * runs the queue.  A deadline may pass before any completion (a long
 * program): run the queue just after the earliest FIFO head's deadline.
 */
static void ac_arm_deadline(struct ac_data *ad,
			    const struct ac_fifo_heads *heads)
{
	u64 now = get_jiffies_64(), first = 0;
	bool any = false;
	enum ac_type t;

	for (t = 0; t < AC_NR_TYPES; t++) {
		if (!heads->valid[t] || !time_after64(heads->expire[t], now))
			continue;
		if (!any || time_before64(heads->expire[t], first))
			first = heads->expire[t];
		any = true;
	}
	if (any)
		kblockd_mod_delayed_work_on(WORK_CPU_UNBOUND, &ad->deadline_work,
					    first - now + 1);
}

/* Writes wait for a gap's end with nothing at the device: run us then. */
static void ac_run_after_gap(struct ac_data *ad)
{
	long left = READ_ONCE(ad->writes_resume) - jiffies;

	kblockd_mod_delayed_work_on(WORK_CPU_UNBOUND, &ad->deadline_work,
				    max(left, 0L) + 1);
}

static void ac_deadline_work(struct work_struct *work)
{
	struct ac_data *ad = container_of(to_delayed_work(work), struct ac_data,
					  deadline_work);

	WRITE_ONCE(ad->cap_waiting, false);
	blk_mq_run_hw_queues(ad->q, true);
}

static struct request *ac_fifo_head(struct ac_data *ad, enum ac_type type)
{
	return list_first_entry_or_null(&ad->fifo[type], struct request,
					queuelist);
}

/*
 * The policy's pick among the queued requests, or NULL.  Reads the FIFO
 * heads if the policy looks at them, tells it what the device holds, and
 * if caps hold every request, sets cap_waiting and looks once more (a
 * completion may have come before it could see the flag).
 */
static struct request *ac_dispatch_sorted(struct ac_data *ad)
{
	struct ac_policy *p = &ad->policy;
	struct ac_fifo_heads heads, *h = NULL;
	struct request *rq;
	struct ac_pick pick;
	enum ac_type type;
	u32 unit;

	lockdep_assert_held(&ad->lock);

	if (!ad->nr_sorted)
		return NULL;

	if (ac_policy_needs_heads(p)) {
		for (type = 0; type < AC_NR_TYPES; type++) {
			rq = ac_fifo_head(ad, type);
			heads.valid[type] = rq;
			heads.expire[type] = rq ? rq->fifo_time : 0;
			heads.unit[type] = rq ? ac_rq_unit(rq) : 0;
		}
		h = &heads;
	}
	p->writes_held = ac_writes_held(ad);
	if (p->writes_held && ac_policy_dir_queued(p, AC_DIR_WRITE))
		ad->admit_blocked = true;
	if (ac_policy_dies(p))
		p->dev_slots = ac_dev_slots(ad);

	pick = ac_policy_pick(p, h, get_jiffies_64());
	if (pick.kind == AC_PICK_NONE && pick.capped) {
		struct ac_stats stats = p->stats;

		WRITE_ONCE(ad->cap_waiting, true);
		smp_mb();	/* the flag before the counts */
		pick = ac_policy_pick(p, h, get_jiffies_64());
		if (pick.kind != AC_PICK_NONE || !pick.capped) {
			WRITE_ONCE(ad->cap_waiting, false);
		} else {
			p->stats = stats;	/* one hold, counted once */
			if (h)
				ac_arm_deadline(ad, h);
			return NULL;
		}
	}
	if (pick.kind == AC_PICK_NONE && p->writes_held) {
		/* only writes are queued: a write's end, or the gap's, runs us */
		WRITE_ONCE(ad->writes_waiting, true);
		smp_mb();	/* the flag before the count */
		if (!ac_writes_held(ad))
			blk_mq_run_hw_queues(ad->q, true);
		else if (!atomic_read(&ad->writes_out))
			ac_run_after_gap(ad);
		return NULL;
	}

	if (pick.kind == AC_PICK_EXPIRED)
		rq = ac_fifo_head(ad, pick.type);
	else if (pick.kind == AC_PICK_UNIT)
		rq = ac_subqueue_next(ad, pick.unit, pick.type);
	else
		rq = NULL;
	/* never strand a request, whatever the policy says */
	if (WARN_ONCE(!rq, "ac: pick %d/%d/%u found no request, %u queued\n",
		      pick.kind, pick.type, pick.unit, ad->nr_sorted)) {
		for (type = 0; type < AC_NR_TYPES && !rq; type++)
			rq = ac_fifo_head(ad, type);
		if (!rq)
			return NULL;
		pick.kind = AC_PICK_NONE;
	}

	unit = ac_rq_unit(rq);
	type = ac_rq_type(rq);
	ac_unqueue(ad, rq);
	ac_policy_dispatched(p, unit, type, pick.kind == AC_PICK_EXPIRED);
	if (ac_type_is_write(type))
		ad->subq[unit][type].last_pos = blk_rq_pos(rq);
	ac_count_out(ad, rq, unit);
	return rq;
}

/*
 * Called for one hardware queue, but AC's state is queue-wide
 * (QUEUE_FLAG_SQ_SCHED): the request may belong to another hctx.
 */
static struct request *ac_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);
	struct request *rq;

	spin_lock(&ad->lock);
	rq = list_first_entry_or_null(&ad->dispatch, struct request,
				      queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		ad->stats.head_dispatched++;
		/* at the device like any other, though not held back */
		if (ac_rq_flags(rq) & AC_RQ_INSERTED)
			ac_count_out(ad, rq, ac_map_unit(&ad->map, blk_rq_pos(rq)));
	} else {
		rq = ac_dispatch_sorted(ad);
	}
	if (rq)
		rq->rq_flags |= RQF_STARTED;
	spin_unlock(&ad->lock);
	return rq;
}

/* Requests held back by caps are not work: a completion runs the queue. */
static bool ac_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);

	return (READ_ONCE(ad->nr_sorted) && !READ_ONCE(ad->cap_waiting)) ||
	       !list_empty_careful(&ad->dispatch);
}

/* Merge @bio into a queued request; called before @bio gets a request. */
static bool ac_bio_merge(struct request_queue *q, struct bio *bio,
			 unsigned int nr_segs)
{
	struct ac_data *ad = ac_queue_data(q);
	struct request *free = NULL;
	bool merged;

	if (!READ_ONCE(ad->nr_sorted))
		return false;
	spin_lock(&ad->lock);
	ad->merging_type = ac_type_of(bio->bi_opf);
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	spin_unlock(&ad->lock);

	if (free)
		blk_mq_free_request(free);
	return merged;
}

static bool ac_allow_merge(struct request_queue *q, struct request *rq,
			   struct bio *bio)
{
	return ac_merge_ok(ac_queue_data(q), rq, bio->bi_iter.bi_sector,
			   bio_sectors(bio));
}

/*
 * The core merges two queued requests only with the neighbour these
 * return; hiding a neighbour that would widen the request refuses it.  A
 * write's neighbours are in its sorted sub-queue; a read's only one is the
 * request before it, found in the merge hash.
 */
static struct request *ac_merge_neighbour(struct request_queue *q,
					  struct request *rq,
					  struct request *other)
{
	if (other && !ac_merge_ok(ac_queue_data(q), rq, blk_rq_pos(other),
				  blk_rq_sectors(other)))
		return NULL;
	return other;
}

static struct request *ac_next_request(struct request_queue *q,
				       struct request *rq)
{
	if (!(ac_rq_flags(rq) & AC_RQ_SORTED) ||
	    !ac_type_is_write(ac_rq_type(rq)))
		return NULL;
	return ac_merge_neighbour(q, rq, elv_rb_latter_request(q, rq));
}

static struct request *ac_former_request(struct request_queue *q,
					 struct request *rq)
{
	struct request *prev;

	if (!(ac_rq_flags(rq) & AC_RQ_SORTED))
		return NULL;
	if (ac_type_is_write(ac_rq_type(rq)))
		prev = elv_rb_former_request(q, rq);
	else
		prev = ac_hashed_ending_at(q, blk_rq_pos(rq));
	return ac_merge_neighbour(q, rq, prev);
}

/*
 * Front merge: a queued write starting where @bio ends (back merges go
 * through the core's hash).  A queued request's unit is that of its start,
 * so the candidate is in the unit of the bio's end.  Reads are not sorted
 * by sector: a read bio front-merges only with q->last_merge.
 */
static int ac_request_merge(struct request_queue *q, struct request **merged,
			    struct bio *bio)
{
	struct ac_data *ad = ac_queue_data(q);
	sector_t end = bio_end_sector(bio);
	u32 unit = ac_map_unit(&ad->map, end);
	enum ac_type type;
	struct request *rq;

	lockdep_assert_held(&ad->lock);

	if (!op_is_write(bio->bi_opf))
		return ELEVATOR_NO_MERGE;
	for (type = AC_WRITE_SYNC; type <= AC_WRITE_ASYNC; type++) {
		rq = elv_rb_find(&ad->subq[unit][type].writes, end);
		if (rq && elv_bio_merge_ok(rq, bio)) {
			*merged = rq;
			if (blk_discard_mergable(rq))
				return ELEVATOR_DISCARD_MERGE;
			return ELEVATOR_FRONT_MERGE;
		}
	}
	return ELEVATOR_NO_MERGE;
}

/* A bio was merged into @rq; after a front merge @rq starts earlier. */
static void ac_request_merged(struct request_queue *q, struct request *rq,
			      enum elv_merge kind)
{
	struct ac_data *ad = ac_queue_data(q);
	enum ac_type type;
	u32 unit;

	lockdep_assert_held(&ad->lock);

	ac_absorb(ad, rq, ad->merging_type,
		  ac_deadline_now(ad, ad->merging_type));
	if (kind != ELEVATOR_FRONT_MERGE || !(ac_rq_flags(rq) & AC_RQ_SORTED))
		return;
	/* it may start in another unit now, or elsewhere in its tree */
	unit = ac_map_unit(&ad->map, blk_rq_pos(rq));
	type = ac_rq_type(rq);
	if (unit != ac_rq_unit(rq)) {
		ac_subqueue_del(ad, rq);
		ac_policy_remove(&ad->policy, ac_rq_unit(rq), type);
		ac_subqueue_add(ad, rq, unit, type);
	} else if (ac_type_is_write(type)) {
		elv_rb_del(&ad->subq[unit][type].writes, rq);
		elv_rb_add(&ad->subq[unit][type].writes, rq);
	}
}

/*
 * Queued @next was merged into @rq and will be freed; @rq takes its
 * deadline and sync type (ac_absorb()).  During a bio merge the request
 * that took the bio may go on to merge a neighbour: the survivor takes the
 * bio's type too.
 */
static void ac_requests_merged(struct request_queue *q, struct request *rq,
			       struct request *next)
{
	struct ac_data *ad = ac_queue_data(q);
	enum ac_type type = ac_rq_type(next);

	lockdep_assert_held(&ad->lock);

	ad->stats.merged++;
	/* the core merges only the neighbours we return, all queued */
	if (!WARN_ON_ONCE(!(ac_rq_flags(next) & AC_RQ_SORTED))) {
		ac_unqueue(ad, next);
		ac_policy_remove(&ad->policy, ac_rq_unit(next), type);
		ac_absorb(ad, rq, type, next->fifo_time);
	}
	ac_absorb(ad, rq, ad->merging_type,
		  ac_deadline_now(ad, ad->merging_type));
}

static void ac_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/*
 * A request is freed, maybe in interrupt context, without the lock.  Also
 * called for requests that bypassed us, and after a merge rq->bio may be
 * NULL: only our own flags are looked at.
 */
static void ac_finish_request(struct request *rq)
{
	struct ac_data *ad = ac_queue_data(rq->q);

	ac_count_back(ad, rq, true);
	if (ac_rq_flags(rq) & AC_RQ_INSERTED) {
		atomic64_inc(&ad->completed);
		ac_rq_set_flags(rq, 0);
	}
}

/* The driver gives back a dispatched request; it comes back at head. */
static void ac_requeue_request(struct request *rq)
{
	struct ac_data *ad = ac_queue_data(rq->q);

	WARN_ON_ONCE(ac_rq_flags(rq) & AC_RQ_SORTED);
	atomic64_inc(&ad->requeued);
	ac_count_back(ad, rq, false);
}

static void ac_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	unsigned int depth;

	/* sync reads, what someone waits for, may take every tag */
	if (ac_type_of(opf) == AC_READ_SYNC)
		return;
	depth = ac_limit_async(data->q);
	if (depth)
		data->shallow_depth = depth;
}

#ifdef AC_HAVE_DEPTH_UPDATED_Q
static void ac_depth_updated(struct request_queue *q)
{
	ac_depth_update(q);
}
#else
static void ac_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	ac_hctx_depth_update(hctx);
}

/* Called after init_sched, once the tags exist. */
static int ac_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	ac_hctx_depth_update(hctx);
	return 0;
}
#endif

static void *ac_alloc_sched_data(struct request_queue *q)
{
	struct ac_data *ad;
	enum ac_type type;

	/* about 40 KiB with the per-unit arrays */
	ad = kvzalloc_node(sizeof(*ad), GFP_KERNEL, q->node);
	if (!ad)
		return NULL;
	spin_lock_init(&ad->lock);
	ad->q = q;
	INIT_LIST_HEAD(&ad->dispatch);
	for (type = 0; type < AC_NR_TYPES; type++)
		INIT_LIST_HEAD(&ad->fifo[type]);
	ad->last_read_done = jiffies - AC_READ_GONE_JIFFIES;
	ad->writes_resume = jiffies;
	INIT_DELAYED_WORK(&ad->deadline_work, ac_deadline_work);

	ac_policy_init(&ad->policy, 1);
	ad->policy.occ = &ad->occ;
	ac_admit_init(&ad->admit);
	ac_tunables_init(ad);
	spin_lock(&ad->lock);
	ac_regroup(ad);
	spin_unlock(&ad->lock);
	return ad;
}

static void ac_free_sched_data(void *ad)
{
	kvfree(ad);
}

static void ac_attach(struct request_queue *q, struct elevator_queue *eq,
		      struct ac_data *ad)
{
	eq->elevator_data = ad;
	/* one instance for the whole queue: dispatch from any hctx */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	ac_depth_init(q);
}

#ifdef AC_HAVE_ALLOC_SCHED_DATA
/* The core calls ac_alloc_sched_data() before freezing the queue. */
static int ac_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	if (WARN_ON_ONCE(!eq->elevator_data))
		return -ENOMEM;
	ac_attach(q, eq, eq->elevator_data);
	return 0;
}
#elif defined(AC_HAVE_INIT_SCHED_EQ)
static int ac_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	struct ac_data *ad = ac_alloc_sched_data(q);

	if (!ad)
		return -ENOMEM;
	ac_attach(q, eq, ad);
	return 0;
}
#else
static int ac_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct ac_data *ad;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	ad = ac_alloc_sched_data(q);
	if (!ad) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	ac_attach(q, eq, ad);
	return 0;
}
#endif

/*
 * The queue is frozen and quiesced: every request we were given has been
 * dispatched and freed.  Check that the lists and counts agree.
 */
static void ac_exit_sched(struct elevator_queue *e)
{
	struct ac_data *ad = e->elevator_data;
	u64 inserted, completed;
	u32 unit, queued, sorted;
	enum ac_type type;
	int occupied = 0;

	cancel_delayed_work_sync(&ad->deadline_work);
	spin_lock(&ad->lock);
	WARN_ON_ONCE(!list_empty(&ad->dispatch));
	for (type = 0; type < AC_NR_TYPES; type++)
		WARN_ON_ONCE(!list_empty(&ad->fifo[type]));
	for (unit = 0; unit < AC_MAX_UNITS; unit++) {
		for (type = 0; type < AC_NR_TYPES; type++)
			WARN_ON_ONCE(ac_subqueue_next(ad, unit, type));
		occupied |= atomic_read(&ad->occ.reads[unit]);
	}
	occupied |= atomic_read(&ad->occ.total);
	queued = ac_policy_queued(&ad->policy);
	sorted = ad->nr_sorted;
	inserted = ad->stats.inserted;
	spin_unlock(&ad->lock);
	completed = atomic64_read(&ad->completed);

	WARN_ONCE(queued || sorted || inserted != completed || occupied,
		  "ac: at exit %u queued in the policy, %u sorted, %llu inserted, %llu completed, occupancy %s\n",
		  queued, sorted, inserted, completed,
		  occupied ? "left" : "zero");
#ifndef AC_HAVE_ALLOC_SCHED_DATA
	ac_free_sched_data(ad);
#endif
}

static struct elevator_type ac_iosched = {
	.ops = {
#ifdef AC_HAVE_ALLOC_SCHED_DATA
		.alloc_sched_data	= ac_alloc_sched_data,
		.free_sched_data	= ac_free_sched_data,
#endif
		.init_sched		= ac_init_sched,
		.exit_sched		= ac_exit_sched,
#ifndef AC_HAVE_DEPTH_UPDATED_Q
		.init_hctx		= ac_init_hctx,
#endif
		.depth_updated		= ac_depth_updated,
		.limit_depth		= ac_limit_depth,
		.insert_requests	= ac_insert_requests,
		.dispatch_request	= ac_dispatch_request,
		.has_work		= ac_has_work,
		.prepare_request	= ac_prepare_request,
		.finish_request		= ac_finish_request,
		.requeue_request	= ac_requeue_request,
		.bio_merge		= ac_bio_merge,
		.request_merge		= ac_request_merge,
		.request_merged		= ac_request_merged,
		.requests_merged	= ac_requests_merged,
		.allow_merge		= ac_allow_merge,
		.next_request		= ac_next_request,
		.former_request		= ac_former_request,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs	= ac_debugfs_attrs,
#endif
	.elevator_attrs		= ac_sysfs_attrs,
	.elevator_name		= "ac",
	.elevator_owner		= THIS_MODULE,
#ifdef AC_HAVE_ELEVATOR_FEATURES
	/*
	 * Before 6.10 a zoned queue accepts only a scheduler that declares
	 * ELEVATOR_F_ZBD_SEQ_WRITE and write-locks zones; AC does not.
	 */
	.elevator_features	= 0,
#endif
};
MODULE_ALIAS("ac-iosched");

static int __init ac_init(void)
{
	int ret = ac_compat_init();

	if (ret)
		return ret;
	BUILD_BUG_ON(AC_NR_TYPES > (1 << AC_RQ_TYPE_BITS));
	BUILD_BUG_ON(AC_MAX_UNITS > (AC_RQ_UNIT_MASK >> AC_RQ_UNIT_SHIFT) + 1);
	return elv_register(&ac_iosched);
}

static void __exit ac_exit(void)
{
	elv_unregister(&ac_iosched);
}

module_init(ac_init);
module_exit(ac_exit);

MODULE_AUTHOR("ac-iosched developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AC (Alleviate Conflict) I/O scheduler for SSDs");
