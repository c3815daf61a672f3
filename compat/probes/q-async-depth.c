// SPDX-License-Identifier: GPL-2.0
/*
 * The queue itself has an async_depth limit (/sys/block/X/queue/async_depth,
 * 7.0); schedulers throttle async requests to it.
 */
#include <linux/blkdev.h>

unsigned int ac_probe(struct request_queue *q);

unsigned int ac_probe(struct request_queue *q)
{
	return q->async_depth;
}
