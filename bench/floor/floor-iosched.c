// SPDX-License-Identifier: GPL-2.0
/*
 * floor: the cheapest elevator the blk-mq scheduler interface allows, for
 * the benchmark only (issue 16).  One FIFO list and one lock per queue:
 * insert appends (or prepends at head), dispatch takes the first request,
 * nothing is merged, sorted, limited or timed.  Any elevator pays what this
 * one pays (a scheduler tag, the insert and dispatch calls, the core's
 * bookkeeping); what a real scheduler costs beyond it is its own.  On
 * null_blk, where the device takes no time, its IOPS are the floor AC's
 * CPU cost is measured against.  Built with the test modules
 * (AC_TEST_MODULES=1), never installed.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <trace/events/block.h>

#include "block/elevator.h"
#include "block/blk-mq-sched.h"

struct floor_data {
	spinlock_t lock;		/* protects fifo */
	struct list_head fifo;
};

static struct floor_data *floor_alloc(struct request_queue *q)
{
	struct floor_data *fd = kzalloc_node(sizeof(*fd), GFP_KERNEL, q->node);

	if (!fd)
		return NULL;
	spin_lock_init(&fd->lock);
	INIT_LIST_HEAD(&fd->fifo);
	return fd;
}

static void floor_attach(struct request_queue *q, struct elevator_queue *eq,
			 struct floor_data *fd)
{
	eq->elevator_data = fd;
	q->elevator = eq;
}

#ifdef AC_HAVE_ALLOC_SCHED_DATA
static void *floor_alloc_sched_data(struct request_queue *q)
{
	return floor_alloc(q);
}

static void floor_free_sched_data(void *data)
{
	kfree(data);
}

static int floor_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	if (!eq->elevator_data)
		return -ENOMEM;
	floor_attach(q, eq, eq->elevator_data);
	return 0;
}

static void floor_exit_free(struct floor_data *fd)
{
}
#elif defined(AC_HAVE_INIT_SCHED_EQ)
static int floor_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	struct floor_data *fd = floor_alloc(q);

	if (!fd)
		return -ENOMEM;
	floor_attach(q, eq, fd);
	return 0;
}

static void floor_exit_free(struct floor_data *fd)
{
	kfree(fd);
}
#else
static int floor_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct floor_data *fd;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	fd = floor_alloc(q);
	if (!fd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	floor_attach(q, eq, fd);
	return 0;
}

static void floor_exit_free(struct floor_data *fd)
{
	kfree(fd);
}
#endif

static void floor_exit_sched(struct elevator_queue *e)
{
	struct floor_data *fd = e->elevator_data;

	WARN_ON_ONCE(!list_empty(&fd->fifo));
	floor_exit_free(fd);
}

static void floor_insert(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			 bool at_head)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;
	struct request *rq, *next;

	spin_lock(&fd->lock);
	list_for_each_entry_safe(rq, next, list, queuelist) {
		list_del_init(&rq->queuelist);
		trace_block_rq_insert(rq);
		if (at_head)
			list_add(&rq->queuelist, &fd->fifo);
		else
			list_add_tail(&rq->queuelist, &fd->fifo);
	}
	spin_unlock(&fd->lock);
}

#ifdef AC_HAVE_INSERT_FLAGS
static void floor_insert_requests(struct blk_mq_hw_ctx *hctx,
				  struct list_head *list, blk_insert_t flags)
{
	floor_insert(hctx, list, flags & BLK_MQ_INSERT_AT_HEAD);
}
#else
static void floor_insert_requests(struct blk_mq_hw_ctx *hctx,
				  struct list_head *list, bool at_head)
{
	floor_insert(hctx, list, at_head);
}
#endif

static struct request *floor_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock(&fd->lock);
	rq = list_first_entry_or_null(&fd->fifo, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		rq->rq_flags |= RQF_STARTED;
	}
	spin_unlock(&fd->lock);
	return rq;
}

static bool floor_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;

	return !list_empty_careful(&fd->fifo);
}

/*
 * Nothing to undo at completion, but elv_register() refuses an elevator
 * without finish_request (-EINVAL and a WARN on 6.12 and 7.2, not on 6.1;
 * the core calls it for every request that went through a scheduler).
 */
static void floor_finish_request(struct request *rq)
{
}

static struct elevator_type floor_iosched = {
	.ops = {
#ifdef AC_HAVE_ALLOC_SCHED_DATA
		.alloc_sched_data	= floor_alloc_sched_data,
		.free_sched_data	= floor_free_sched_data,
#endif
		.init_sched		= floor_init_sched,
		.exit_sched		= floor_exit_sched,
		.insert_requests	= floor_insert_requests,
		.dispatch_request	= floor_dispatch_request,
		.has_work		= floor_has_work,
		.finish_request		= floor_finish_request,
	},
	.elevator_name	= "floor",
	.elevator_owner	= THIS_MODULE,
};

static int __init floor_init(void)
{
	return elv_register(&floor_iosched);
}

static void __exit floor_exit(void)
{
	elv_unregister(&floor_iosched);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_DESCRIPTION("floor: a one-list FIFO elevator, the benchmark's CPU floor (never installed)");
MODULE_LICENSE("GPL");
