/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AC I/O scheduler: the per-queue state shared by the elevator glue
 * (ac-iosched.c), the tunables (sysfs.c) and the debugfs view (debugfs.c).
 *
 * Every field below is protected by ac_data.lock unless its comment says
 * otherwise.
 */
#ifndef AC_IOSCHED_H
#define AC_IOSCHED_H

#include "ac-compat.h"

#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "block/elevator.h"
#include "block/blk-mq-debugfs.h"

#include "ac-policy.h"

struct blk_mq_alloc_data;

/*
 * One sub-queue.  Writes are sorted by sector, served in C-SCAN order so
 * that a channel's batch streams.  Reads wait in arrival order: a unit has
 * no seek, sector order sent runs of reads to one die (README, "Tunables"),
 * and a list costs O(1) where a tree costs a walk on the path every read
 * takes.
 */
union ac_subqueue {
	struct rb_root writes;
	struct list_head reads;
};

/* Counters of the glue; the policy keeps its own in ac_policy.stats. */
struct ac_counters {
	u64 inserted;		/* requests seen by insert, each counted once */
	u64 head_inserts;	/* inserts that went to the dispatch list */
	u64 head_dispatched;	/* dispatches from the dispatch list */
	u64 merged;		/* requests merged into another one */
	u64 front_merges;	/* bios merged at the front of a request */
	u64 merges_refused;	/* adjacent merges refused: more channels */
	u64 retyped;		/* async requests made sync by a merge */
	u64 regroups;		/* sub-groups recomputed for all queued requests */
	u64 resizes;		/* device capacity changes seen at insert */
	u64 lone;		/* queued requests that left from the lone slot */
	u64 lone_direct;	/* of those, in one step (ac_policy_lone()) */
};

struct ac_data {
	spinlock_t lock;		/* protects all of ac_data unless noted */
	struct request_queue *q;

	/* Matrices, phases and batches: what to dispatch next. */
	struct ac_policy policy;

	/*
	 * Every queued ("sorted") request is on exactly one deadline FIFO,
	 * the one of its type, in arrival order (rq->queuelist), and on the
	 * sub-queue of its unit and type (through rq->rb_node); or, when it
	 * is the only one, in the lone slot and on no list (ac_unpark()).
	 * The policy counts the request in the slot only once lone_counted
	 * (ac_lone_count()): until then it may leave in one step.
	 */
	struct request *lone;
	bool lone_counted;
	struct list_head fifo[AC_NR_TYPES];
	union ac_subqueue subq[AC_MAX_UNITS][AC_NR_TYPES];
	/* Start of the last write dispatched from each sub-queue (C-SCAN). */
	sector_t last_pos[AC_MAX_UNITS][AC_NR_TYPES];

	/*
	 * Requests that are not reordered: inserted at head (requeues
	 * included), flushes and passthrough.  Served before everything else.
	 */
	struct list_head dispatch;
	/*
	 * Requests merged away at insert, to be freed once the lock is
	 * dropped (ac_insert_list()); empty whenever the lock is free.
	 */
	struct list_head merged_free;

	/*
	 * A bio merge is under way (ac_bio_merge()), of a bio of this type:
	 * the request that takes it absorbs its type (ac_absorb()).
	 */
	bool merging_bio;
	enum ac_type merging_type;

	/*
	 * The FIFO heads the next pick sees (lock held).  Here rather than
	 * on the dispatch path's stack, which the kernel zeroes at every call
	 * (CONFIG_INIT_STACK_ALL_ZERO): most picks need only valid[] cleared.
	 */
	struct ac_fifo_heads heads;

	/*
	 * Requests on the FIFOs or in the lone slot; has_work() reads it
	 * without the lock.
	 */
	unsigned int nr_sorted;

	/* Capacity, in sectors, the sub-groups were computed for. */
	u64 capacity;
	/* the layout below, prepared for the I/O path (ac_regroup()) */
	struct ac_map map;

	/*
	 * Tunables (sysfs.c).  Written under the lock; read without it only
	 * where a torn or stale value is harmless.  nr_channels, fifo_batch,
	 * writes_starved and write_batch of the policy are tunables too.
	 */
	u32 expire_ms[AC_NR_TYPES];
	/* the same in jiffies (ac_expire_update()), for the insert path */
	unsigned long expire_jiffies[AC_NR_TYPES];
	u32 nr_channels;
	u32 dies_per_channel;
	u32 mapping;		/* enum ac_mapping */
	u32 stripe_kb;
	/* Writes the device may hold while reads are about; 0: no limit. */
#define AC_DEF_WRITE_INFLIGHT	0
	u32 write_inflight;
	/*
	 * Requests, and writes, of ours at one die (policy.unit_depth and
	 * unit_writes; 0: no cap); only when dies_per_channel > 1.  Chosen
	 * by measurement: see README, Occupancy.
	 */
#define AC_DEF_UNIT_DEPTH	1
#define AC_DEF_UNIT_WRITES	1
	/*
	 * Reads past unit_depth while the device has command slots no idle
	 * die with requests waiting could use (policy.unit_spare).
	 */
#define AC_DEF_UNIT_SPARE	1
	/*
	 * No write to a die with reads waiting (policy.reads_first), below
	 * write_hold; only when dies_per_channel > 1.  Chosen by a same-boot
	 * measurement: see README, "reads_first".
	 */
#define AC_DEF_READS_FIRST	1

	/* Runs the queue when the earliest deadline passes (caps held all). */
	struct delayed_work deadline_work;

	/*
	 * shallow_depth of async requests, where the queue has no
	 * async_depth of its own (compat.c); no lock.
	 */
	unsigned int async_depth;

	struct ac_counters stats;

	/*
	 * Written on completion and requeue, without the lock: on cache
	 * lines of their own, so that completions on other CPUs do not
	 * take from the lock holder the lines dispatch writes.
	 *
	 * Reads and writes we dispatched from the sub-queues that have not
	 * finished (the dispatch list is not counted), and when a read last
	 * finished (jiffies): what write_inflight looks at.
	 */
	atomic_t reads_out ____cacheline_aligned_in_smp;
	atomic_t writes_out;
	unsigned long last_read_done;
	/* A pick found only held writes: run the queue when a write ends. */
	bool writes_waiting;
	/*
	 * A pick found every queued request held by unit_depth: the next
	 * completion (ac_occ_put()) runs the queue, and has_work() says no
	 * until then.  Set under the lock, cleared without it.
	 */
	bool cap_waiting;
	atomic64_t requeued;	/* requeue_request() calls */
	/*
	 * Inserted requests freed: per CPU, as every completion writes it
	 * (ac_percpu_sum()).
	 */
	u64 __percpu *completed;

	/*
	 * Requests at the device per unit (spec 4.4), written at dispatch
	 * (lock held) and at completion or requeue (no lock): away from the
	 * lock's cache line.
	 */
	struct ac_occupancy occ ____cacheline_aligned_in_smp;
};

static inline struct ac_data *ac_queue_data(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

const char *ac_type_name(enum ac_type type);
/* A per-CPU counter's total (a snapshot: other CPUs may be adding). */
u64 ac_percpu_sum(u64 __percpu *counter);

/*
 * Sync vs async is the block layer's notion: reads, and REQ_SYNC/FUA
 * writes.  Readahead (REQ_RAHEAD) stays a sync read: the page cache sends
 * a reader's own misses as readahead too (README, "Readahead").
 */
static inline enum ac_type ac_type_of(blk_opf_t opf)
{
	bool sync = op_is_sync(opf);

	if (op_is_write(opf))
		return sync ? AC_WRITE_SYNC : AC_WRITE_ASYNC;
	return sync ? AC_READ_SYNC : AC_READ_ASYNC;
}

/* Whether a request of @opf takes only the async share of the tags. */
static inline bool ac_op_depth_limited(blk_opf_t opf)
{
	return ac_type_of(opf) != AC_READ_SYNC;
}

/* ac-iosched.c: the scheduler data, and what init_sched does with it. */
struct ac_data *ac_data_alloc(struct request_queue *q);
void ac_data_free(struct ac_data *ad);
void ac_attach(struct request_queue *q, struct elevator_queue *eq,
	       struct ac_data *ad);
void ac_insert_list(struct blk_mq_hw_ctx *hctx, struct list_head *list,
		    bool at_head);

/* ac-iosched.c: recompute every queued request's sub-group (lock held). */
void ac_regroup(struct ac_data *ad);
/* ac-iosched.c: the request in the lone slot, if any, onto the lists (lock held). */
void ac_unpark(struct ac_data *ad);
/* ac-iosched.c: a tunable changed that may free held requests (no lock). */
void ac_tunables_changed(struct ac_data *ad);
void ac_expire_update(struct ac_data *ad);

/*
 * compat.c: the elevator operations whose prototype or meaning differs
 * between kernels.
 */
int ac_compat_init(void);
void ac_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data);
#ifdef AC_HAVE_DEPTH_UPDATED_Q
void ac_depth_updated(struct request_queue *q);
#else
void ac_depth_updated(struct blk_mq_hw_ctx *hctx);
int ac_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx);
#endif
void ac_init_depth(struct request_queue *q);
#ifdef AC_HAVE_ALLOC_SCHED_DATA
void *ac_alloc_sched_data(struct request_queue *q);
void ac_free_sched_data(void *data);
#endif
#if defined(AC_HAVE_ALLOC_SCHED_DATA) || defined(AC_HAVE_INIT_SCHED_EQ)
int ac_init_sched(struct request_queue *q, struct elevator_queue *eq);
#else
int ac_init_sched(struct request_queue *q, struct elevator_type *e);
#endif
/* exit_sched's end: free the data unless the core does (alloc_sched_data) */
void ac_exit_free(struct ac_data *ad);
#ifdef AC_HAVE_INSERT_FLAGS
void ac_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			blk_insert_t flags);
#else
void ac_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			bool at_head);
#endif
/*
 * The tag limit of async requests and writes, and what it limits: "queue"
 * (q->async_depth), "bitmap" (shallow_depth counts the whole tag bitmap) or
 * "word" (each sbitmap word).
 */
unsigned int ac_async_depth(struct ac_data *ad, const char **mode);
/* How many requests writes and async reads may hold, in all. */
unsigned int ac_async_requests(struct ac_data *ad);

/* sysfs.c */
#ifdef AC_HAVE_CONST_ATTRS
extern const struct elv_fs_entry ac_sysfs_attrs[];
#else
extern struct elv_fs_entry ac_sysfs_attrs[];
#endif
void ac_tunables_init(struct ac_data *ad);

/* debugfs.c */
#ifdef CONFIG_BLK_DEBUG_FS
extern const struct blk_mq_debugfs_attr ac_debugfs_attrs[];
#endif

#endif /* AC_IOSCHED_H */
