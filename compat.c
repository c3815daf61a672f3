// SPDX-License-Identifier: GPL-2.0
/*
 * AC I/O scheduler: the parts of the elevator interface that differ between
 * the kernels AC builds for, kept out of the glue (ac-iosched.c).  Which
 * variant is compiled comes from the compile probes (compat/probes/, the
 * generated ac-compat.h), never from a version number.
 *
 *   - how the tag share of async requests is limited (limit_depth and
 *     depth_updated, and what shallow_depth means);
 *   - how init_sched gets its elevator_queue and scheduler data;
 *   - the prototype of insert_requests.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sbitmap.h>

#include "block/elevator.h"
#include "block/blk-mq.h"
#include "block/blk-mq-sched.h"

#include "ac-iosched.h"

#if defined(AC_HAVE_Q_ASYNC_DEPTH) && !defined(AC_HAVE_DEPTH_UPDATED_Q)
#error "q->async_depth without depth_updated(q): unknown kernel API"
#endif

/*
 * Writes and async requests may take at most 3/4 of the scheduler tags, so
 * that a flood of them (writeback, readahead) always leaves tags for sync
 * reads, the requests someone is waiting for.  Kyber keeps the same share.
 */
#define AC_ASYNC_DEPTH_PERCENT	75

/*
 * Every limit_depth below looks only at data->q: before "block: Call
 * .limit_depth() after .hctx has been set" (6.11, and stable kernels before
 * its backport) the core calls it with data->hctx not yet set.
 */
#ifdef AC_HAVE_Q_ASYNC_DEPTH
/*
 * The queue has its own async_depth (/sys/block/<dev>/queue/async_depth), a
 * whole-bitmap request count.
 */
void ac_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	if (ac_op_depth_limited(opf))
		data->shallow_depth = data->q->async_depth;
}

void ac_depth_updated(struct request_queue *q)
{
	blk_mq_set_min_shallow_depth(q, q->async_depth);
}

unsigned int ac_async_depth(struct ac_data *ad, const char **mode)
{
	*mode = "queue";
	return READ_ONCE(ad->q->async_depth);
}

unsigned int ac_async_requests(struct ac_data *ad)
{
	return READ_ONCE(ad->q->async_depth);
}

/*
 * Our share, unless the queue already has a limit of its own: one the user
 * wrote to queue/async_depth survives a switch to AC and the
 * re-initialisation a change of hardware queues does.  The core's value
 * (no limit) is the tag set's depth, which it sets at queue creation and
 * when the queue goes to "none", or at least nr_requests.
 */
void ac_init_depth(struct request_queue *q)
{
	unsigned int share = max(q->nr_requests * AC_ASYNC_DEPTH_PERCENT / 100, 1U);

	if (!q->async_depth || q->async_depth >= q->nr_requests ||
	    q->async_depth == q->tag_set->queue_depth)
		q->async_depth = share;
	ac_depth_updated(q);
}

int ac_compat_init(void)
{
	return 0;
}
#else
/*
 * Before q->async_depth, the scheduler sets data->shallow_depth itself, and
 * its meaning changed: it was a limit per sbitmap word (1 << sb.shift bits),
 * then became a limit on the whole bitmap ("lib/sbitmap: convert
 * shallow_depth from one word to the whole sbitmap", 6.17).  That change was
 * backported to stable kernels without any change to a prototype or a
 * structure (Debian's 6.12.95 has it), so no compile probe can see it:
 * blk_mq_set_min_shallow_depth() marks it only where it came with the
 * change.  Elsewhere module init measures it on a private sbitmap_queue.
 */
#ifdef AC_HAVE_BLK_MQ_SET_MIN_SHALLOW_DEPTH
static const bool ac_shallow_per_word;

int ac_compat_init(void)
{
	return 0;
}
#else
static bool ac_shallow_per_word __read_mostly;

int ac_compat_init(void)
{
	/* 4 words of 16 bits, at most 2 bits each or 2 bits in all. */
	const unsigned int depth = 64, shift = 4, shallow = 2;
	struct sbitmap_queue sbq;
	unsigned int got = 0;
	int ret;

	ret = sbitmap_queue_init_node(&sbq, depth, shift, false, GFP_KERNEL,
				      NUMA_NO_NODE);
	if (ret)
		return ret;
	sbitmap_queue_min_shallow_depth(&sbq, shallow);
	while (got < depth && sbitmap_queue_get_shallow(&sbq, shallow) >= 0)
		got++;
	sbitmap_queue_free(&sbq);

	ac_shallow_per_word = got > shallow;
	pr_debug("ac: shallow_depth limits %s\n",
		 ac_shallow_per_word ? "each sbitmap word" : "the whole bitmap");
	return 0;
}
#endif

/* The shallow_depth that gives async requests their share of @bt. */
static unsigned int ac_async_shallow_depth(struct sbitmap_queue *bt)
{
	unsigned int bits = bt->sb.depth;

	/*
	 * Per word: a share of each full word, or of the only word when the
	 * bitmap was resized below one word (the shift stays as allocated).
	 */
	if (ac_shallow_per_word)
		bits = min(bits, 1U << bt->sb.shift);
	return max(bits * AC_ASYNC_DEPTH_PERCENT / 100, 1U);
}

/*
 * The limit is computed when the tags are set up or resized
 * (depth_updated, init_hctx) and kept per queue, as kyber does: every
 * hardware queue's scheduler tags have the same depth.  0 until then: no
 * limit.
 */
void ac_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	unsigned int depth;

	if (!ac_op_depth_limited(opf))
		return;
	depth = READ_ONCE(ac_queue_data(data->q)->async_depth);
	if (depth)
		data->shallow_depth = depth;
}

unsigned int ac_async_depth(struct ac_data *ad, const char **mode)
{
	*mode = ac_shallow_per_word ? "word" : "bitmap";
	return READ_ONCE(ad->async_depth);
}

/* Our share of the whole bitmap, whichever way shallow_depth counts. */
unsigned int ac_async_requests(struct ac_data *ad)
{
	return READ_ONCE(ad->q->nr_requests) * AC_ASYNC_DEPTH_PERCENT / 100;
}

static void ac_hctx_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);
	struct sbitmap_queue *bt;
	unsigned int depth;

	if (!hctx->sched_tags)
		return;
	bt = &hctx->sched_tags->bitmap_tags;
	depth = ac_async_shallow_depth(bt);
	sbitmap_queue_min_shallow_depth(bt, depth);
	WRITE_ONCE(ad->async_depth, depth);
}

#ifdef AC_HAVE_DEPTH_UPDATED_Q
void ac_depth_updated(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		ac_hctx_depth_updated(hctx);
}

void ac_init_depth(struct request_queue *q)
{
	ac_depth_updated(q);
}
#else
void ac_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	ac_hctx_depth_updated(hctx);
}

/* Called by blk_mq_init_sched() after init_sched, once the tags exist. */
int ac_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	ac_hctx_depth_updated(hctx);
	return 0;
}

void ac_init_depth(struct request_queue *q)
{
}
#endif /* AC_HAVE_DEPTH_UPDATED_Q */
#endif /* AC_HAVE_Q_ASYNC_DEPTH */

#ifdef AC_HAVE_ALLOC_SCHED_DATA
/*
 * The core allocates the scheduler data before freezing the queue and hands
 * it to init_sched through eq->elevator_data; it frees it with
 * ac_free_sched_data() after exit_sched, or if the switch fails.
 */
void *ac_alloc_sched_data(struct request_queue *q)
{
	return ac_data_alloc(q);
}

void ac_free_sched_data(void *data)
{
	ac_data_free(data);
}

int ac_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	struct ac_data *ad = eq->elevator_data;

	if (WARN_ON_ONCE(!ad))
		return -ENOMEM;
	ac_attach(q, eq, ad);
	return 0;
}
#elif defined(AC_HAVE_INIT_SCHED_EQ)
/* The core allocates the elevator_queue; init_sched runs frozen. */
int ac_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	struct ac_data *ad = ac_data_alloc(q);

	if (!ad)
		return -ENOMEM;
	ac_attach(q, eq, ad);
	return 0;
}
#else
int ac_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq;
	struct ac_data *ad;

	eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;

	ad = ac_data_alloc(q);
	if (!ad) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	ac_attach(q, eq, ad);
	return 0;
}
#endif

/* With alloc_sched_data the core frees the data, after exit_sched. */
void ac_exit_free(struct ac_data *ad)
{
#ifndef AC_HAVE_ALLOC_SCHED_DATA
	ac_data_free(ad);
#endif
}

#ifdef AC_HAVE_INSERT_FLAGS
void ac_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			blk_insert_t flags)
{
	ac_insert_list(hctx, list, flags & BLK_MQ_INSERT_AT_HEAD);
}
#else
void ac_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			bool at_head)
{
	ac_insert_list(hctx, list, at_head);
}
#endif
