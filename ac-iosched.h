/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AC I/O scheduler: the per-queue state.  Every field is protected by
 * ac_data.lock unless its comment says otherwise.
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

/*
 * The queued requests of one unit and type, linked through rq->rb_node.
 * Writes are sorted by sector and leave in C-SCAN order, so that a
 * channel's batch streams; reads are sorted by deadline, which is arrival
 * order, and leave oldest first (a die has no seek to save).
 */
struct ac_subqueue {
	struct rb_root writes;
	struct rb_root_cached reads;
	sector_t last_pos;	/* start of the last write dispatched */
};

/* Counters of the elevator; the policy keeps its own (ac_policy.stats). */
struct ac_counters {
	u64 inserted;		/* requests seen by insert, each once */
	u64 head_inserts;	/* inserts that went to the dispatch list */
	u64 head_dispatched;	/* dispatches from the dispatch list */
	u64 merged;		/* requests merged into another */
	u64 merges_refused;	/* merges refused: more channels */
	u64 retyped;		/* async requests made sync by a merge */
	u64 regroups;		/* layout changes applied to queued requests */
	u64 resizes;		/* capacity changes seen at insert */
};

struct ac_data {
	spinlock_t lock;		/* protects all of ac_data unless noted */
	struct request_queue *q;

	struct ac_policy policy;

	/*
	 * Every queued request is on the FIFO of its type, in deadline
	 * order (rq->queuelist), and on the sub-queue of its unit and type.
	 */
	struct list_head fifo[AC_NR_TYPES];
	struct ac_subqueue subq[AC_MAX_UNITS][AC_NR_TYPES];
	/* Not reordered: at-head inserts and requeues.  Served first. */
	struct list_head dispatch;
	/* Queued requests; has_work() reads it without the lock. */
	unsigned int nr_sorted;

	/*
	 * The type of the bio ac_bio_merge() is merging: the core calls
	 * request_merged() and requests_merged() only from within it.
	 */
	enum ac_type merging_type;

	/*
	 * The layout: policy.nr_channels and policy.dies_per_channel, these
	 * two tunables, and the map they and the capacity give.
	 */
	u32 mapping;		/* enum ac_mapping */
	u32 stripe_kb;
	struct ac_map map;

	u32 expire_ms[AC_NR_TYPES];
	/*
	 * Write admission (ac_writes_held()): the window's timed writes
	 * sent, the writes at the device summed as each was sent, and
	 * whether writes were held.
	 */
	u32 write_inflight;
	u32 read_lat_ms;
	struct ac_admit admit;
	u32 admit_sent;
	u64 admit_held;
	bool admit_blocked;

	/* Runs the queue when the earliest deadline passes (caps held all). */
	struct delayed_work deadline_work;
	/* Tag limit of async requests where the queue has none; no lock. */
	unsigned int async_depth;

	struct ac_counters stats;

	/*
	 * Written on completion without the lock: dispatched non-reads not
	 * yet finished, and the timed writes and reads that finished
	 * (AC_ADMIT_COUNT_SHIFT, AC_READ_COUNT_SHIFT).
	 */
	atomic_t writes_out ____cacheline_aligned_in_smp;
	atomic64_t admit_done;
	atomic64_t read_done;
	unsigned long last_read_done;	/* jiffies */
	unsigned long writes_resume;	/* jiffies: the gap's end */
	bool burst_closed;		/* a write of the burst has finished */
	/* A pick found only held writes: the next write's end runs the queue. */
	bool writes_waiting;
	/* Caps held every queued request: the next completion runs the queue. */
	bool cap_waiting;
	atomic64_t requeued;
	atomic64_t completed;		/* inserted requests freed */

	/* Requests at the device per unit: dispatch adds, completion takes. */
	struct ac_occupancy occ ____cacheline_aligned_in_smp;
};

static inline struct ac_data *ac_queue_data(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

/*
 * Sync is the block layer's notion: reads, and REQ_SYNC/FUA writes.
 * Readahead stays a sync read: the page cache sends a reader's own misses
 * as readahead too.
 */
static inline enum ac_type ac_type_of(blk_opf_t opf)
{
	bool sync = op_is_sync(opf);

	if (op_is_write(opf))
		return sync ? AC_WRITE_SYNC : AC_WRITE_ASYNC;
	return sync ? AC_READ_SYNC : AC_READ_ASYNC;
}

/* ac-iosched.c */
void ac_regroup(struct ac_data *ad);

/* compat.c: the tag share of async requests, as each kernel limits it. */
int ac_compat_init(void);
unsigned int ac_limit_async(struct request_queue *q);
void ac_depth_update(struct request_queue *q);
void ac_hctx_depth_update(struct blk_mq_hw_ctx *hctx);
void ac_depth_init(struct request_queue *q);
/* "queue", "bitmap" or "word": what the limit counts */
unsigned int ac_async_depth(struct ac_data *ad, const char **mode);

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
