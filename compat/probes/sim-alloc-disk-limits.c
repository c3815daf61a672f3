// SPDX-License-Identifier: GPL-2.0
/*
 * blk_mq_alloc_disk(set, lim, queuedata): the disk's queue_limits are passed
 * at allocation.  Added in 6.9; 6.1 has blk_mq_alloc_disk(set, queuedata)
 * and the blk_queue_*() limit setters instead.
 */
#include <linux/blk-mq.h>

struct gendisk *ac_probe_sim_alloc_disk_limits(struct blk_mq_tag_set *set);
struct gendisk *ac_probe_sim_alloc_disk_limits(struct blk_mq_tag_set *set)
{
	struct queue_limits lim = {
		.logical_block_size = 512,
	};

	return blk_mq_alloc_disk(set, &lim, NULL);
}
