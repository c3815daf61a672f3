// SPDX-License-Identifier: GPL-2.0
/*
 * User-space test of the ssdsim timing model (ssdsim-model.c, unchanged):
 * exact completion times, placement, statistics and parameter checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssdsim-model.h"

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
		failures++;						\
	}								\
} while (0)

#define MS 1000000ull
#define PG 4096ull

static const struct ssdsim_params base = {
	.capacity_mb = 16, .logical_block_size = 512, .channels = 4, .dies = 1,
	.page_kb = 4, .read_us = 100, .program_us = 400, .xfer_us = 20,
	.queue_depth = 32, .time_scale = 100, .mapping = SSDSIM_MAP_STRIPE,
	.stripe_kb = 4,
};

static struct ssdsim_model *model(struct ssdsim_params p)
{
	struct ssdsim_model *m = calloc(1, sizeof(*m));

	CHECK(!ssdsim_params_check(&p));
	ssdsim_model_setup(m, &p);
	m->die = calloc(ssdsim_model_units(m), sizeof(*m->die));
	m->chan = calloc(m->channels, sizeof(*m->chan));
	m->l2p = calloc(m->nr_pages, sizeof(*m->l2p));
	return m;
}

static void free_model(struct ssdsim_model *m)
{
	free(m->die);
	free(m->chan);
	free(m->l2p);
	free(m);
}

static void test_single_page_times(void)
{
	struct ssdsim_model *m = model(base);

	CHECK(ssdsim_model_read(m, 0, 0, PG) == 12 * MS);
	CHECK(ssdsim_model_write(m, 100 * MS, PG, PG) == 142 * MS);
	/* four pages on four channels: one page time */
	CHECK(ssdsim_model_read(m, 200 * MS, 0, 4 * PG) == 212 * MS);
	/* a partial page costs a whole page */
	CHECK(ssdsim_model_read(m, 300 * MS, 100, 1) == 312 * MS);
	free_model(m);
}

static void test_one_channel_serialises(void)
{
	struct ssdsim_model *m = model(base);
	u64 t = 0;
	int i;

	/* pages 0, 4, 8, 12: channel 0, its only die: 12, 24, 36, 48 ms */
	for (i = 0; i < 4; i++)
		t = ssdsim_model_read(m, 0, i * 4 * PG, PG);
	CHECK(t == 48 * MS);
	CHECK(m->chan[0].st.ops == 4 && m->chan[1].st.ops == 0);
	CHECK(m->die[0].st.wait_ns == (12 + 24 + 36) * MS);
	CHECK(m->chan[0].st.busy_ns == 4 * 2 * MS);
	free_model(m);
}

static void test_dies_share_the_bus(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;
	u64 t = 0;
	int i;

	p.channels = 1;
	p.dies = 4;
	p.xfer_us = 50;
	m = model(p);
	for (i = 0; i < 4; i++)
		t = ssdsim_model_read(m, 0, i * PG, PG);
	CHECK(t == 30 * MS);	/* senses overlap: 10 + 4 x 5 */
	CHECK(m->chan[0].st.wait_ns == (5 + 10 + 15) * MS);
	free_model(m);
}

static void test_read_behind_program(void)
{
	struct ssdsim_model *m = model(base);

	CHECK(ssdsim_model_write(m, 0, 0, PG) == 42 * MS);
	/* same die, arrives at 5 ms: waits for the program, then 12 ms */
	CHECK(ssdsim_model_read(m, 5 * MS, 4 * PG, PG) == 54 * MS);
	/* another channel is not affected */
	CHECK(ssdsim_model_read(m, 5 * MS, PG, PG) == 17 * MS);
	CHECK(m->reads_behind_program == 1);
	CHECK(m->read_pages_behind_program == 1);
	/* modelled service times: 49 ms and 12 ms; the write 42 ms */
	CHECK(m->read_model_ns_max == 49 * MS);
	CHECK(m->read_model_ns_sum == (49 + 12) * MS);
	CHECK(m->write_model_ns_max == 42 * MS);
	CHECK(m->write_model_ns_sum == 42 * MS);
	ssdsim_model_reset_stats(m);
	CHECK(m->read_model_ns_max == 0 && m->write_model_ns_sum == 0);
	free_model(m);
}

static void test_write_waits_for_channel_and_die(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;

	p.dies = 2;	/* stripe chunk k: channel k % 4, die (k / 4) % 2 */
	m = model(p);
	CHECK(ssdsim_model_write(m, 0, 0, PG) == 42 * MS);
	/* page 4: channel 0, die 1: only the 2 ms transfer is in the way */
	CHECK(ssdsim_model_write(m, 0, 4 * PG, PG) == 44 * MS);
	/* page 8: channel 0, die 0 again: waits for the die */
	CHECK(ssdsim_model_write(m, 0, 8 * PG, PG) == 84 * MS);
	free_model(m);
}

static void test_channel_fills_gaps(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;

	p.channels = 1;
	p.dies = 2;	/* stripe chunk k: die k % 2 */
	m = model(p);
	/* two reads on die 0: transfers at 10-12 and 22-24 ms */
	CHECK(ssdsim_model_read(m, 0, 0, PG) == 12 * MS);
	CHECK(ssdsim_model_read(m, 0, 2 * PG, PG) == 24 * MS);
	/* die 1's page is ready at 10: it goes out at 12, in the gap */
	CHECK(ssdsim_model_read(m, 0, PG, PG) == 14 * MS);
	CHECK(m->chan[0].st.wait_ns == 2 * MS);
	/* die 1 again: sensed 14-24, the channel free from 24 */
	CHECK(ssdsim_model_read(m, 0, 3 * PG, PG) == 26 * MS);
	/* a write on die 1 at 30: in at 30-32, programs to 72 */
	CHECK(ssdsim_model_write(m, 30 * MS, PG, PG) == 72 * MS);
	/* die 0 read at 31: sensed 31-41, out at 41-43, not behind the write */
	CHECK(ssdsim_model_read(m, 31 * MS, 0, PG) == 43 * MS);
	free_model(m);
}

static void test_channel_book_full(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;
	u64 t = 0;
	int i;

	p.channels = 1;
	p.dies = 1;
	p.read_us = 0;	/* every page is ready at once: the channel alone */
	m = model(p);
	/* one more transfer than the book holds: back to back all the same */
	for (i = 0; i <= SSDSIM_CHANNEL_SLOTS; i++)
		t = ssdsim_model_read(m, 0, (u64)i * PG, PG);
	CHECK(t == (SSDSIM_CHANNEL_SLOTS + 1) * 2 * MS);
	CHECK(m->chan[0].nr_slots == SSDSIM_CHANNEL_SLOTS);
	/* past them all, the book is emptied and starts again */
	CHECK(ssdsim_model_read(m, 1000 * MS, 0, PG) == 1002 * MS);
	CHECK(m->chan[0].nr_slots == 1);
	free_model(m);
}

static void test_mappings(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;

	p.mapping = SSDSIM_MAP_RANGE;
	p.dies = 2;
	m = model(p);	/* 4096 pages, 512 per die, 1024 per channel */
	CHECK(ssdsim_model_unit_of(m, 0) == 0);
	CHECK(ssdsim_model_unit_of(m, 511) == 0);
	CHECK(ssdsim_model_unit_of(m, 512) == 1);
	CHECK(ssdsim_model_unit_of(m, 1024) == 2);	/* channel 1, die 0 */
	CHECK(ssdsim_model_unit_of(m, 4095) == 7);
	free_model(m);

	p.mapping = SSDSIM_MAP_STRIPE;
	p.stripe_kb = 16;	/* 4 pages a chunk */
	m = model(p);
	CHECK(ssdsim_model_unit_of(m, 3) == 0);
	CHECK(ssdsim_model_unit_of(m, 4) == 2);		/* channel 1, die 0 */
	CHECK(ssdsim_model_unit_of(m, 16) == 1);	/* channel 0, die 1 */
	CHECK(ssdsim_model_unit_of(m, 32) == 0);
	free_model(m);
}

static void test_ftl(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;
	int i;

	p.mapping = SSDSIM_MAP_FTL;
	p.dies = 2;
	m = model(p);
	/* written pages go ch0 d0, ch1 d0, ch2 d0, ch3 d0, ch0 d1, ... */
	for (i = 0; i < 9; i++)
		ssdsim_model_write(m, 0, (u64)i * 8 * PG, PG);
	CHECK(ssdsim_model_unit_of(m, 0) == 0);
	CHECK(ssdsim_model_unit_of(m, 8) == 2);
	CHECK(ssdsim_model_unit_of(m, 24) == 6);
	CHECK(ssdsim_model_unit_of(m, 32) == 1);
	CHECK(ssdsim_model_unit_of(m, 64) == 0);	/* wrapped */
	/* a rewrite moves the page; a trim sends it back to its stripe place */
	ssdsim_model_write(m, 0, 0, PG);
	CHECK(ssdsim_model_unit_of(m, 0) == 2);
	ssdsim_model_trim(m, 0, PG);
	CHECK(ssdsim_model_unit_of(m, 0) == 0);
	/* a partial trim keeps the placement */
	ssdsim_model_trim(m, 8 * PG + 512, PG);
	CHECK(ssdsim_model_unit_of(m, 8) == 2);
	/* never written: the stripe location (page 5: channel 1, die 1) */
	CHECK(ssdsim_model_unit_of(m, 5) == 3);
	free_model(m);
}

static void test_occupancy(void)
{
	struct ssdsim_params p = base;
	struct ssdsim_model *m;
	u16 a[8], b[8], c[16], d[8];
	u32 na, nb, nc, nd, i;

	p.dies = 2;		/* 8 dies; page k: channel k % 4, die (k / 4) % 2 */
	p.stripe_kb = 4;
	m = model(p);
	CHECK(ssdsim_model_cmd_units(m, 256 * 1024) == 8);
	CHECK(ssdsim_model_cmd_units(m, 8 * 1024) == 3);
	/* pages 0, 8 and 16 all live on unit 0: one command, one die */
	ssdsim_model_read(m, 0, 0, PG);
	na = ssdsim_model_enter(m, 0, PG, a, 8);
	CHECK(na == 1 && a[0] == 0);
	ssdsim_model_read(m, 0, 8 * PG, PG);
	nb = ssdsim_model_enter(m, 8 * PG, PG, b, 8);
	CHECK(nb == 1 && m->die[0].inflight == 2);
	/* pages 0..15: every die, each counted once though touched twice */
	ssdsim_model_read(m, 0, 0, 16 * PG);
	nc = ssdsim_model_enter(m, 0, 16 * PG, c, 16);
	CHECK(nc == 8);
	for (i = 0; i < 8; i++)
		CHECK(!m->die[i].marked);
	CHECK(m->die[0].inflight == 3 && m->die[5].inflight == 1);
	CHECK(ssdsim_model_max_die_inflight(m) == 3);
	/* no room: the dies left out are not counted */
	ssdsim_model_read(m, 0, PG, 2 * PG);
	nd = ssdsim_model_enter(m, PG, 2 * PG, d, 1);
	CHECK(nd == 1 && d[0] == 2);
	CHECK(m->die[2].inflight == 2 && m->die[4].inflight == 1);
	ssdsim_model_leave(m, d, nd);
	ssdsim_model_leave(m, a, na);
	ssdsim_model_leave(m, c, nc);
	CHECK(m->die[0].inflight == 1 && m->die[2].inflight == 0);
	/* the maxima stay until a reset sets them to the current counts */
	CHECK(m->die[0].max_inflight == 3 && m->die[2].max_inflight == 2);
	ssdsim_model_reset_stats(m);
	CHECK(m->die[0].max_inflight == 1 && m->die[2].max_inflight == 0);
	CHECK(ssdsim_model_max_die_inflight(m) == 1);
	ssdsim_model_leave(m, b, nb);
	CHECK(m->die[0].inflight == 0 && ssdsim_model_max_die_inflight(m) == 1);
	free_model(m);

	/* ftl: a write is at the dies it was just placed on */
	p.mapping = SSDSIM_MAP_FTL;
	m = model(p);
	ssdsim_model_write(m, 0, 0, PG);		/* unit 0 */
	ssdsim_model_write(m, 0, 0, 3 * PG);		/* units 2, 4, 6 */
	na = ssdsim_model_enter(m, 0, 3 * PG, a, 8);
	CHECK(na == 3 && a[0] == 2 && a[1] == 4 && a[2] == 6);
	CHECK(m->die[0].inflight == 0);
	ssdsim_model_leave(m, a, na);
	free_model(m);
}

static void test_deterministic(void)
{
	struct ssdsim_model *a = model(base), *b = model(base);
	u64 ta = 0, tb = 0;
	unsigned int seed = 1;
	int i;

	for (i = 0; i < 10000; i++) {
		u64 now = (u64)i * 3 * MS / 2;
		u64 pos = (u64)(rand_r(&seed) % 4000) * PG;
		u64 len = (u64)(1 + rand_r(&seed) % 8) * PG;
		bool w = rand_r(&seed) & 1;

		ta ^= w ? ssdsim_model_write(a, now, pos, len) :
			  ssdsim_model_read(a, now, pos, len);
		tb ^= w ? ssdsim_model_write(b, now, pos, len) :
			  ssdsim_model_read(b, now, pos, len);
	}
	CHECK(ta == tb);
	CHECK(!memcmp(a->die, b->die, sizeof(*a->die) * ssdsim_model_units(a)));
	free_model(a);
	free_model(b);
}

static void test_params_check(void)
{
	struct ssdsim_params p;

#define BAD(field, value) do {				\
	p = base;					\
	p.field = value;				\
	CHECK(ssdsim_params_check(&p));		\
} while (0)
	BAD(channels, 0);
	BAD(channels, 65);
	BAD(dies, 0);
	BAD(page_kb, 3);
	BAD(page_kb, 512);
	BAD(capacity_mb, 0);
	BAD(logical_block_size, 1024);
	BAD(time_scale, 0);
	BAD(queue_depth, 0);
	BAD(stripe_kb, 6);
	BAD(stripe_kb, 0);
	BAD(read_us, 2000000);
	BAD(jitter_us, 1000001);
	BAD(requeue_every, 1000001);
	p = base;
	p.jitter_us = 1000000;
	CHECK(!ssdsim_params_check(&p));
	p = base;
	p.requeue_every = 1000000;
	CHECK(!ssdsim_params_check(&p));
	p = base;
	p.channels = 64;
	p.dies = 64;
	p.capacity_mb = 1;
	CHECK(ssdsim_params_check(&p));	/* fewer pages than dies */
	p = base;
	p.capacity_mb = 10;	/* 2560 pages: not a multiple of 3 x 1 */
	p.channels = 3;
	CHECK(!ssdsim_params_check(&p));
	CHECK(ssdsim_params_capacity(&p) == 2559 * PG);
#undef BAD
}

int main(void)
{
	test_single_page_times();
	test_one_channel_serialises();
	test_dies_share_the_bus();
	test_read_behind_program();
	test_write_waits_for_channel_and_die();
	test_channel_fills_gaps();
	test_channel_book_full();
	test_mappings();
	test_ftl();
	test_occupancy();
	test_deterministic();
	test_params_check();
	if (failures) {
		fprintf(stderr, "model-test: %d failure(s)\n", failures);
		return 1;
	}
	printf("model-test: all checks passed\n");
	return 0;
}
