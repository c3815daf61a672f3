// SPDX-License-Identifier: GPL-2.0
/*
 * BLK_MQ_F_SHOULD_MERGE exists: drivers opt in to bio merging with it.
 * Present in 6.1 and 6.12; removed in 6.14, where merging is always on.
 */
#include <linux/blk-mq.h>

unsigned int ac_probe_sim_should_merge(void);
unsigned int ac_probe_sim_should_merge(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
