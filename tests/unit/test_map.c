// SPDX-License-Identifier: GPL-2.0
/* The range and stripe mappings of spec section 2. */
#include <stdint.h>

#include "harness.h"
#include "ac-policy.h"

#define T_U64_MAX	UINT64_MAX

/* The channel of @sector under a map prepared from these. */
static u32 ac_map_chan_of(int mapping, u32 nr, u64 sector, u64 capacity,
			  u32 stripe)
{
	struct ac_map m = {
		.mapping = mapping, .nr_channels = nr, .capacity = capacity,
		.stripe_sectors = stripe,
	};

	ac_map_prepare(&m);
	return ac_map_chan(&m, sector);
}

static u32 range(u32 nr, u64 sector, u64 capacity)
{
	return ac_map_chan_of(AC_MAP_RANGE, nr, sector, capacity, 0);
}

static u32 stripe(u32 nr, u64 sector, u32 stripe_sectors)
{
	return ac_map_chan_of(AC_MAP_STRIPE, nr, sector, 0, stripe_sectors);
}

static void test_range_basic(void)
{
	/* 8 channels of 100 sectors */
	CHECK_EQ(range(8, 0, 800), 0);
	CHECK_EQ(range(8, 99, 800), 0);
	CHECK_EQ(range(8, 100, 800), 1);
	CHECK_EQ(range(8, 799, 800), 7);
	/* beyond the capacity (a shrunk device): clamped */
	CHECK_EQ(range(8, 800, 800), 7);
	CHECK_EQ(range(8, T_U64_MAX, 800), 7);
	/* capacity not a multiple: the remainder goes to the last group */
	CHECK_EQ(range(8, 806, 807), 7);
	CHECK_EQ(range(3, 9, 10), 2);
}

static void test_range_edges(void)
{
	/* capacity 0 or below nr_channels: everything to 0 */
	CHECK_EQ(range(8, 0, 0), 0);
	CHECK_EQ(range(8, 12345, 0), 0);
	CHECK_EQ(range(8, 5, 7), 0);
	CHECK_EQ(range(8, T_U64_MAX, 7), 0);
	/* exactly nr_channels sectors: one each */
	CHECK_EQ(range(8, 5, 8), 5);
	/* nr 0 and 1 */
	CHECK_EQ(range(0, 5, 800), 0);
	CHECK_EQ(range(1, 799, 800), 0);
	CHECK_EQ(range(1, T_U64_MAX, T_U64_MAX), 0);
	/* huge capacity near 2^64 sectors */
	CHECK_EQ(range(8, T_U64_MAX, T_U64_MAX), 7);
	CHECK_EQ(range(8, T_U64_MAX / 8 - 1, T_U64_MAX), 0);
	CHECK_EQ(range(8, T_U64_MAX / 8, T_U64_MAX), 1);
	CHECK_EQ(range(8, T_U64_MAX - 1, T_U64_MAX - 1), 7);
	CHECK_EQ(range(64, 1ULL << 63, T_U64_MAX), 32);
	CHECK_EQ(range(AC_MAX_CHANNELS, T_U64_MAX, T_U64_MAX),
		 AC_MAX_CHANNELS - 1);
	/* nr above AC_MAX_CHANNELS still gives a value below nr */
	CHECK(range(1000, T_U64_MAX, T_U64_MAX) < 1000);
}

static void test_stripe(void)
{
	/* stripe of 128 sectors (64 KiB) over 8 channels */
	CHECK_EQ(stripe(8, 0, 128), 0);
	CHECK_EQ(stripe(8, 127, 128), 0);
	CHECK_EQ(stripe(8, 128, 128), 1);
	CHECK_EQ(stripe(8, 128 * 7, 128), 7);
	CHECK_EQ(stripe(8, 128 * 8, 128), 0);
	CHECK_EQ(stripe(8, 128 * 8 + 300, 128), 2);
	/* stripe 0 is treated as 1 */
	CHECK_EQ(stripe(8, 0, 0), 0);
	CHECK_EQ(stripe(8, 13, 0), 5);
	CHECK_EQ(stripe(8, 13, 1), 5);
	/* nr 0 and 1; the capacity plays no part */
	CHECK_EQ(stripe(0, 13, 4), 0);
	CHECK_EQ(stripe(1, 13, 4), 0);
	CHECK_EQ(ac_map_chan_of(AC_MAP_STRIPE, 8, 9, 5, 1), 1);
	/* huge values */
	CHECK_EQ(stripe(8, T_U64_MAX, 1), 7);
	CHECK_EQ(stripe(3, T_U64_MAX, 1), (u32)(T_U64_MAX % 3));
	CHECK_EQ(stripe(7, T_U64_MAX, UINT32_MAX),
		 (u32)((T_U64_MAX / UINT32_MAX) % 7));
	CHECK_EQ(stripe(8, T_U64_MAX, UINT32_MAX),
		 (u32)((T_U64_MAX / UINT32_MAX) % 8));
}

/* Pseudo-random sweep: the result is always below nr (and 0 for nr 0). */
static void test_always_below_nr(void)
{
	static const u64 special[] = {
		0, 1, 2, 7, 8, 63, 64, 65, 4095, (1ULL << 32) - 1, 1ULL << 32,
		1ULL << 63, T_U64_MAX - 1, T_U64_MAX,
	};
	const int ns = (int)ARRAY_SIZE(special);
	u64 x = 0x9e3779b97f4a7c15ULL;
	int i, j, k;

	for (i = 0; i < 200000; i++) {
		u64 sector, capacity;
		u32 nr, st, r;
		int mapping;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sector = (i & 1) ? x : special[x % ns];
		capacity = (i & 2) ? x >> (x % 64) : special[(x >> 8) % ns];
		nr = (u32)((x >> 20) % (AC_MAX_CHANNELS + 2));
		st = (i & 4) ? (u32)(x >> 32) : (u32)((x >> 40) % 3);
		mapping = (i & 8) ? AC_MAP_STRIPE : AC_MAP_RANGE;
		r = ac_map_chan_of(mapping, nr, sector, capacity, st);
		CHECK_MSG(nr ? r < nr : r == 0,
			  "mapping %d nr %u sector %llu cap %llu stripe %u -> %u",
			  mapping, nr, (unsigned long long)sector,
			  (unsigned long long)capacity, st, r);
	}
	/* range is monotonic in the sector */
	for (j = 1; j <= (int)AC_MAX_CHANNELS; j++) {
		for (k = 0; k < ns; k++) {
			u32 prev = 0;

			for (i = 0; i < ns; i++) {
				u32 r = range(j, special[i], special[k]);

				CHECK(r >= prev);
				prev = r;
			}
		}
	}
}

/* @m, prepared (ac_map_prepare()) as the scheduler prepares its map */
static struct ac_map prepared(struct ac_map m)
{
	ac_map_prepare(&m);
	return m;
}

/* 8 channels, stripes of 128 sectors (64 KiB) */
#define STRIPE8 prepared((struct ac_map){ .mapping = AC_MAP_STRIPE,	\
			 .nr_channels = 8, .stripe_sectors = 128 })
/* 8 channels of 1000 sectors */
#define RANGE8 prepared((struct ac_map){ .mapping = AC_MAP_RANGE,	\
			.nr_channels = 8, .capacity = 8000 })

static void test_span(void)
{
	struct ac_map stripe8 = STRIPE8, range8 = RANGE8;
	struct ac_map one = stripe8, zero_cap = range8;

	CHECK_EQ(ac_map_span(&stripe8, 0, 0), 1);
	CHECK_EQ(ac_map_span(&stripe8, 0, 1), 1);
	CHECK_EQ(ac_map_span(&stripe8, 0, 128), 1);
	CHECK_EQ(ac_map_span(&stripe8, 0, 129), 2);
	CHECK_EQ(ac_map_span(&stripe8, 127, 2), 2);
	CHECK_EQ(ac_map_span(&stripe8, 256, 256), 2);	/* 128 KiB, aligned */
	CHECK_EQ(ac_map_span(&stripe8, 64, 256), 3);	/* not aligned */
	CHECK_EQ(ac_map_span(&stripe8, 0, 128 * 8), 8);
	CHECK_EQ(ac_map_span(&stripe8, 5, 128 * 100), 8);	/* at most nr */
	CHECK_EQ(ac_map_span(&stripe8, T_U64_MAX - 10, 100), 1);	/* wraps */
	CHECK_EQ(ac_map_span(&range8, 0, 1000), 1);
	CHECK_EQ(ac_map_span(&range8, 999, 2), 2);
	CHECK_EQ(ac_map_span(&range8, 500, 2000), 3);
	CHECK_EQ(ac_map_span(&range8, 0, 8000), 8);
	CHECK_EQ(ac_map_span(&range8, 7990, 100), 1);	/* past the end */
	/* one channel, or a capacity below nr_channels: always 1 */
	one.nr_channels = 1;
	ac_map_prepare(&one);
	CHECK_EQ(ac_map_span(&one, 0, 1 << 20), 1);
	one.nr_channels = 0;
	ac_map_prepare(&one);
	CHECK_EQ(ac_map_span(&one, 0, 1 << 20), 1);
	zero_cap.capacity = 0;
	ac_map_prepare(&zero_cap);
	CHECK_EQ(ac_map_span(&zero_cap, 0, 1 << 20), 1);
	zero_cap.capacity = 7;
	ac_map_prepare(&zero_cap);
	CHECK_EQ(ac_map_span(&zero_cap, 0, 7), 1);
}

static void test_merge_keeps_span(void)
{
	struct ac_map stripe8 = STRIPE8, range8 = RANGE8;

	/* within one stripe: merge */
	CHECK(ac_map_merge_ok(&stripe8, 0, 8, 8, 8));
	CHECK(ac_map_merge_ok(&stripe8, 8, 8, 0, 8));		/* front */
	/* two 64 KiB stripes on two channels: kept apart */
	CHECK(!ac_map_merge_ok(&stripe8, 0, 128, 128, 128));
	/* two 128 KiB requests, 2 channels each: 4 channels merged, no */
	CHECK(!ac_map_merge_ok(&stripe8, 0, 256, 256, 256));
	/* a 4 KiB bio completing a request's last stripe: same span, yes */
	CHECK(ac_map_merge_ok(&stripe8, 64, 184, 248, 8));
	/* a 4 KiB bio starting the next stripe: one more channel, no */
	CHECK(!ac_map_merge_ok(&stripe8, 64, 192, 256, 8));
	/* once every channel is covered, more does not widen it */
	CHECK(ac_map_merge_ok(&stripe8, 0, 128 * 8, 128 * 8, 8));
	/* range: merges inside a channel's range, not across */
	CHECK(ac_map_merge_ok(&range8, 0, 500, 500, 500));
	CHECK(!ac_map_merge_ok(&range8, 500, 500, 1000, 8));
	CHECK(ac_map_merge_ok(&range8, 500, 600, 1100, 8));
}

static u64 xorshift(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The prepared map gives the spec's channel (t_ref_map()) over random
 * geometries and sectors; units and spans stay in range.
 */
static void test_prepared_matches_division(void)
{
	u64 x = 0x2545f4914f6cdd1dULL;
	int i, j;

	for (i = 0; i < 3000; i++) {
		struct ac_map m = {
			.mapping = (xorshift(&x) & 1) ? AC_MAP_STRIPE : AC_MAP_RANGE,
			.nr_channels = xorshift(&x) % 70,
			.capacity = xorshift(&x) >> (xorshift(&x) % 64),
			.stripe_sectors = (u32)(xorshift(&x) >> (40 + xorshift(&x) % 24)),
			.dies = xorshift(&x) % 9,
		};

		u32 stripe = m.stripe_sectors;

		ac_map_prepare(&m);
		for (j = 0; j < 200; j++) {
			u64 s = j < 2 ? (j ? T_U64_MAX : 0) :
				(xorshift(&x) % 3 ? xorshift(&x) % (m.capacity + 1000) :
				 xorshift(&x) >> (xorshift(&x) % 64));
			u32 want = t_ref_map(m.mapping, m.nr_channels, s,
					     m.capacity, stripe);
			u32 nr = m.nr_channels > 1 ? m.nr_channels : 1;
			u32 dies = m.dies ? m.dies : 1;

			CHECK_MSG(ac_map_chan(&m, s) == want,
				  "map %d nr %u cap %llu stripe %u sector %llu",
				  m.mapping, m.nr_channels,
				  (unsigned long long)m.capacity, m.stripe_sectors,
				  (unsigned long long)s);
			CHECK(ac_map_unit(&m, s) < nr * dies);
			CHECK(ac_map_unit(&m, s) % nr == (m.nr_channels ? want : 0));
			CHECK(ac_map_span(&m, s, 1 + xorshift(&x) % 5000) <= nr);
		}
	}
}

const struct t_case t_map[] = {
	{ "map/prepared_matches_division", test_prepared_matches_division },
	{ "map/range_basic", test_range_basic },
	{ "map/range_edges", test_range_edges },
	{ "map/stripe", test_stripe },
	{ "map/always_below_nr", test_always_below_nr },
	{ "map/span", test_span },
	{ "map/merge_keeps_span", test_merge_keeps_span },
	{ NULL, NULL },
};
