// SPDX-License-Identifier: GPL-2.0
/*
 * insert_requests() takes blk_insert_t flags (BLK_MQ_INSERT_AT_HEAD) instead
 * of a bool at_head (6.4).
 */
#include "block/elevator.h"
#include "block/blk-mq.h"

static void ac_probe_insert(struct blk_mq_hw_ctx *hctx, struct list_head *list,
			    blk_insert_t flags)
{
}

struct elevator_mq_ops ac_probe_ops = {
	.insert_requests = ac_probe_insert,
};
