// SPDX-License-Identifier: GPL-2.0
/*
 * AC's policy (ac-policy.c, unchanged) against a closed-loop model of the
 * emulated SSD, in user space: how much of the random-read ceiling the
 * policy itself reaches, with no kernel, CPU or fio in the way.
 *
 * Model (sim/README.md's defaults and timing): units = channels x dies; a
 * read senses on its die for SENSE_US once the die is free, then carries its
 * page out over its channel for XFER_US once the channel is free, both
 * reserved as the command arrives, with no back-filling, as ssdsim does
 * (NO_CHANNELS=1: no channel); the device holds at most QD commands; the
 * scheduler holds at most NR requests, queued and at the device together
 * (its tags); fio keeps more outstanding than that, so a new uniformly
 * random read is inserted the moment a request completes.  Dispatch runs
 * after every completion while the device has room, as blk-mq runs the
 * queue (RUN_DELAY_US later, if set; LATE_US delays each completion after
 * the read's modelled end, as a late timer would).  The glue's part is
 * copied in its rules, not its code: FIFO per type with deadlines, a unit's
 * reads in arrival order, occupancy counted at dispatch and uncounted at
 * completion.
 *
 *   cc -O2 -Wall -Wextra -I tests/unit -I . bench/experiments/policy-sim.c \
 *      ac-policy.c -o /tmp/policy-sim
 *   [RUN_DELAY_US=us] [LATE_US=us] /tmp/policy-sim [NR [QD [unit_depth [policy]]]]
 *
 * policy: "ac" (the policy's picks), "fifo" (arrival order, any scheduler
 * that only orders), "ideal" (the oldest read of any idle unit, else none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac-policy.h"

#define CHANNELS	8
#define DIES		4
#define UNITS		(CHANNELS * DIES)
#define SENSE_US	5000ULL		/* read_us 50 x time_scale 100 */
#define XFER_US		1000ULL		/* xfer_us 10 x time_scale 100 */
#define READ_US		(SENSE_US + XFER_US)
#define EXPIRE_US	500000ULL	/* read_sync_expire 500 ms */
#define SIM_US		60000000ULL	/* 60 s of device time */
#define WARM_US		5000000ULL
#define MAXREQ		4096

struct req {
	u32 unit;
	u64 arrival;
	int next;		/* next in its unit's queue, or on the free list */
	int fnext;		/* next in the global FIFO */
	int fprev;
	u64 done;		/* at the device: completion time */
	u64 sent;		/* arrival at the device */
};

static struct req rq[MAXREQ];
static int free_list = -1;
static int uq_head[UNITS], uq_tail[UNITS];	/* scheduler, per unit */
static int f_head = -1, f_tail = -1;		/* scheduler, arrival order */
static int dev[64];				/* at the device */
static u64 die_busy[UNITS], chan_busy[CHANNELS];
static bool chan_model = true;
static u32 at_dev, held;
static struct ac_occupancy occ;
static struct ac_policy pol;
static u64 rng = 88172645463325252ULL;
static u64 now, done_after_warm, lat_sum, service_sum;
static u32 qd_max = 32;
/* from a completion to the command's arrival at the device (queue run) */
static u64 run_delay;
/* from the end of a read's modelled work to its completion (timer, irq) */
static u64 late;

static u32 rnd(u32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void push(int *h, int *t, int i)
{
	rq[i].next = -1;
	if (*t >= 0)
		rq[*t].next = i;
	else
		*h = i;
	*t = i;
}

static void insert(void)
{
	int i = free_list;

	free_list = rq[i].next;
	rq[i].unit = rnd(UNITS);
	rq[i].arrival = now;
	push(&uq_head[rq[i].unit], &uq_tail[rq[i].unit], i);
	rq[i].fnext = -1;
	rq[i].fprev = f_tail;
	if (f_tail >= 0)
		rq[f_tail].fnext = i;
	else
		f_head = i;
	f_tail = i;
	ac_policy_add(&pol, rq[i].unit, AC_READ_SYNC);
	held++;
}

/* Take @i off the scheduler's lists (it is its unit's head, or any for fifo). */
static void unqueue(int i)
{
	u32 u = rq[i].unit;
	int *p = &uq_head[u], prev = -1;

	while (*p != i) {
		prev = *p;
		p = &rq[*p].next;
	}
	*p = rq[i].next;
	if (uq_tail[u] == i)
		uq_tail[u] = prev;
	if (rq[i].fprev >= 0)
		rq[rq[i].fprev].fnext = rq[i].fnext;
	else
		f_head = rq[i].fnext;
	if (rq[i].fnext >= 0)
		rq[rq[i].fnext].fprev = rq[i].fprev;
	else
		f_tail = rq[i].fprev;
}

/*
 * ssdsim's reservation at arrival (sim/README.md): the die senses when it is
 * free, then the channel carries the page out when it is free; the die is
 * held until its data has left.  No back-filling.
 */
static void to_device(int i)
{
	u32 u = rq[i].unit, c = u / DIES;
	u64 at = now + run_delay;
	u64 start = at > die_busy[u] ? at : die_busy[u];
	u64 xfer = start + SENSE_US;

	unqueue(i);
	if (chan_model && chan_busy[c] > xfer)
		xfer = chan_busy[c];
	if (chan_model)
		chan_busy[c] = xfer + XFER_US;
	die_busy[u] = xfer + XFER_US;
	rq[i].done = die_busy[u] + late;
	rq[i].sent = at;
	dev[at_dev++] = i;
	occ.all[u].counter++;
}

static int pick(const char *mode)
{
	if (!strcmp(mode, "fifo"))
		return f_head;
	if (!strcmp(mode, "ideal")) {
		int i;

		for (i = f_head; i >= 0; i = rq[i].fnext)
			if (!occ.all[rq[i].unit].counter)
				return i;
		return -1;
	}
	{
		struct ac_fifo_heads heads = { 0 };
		struct ac_pick k;

		if (f_head >= 0) {
			heads.valid[AC_READ_SYNC] = true;
			heads.expire[AC_READ_SYNC] = rq[f_head].arrival + EXPIRE_US;
		}
		k = ac_policy_pick(&pol, &heads, now);
		if (k.kind == AC_PICK_EXPIRED) {
			ac_policy_dispatched(&pol, rq[f_head].unit, AC_READ_SYNC, true);
			return f_head;
		}
		if (k.kind == AC_PICK_GROUP) {
			ac_policy_dispatched(&pol, k.group, k.type, false);
			return uq_head[k.group];
		}
		return -1;
	}
}

static void dispatch(const char *mode)
{
	while (at_dev < qd_max && f_head >= 0) {
		int i = pick(mode);

		if (i < 0)
			break;
		if (strcmp(mode, "ac"))
			ac_policy_remove(&pol, rq[i].unit, AC_READ_SYNC);
		to_device(i);
	}
}

int main(int argc, char **argv)
{
	u32 nr = argc > 1 ? atoi(argv[1]) : 256;
	u32 qd = argc > 2 ? atoi(argv[2]) : 32;
	u32 depth = argc > 3 ? atoi(argv[3]) : 1;
	const char *mode = argc > 4 ? argv[4] : "ac";
	u64 start;
	int i;
	u32 u;

	qd_max = qd < 64 ? qd : 64;
	for (i = MAXREQ - 1; i >= 0; i--) {
		rq[i].next = free_list;
		free_list = i;
	}
	for (u = 0; u < UNITS; u++)
		uq_head[u] = uq_tail[u] = -1;
	chan_model = !getenv("NO_CHANNELS");
	if (getenv("RUN_DELAY_US"))
		run_delay = atoi(getenv("RUN_DELAY_US"));
	if (getenv("LATE_US"))
		late = atoi(getenv("LATE_US"));
	ac_policy_init(&pol, 1);
	pol.dies_per_channel = DIES;
	pol.unit_depth = depth;
	pol.occ = &occ;
	ac_policy_regroup(&pol, CHANNELS);

	while (held < nr)
		insert();
	dispatch(mode);
	start = 0;
	while (now < SIM_US) {
		u32 k, first = 0;

		if (!at_dev) {
			fprintf(stderr, "stall: %u held, nothing at the device\n", held);
			return 1;
		}
		for (k = 1; k < at_dev; k++)
			if (rq[dev[k]].done < rq[dev[first]].done)
				first = k;
		i = dev[first];
		dev[first] = dev[--at_dev];
		now = rq[i].done;
		occ.all[rq[i].unit].counter--;
		held--;
		if (now >= WARM_US) {
			if (!start)
				start = now;
			done_after_warm++;
			lat_sum += now - rq[i].arrival;
			service_sum += now - rq[i].sent;
		}
		rq[i].next = free_list;
		free_list = i;
		insert();
		dispatch(mode);
	}
	printf("%s nr_requests %u unit_depth %u: %.3f of the ceiling, mean latency %.1f ms, at the device %.2f ms (dies busy %.3f), expired %llu\n",
	       mode, nr, depth,
	       done_after_warm * (double)READ_US / UNITS / (now - start),
	       lat_sum / 1000.0 / done_after_warm,
	       service_sum / 1000.0 / done_after_warm,
	       service_sum / (double)UNITS / (now - start),
	       (unsigned long long)pol.stats.expired[AC_READ_SYNC]);
	return 0;
}
