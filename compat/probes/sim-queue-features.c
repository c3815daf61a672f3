// SPDX-License-Identifier: GPL-2.0
/*
 * struct queue_limits has .features (BLK_FEAT_WRITE_CACHE, BLK_FEAT_FUA;
 * non-rotational unless BLK_FEAT_ROTATIONAL).  Added in 6.11; 6.1 uses
 * blk_queue_write_cache() and QUEUE_FLAG_NONROT.
 */
#include <linux/blkdev.h>

void ac_probe_sim_queue_features(struct queue_limits *lim);
void ac_probe_sim_queue_features(struct queue_limits *lim)
{
	lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	lim->features &= ~BLK_FEAT_ROTATIONAL;
}
