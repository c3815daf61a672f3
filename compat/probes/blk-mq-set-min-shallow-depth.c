// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_set_min_shallow_depth() exists.  It came with the change that made
 * blk_mq_alloc_data.shallow_depth a limit on the whole tag bitmap instead of
 * a per-word limit (6.17, 6.16.y), so it marks the new limit_depth meaning.
 */
#include "block/elevator.h"
#include "block/blk-mq.h"
#include "block/blk-mq-sched.h"

void ac_probe(struct request_queue *q);

void ac_probe(struct request_queue *q)
{
	blk_mq_set_min_shallow_depth(q, 1);
}
