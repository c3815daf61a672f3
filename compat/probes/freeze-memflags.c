// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_freeze_queue() returns the memalloc flags that
 * blk_mq_unfreeze_queue() takes back (6.14).
 */
#include <linux/blk-mq.h>

void ac_probe(struct request_queue *q);

void ac_probe(struct request_queue *q)
{
	unsigned int memflags = blk_mq_freeze_queue(q);

	blk_mq_unfreeze_queue(q, memflags);
}
