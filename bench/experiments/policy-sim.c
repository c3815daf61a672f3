// SPDX-License-Identifier: GPL-2.0
/*
 * AC's policy (ac-policy.c, unchanged) against a closed-loop model of the
 * emulated SSD, in user space: how much of the random-read ceiling the
 * policy itself reaches, with no kernel, CPU or fio in the way.
 *
 * Model (sim/README.md's defaults and timing): units = channels x dies; a
 * read senses on its die for SENSE_US once the die is free, then carries its
 * page out over its channel for XFER_US in the first gap the channel has
 * then, both reserved as the command arrives, as ssdsim does (NO_CHANNELS=1:
 * no channel; OLD_CHANNEL=1: ssdsim before 2026-11-25, a transfer only after
 * the last one booked, gaps never filled); the device holds at most QD commands; the
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
 *   [RUN_DELAY_US=us] [LATE_US=us] [MIX=w] /tmp/policy-sim [NR [QD [unit_depth [policy]]]]
 *
 * MIX=w: w percent of the inserted requests are 4 KiB direct writes (sync
 * writes to AC), as fio's randrw with rwmixread=100-w: the channel carries
 * the page in once both channel and die are free, then the die programs for
 * PROGRAM_US, as ssdsim does.  Reads' and writes' latency percentiles are
 * printed (from insertion into the scheduler: a tag wait is not modelled).
 * WBATCH, WSTARVED, FIFO_BATCH, READS_FIRST, REXPIRE_MS (read_sync_expire)
 * and WEXPIRE_MS (write_sync_expire) override the tunables (the
 * glue's defaults otherwise), WHOLD the glue's write_hold; NO_SPARE=1 keeps
 * reads within unit_depth whatever slots the device has free (before
 * ac_slots_spare()); STATS=1 prints
 * some of the policy's counters.
 *
 * policy: "ac" (the policy's picks), "fifo" (arrival order, any scheduler
 * that only orders), "ideal" (the oldest read of any idle unit, else none),
 * "window" (the oldest request of an idle unit among the WINDOW oldest
 * queued, reads and writes alike: arrival order with a look-ahead).
 *
 * OUTSTANDING=n (more than NR): fio keeps n requests outstanding; those
 * beyond the tags wait for one in submission order (writes also while
 * writes hold 3/4 of the tags, as the glue's async depth), and latency
 * counts from submission.  fio's reaping is not modelled: every
 * completion is seen when it happens.
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
#define PROGRAM_US	50000ULL	/* program_us 500 x time_scale 100 */
/* read_sync_expire and write_sync_expire (REXPIRE_MS, WEXPIRE_MS) */
static u64 read_expire_us = 500000;
static u64 write_expire_us = 2000000;
#define MAXLAT		(1 << 22)
#define SIM_US		60000000ULL	/* 60 s of device time */
#define WARM_US		5000000ULL
#define MAXREQ		4096

struct req {
	u32 unit;
	int w;			/* 1: a write */
	u64 arrival;
	int next;		/* next in its unit's queue, or on the free list */
	int fnext;		/* next in the global FIFO */
	int fprev;
	u64 done;		/* at the device: completion time */
	u64 sent;		/* arrival at the device */
	u64 born;		/* submitted by fio (before any tag wait) */
};
/* OUTSTANDING > NR: submissions waiting for a tag, in order (libaio blocks) */
static u32 outstanding;
#define PEND 8192
static u32 pend_unit[PEND], pend_w[PEND];
static u64 pend_born[PEND];
static u32 pend_h, pend_t, wheld;

static struct req rq[MAXREQ];
static int free_list = -1;
/* scheduler: per unit and direction, and per direction in arrival order */
static int uq_head[2][UNITS], uq_tail[2][UNITS];
static int f_head[2] = { -1, -1 }, f_tail[2] = { -1, -1 };
static u32 mix;					/* percent writes */
static u32 *rlat, nr_rlat;			/* reads' latencies (us) */
static u32 *wlat, nr_wlat;			/* writes' latencies (us) */
static u64 writes_done, wlat_sum;
static int dev[64];				/* at the device */
static u64 die_busy[UNITS], chan_busy[CHANNELS];
static u64 now, done_after_warm, lat_sum, service_sum;
static bool chan_model = true;
static bool backfill = true;	/* a channel fills gaps (OLD_CHANNEL=1: not) */

#define MAXSLOT		512
static u64 slot_s[CHANNELS][MAXSLOT], slot_e[CHANNELS][MAXSLOT];
static int nslot[CHANNELS];

/*
 * Channel @c carries a page at the first time at or after @t that it is
 * free for @len, even before a transfer reserved earlier for a later time,
 * as ssdsim books its channels (chan_take()); returns that time.
 */
static u64 chan_take(u32 c, u64 t, u64 len)
{
	int i, j = 0;

	for (i = 0; i < nslot[c]; i++)
		if (slot_e[c][i] > now) {
			slot_s[c][j] = slot_s[c][i];
			slot_e[c][j++] = slot_e[c][i];
		}
	nslot[c] = j;
	for (i = 0; i < nslot[c]; i++) {
		if (t + len <= slot_s[c][i])
			break;
		if (slot_e[c][i] > t)
			t = slot_e[c][i];
	}
	if (nslot[c] == MAXSLOT)
		abort();
	memmove(&slot_s[c][i + 1], &slot_s[c][i], (nslot[c] - i) * sizeof(u64));
	memmove(&slot_e[c][i + 1], &slot_e[c][i], (nslot[c] - i) * sizeof(u64));
	slot_s[c][i] = t;
	slot_e[c][i] = t + len;
	nslot[c]++;
	return t;
}
static u32 at_dev, held;
static struct ac_occupancy occ;
static struct ac_policy pol;
static u64 rng = 88172645463325252ULL;
static u32 qd_max = 32;
/* from a completion to the command's arrival at the device (queue run) */
static u64 run_delay;
/* from the end of a read's modelled work to its completion (timer, irq) */
static u64 late;
static u32 window = 64;

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

static enum ac_type type_of(int i)
{
	return rq[i].w ? AC_WRITE_SYNC : AC_READ_SYNC;
}

static void insert_one(u32 unit, int w, u64 born)
{
	int i = free_list;

	free_list = rq[i].next;
	rq[i].unit = unit;
	rq[i].w = w;
	rq[i].arrival = now;
	rq[i].born = born;
	wheld += w;
	push(&uq_head[w][rq[i].unit], &uq_tail[w][rq[i].unit], i);
	rq[i].fnext = -1;
	rq[i].fprev = f_tail[w];
	if (f_tail[w] >= 0)
		rq[f_tail[w]].fnext = i;
	else
		f_head[w] = i;
	f_tail[w] = i;
	ac_policy_add(&pol, rq[i].unit, type_of(i));
	held++;
}

static u32 nr_tags;

/* fio submits one; it takes a tag when there is one for it, in order */
static void insert(void)
{
	u32 unit = rnd(UNITS);
	int w = mix && rnd(100) < mix;

	if (!outstanding) {
		insert_one(unit, w, now);
		return;
	}
	pend_unit[pend_t % PEND] = unit;
	pend_w[pend_t % PEND] = w;
	pend_born[pend_t % PEND] = now;
	pend_t++;
	while (pend_h != pend_t && held < nr_tags &&
	       (!pend_w[pend_h % PEND] || wheld < nr_tags * 3 / 4)) {
		insert_one(pend_unit[pend_h % PEND], pend_w[pend_h % PEND],
			   pend_born[pend_h % PEND]);
		pend_h++;
	}
}

/* Take @i off the scheduler's lists (it is its unit's head, or any for fifo). */
static void unqueue(int i)
{
	u32 u = rq[i].unit;
	int w = rq[i].w, *p = &uq_head[w][u], prev = -1;

	while (*p != i) {
		prev = *p;
		p = &rq[*p].next;
	}
	*p = rq[i].next;
	if (uq_tail[w][u] == i)
		uq_tail[w][u] = prev;
	if (rq[i].fprev >= 0)
		rq[rq[i].fprev].fnext = rq[i].fnext;
	else
		f_head[w] = rq[i].fnext;
	if (rq[i].fnext >= 0)
		rq[rq[i].fnext].fprev = rq[i].fprev;
	else
		f_tail[w] = rq[i].fprev;
}

/*
 * ssdsim's reservation at arrival (sim/README.md): the die senses when it is
 * free, then the channel carries the page out in its first free gap; the
 * die is held until its data has left.
 */
static void to_device(int i)
{
	u32 u = rq[i].unit, c = u / DIES;
	u64 at = now + run_delay;
	u64 start = at > die_busy[u] ? at : die_busy[u];
	u64 xfer = start + SENSE_US;

	unqueue(i);
	rq[i].sent = at;
	dev[at_dev++] = i;
	occ.all[u].counter++;
	occ.total.counter++;
	if (rq[i].w) {
		/* the page comes in once channel and die are free, then programs */
		if (chan_model && backfill)
			start = chan_take(c, start, XFER_US);
		else if (chan_model && chan_busy[c] > start)
			start = chan_busy[c];
		if (chan_model && !backfill)
			chan_busy[c] = start + XFER_US;
		die_busy[u] = start + XFER_US + PROGRAM_US;
		rq[i].done = die_busy[u] + late;
		occ.writes[u].counter++;
		return;
	}
	if (chan_model && backfill)
		xfer = chan_take(c, xfer, XFER_US);
	else if (chan_model && chan_busy[c] > xfer)
		xfer = chan_busy[c];
	if (chan_model && !backfill)
		chan_busy[c] = xfer + XFER_US;
	die_busy[u] = xfer + XFER_US;
	rq[i].done = die_busy[u] + late;
}

/* The older of the two FIFO heads, for "fifo" and "ideal". */
static int oldest(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return rq[b].arrival < rq[a].arrival ? b : a;
}

static int pick(const char *mode)
{
	if (!strcmp(mode, "fifo"))
		return oldest(f_head[0], f_head[1]);
	if (!strcmp(mode, "window")) {
		/* the oldest request of an idle unit among the oldest WINDOW */
		int a = f_head[0], b = f_head[1], n;

		for (n = 0; n < (int)window && (a >= 0 || b >= 0); n++) {
			int i = oldest(a, b);

			if (!occ.all[rq[i].unit].counter)
				return i;
			if (i == a)
				a = rq[a].fnext;
			else
				b = rq[b].fnext;
		}
		return -1;
	}
	if (!strcmp(mode, "ideal")) {
		int i, r = -1, w = -1;

		for (i = f_head[0]; i >= 0 && r < 0; i = rq[i].fnext)
			if (!occ.all[rq[i].unit].counter)
				r = i;
		for (i = f_head[1]; i >= 0 && w < 0; i = rq[i].fnext)
			if (!occ.all[rq[i].unit].counter)
				w = i;
		return oldest(r, w);
	}
	{
		struct ac_fifo_heads heads = { 0 };
		struct ac_pick k;
		int w, h;

		for (w = 0; w < 2; w++) {
			enum ac_type t = w ? AC_WRITE_SYNC : AC_READ_SYNC;

			if (f_head[w] < 0)
				continue;
			heads.valid[t] = true;
			heads.expire[t] = rq[f_head[w]].arrival +
					  (w ? write_expire_us : read_expire_us);
			heads.unit[t] = rq[f_head[w]].unit;
		}
		k = ac_policy_pick(&pol, &heads, now);
		w = ac_type_is_write(k.type);
		if (k.kind == AC_PICK_EXPIRED) {
			h = f_head[w];
			ac_policy_dispatched(&pol, rq[h].unit, k.type, true);
			return h;
		}
		if (k.kind == AC_PICK_GROUP) {
			ac_policy_dispatched(&pol, k.group, k.type, false);
			return uq_head[w][k.group];
		}
		return -1;
	}
}

static void dispatch(const char *mode)
{
	while (at_dev < qd_max && (f_head[0] >= 0 || f_head[1] >= 0)) {
		int i = pick(mode);

		if (i < 0)
			break;
		if (strcmp(mode, "ac"))
			ac_policy_remove(&pol, rq[i].unit, type_of(i));
		to_device(i);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static double pct_of(const u32 *lat, u32 n, double q)
{
	return n ? lat[(u32)(q * (n - 1))] / 1000.0 : 0;
}

static double pct(double q)
{
	return pct_of(rlat, nr_rlat, q);
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
		uq_head[0][u] = uq_tail[0][u] = uq_head[1][u] = uq_tail[1][u] = -1;
	if (getenv("REXPIRE_MS"))
		read_expire_us = 1000ULL * atoi(getenv("REXPIRE_MS"));
	if (getenv("WEXPIRE_MS"))
		write_expire_us = 1000ULL * atoi(getenv("WEXPIRE_MS"));
	if (getenv("WINDOW"))
		window = atoi(getenv("WINDOW"));
	if (getenv("MIX"))
		mix = atoi(getenv("MIX"));
	rlat = malloc(MAXLAT * sizeof(*rlat));
	wlat = malloc(MAXLAT * sizeof(*wlat));
	chan_model = !getenv("NO_CHANNELS");
	backfill = !getenv("OLD_CHANNEL");
	if (getenv("RUN_DELAY_US"))
		run_delay = atoi(getenv("RUN_DELAY_US"));
	if (getenv("LATE_US"))
		late = atoi(getenv("LATE_US"));
	ac_policy_init(&pol, 1);
	pol.dies_per_channel = DIES;
	pol.unit_depth = depth;
	pol.unit_writes = 1;		/* the glue's defaults */
	pol.fifo_batch = 16;
	pol.write_batch = getenv("WBATCH") ? atoi(getenv("WBATCH")) : 16;
	pol.writes_starved = getenv("WSTARVED") ? atoi(getenv("WSTARVED")) : 2;
	if (getenv("READS_FIRST"))
		pol.reads_first = atoi(getenv("READS_FIRST"));
	/* as the glue: 3/4 of the tags for writes, less the device's depth */
	pol.write_hold = nr * 3 / 4 - (nr * 3 / 8 < qd ? nr * 3 / 8 : qd);
	if (getenv("WHOLD"))
		pol.write_hold = atoi(getenv("WHOLD"));
	if (getenv("FIFO_BATCH"))
		pol.fifo_batch = atoi(getenv("FIFO_BATCH"));
	pol.occ = &occ;
	pol.dev_slots = qd;	/* as the glue: the device's tags */
	pol.unit_spare = !getenv("NO_SPARE");
	ac_policy_regroup(&pol, CHANNELS);

	nr_tags = nr;
	if (getenv("OUTSTANDING"))
		outstanding = atoi(getenv("OUTSTANDING"));
	while (held < nr)
		insert();
	while (pend_t - pend_h + held < outstanding)
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
		occ.total.counter--;
		if (rq[i].w)
			occ.writes[rq[i].unit].counter--;
		held--;
		wheld -= rq[i].w;
		if (now >= WARM_US && rq[i].w) {
			writes_done++;
			wlat_sum += now - rq[i].born;
			if (nr_wlat < MAXLAT)
				wlat[nr_wlat++] = now - rq[i].born;
		} else if (now >= WARM_US) {
			if (!start)
				start = now;
			done_after_warm++;
			lat_sum += now - rq[i].born;
			service_sum += now - rq[i].sent;
			if (nr_rlat < MAXLAT)
				rlat[nr_rlat++] = now - rq[i].born;
		}
		rq[i].next = free_list;
		free_list = i;
		insert();
		dispatch(mode);
	}
	if (mix) {
		qsort(rlat, nr_rlat, sizeof(*rlat), cmp_u32);
		qsort(wlat, nr_wlat, sizeof(*wlat), cmp_u32);
		printf("%s MIX %u nr_requests %u unit_depth %u: read IOPS %.0f write IOPS %.0f, read mean %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f ms, write mean %.1f p99 %.1f max %.1f ms, expired %llu+%llu\n",
		       mode, mix, nr, depth,
		       done_after_warm * 1e6 / (now - start),
		       writes_done * 1e6 / (now - start),
		       lat_sum / 1000.0 / done_after_warm, pct(0.5), pct(0.9),
		       pct(0.99), pct(1.0),
		       wlat_sum / 1000.0 / (writes_done ? writes_done : 1),
		       pct_of(wlat, nr_wlat, 0.99), pct_of(wlat, nr_wlat, 1.0),
		       (unsigned long long)pol.stats.expired[AC_READ_SYNC],
		       (unsigned long long)pol.stats.expired[AC_WRITE_SYNC]);
		if (getenv("STATS"))
			printf("  write batches %llu starved switches %llu cap holds %llu cap skips %llu cap_expired %llu sync_read_expired %llu expired_waits %llu reads idle %llu busy %llu, write mean latency %.1f ms\n",
			       (unsigned long long)pol.stats.write_batches,
			       (unsigned long long)pol.stats.starved_switches,
			       (unsigned long long)pol.stats.cap_holds,
			       (unsigned long long)pol.stats.cap_skips,
			       (unsigned long long)pol.stats.cap_expired,
			       (unsigned long long)pol.stats.sync_read_expired,
			       (unsigned long long)pol.stats.expired_waits,
			       (unsigned long long)pol.stats.reads_idle,
			       (unsigned long long)pol.stats.reads_busy,
			       wlat_sum / 1000.0 / (writes_done ? writes_done : 1));
		return 0;
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
