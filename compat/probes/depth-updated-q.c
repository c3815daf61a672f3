// SPDX-License-Identifier: GPL-2.0
/*
 * depth_updated() is called once per queue with the request_queue, after
 * nr_requests changed, instead of per hctx before (6.18, 6.17.y).
 */
#include "block/elevator.h"

static void ac_probe_depth_updated(struct request_queue *q)
{
}

struct elevator_mq_ops ac_probe_ops = {
	.depth_updated = ac_probe_depth_updated,
};
