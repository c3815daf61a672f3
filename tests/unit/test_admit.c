// SPDX-License-Identifier: GPL-2.0
/*
 * Write admission (ac_admit_update()) against an emulated device that works
 * on k writes at once, each taking s us: with h writes at the device a
 * write takes s * max(1, h / k), times some noise.  A writer keeps w writes
 * outstanding; the bound lets min(w, limit) reach the device and holds the
 * rest back.  Checked:
 *
 * - the steps: a bound of 1 grows one a window while the device keeps up,
 *   stops one past k, and drops to what the device worked on when it is far
 *   above k;
 * - it never grows past what the writer asks (plus the one that tells);
 * - over random devices (k 1..128, s 50 us..20 ms, each write's latency
 *   off by up to 20 % either way) the bound stays within [1, max];
 *   outside its probes it settles: within [0.5 k, 1.5 k + 2] in every
 *   window, and within [0.8 k, 1.25 k + 2] on average;
 * - when the device slows down (s doubles) the bound finds k again: the
 *   probe takes base afresh.  Without the probe it would not.
 *
 * A read-latency target (ac_admit_reads()) against reads that are late
 * with a small chance while at most r writes are at the device, and with a
 * larger one above r:
 *
 * - the steps: grow by one, hold, halve, never below 1 nor above max;
 * - over random r, noise and lateness, the bound min(limit, ceiling)
 *   passes r + 1 in at most one window in twenty and keeps a mean of at
 *   least 0.6 r;
 * - a target no read meets keeps the bound at 1, not 0;
 * - with Vegas's bound beside it the lower of the two rules: below k
 *   when r is, near k when r is far above.
 */
#include <stdlib.h>

#include "harness.h"
#include "ac-policy.h"

struct dev {
	u32 k;		/* writes at once */
	u32 s;		/* us each */
	u32 w;		/* writes the writer keeps outstanding */
	u32 noise;	/* percent, either way */
	u32 max;	/* command slots */
};

/* The mean of @n latencies @v, each off by up to @pct percent either way. */
static u32 noisy(u32 v, u32 pct, u32 n)
{
	u64 sum = 0;
	u32 i;

	if (!pct)
		return v;
	for (i = 0; i < n; i++)
		sum += (u64)v * (100 - pct + (u32)(rand() % (2 * pct + 1)));
	return sum / n / 100;
}

/* One window at @cap: what the glue would report. */
static void window_at(struct ac_admit *a, const struct dev *d, u32 cap)
{
	u32 held = cap < d->w ? cap : d->w;
	u64 lat = d->s;

	if (held > d->k)
		lat = lat * held / d->k;
	ac_admit_update(a, noisy(lat, d->noise, ac_admit_window(a)), held * 16,
			d->w > cap, d->max);
}

/* One window at the bound. */
static void window(struct ac_admit *a, const struct dev *d)
{
	window_at(a, d, a->limit);
}

/* @windows windows; the bound stays within [1, max] throughout. */
static void run(struct ac_admit *a, const struct dev *d, int windows)
{
	while (windows--) {
		window(a, d);
		CHECK_MSG(a->limit >= 1 && a->limit <= d->max,
			  "limit %u out of [1, %u]", a->limit, d->max);
	}
}

/* A device of 1..@k writes at once, 50..49 + @s us each, noisy. */
static struct dev random_dev(u32 k, u32 s)
{
	return (struct dev){ .k = 1 + rand() % k, .s = 50 + rand() % s,
			     .w = 100000, .noise = 20, .max = 256 };
}

/* Outside a probe, the bound is within [0.5 k, 1.5 k + 2]. */
static bool near(const struct ac_admit *a, u32 k)
{
	return a->probe || (a->limit * 2 >= k && a->limit * 2 <= k * 3 + 4);
}

/*
 * @windows more windows, each near k; on average, outside the probes,
 * within [0.8 k, 1.25 k + 2].
 */
static void check_settled(struct ac_admit *a, const struct dev *d, int n,
			  int windows)
{
	u64 sum = 0, cnt = 0;

	while (windows--) {
		run(a, d, 1);
		CHECK_MSG(near(a, d->k), "device %d: k %u s %u: limit %u",
			  n, d->k, d->s, a->limit);
		if (!a->probe) {
			sum += a->limit;
			cnt++;
		}
	}
	CHECK_MSG(cnt && sum * 10 >= d->k * 8 * cnt &&
		  sum * 4 <= (d->k * 5 + 8) * cnt,
		  "device %d: k %u s %u: mean limit %llu/%llu", n, d->k, d->s,
		  (unsigned long long)sum, (unsigned long long)cnt);
}

static void test_admit_steps(void)
{
	struct dev d = { .k = 4, .s = 1000, .w = 1000, .max = 64 };
	struct ac_admit a;
	u32 i;

	ac_admit_init(&a);
	CHECK_EQ(a.limit, 1);
	CHECK_EQ(ac_admit_window(&a), 4);
	for (i = 1; i <= 4; i++) {
		window(&a, &d);
		CHECK_EQ(a.limit, i + 1);
		CHECK_EQ(a.base_us, 1000);
	}
	/* 5 at once: latency 1.25 base, one queued: held */
	window(&a, &d);
	CHECK_EQ(a.limit, 5);
	run(&a, &d, 5);
	CHECK_EQ(a.limit, 5);

	/* far above: down to what it worked on */
	a.limit = 32;
	window(&a, &d);
	CHECK_EQ(a.limit, 4);
	CHECK_EQ(ac_admit_window(&a), 4);
	a.limit = 40;
	CHECK_EQ(ac_admit_window(&a), 40);

	/* the ceiling */
	d.k = 100;
	d.max = 8;
	a.limit = 8;
	window(&a, &d);
	CHECK_EQ(a.limit, 8);
}

static void test_admit_probe_steps(void)
{
	struct dev d = { .k = 8, .s = 1000, .w = 1000, .max = 64 };
	struct ac_admit a;
	u32 i;

	ac_admit_init(&a);
	for (i = 0; i < AC_ADMIT_PROBE_EVERY - 1; i++)
		window(&a, &d);
	CHECK_EQ(a.probe, 0);
	CHECK_EQ(a.limit, 9);
	window(&a, &d);
	/* the probe: half the bound for two windows, then back */
	CHECK_EQ(a.probe, 2);
	CHECK_EQ(a.limit, 4);
	window(&a, &d);
	CHECK_EQ(a.limit, 4);
	window(&a, &d);
	CHECK_EQ(a.probe, 0);
	CHECK_EQ(a.limit, 9);
	CHECK_EQ(a.base_us, 1000);
}

static void test_admit_writer_asks_less(void)
{
	struct dev d = { .k = 32, .s = 1000, .w = 3, .max = 64 };
	struct ac_admit a;
	int i;

	ac_admit_init(&a);
	for (i = 0; i < 200; i++) {
		window(&a, &d);
		CHECK_MSG(a.limit <= d.w + 1, "limit %u, writer asks %u",
			  a.limit, d.w);
	}
	/* then it asks more: the bound follows */
	d.w = 1000;
	run(&a, &d, 200);
	check_settled(&a, &d, 0, 100);
}

static void test_admit_random_devices(void)
{
	int n;

	srand(4242);
	for (n = 0; n < 300; n++) {
		struct dev d = random_dev(128, 20000);
		struct ac_admit a;

		ac_admit_init(&a);
		run(&a, &d, 400);
		check_settled(&a, &d, n, 200);
	}
}

static void test_admit_device_slows_down(void)
{
	int n;

	srand(77);
	for (n = 0; n < 100; n++) {
		struct dev d = random_dev(64, 5000);
		struct ac_admit a;

		ac_admit_init(&a);
		run(&a, &d, 300);
		d.s *= 2;
		run(&a, &d, 300);
		check_settled(&a, &d, n, 100);
	}
}

/* The bound the glue applies with a target. */
static u32 bound(const struct ac_admit *a)
{
	return a->ceiling < a->limit ? a->ceiling : a->limit;
}

/* A window of reads, each late with @pct_knee percent above @r, else @bg. */
static void reads(struct ac_admit *a, u32 r, u32 bg, u32 pct_knee, u32 max)
{
	u32 pct = bound(a) > r ? bg + pct_knee : bg, late = 0, i;

	for (i = 0; i < AC_ADMIT_READS; i++)
		late += (u32)(rand() % 1000) < pct * 10;
	ac_admit_reads(a, late, max);
	CHECK_MSG(a->ceiling >= 1 && a->ceiling <= max,
		  "ceiling %u out of [1, %u]", a->ceiling, max);
}

static void test_admit_read_steps(void)
{
	struct ac_admit a;

	ac_admit_init(&a);
	CHECK_EQ(a.ceiling, 1);
	a.limit = 8;
	ac_admit_reads(&a, 0, 5);
	CHECK_EQ(a.ceiling, 2);
	ac_admit_reads(&a, 1, 5);
	CHECK_EQ(a.ceiling, 3);
	ac_admit_reads(&a, 2, 5);	/* late but within one in ten */
	CHECK_EQ(a.ceiling, 3);
	ac_admit_reads(&a, 3, 5);
	CHECK_EQ(a.ceiling, 3);
	ac_admit_reads(&a, 4, 5);
	CHECK_EQ(a.ceiling, 1);
	ac_admit_reads(&a, AC_ADMIT_READS, 5);
	CHECK_EQ(a.ceiling, 1);
	ac_admit_reads(&a, 0, 5);
	ac_admit_reads(&a, 0, 5);
	ac_admit_reads(&a, 0, 5);
	ac_admit_reads(&a, 0, 5);
	ac_admit_reads(&a, 0, 5);
	CHECK_EQ(a.ceiling, 5);		/* max */
	/* halved from the lower of ceiling and Vegas's bound */
	a.limit = 4;
	ac_admit_reads(&a, 4, 5);
	CHECK_EQ(a.ceiling, 2);
}

static void test_admit_read_target_random(void)
{
	int n, w;

	srand(9001);
	for (n = 0; n < 300; n++) {
		u32 r = 1 + rand() % 24, bg = rand() % 4;
		u32 knee = 20 + rand() % 81;
		struct ac_admit a;
		u64 sum = 0;
		u32 over = 0;

		ac_admit_init(&a);
		a.limit = 64;
		for (w = 0; w < 200; w++)
			reads(&a, r, bg, knee, 64);
		for (w = 0; w < 400; w++) {
			reads(&a, r, bg, knee, 64);
			over += bound(&a) > r + 1;
			sum += bound(&a);
		}
		CHECK_MSG(over * 20 <= 400 && sum * 10 >= (u64)r * 6 * 400,
			  "r %u bg %u knee %u: %u over, mean bound %llu/400",
			  r, bg, knee, over, (unsigned long long)sum);
	}
}

static void test_admit_read_target_unmet(void)
{
	struct ac_admit a;
	int w;

	ac_admit_init(&a);
	a.limit = 16;
	for (w = 0; w < 100; w++) {
		ac_admit_reads(&a, AC_ADMIT_READS, 64);
		CHECK_EQ(bound(&a), 1);
	}
}

/*
 * Vegas's windows and the reads' windows interleaved, as in the glue: the
 * device gets min(limit, ceiling) writes.
 */
static u64 both(struct ac_admit *a, const struct dev *d, u32 r, int windows)
{
	u64 sum = 0;
	int w;

	for (w = 0; w < windows; w++) {
		window_at(a, d, bound(a));
		reads(a, r, 1, 50, d->max);
		sum += bound(a);
	}
	return sum;
}

static void test_admit_read_target_with_vegas(void)
{
	struct dev d = { .k = 8, .s = 1000, .w = 100000, .noise = 10,
			 .max = 64 };
	struct ac_admit a;
	u64 sum;

	srand(31337);
	ac_admit_init(&a);
	both(&a, &d, 3, 300);
	sum = both(&a, &d, 3, 300);
	CHECK_MSG(sum <= 4 * 300, "r 3, k 8: mean bound %llu/300",
		  (unsigned long long)sum);
	ac_admit_init(&a);
	both(&a, &d, 40, 300);
	sum = both(&a, &d, 40, 300);
	CHECK_MSG(sum * 2 >= 8 * 300 && sum * 4 <= (8 * 5 + 8) * 300,
		  "r 40, k 8: mean bound %llu/300", (unsigned long long)sum);
}

const struct t_case t_admit[] = {
	{ "admit_steps", test_admit_steps },
	{ "admit_probe_steps", test_admit_probe_steps },
	{ "admit_writer_asks_less", test_admit_writer_asks_less },
	{ "admit_random_devices", test_admit_random_devices },
	{ "admit_device_slows_down", test_admit_device_slows_down },
	{ "admit_read_steps", test_admit_read_steps },
	{ "admit_read_target_random", test_admit_read_target_random },
	{ "admit_read_target_unmet", test_admit_read_target_unmet },
	{ "admit_read_target_with_vegas", test_admit_read_target_with_vegas },
	{ NULL, NULL }
};
