// SPDX-License-Identifier: GPL-2.0
/*
 * How each kernel limits the tags of async requests, chosen by the compile
 * probes (ac-compat.h).  Writes and async reads take at most 3/4 of the
 * tags, as kyber's, so that a flood of them leaves tags for sync reads.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/sbitmap.h>

#include "block/elevator.h"
#include "block/blk-mq.h"
#include "block/blk-mq-sched.h"

#include "ac-iosched.h"

#define AC_ASYNC_DEPTH_PERCENT	75

#if defined(AC_HAVE_Q_ASYNC_DEPTH) && !defined(AC_HAVE_DEPTH_UPDATED_Q)
#error "q->async_depth without depth_updated(q): unknown kernel API"
#endif

#ifdef AC_HAVE_Q_ASYNC_DEPTH
/* The queue has its own async_depth, a whole-bitmap request count. */
int ac_compat_init(void)
{
	return 0;
}

unsigned int ac_limit_async(struct request_queue *q)
{
	return q->async_depth;
}

void ac_depth_update(struct request_queue *q)
{
	blk_mq_set_min_shallow_depth(q, q->async_depth);
}

unsigned int ac_async_depth(struct ac_data *ad, const char **mode)
{
	*mode = "queue";
	return READ_ONCE(ad->q->async_depth);
}

/*
 * Our share, unless the queue has a limit of its own: one the user wrote
 * to queue/async_depth survives a switch to AC.  The core's "no limit" is
 * the tag set's depth, or at least nr_requests.
 */
void ac_depth_init(struct request_queue *q)
{
	unsigned int share = max(q->nr_requests * AC_ASYNC_DEPTH_PERCENT / 100, 1U);

	if (!q->async_depth || q->async_depth >= q->nr_requests ||
	    q->async_depth == q->tag_set->queue_depth)
		q->async_depth = share;
	ac_depth_update(q);
}
#else
/*
 * Before q->async_depth the scheduler sets shallow_depth itself, and its
 * meaning changed from a limit per sbitmap word to one on the whole bitmap
 * ("lib/sbitmap: convert shallow_depth from one word to the whole
 * sbitmap").  Stable kernels took that change without any prototype
 * change, so no compile probe can see it; blk_mq_set_min_shallow_depth()
 * marks it only where it came with it.  Elsewhere module init measures it
 * on a private sbitmap_queue.
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
	/* 4 words of 16 bits: at most 2 bits each, or 2 bits in all */
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
	return 0;
}
#endif

/* Kept per queue, as kyber does: every hctx's tags have the same depth. */
unsigned int ac_limit_async(struct request_queue *q)
{
	return READ_ONCE(ac_queue_data(q)->async_depth);
}

unsigned int ac_async_depth(struct ac_data *ad, const char **mode)
{
	*mode = ac_shallow_per_word ? "word" : "bitmap";
	return READ_ONCE(ad->async_depth);
}

void ac_hctx_depth_update(struct blk_mq_hw_ctx *hctx)
{
	struct ac_data *ad = ac_queue_data(hctx->queue);
	struct sbitmap_queue *bt;
	unsigned int bits;

	if (!hctx->sched_tags)
		return;
	bt = &hctx->sched_tags->bitmap_tags;
	bits = bt->sb.depth;
	/* per word: a share of each full word, or of the only one */
	if (ac_shallow_per_word)
		bits = min(bits, 1U << bt->sb.shift);
	bits = max(bits * AC_ASYNC_DEPTH_PERCENT / 100, 1U);
	sbitmap_queue_min_shallow_depth(bt, bits);
	WRITE_ONCE(ad->async_depth, bits);
}

#ifdef AC_HAVE_DEPTH_UPDATED_Q
void ac_depth_update(struct request_queue *q)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(q, hctx, i)
		ac_hctx_depth_update(hctx);
}

void ac_depth_init(struct request_queue *q)
{
	ac_depth_update(q);
}
#else
/* init_hctx sets the depth once the tags exist */
void ac_depth_init(struct request_queue *q)
{
}
#endif
#endif /* AC_HAVE_Q_ASYNC_DEPTH */
