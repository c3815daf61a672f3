// SPDX-License-Identifier: GPL-2.0
/*
 * The elevator ops have alloc_sched_data/free_sched_data, run before the
 * queue is frozen (6.19, backported to 6.18.y).
 */
#include "block/elevator.h"

static void *ac_probe_alloc(struct request_queue *q)
{
	return NULL;
}

static void ac_probe_free(void *data)
{
}

struct elevator_mq_ops ac_probe_ops = {
	.alloc_sched_data = ac_probe_alloc,
	.free_sched_data = ac_probe_free,
};
