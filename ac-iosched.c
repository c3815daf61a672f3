// SPDX-License-Identifier: GPL-2.0
/*
 * AC, the "Alleviate Conflict" I/O scheduler for SSDs.
 *
 * An SSD is many flash dies behind a few channels.  Two requests on the same
 * channel serialize, a read behind a program on the same die waits for it,
 * and writes are many times slower than reads.  AC splits the LBA space into
 * nr_channels sub-groups (a contiguous range or a stripe per channel) and
 * orders dispatch so that reads are spread over the channels and avoid the
 * one being written, writes are batched one channel at a time, reads go
 * before writes without starving them, and every request has a deadline.
 *
 * The decisions (read and write matrices, phases, batches, deadline order)
 * are in ac-policy.c, plain C without kernel structures.  This file is the
 * mechanism: it owns the requests, keeps them on four deadline FIFOs (one per
 * type: sync/async read/write) and on sector-sorted trees (one per sub-group
 * and type, the "sub-queues"), merges them, asks the policy what to dispatch
 * and tells it what happened.  One spinlock per queue protects it all; the
 * scheduler instance is queue-wide, like mq-deadline's.
 */
#include "ac-compat.h"

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bio.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rbtree.h>
#include <linux/sbitmap.h>
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
 * What AC remembers about a request.  rq->elv.priv[0] holds flags,
 * rq->elv.priv[1] the sub-group and type chosen at insert, so that removal
 * and dispatch never recompute them: a device resized or a mapping changed
 * in between cannot make them disagree with the lists the request is on.
 */
#define AC_RQ_INSERTED	BIT(0)	/* counted in stats.inserted, once */
#define AC_RQ_SORTED	BIT(1)	/* on a FIFO, a sub-queue and in the policy */
#define AC_RQ_READ_OUT	BIT(2)	/* dispatched read, counted in reads_out */
#define AC_RQ_WRITE_OUT	BIT(3)	/* dispatched write, counted in writes_out */
#define AC_RQ_OCC	BIT(4)	/* counted in the occupancy of its unit */
#define AC_RQ_OCC_WRITE	BIT(5)	/* ... and in its writes */
/* Bits 8-15: the unit it is counted at, while AC_RQ_OCC is set. */
#define AC_RQ_UNIT_SHIFT	8
#define AC_RQ_UNIT_MASK		(0xffUL << AC_RQ_UNIT_SHIFT)

/*
 * Reads are "about" for write_inflight while one is queued or at the
 * device, or one finished this recently: a sync reader that waits for its
 * read to finish before sending the next leaves the device without reads
 * for a moment, and the writes must not fill it in that moment.
 */
#define AC_READ_GONE_JIFFIES	max(2, HZ / 50)

#define AC_RQ_TYPE_BITS	2

static inline unsigned long ac_rq_flags(struct request *rq)
{
	return (unsigned long)rq->elv.priv[0];
}

static inline void ac_rq_set_flags(struct request *rq, unsigned long flags)
{
	rq->elv.priv[0] = (void *)flags;
}

static inline u32 ac_rq_group(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] >> AC_RQ_TYPE_BITS;
}

static inline enum ac_type ac_rq_type(struct request *rq)
{
	return (unsigned long)rq->elv.priv[1] & ((1UL << AC_RQ_TYPE_BITS) - 1);
}

static inline void ac_rq_set_place(struct request *rq, u32 group,
				   enum ac_type type)
{
	rq->elv.priv[1] = (void *)(((unsigned long)group << AC_RQ_TYPE_BITS) |
				   type);
}

const char *ac_type_name(enum ac_type type)
{
	static const char * const names[AC_NR_TYPES] = {
		[AC_READ_SYNC]		= "read_sync",
		[AC_READ_ASYNC]		= "read_async",
		[AC_WRITE_SYNC]		= "write_sync",
		[AC_WRITE_ASYNC]	= "write_async",
	};

	return type < AC_NR_TYPES ? names[type] : "?";
}

u64 ac_percpu_sum(u64 __percpu *counter)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(counter, cpu);
	return sum;
}

static u64 ac_disk_capacity(struct ac_data *ad)
{
	return ad->q->disk ? get_capacity(ad->q->disk) : 0;
}

/* Rebuild the prepared map from the layout tunables and the capacity. */
static void ac_map_update(struct ac_data *ad)
{
	ad->map = (struct ac_map) {
		.mapping = ad->mapping,
		.nr_channels = ad->nr_channels,
		.capacity = ad->capacity,
		.stripe_sectors = ad->stripe_kb * 2,
		.dies = ad->dies_per_channel,
	};
	ac_map_prepare(&ad->map);
}

/*
 * Sub-group of @pos: its unit (channel and die) under the current mapping,
 * channels, dies and capacity.  Inline: every insert maps its request.
 */
static __always_inline u32 ac_group_of(struct ac_data *ad, sector_t pos)
{
	return ac_map_unit(&ad->map, pos);
}

/* Reads and writes keep to channels; other operations merge as they may. */
static bool ac_merge_channel_bound(struct request *rq)
{
	return req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE;
}

/*
 * Whether two adjacent extents may become one request (lock held).  A merge
 * that makes a request cover more channels is refused: the channels would
 * then work for one command that completes with the slowest of them,
 * instead of for separate commands (README, "Tunables", has what it was
 * measured to cost).  Discards and other operations merge as the core decides.
 */
static bool ac_merge_ok(struct ac_data *ad, struct request *rq,
			sector_t pos, sector_t len)
{
	if (!ac_merge_channel_bound(rq))
		return true;
	/*
	 * The core also asks about requests that do not touch the extent
	 * (q->last_merge, sector-order neighbours) before it checks that
	 * they are adjacent: there is no merge to refuse, and none to count.
	 */
	if (pos + len != blk_rq_pos(rq) &&
	    blk_rq_pos(rq) + blk_rq_sectors(rq) != pos)
		return true;
	if (ac_map_merge_ok(&ad->map, blk_rq_pos(rq), blk_rq_sectors(rq), pos, len))
		return true;
	ad->stats.merges_refused++;
	return false;
}

/*
 * A queued read is linked into its sub-queue's list through rq->rb_node: the
 * core leaves that space to the scheduler (it only clears it when the
 * request is set up), and AC sorts only writes.
 */
static struct list_head *ac_rq_link(struct request *rq)
{
	BUILD_BUG_ON(sizeof(rq->rb_node) < sizeof(struct list_head));
	return (struct list_head *)&rq->rb_node;
}

static struct request *ac_link_rq(struct list_head *link)
{
	return (struct request *)((char *)link -
				  offsetof(struct request, rb_node));
}

static void ac_subqueues_init(struct ac_data *ad)
{
	enum ac_type type;
	u32 group;

	for (group = 0; group < AC_MAX_UNITS; group++) {
		for (type = 0; type < AC_NR_TYPES; type++) {
			if (ac_type_is_write(type))
				ad->subq[group][type].writes = RB_ROOT;
			else
				INIT_LIST_HEAD(&ad->subq[group][type].reads);
			ad->last_pos[group][type] = 0;
		}
	}
}

/*
 * The helpers marked __always_inline run for every request, and most have
 * several callers, so the compiler kept them out of line: their calls cost
 * about as many instructions as their bodies (issue 16, measured in
 * bench/experiments/2026-11-26-cpu-inlining.md).
 */

/* Link @rq into the sub-queue of the unit and type stored in it. */
static __always_inline void ac_subqueue_link(struct ac_data *ad,
					     struct request *rq)
{
	enum ac_type type = ac_rq_type(rq);
	union ac_subqueue *sq = &ad->subq[ac_rq_group(rq)][type];

	if (ac_type_is_write(type))
		elv_rb_add(&sq->writes, rq);
	else
		list_add_tail(ac_rq_link(rq), &sq->reads);
}

/* Store sub-queue (@group, @type) in @rq and count it there in the policy. */
static __always_inline void ac_place(struct ac_data *ad, struct request *rq,
				     u32 group, enum ac_type type)
{
	ac_rq_set_place(rq, group, type);
	ac_policy_add(&ad->policy, group, type);
}

/* Put @rq into sub-queue (@group, @type) and count it in the policy. */
static __always_inline void ac_subqueue_add(struct ac_data *ad,
					    struct request *rq, u32 group,
					    enum ac_type type)
{
	ac_place(ad, rq, group, type);
	ac_subqueue_link(ad, rq);
}

/* Take @rq off its sub-queue; the policy's count is the caller's to undo. */
static __always_inline void ac_subqueue_del(struct ac_data *ad,
					    struct request *rq)
{
	union ac_subqueue *sq = &ad->subq[ac_rq_group(rq)][ac_rq_type(rq)];

	if (ac_type_is_write(ac_rq_type(rq))) {
		elv_rb_del(&sq->writes, rq);
	} else {
		list_del(ac_rq_link(rq));
		RB_CLEAR_NODE(&rq->rb_node);
	}
}

/* The policy counts the request in the lone slot, if it does not yet. */
static __always_inline void ac_lone_count(struct ac_data *ad)
{
	struct request *rq = ad->lone;

	if (rq && !ad->lone_counted) {
		ac_policy_add(&ad->policy, ac_rq_group(rq), ac_rq_type(rq));
		ad->lone_counted = true;
	}
}

/* @rq, off the lists or out of the slot, is no longer queued. */
static __always_inline void ac_sorted_out(struct ac_data *ad,
					  struct request *rq)
{
	ac_rq_set_flags(rq, ac_rq_flags(rq) & ~AC_RQ_SORTED);
	WRITE_ONCE(ad->nr_sorted, ad->nr_sorted - 1);
}

/*
 * Take a queued request off its FIFO, its sub-queue and the merge hash (or
 * out of the lone slot).  The caller tells the policy why it left
 * (dispatched or merged), which undoes its count: one from the slot is
 * counted first if it was not.
 */
static __always_inline void ac_unqueue(struct ac_data *ad, struct request *rq)
{
	struct request_queue *q = ad->q;

	lockdep_assert_held(&ad->lock);

	if (rq == ad->lone) {
		ac_lone_count(ad);
		ad->lone = NULL;
		ad->stats.lone++;
	} else {
		list_del_init(&rq->queuelist);
		ac_subqueue_del(ad, rq);
		elv_rqhash_del(q, rq);
		if (q->last_merge == rq)
			q->last_merge = NULL;
	}
	ac_sorted_out(ad, rq);
}

/*
 * Caps held every queued request back (cap_waiting) and something changed
 * that may let one go: run the queue, once.  Safe without the lock and in
 * interrupt context (the queue runs asynchronously).
 */
static void ac_wake_capped(struct ac_data *ad)
{
	if (READ_ONCE(ad->cap_waiting)) {
		WRITE_ONCE(ad->cap_waiting, false);
		blk_mq_run_hw_queues(ad->q, true);
	}
}

/* The sync type of @type's direction. */
static enum ac_type ac_sync_type(enum ac_type type)
{
	return ac_type_is_write(type) ? AC_WRITE_SYNC : AC_READ_SYNC;
}

/*
 * Put queued @rq on the FIFO of @type with deadline @expire, keeping the
 * FIFO in deadline order: walk back from the tail past later deadlines
 * (a new deadline is usually the latest, so the walk is short).
 */
static void ac_fifo_place(struct ac_data *ad, struct request *rq,
			  enum ac_type type, u64 expire)
{
	struct list_head *fifo = &ad->fifo[type];
	struct list_head *pos;

	/* off its FIFO first: @rq may be the tail it would start from */
	list_del_init(&rq->queuelist);
	pos = fifo->prev;
	while (pos != fifo &&
	       time_after64(list_entry(pos, struct request,
				       queuelist)->fifo_time, expire))
		pos = pos->prev;
	list_add(&rq->queuelist, pos);
	rq->fifo_time = expire;
}

/*
 * Queued @rq absorbed I/O of type @from with deadline @expire (a merged
 * bio or request).  Someone waits for sync I/O: if @from is sync and @rq
 * async, @rq becomes sync, on the sync FIFO and sub-queue; its deadline is
 * the earlier of the two.  Without this, an fsync()'s write merged into
 * queued writeback would wait for write_async_expire.
 */
static void ac_absorb(struct ac_data *ad, struct request *rq,
		      enum ac_type from, u64 expire)
{
	enum ac_type type = ac_rq_type(rq);
	enum ac_type to = type;

	if (!(ac_rq_flags(rq) & AC_RQ_SORTED))
		return;
	/* merges find only listed requests; should one find this one */
	ac_unpark(ad);
	if (from == ac_sync_type(type))
		to = from;
	if (to == type && !time_before64(expire, rq->fifo_time))
		return;
	if (time_before64(rq->fifo_time, expire))
		expire = rq->fifo_time;
	if (to != type) {
		u32 group = ac_rq_group(rq);

		ac_subqueue_del(ad, rq);
		ac_policy_remove(&ad->policy, group, type);
		ac_subqueue_add(ad, rq, group, to);
		ad->stats.retyped++;
	}
	ac_fifo_place(ad, rq, to, expire);
	/*
	 * A deadline came nearer.  If caps hold everything, the run armed for
	 * the old earliest deadline may be too late (and a bio merge does not
	 * run the queue): pick again now, which arms it anew.
	 */
	ac_wake_capped(ad);
}

/* The deadline a request or bio of @type arriving now would get. */
static u64 ac_deadline_now(struct ac_data *ad, enum ac_type type)
{
	return get_jiffies_64() + ad->expire_jiffies[type];
}

/* The expiry tunables in jiffies, once per change instead of per request. */
void ac_expire_update(struct ac_data *ad)
{
	enum ac_type type;

	for (type = 0; type < AC_NR_TYPES; type++)
		ad->expire_jiffies[type] = msecs_to_jiffies(ad->expire_ms[type]);
}

/*
 * Recompute the sub-group of every queued request, after nr_channels, the
 * mapping, the stripe or the capacity changed.  The FIFOs hold every queued
 * request exactly once, so walking them rebuilds the sub-queues and the
 * policy's counts from scratch: nothing is lost or counted twice.
 */
void ac_regroup(struct ac_data *ad)
{
	struct request *rq;
	enum ac_type type;

	lockdep_assert_held(&ad->lock);

	/* the walk below finds queued requests on the FIFOs */
	ac_unpark(ad);
	ac_subqueues_init(ad);
	ad->capacity = ac_disk_capacity(ad);
	ac_map_update(ad);
	ad->policy.dies_per_channel = ad->dies_per_channel;
	ac_policy_regroup(&ad->policy, ad->nr_channels);
	/* the layout changed: what caps held may go now */
	WRITE_ONCE(ad->cap_waiting, false);

	for (type = 0; type < AC_NR_TYPES; type++) {
		list_for_each_entry(rq, &ad->fifo[type], queuelist) {
			WARN_ON_ONCE(ac_rq_type(rq) != type);
			RB_CLEAR_NODE(&rq->rb_node);
			ac_subqueue_add(ad, rq, ac_group_of(ad, blk_rq_pos(rq)),
					type);
		}
	}
	ad->stats.regroups++;
}

void ac_tunables_changed(struct ac_data *ad)
{
	/* a cap raised or lifted: what it held may go now */
	WRITE_ONCE(ad->cap_waiting, false);
	blk_mq_run_hw_queues(ad->q, true);
}

/* Put queued @rq on its FIFO, its sub-queue and the merge hash. */
static __always_inline void ac_list(struct ac_data *ad, struct request *rq)
{
	struct request_queue *q = ad->q;

	ac_subqueue_link(ad, rq);
	list_add_tail(&rq->queuelist, &ad->fifo[ac_rq_type(rq)]);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
}

/*
 * The request in the lone slot goes on the lists: another is queued beside
 * it, or something must find it there (a merge, a regroup, debugfs).  The
 * lists are empty while a request is in the slot, so its place on its FIFO
 * is the only one.
 */
void ac_unpark(struct ac_data *ad)
{
	struct request *rq = ad->lone;

	lockdep_assert_held(&ad->lock);

	if (!rq)
		return;
	ac_lone_count(ad);
	ad->lone = NULL;
	ac_list(ad, rq);
}

/*
 * Queue @rq for AC's ordering: counted in the policy for its unit and type,
 * with its deadline.  Alone in AC, it waits in the lone slot, off the lists
 * and out of the merge hash, and the policy does not count it yet: a device
 * that keeps up leaves AC holding one request at a time, and each would go
 * on three lists and into the policy's counts only to come off them at the
 * next dispatch (issue 16).  The dispatch takes it in one step
 * (ac_dispatch_lone()), which is the same pick; the second request queued
 * (or anything that must find it) counts it and puts it on the lists.
 */
static void ac_queue_sorted(struct ac_data *ad, struct request *rq)
{
	enum ac_type type = ac_type_of(rq->cmd_flags);
	u64 capacity = ac_disk_capacity(ad);
	u32 group;

	/*
	 * A resized device moves the range boundaries: regroup what is queued
	 * so that every request's sub-group follows the same capacity.
	 */
	if (unlikely(capacity != ad->capacity)) {
		ad->stats.resizes++;
		ac_regroup(ad);
	}

	group = ac_group_of(ad, blk_rq_pos(rq));
	rq->fifo_time = ac_deadline_now(ad, type);
	ac_rq_set_flags(rq, ac_rq_flags(rq) | AC_RQ_SORTED);
	if (ad->nr_sorted) {
		ac_unpark(ad);
		ac_place(ad, rq, group, type);
		ac_list(ad, rq);
	} else {
		ac_rq_set_place(rq, group, type);
		ad->lone = rq;
		ad->lone_counted = false;
	}
	WRITE_ONCE(ad->nr_sorted, ad->nr_sorted + 1);
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

/*
 * The queued request the core's insert merge takes as ending at @end: the
 * first mergeable one in the merge hash whose end is @end, as
 * elv_rqhash_find() finds it (not exported).  Any direction: the core
 * looks no further than this one either.
 */
static __always_inline struct request *
ac_hashed_ending_at(struct request_queue *q, sector_t end)
{
	struct request *rq;

	hash_for_each_possible(q->elevator->hash, rq, hash, end) {
		if (rq_mergeable(rq) &&
		    blk_rq_pos(rq) + blk_rq_sectors(rq) == end)
			return rq;
	}
	return NULL;
}

/* Contiguous queued requests an insert merge may chain through. */
#define AC_MERGE_CHAIN	8

/*
 * Whether an inserted request may be merged behind a queued one.  The core
 * finds the queued request (one ending where @rq starts) without asking us,
 * then goes on to merge the result with a queued request ending where that
 * one starts, and so on (elv_attempt_insert_merge()).  So allow it only when
 * @rq lies in the sub-group of the sector before it and the chain of
 * contiguous queued requests behind it stays in that sub-group: a request
 * ending at the sub-group's boundary would be merged in next, and the
 * result would span two sub-groups.  With no queued request ending where
 * @rq starts there is nothing to merge with, and the core is not asked.
 * The chain is followed in the merge hash, as the core follows it: one
 * lookup, and none of the sorted trees, for the insert that has no
 * neighbour (the common case of random I/O).
 */
static bool ac_insert_merge_ok(struct ac_data *ad, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	struct request *prev;
	u32 group;
	int n;

	if (!ac_merge_channel_bound(rq))
		return true;
	prev = ac_hashed_ending_at(ad->q, pos);
	if (!prev || !ac_map_append_ok(&ad->map, pos, blk_rq_sectors(rq)))
		return false;
	group = ac_group_of(ad, pos - 1);
	for (n = 0; n < AC_MERGE_CHAIN; n++) {
		pos = blk_rq_pos(prev);
		if (!pos)
			return true;
		prev = ac_hashed_ending_at(ad->q, pos);
		if (!prev)
			return true;
		if (ac_group_of(ad, pos - 1) != group)
			return false;
	}
	return false;
}

static void ac_insert_request(struct ac_data *ad, struct request *rq,
			      bool at_head, struct list_head *free)
{
	unsigned long flags;

	lockdep_assert_held(&ad->lock);

	/*
	 * Flushes and passthrough bypass the scheduler (the core keeps them
	 * from us); if one comes anyway, pass it on untouched: it was never
	 * prepared, will never be finished through us, and on some kernels
	 * the flush machinery shares rq->elv.
	 */
	if (blk_rq_is_passthrough(rq) || req_op(rq) == REQ_OP_FLUSH) {
		ac_dispatch_list_add(ad, rq, at_head);
		return;
	}

	/* A requeued request comes back here: count it once only. */
	flags = ac_rq_flags(rq);
	if (!(flags & AC_RQ_INSERTED)) {
		ad->stats.inserted++;
		ac_rq_set_flags(rq, flags | AC_RQ_INSERTED);
	}
	/*
	 * Already on our lists (a bug): take it off them rather than insert
	 * it twice, and send it on through the dispatch list, where it
	 * cannot be lost.
	 */
	if (WARN_ON_ONCE(flags & AC_RQ_SORTED)) {
		u32 group = ac_rq_group(rq);
		enum ac_type type = ac_rq_type(rq);

		ac_unqueue(ad, rq);
		ac_policy_remove(&ad->policy, group, type);
		ac_dispatch_list_add(ad, rq, at_head);
		return;
	}

	/*
	 * At-head inserts (requeues, the data of PREFLUSH/FUA writes) must
	 * not be reordered: they go to the dispatch list.
	 */
	if (at_head) {
		ac_dispatch_list_add(ad, rq, true);
		return;
	}

	/*
	 * Merge with queued requests, if any: with none the merge hash is
	 * empty, and a device that keeps up leaves AC's queue empty at most
	 * inserts, so the lookups are skipped.  Not for multi-range discards:
	 * when one of those absorbs a queued request the core skips
	 * requests_merged() (see attempt_merge()), so the queued request
	 * would be freed while still on our lists.  Their bios still merge.
	 */
	if (ad->nr_sorted) {
		/* the merge finds queued requests in the merge hash */
		ac_unpark(ad);
		if (!blk_discard_mergable(rq) && ac_insert_merge_ok(ad, rq) &&
		    blk_mq_sched_try_insert_merge(ad->q, rq, free))
			return;
	}

	trace_block_rq_insert(rq);
	ac_queue_sorted(ad, rq);
	/*
	 * It may target a unit below its cap: let has_work() see it.  Read
	 * first: the flag shares its line with the completion counters.
	 */
	if (READ_ONCE(ad->cap_waiting))
		WRITE_ONCE(ad->cap_waiting, false);
}

/*
 * Free the requests merged away at insert, outside the lock (held on
 * entry, dropped here).  Apart from ac_insert_list(): the list it needs on
 * the stack would cost every insert a stack canary (issue 16).
 */
static noinline void ac_unlock_free_merged(struct ac_data *ad)
	__releases(&ad->lock)
{
	LIST_HEAD(free);

	list_splice_init(&ad->merged_free, &free);
	spin_unlock(&ad->lock);

	while (!list_empty(&free)) {
		struct request *rq = list_first_entry(&free, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		blk_mq_free_request(rq);
	}
}

void ac_insert_list(struct blk_mq_hw_ctx *hctx, struct list_head *list,
		    bool at_head)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);

	spin_lock(&ad->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		ac_insert_request(ad, rq, at_head, &ad->merged_free);
	}
	if (unlikely(!list_empty(&ad->merged_free)))
		ac_unlock_free_merged(ad);
	else
		spin_unlock(&ad->lock);
}

/*
 * Next request of sub-queue (@group, @type): a read's oldest; a write's in
 * C-SCAN order, the first at or after the last dispatched position, else
 * wrap around to the lowest sector.
 */
static __always_inline struct request *ac_subqueue_next(struct ac_data *ad,
							u32 group,
							enum ac_type type)
{
	union ac_subqueue *sq = &ad->subq[group][type];
	sector_t from = ad->last_pos[group][type];
	struct request *best = NULL, *lone = ad->lone;
	struct rb_node *node;

	/* alone in AC: the lists are empty */
	if (lone)
		return ac_rq_group(lone) == group && ac_rq_type(lone) == type ?
		       lone : NULL;
	if (!ac_type_is_write(type))
		return list_empty(&sq->reads) ? NULL :
		       ac_link_rq(sq->reads.next);

	node = sq->writes.rb_node;
	while (node) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) >= from) {
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

static struct request *ac_fifo_head(struct ac_data *ad, enum ac_type type)
{
	/* alone in AC: the lists are empty */
	if (ad->lone)
		return ac_rq_type(ad->lone) == type ? ad->lone : NULL;
	return list_first_entry_or_null(&ad->fifo[type], struct request,
					queuelist);
}

/*
 * The policy and the lists disagree: a bug.  Rather than stall the queue,
 * dispatch the request with the earliest deadline.
 */
static struct request *ac_fallback(struct ac_data *ad)
{
	struct request *best = NULL, *rq;
	enum ac_type type;

	for (type = 0; type < AC_NR_TYPES; type++) {
		rq = ac_fifo_head(ad, type);
		if (rq && (!best || time_before64(rq->fifo_time,
						  best->fifo_time)))
			best = rq;
	}
	return best;
}

static bool ac_reads_about(struct ac_data *ad)
{
	const struct ac_policy *p = &ad->policy;
	struct request *lone = ad->lone;

	return p->queued[AC_READ_SYNC] || p->queued[AC_READ_ASYNC] ||
	       (lone && !ad->lone_counted &&
		!ac_type_is_write(ac_rq_type(lone))) ||
	       atomic_read(&ad->reads_out) ||
	       time_before(jiffies, READ_ONCE(ad->last_read_done) +
				    AC_READ_GONE_JIFFIES);
}

/* Whether the next pick must leave writes alone (lock held). */
static __always_inline bool ac_writes_held(struct ac_data *ad)
{
	u32 limit = ad->write_inflight;

	return limit && atomic_read(&ad->writes_out) >= limit &&
	       ac_reads_about(ad);
}

/*
 * @rq leaves for the device: count it until ac_finish_request().  Only
 * write_inflight needs the counts; without it, completions stay as cheap
 * as before.  A request counted (flagged) is always uncounted, whatever
 * the tunable is by then.
 */
static __always_inline void ac_mark_out(struct ac_data *ad,
					struct request *rq)
{
	unsigned long flags = ac_rq_flags(rq);

	if (!ad->write_inflight)
		return;
	if (req_op(rq) == REQ_OP_READ) {
		atomic_inc(&ad->reads_out);
		flags |= AC_RQ_READ_OUT;
	} else if (req_op(rq) == REQ_OP_WRITE) {
		atomic_inc(&ad->writes_out);
		flags |= AC_RQ_WRITE_OUT;
	}
	ac_rq_set_flags(rq, flags);
}

/* @rq finished or came back: no longer at the device. */
static __always_inline void ac_mark_back(struct ac_data *ad,
					 struct request *rq)
{
	unsigned long flags = ac_rq_flags(rq);

	if (flags & AC_RQ_READ_OUT) {
		atomic_dec(&ad->reads_out);
		WRITE_ONCE(ad->last_read_done, jiffies);
	}
	if (flags & AC_RQ_WRITE_OUT) {
		atomic_dec(&ad->writes_out);
		/*
		 * A pick held writes back and returned nothing; the core
		 * will not run the queue again by itself until a new
		 * request comes, so this write's end must.  The barrier
		 * orders the count before the flag, as the dispatch side
		 * orders the flag before the count (ac_dispatch_sorted()).
		 */
		smp_mb__after_atomic();
		if (READ_ONCE(ad->writes_waiting)) {
			WRITE_ONCE(ad->writes_waiting, false);
			blk_mq_run_hw_queues(rq->q, true);
		}
	}
	ac_rq_set_flags(rq, flags & ~(AC_RQ_READ_OUT | AC_RQ_WRITE_OUT));
}

/* Whether @rq counts as a write at its unit (reads avoid those). */
static bool ac_occ_is_write(struct request *rq)
{
	return req_op(rq) == REQ_OP_WRITE || req_op(rq) == REQ_OP_WRITE_ZEROES;
}

/*
 * @rq leaves for the device at @unit: count it there until it completes or
 * comes back (ac_occ_put()).  The unit is stored in the request, so the
 * count is undone exactly whatever the layout is by then.
 */
static __always_inline void ac_occ_get(struct ac_data *ad,
				       struct request *rq, u32 unit)
{
	unsigned long flags = ac_rq_flags(rq);

	if (flags & AC_RQ_OCC || unit >= AC_MAX_UNITS)
		return;
	atomic_inc(&ad->occ.all[unit]);
	atomic_inc(&ad->occ.total);
	flags |= AC_RQ_OCC | ((unsigned long)unit << AC_RQ_UNIT_SHIFT);
	if (ac_occ_is_write(rq)) {
		atomic_inc(&ad->occ.writes[unit]);
		flags |= AC_RQ_OCC_WRITE;
	}
	ac_rq_set_flags(rq, flags);
}

/*
 * @rq is no longer at the device: uncount it.  Runs at completion, maybe in
 * interrupt context, without the lock.  If a pick found every queued
 * request held by caps, this completion may free a unit: run the queue.
 * The barrier orders the count before the flag, as ac_dispatch_sorted()
 * orders the flag before its second look at the counts.
 */
static __always_inline void ac_occ_put(struct ac_data *ad,
				       struct request *rq)
{
	unsigned long flags = ac_rq_flags(rq);
	u32 unit;

	if (!(flags & AC_RQ_OCC))
		return;
	unit = (flags & AC_RQ_UNIT_MASK) >> AC_RQ_UNIT_SHIFT;
	atomic_dec(&ad->occ.all[unit]);
	atomic_dec(&ad->occ.total);
	if (flags & AC_RQ_OCC_WRITE)
		atomic_dec(&ad->occ.writes[unit]);
	ac_rq_set_flags(rq, flags & ~(AC_RQ_OCC | AC_RQ_OCC_WRITE |
				      AC_RQ_UNIT_MASK));
	/* the count before the flag: pairs with the smp_mb() in ac_pick() */
	smp_mb__after_atomic();
	ac_wake_capped(ad);
}

/*
 * Caps hold every queued request back, and has_work() says no until a
 * completion runs the queue.  A deadline may pass before any completion
 * comes (a long program on the die), and an expired request goes past the
 * caps: run the queue just after the earliest deadline of a FIFO head,
 * once (a later pick arms it again if it must).
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

static void ac_deadline_work(struct work_struct *work)
{
	struct ac_data *ad = container_of(to_delayed_work(work), struct ac_data,
					  deadline_work);

	WRITE_ONCE(ad->cap_waiting, false);
	blk_mq_run_hw_queues(ad->q, true);
}

/*
 * Caps held every queued request back: say so in cap_waiting and look once
 * more, so that a completion that uncounted a unit before it could see the
 * flag is seen here (pairs with ac_occ_put()).  Apart from ac_pick(): its
 * copy of the stats would be zeroed on the stack at every pick.
 */
static noinline struct ac_pick ac_pick_held(struct ac_data *ad,
					    const struct ac_fifo_heads *heads)
{
	struct ac_stats stats;
	struct ac_pick pick;

	WRITE_ONCE(ad->cap_waiting, true);
	/* the flag before the counts: pairs with ac_occ_put() */
	smp_mb();
	stats = ad->policy.stats;
	pick = ac_policy_pick(&ad->policy, heads, get_jiffies_64());
	if (pick.kind != AC_PICK_NONE || !pick.capped) {
		WRITE_ONCE(ad->cap_waiting, false);
	} else {
		/* the same hold seen twice: count it once */
		ad->policy.stats = stats;
		ac_arm_deadline(ad, heads);
	}
	return pick;
}

/* The policy's pick. */
static struct ac_pick ac_pick(struct ac_data *ad,
			      const struct ac_fifo_heads *heads)
{
	struct ac_pick pick;

	pick = ac_policy_pick(&ad->policy, heads, get_jiffies_64());
	if (pick.kind != AC_PICK_NONE || !pick.capped)
		return pick;
	return ac_pick_held(ad, heads);
}

/*
 * reads_first holds writes while fewer than this are queued: the tags
 * writes may take, less what the device may hold of them, so that held
 * writes do not by themselves make a submitter wait for a write's tag.
 */
static u32 ac_write_hold(struct ac_data *ad)
{
	unsigned int share = ac_async_requests(ad);

	return share - min(share / 2, ad->q->tag_set->queue_depth);
}

/*
 * Commands the device holds at once, for the policy's slots to spare: its
 * driver tags over every hardware queue.
 */
static u32 ac_dev_slots(struct ac_data *ad)
{
	return ad->q->tag_set->queue_depth * ad->q->nr_hw_queues;
}

/*
 * @rq, queued in unit @group as @type, leaves for the device: the write's
 * C-SCAN position (only writes are sorted), write_inflight's and the
 * occupancy's counts.
 */
static __always_inline void ac_to_device(struct ac_data *ad,
					 struct request *rq, u32 group,
					 enum ac_type type)
{
	if (ac_type_is_write(type))
		ad->last_pos[group][type] = blk_rq_pos(rq);
	ac_mark_out(ad, rq);
	ac_occ_get(ad, rq, group);
}

/*
 * The request in the lone slot, which the policy has not counted, leaves in
 * one step (ac_policy_lone()).  NULL if the policy declines (dies, writes
 * held): it then counts the request, for the usual pick.
 */
static __always_inline struct request *ac_dispatch_lone(struct ac_data *ad)
{
	struct request *rq = ad->lone;
	u32 group = ac_rq_group(rq);
	enum ac_type type = ac_rq_type(rq);
	struct ac_pick pick;

	pick = ac_policy_lone(&ad->policy, group, type, rq->fifo_time,
			      get_jiffies_64());
	if (pick.kind == AC_PICK_NONE) {
		ac_lone_count(ad);
		return NULL;
	}
	ad->lone = NULL;
	ad->stats.lone++;
	ad->stats.lone_direct++;
	ac_sorted_out(ad, rq);
	ac_to_device(ad, rq, group, type);
	return rq;
}

static struct request *ac_dispatch_sorted(struct ac_data *ad)
{
	struct ac_fifo_heads *heads = &ad->heads;
	struct request *rq = NULL;
	struct ac_pick pick;
	enum ac_type type;
	bool expired;
	u32 group;

	lockdep_assert_held(&ad->lock);

	if (!ad->nr_sorted)
		return NULL;

	ad->policy.writes_held = ac_writes_held(ad);
	if (ad->lone && !ad->lone_counted) {
		rq = ac_dispatch_lone(ad);
		if (rq)
			return rq;
	}
	/* what only dies use: not worth its loads on every dispatch without */
	if (ac_policy_dies(&ad->policy)) {
		if (ad->policy.reads_first)
			ad->policy.write_hold = ac_write_hold(ad);
		ad->policy.dev_slots = ac_dev_slots(ad);
	}
	/* the heads' requests are cold cache lines: read them when due */
	for (type = 0; type < AC_NR_TYPES; type++)
		heads->valid[type] = false;
	if (ac_policy_heads_due(&ad->policy)) {
		for (type = 0; type < AC_NR_TYPES; type++) {
			rq = ac_fifo_head(ad, type);
			if (rq) {
				heads->valid[type] = true;
				heads->expire[type] = rq->fifo_time;
				heads->unit[type] = ac_rq_group(rq);
			}
		}
	}
	pick = ac_pick(ad, heads);
	if (pick.kind == AC_PICK_NONE && pick.capped)
		return NULL;
	if (pick.kind == AC_PICK_NONE && ad->policy.writes_held) {
		/* only writes are queued, and they must wait */
		WRITE_ONCE(ad->writes_waiting, true);
		/*
		 * A write may have finished since ac_writes_held() looked,
		 * before it could see writes_waiting: look again.  Pairs
		 * with the barrier in ac_mark_back().
		 */
		smp_mb();
		if (!ac_writes_held(ad))
			blk_mq_run_hw_queues(ad->q, true);
		return NULL;
	}
	switch (pick.kind) {
	case AC_PICK_EXPIRED:
		rq = pick.type < AC_NR_TYPES ? ac_fifo_head(ad, pick.type) : NULL;
		break;
	case AC_PICK_GROUP:
		rq = NULL;
		if (pick.group >= AC_MAX_UNITS || pick.type >= AC_NR_TYPES)
			break;
		rq = ac_subqueue_next(ad, pick.group, pick.type);
		break;
	default:
		rq = NULL;
		break;
	}
	expired = pick.kind == AC_PICK_EXPIRED;

	if (WARN_ONCE(!rq, "ac: policy pick %d/%d/%u found no request, %u queued\n",
		      pick.kind, pick.type, pick.group, ad->nr_sorted)) {
		rq = ac_fallback(ad);
		expired = false;
		if (!rq)
			return NULL;
	}

	/* Account with what was stored at insert, whatever was picked. */
	group = ac_rq_group(rq);
	type = ac_rq_type(rq);
	ac_unqueue(ad, rq);
	ac_policy_dispatched(&ad->policy, group, type, expired);
	ac_to_device(ad, rq, group, type);
	return rq;
}

/*
 * Called for one hardware queue, but AC's state is queue-wide
 * (QUEUE_FLAG_SQ_SCHED): the request returned may belong to another hctx.
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
		/*
		 * Requeued and at-head reads and writes are at the device
		 * like any other: counted for write_inflight and occupancy
		 * (not held back: the dispatch list keeps its order).
		 */
		if (ac_rq_flags(rq) & AC_RQ_INSERTED) {
			ac_mark_out(ad, rq);
			ac_occ_get(ad, rq, ac_group_of(ad, blk_rq_pos(rq)));
		}
	} else {
		rq = ac_dispatch_sorted(ad);
	}
	if (rq)
		rq->rq_flags |= RQF_STARTED;
	spin_unlock(&ad->lock);

	return rq;
}

static bool ac_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);

	/*
	 * Requests held back by caps are not work: a completion runs the
	 * queue when one may go (ac_occ_put()), so the core must not poll.
	 * The sorted requests first: they are the usual work, and the
	 * dispatch list's two pointers need not be read then (issue 16).
	 */
	return (READ_ONCE(ad->nr_sorted) && !READ_ONCE(ad->cap_waiting)) ||
	       !list_empty_careful(&ad->dispatch);
}

/*
 * ac_bio_merge() with requests queued.  Apart, so that the bio that finds
 * nothing queued (every bio, on a device that keeps up) does not pay for
 * this one's stack frame and its canary (issue 16).
 */
static noinline bool ac_bio_merge_queued(struct request_queue *q,
					 struct bio *bio,
					 unsigned int nr_segs)
{
	struct ac_data *ad = ac_queue_data(q);
	struct request *free = NULL;
	bool merged;

	/*
	 * The lock busy with a dispatch or an insert on another CPU: skip
	 * the merge rather than wait for the lock.  The request the bio
	 * becomes may still merge at insert (ac_insert_request()).
	 */
	if (!spin_trylock(&ad->lock))
		return false;
	/* the merge finds queued requests in the merge hash */
	ac_unpark(ad);
	/* for ac_request_merged() and ac_requests_merged() */
	ad->merging_bio = true;
	ad->merging_type = ac_type_of(bio->bi_opf);
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	ad->merging_bio = false;
	spin_unlock(&ad->lock);

	if (free)
		blk_mq_free_request(free);
	return merged;
}

/* Merge @bio into a queued request; called before @bio gets a request. */
static bool ac_bio_merge(struct request_queue *q, struct bio *bio,
			 unsigned int nr_segs)
{
	/* nothing queued to merge with */
	if (!READ_ONCE(ac_queue_data(q)->nr_sorted))
		return false;
	return ac_bio_merge_queued(q, bio, nr_segs);
}

/* elevator allow_merge: may @bio join @rq?  Called with our lock held. */
static bool ac_allow_merge(struct request_queue *q, struct request *rq,
			   struct bio *bio)
{
	return ac_merge_ok(ac_queue_data(q), rq, bio->bi_iter.bi_sector,
			   bio_sectors(bio));
}

/*
 * The core merges two queued requests only with the neighbour these return
 * (attempt_back_merge() and attempt_front_merge()); hiding a neighbour that
 * would widen the request is how such a merge is refused.
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

/*
 * A queued write's neighbours are in its sorted tree.  Reads are not
 * sorted: the one before a read is found in the merge hash (it ends where
 * the read starts); the one after it is not looked for.
 */
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
 * Front merge: a queued write that starts where @bio ends.  Back merges go
 * through the core's hash.  A queued request's sub-group is always that of
 * its current start sector (ac_request_merged() and ac_regroup() keep it so),
 * hence the candidate can only be in the sub-group of the bio's end sector,
 * in either write sub-queue (sync or async).  Reads are not sorted, so a
 * read bio front-merges only with the core's last merge (q->last_merge).
 */
static int ac_request_merge(struct request_queue *q, struct request **merged,
			    struct bio *bio)
{
	static const enum ac_type types[] = { AC_WRITE_SYNC, AC_WRITE_ASYNC };
	struct ac_data *ad = ac_queue_data(q);
	sector_t end = bio_end_sector(bio);
	struct request *rq;
	u32 group;
	int i;

	lockdep_assert_held(&ad->lock);

	if (!op_is_write(bio->bi_opf))
		return ELEVATOR_NO_MERGE;
	group = ac_group_of(ad, end);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		rq = elv_rb_find(&ad->subq[group][types[i]].writes, end);
		if (rq && elv_bio_merge_ok(rq, bio)) {
			*merged = rq;
			if (blk_discard_mergable(rq))
				return ELEVATOR_DISCARD_MERGE;
			return ELEVATOR_FRONT_MERGE;
		}
	}
	return ELEVATOR_NO_MERGE;
}

/*
 * A bio was merged into @rq.  After a front merge @rq starts earlier: move it
 * to the sub-group of its new start if that changed, and a write in its
 * tree.
 */
static void ac_request_merged(struct request_queue *q, struct request *rq,
			      enum elv_merge kind)
{
	struct ac_data *ad = ac_queue_data(q);
	u32 group = ac_rq_group(rq);
	enum ac_type type;
	u32 new_group;

	lockdep_assert_held(&ad->lock);

	if (ad->merging_bio)
		ac_absorb(ad, rq, ad->merging_type,
			  ac_deadline_now(ad, ad->merging_type));
	if (kind != ELEVATOR_FRONT_MERGE ||
	    !(ac_rq_flags(rq) & AC_RQ_SORTED))
		return;

	/* after ac_absorb(), which may have retyped it */
	type = ac_rq_type(rq);
	ad->stats.front_merges++;
	new_group = ac_group_of(ad, blk_rq_pos(rq));
	if (new_group != group) {
		ac_subqueue_del(ad, rq);
		ac_policy_remove(&ad->policy, group, type);
		ac_subqueue_add(ad, rq, new_group, type);
	} else if (ac_type_is_write(type)) {
		elv_rb_del(&ad->subq[group][type].writes, rq);
		elv_rb_add(&ad->subq[group][type].writes, rq);
	}
}

/*
 * @next was merged into @rq and will be freed.  @rq absorbs it
 * (ac_absorb()): the earlier deadline, and the sync type if @next was sync.
 * @next may never have been queued (merged at insert): then its type and
 * deadline are those it would have had.  During a bio merge the core may
 * go on to merge the request that took the bio with a neighbour: the
 * survivor absorbs the bio too.
 */
static void ac_requests_merged(struct request_queue *q, struct request *rq,
			       struct request *next)
{
	struct ac_data *ad = ac_queue_data(q);
	enum ac_type next_type;
	u64 next_expire;

	lockdep_assert_held(&ad->lock);

	ad->stats.merged++;

	if (ac_rq_flags(next) & AC_RQ_SORTED) {
		u32 group = ac_rq_group(next);

		next_type = ac_rq_type(next);
		next_expire = next->fifo_time;
		ac_unqueue(ad, next);
		ac_policy_remove(&ad->policy, group, next_type);
	} else {
		next_type = ac_type_of(next->cmd_flags);
		next_expire = ac_deadline_now(ad, next_type);
	}
	ac_absorb(ad, rq, next_type, next_expire);
	if (ad->merging_bio)
		ac_absorb(ad, rq, ad->merging_type,
			  ac_deadline_now(ad, ad->merging_type));
}

static void ac_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/*
 * Called when a request is freed, possibly from interrupt context, without
 * the lock.  The core also calls it for requests that never reached
 * ac_insert_requests() (they bypassed the scheduler), and after a merge
 * rq->bio may be NULL: only our own flag is looked at.
 */
static void ac_finish_request(struct request *rq)
{
	struct ac_data *ad = ac_queue_data(rq->q);

	ac_mark_back(ad, rq);
	ac_occ_put(ad, rq);
	if (ac_rq_flags(rq) & AC_RQ_INSERTED) {
		this_cpu_inc(*ad->completed);
		ac_rq_set_flags(rq, 0);
	}
}

/*
 * The driver gives back a request we dispatched; it will be inserted again
 * at head.  It is on none of our lists, and its insert count stays.
 */
static void ac_requeue_request(struct request *rq)
{
	struct ac_data *ad = ac_queue_data(rq->q);

	WARN_ON_ONCE(ac_rq_flags(rq) & AC_RQ_SORTED);
	atomic64_inc(&ad->requeued);
	ac_mark_back(ad, rq);
	ac_occ_put(ad, rq);
}

struct ac_data *ac_data_alloc(struct request_queue *q)
{
	struct ac_data *ad;
	enum ac_type type;

	/* about 25 KiB with the per-unit arrays: may come from vmalloc */
	ad = kvzalloc_node(sizeof(*ad), GFP_KERNEL, q->node);
	if (!ad)
		return NULL;

	spin_lock_init(&ad->lock);
	ad->q = q;
	INIT_LIST_HEAD(&ad->dispatch);
	INIT_LIST_HEAD(&ad->merged_free);
	for (type = 0; type < AC_NR_TYPES; type++)
		INIT_LIST_HEAD(&ad->fifo[type]);
	ac_subqueues_init(ad);
	ad->completed = alloc_percpu(u64);
	if (!ad->completed) {
		kvfree(ad);
		return NULL;
	}
	atomic_set(&ad->reads_out, 0);
	atomic_set(&ad->writes_out, 0);
	/* no read finished lately (jiffies start near a wrap: set it) */
	ad->last_read_done = jiffies - AC_READ_GONE_JIFFIES;
	atomic64_set(&ad->requeued, 0);
	INIT_DELAYED_WORK(&ad->deadline_work, ac_deadline_work);

	ac_policy_init(&ad->policy, 1);
	/* after init, which forgets it */
	ad->policy.occ = &ad->occ;
	/* The sysfs table holds the defaults, the policy's tunables too. */
	ac_tunables_init(ad);
	ac_expire_update(ad);
	ad->policy.dies_per_channel = ad->dies_per_channel;
	ac_policy_regroup(&ad->policy, ad->nr_channels);
	ad->capacity = ac_disk_capacity(ad);
	ac_map_update(ad);
	return ad;
}

void ac_data_free(struct ac_data *ad)
{
	free_percpu(ad->completed);
	kvfree(ad);
}

/* What every kernel's init_sched does once the data exists. */
void ac_attach(struct request_queue *q, struct elevator_queue *eq,
	       struct ac_data *ad)
{
	eq->elevator_data = ad;
	/* One instance for the whole queue: dispatch from any hctx. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	ac_init_depth(q);
}

/*
 * The queue is frozen and quiesced: every request we were given has been
 * dispatched and freed.  Check that the lists, trees and counts agree.
 */
static void ac_exit_sched(struct elevator_queue *e)
{
	struct ac_data *ad = e->elevator_data;
	u64 inserted, completed;
	enum ac_type type;
	u32 group, queued, sorted;
	int occupied = 0;

	cancel_delayed_work_sync(&ad->deadline_work);
	spin_lock(&ad->lock);
	WARN_ON_ONCE(!list_empty(&ad->dispatch));
	WARN_ON_ONCE(ad->lone);
	for (type = 0; type < AC_NR_TYPES; type++)
		WARN_ON_ONCE(!list_empty(&ad->fifo[type]));
	for (group = 0; group < AC_MAX_UNITS; group++) {
		for (type = 0; type < AC_NR_TYPES; type++)
			WARN_ON_ONCE(ac_subqueue_next(ad, group, type));
		occupied |= atomic_read(&ad->occ.all[group]) |
			    atomic_read(&ad->occ.writes[group]);
	}
	occupied |= atomic_read(&ad->occ.total);
	queued = ac_policy_queued(&ad->policy);
	sorted = ad->nr_sorted;
	inserted = ad->stats.inserted;
	spin_unlock(&ad->lock);
	completed = ac_percpu_sum(ad->completed);

	WARN_ONCE(queued || sorted || inserted != completed || occupied,
		  "ac: at exit %u queued in the policy, %u sorted, %llu inserted, %llu completed, occupancy %s\n",
		  queued, sorted, inserted, completed,
		  occupied ? "left" : "zero");

	ac_exit_free(ad);
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
	 * Zoned devices, until 6.10: a zoned queue sets
	 * ELEVATOR_F_ZBD_SEQ_WRITE in q->required_elevator_features, and
	 * elevator_find() matches only a scheduler that declares it (and
	 * write-locks zones, as mq-deadline does).  AC declares nothing, so
	 * on a zoned device "echo ac > .../scheduler" fails with EINVAL and
	 * the scheduler file does not list ac.  From 6.10 the block layer
	 * plugs zone writes itself and any scheduler may run on them.
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
