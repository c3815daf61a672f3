// SPDX-License-Identifier: GPL-2.0
/*
 * init_sched() receives the elevator_queue that the core allocated, instead
 * of the elevator_type (6.17, backported to 6.16.y).
 */
#include "block/elevator.h"

static int ac_probe_init_sched(struct request_queue *q, struct elevator_queue *eq)
{
	return 0;
}

struct elevator_mq_ops ac_probe_ops = {
	.init_sched = ac_probe_init_sched,
};
