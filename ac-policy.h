/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AC dispatch policy, plain C (no kernel structure, lock or allocation;
 * tests/unit compiles it unchanged).  The glue owns the requests: it tells
 * the policy what it queued, removed and dispatched, and asks it what to
 * dispatch next.  docs/ac-iosched.rst describes the rules.
 */
#ifndef AC_POLICY_H
#define AC_POLICY_H

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/types.h>
#else
#include "ac-user-types.h"
#endif

#define AC_MAX_CHANNELS		64U
#define AC_MAX_DIES		64U
/* Units (dies) in all: a request stores its unit in 8 bits. */
#define AC_MAX_UNITS		256U
#define AC_UNIT_WORDS		(AC_MAX_UNITS / 64)

enum ac_type {
	AC_READ_SYNC,
	AC_READ_ASYNC,
	AC_WRITE_SYNC,
	AC_WRITE_ASYNC,
	AC_NR_TYPES,
};

static inline bool ac_type_is_write(enum ac_type t)
{
	return t == AC_WRITE_SYNC || t == AC_WRITE_ASYNC;
}

/* Read matrix, per unit. */
enum ac_read_flag {
	AC_R_ZERO,	/* no reads queued */
	AC_R_PEND,	/* reads queued, not served this round */
	AC_R_END,	/* served this round: last choice until the next round */
};

/* Write matrix, per channel. */
enum ac_write_flag {
	AC_W_ZERO,	/* no writes queued */
	AC_W_PEND,	/* writes queued, not being batched */
	AC_W_PROC,	/* the channel whose writes are being batched */
};

enum ac_mapping {
	AC_MAP_RANGE,	/* channel = sector / (capacity / nr_channels) */
	AC_MAP_STRIPE,	/* channel = (sector / stripe) mod nr_channels */
};

/*
 * A unit is one die of one channel: unit u is die u / nr_channels of
 * channel u % nr_channels.  With one die per channel a unit is a channel.
 */
struct ac_unit {
	u32 nr[AC_NR_TYPES];	/* queued requests of each type */
	u8 rflag;		/* enum ac_read_flag */
};

struct ac_channel {
	u32 writes[2];		/* queued writes: sync, async */
	u8 wflag;		/* enum ac_write_flag */
};

/*
 * AC's requests at the device, counted by the glue without the lock: reads
 * per unit, everything in total.  A write is at no unit: an SSD programs it
 * where its write order says, whatever its address.
 */
struct ac_occupancy {
	atomic_t reads[AC_MAX_UNITS];
	atomic_t total;
};

struct ac_stats {
	u64 dispatched[AC_NR_TYPES];
	u64 expired[AC_NR_TYPES];	/* dispatched because late */
	u64 read_rounds;		/* END -> PEND resets */
	u64 write_batches;		/* channels made PROC */
	u64 starved_switches;		/* write phases forced by writes_starved */
	u64 proc_fallbacks;		/* reads sent to the PROC channel */
	u64 writes_held;		/* picks made while write_inflight held writes */
	u64 reads_idle;			/* reads sent to an idle unit */
	u64 reads_busy;			/* reads sent to a busy unit */
	u64 cap_holds;			/* picks that found every request capped */
	u64 cap_spare;			/* reads sent past unit_depth */
	u64 cap_skips;			/* picks that passed over a capped unit */
	u64 cap_expired;		/* late heads sent while all else was capped */
	u64 sync_read_expired;		/* late sync reads sent mid-phase */
	u64 write_expired;		/* late writes sent mid-phase */
	u64 expired_waits;		/* picks that found a late head held by its cap */
};

enum ac_dir {
	AC_DIR_READ,
	AC_DIR_WRITE,
};

struct ac_policy {
	/* Tunables, written by the glue under its lock. */
	u32 nr_channels;	/* 1 .. AC_MAX_CHANNELS */
	u32 dies_per_channel;	/* 1 .. AC_MAX_DIES */
	u32 fifo_batch;		/* dispatches per phase */
	u32 writes_starved;	/* read phases before a write phase */
	u32 write_batch;	/* writes per PROC batch */
	u32 unit_depth;		/* reads at one die, 0: no cap */
	u32 unit_spare;		/* reads past unit_depth when slots are spare */

	/* Set by the glue before each pick. */
	const struct ac_occupancy *occ;	/* NULL: every unit idle */
	u32 dev_slots;		/* commands the device holds, 0: unknown */
	bool writes_held;	/* write_inflight: pick a read or nothing */

	u32 units;		/* nr_channels x dies_per_channel */
	struct ac_unit unit[AC_MAX_UNITS];
	struct ac_channel chan[AC_MAX_CHANNELS];
	u32 queued[AC_NR_TYPES];
	/* Bit u: unit[u].nr[type] > 0, so that picks skip empty units. */
	u64 queued_units[AC_NR_TYPES][AC_UNIT_WORDS];

	int proc;		/* channel in PROC, or -1 */
	u32 last_read;		/* unit a read was last taken from */
	u32 last_write;		/* channel last made PROC */
	u32 last_write_unit;	/* unit a write was last taken from */

	enum ac_dir dir;	/* direction of the current phase */
	u32 phase_left;		/* dispatches left in it; 0: a new phase */
	u32 starved;		/* read phases in a row while writes waited */
	u32 batch_writes;	/* writes of the current PROC batch */

	struct ac_stats stats;
};

/* The heads of the four deadline FIFOs, as the glue sees them. */
struct ac_fifo_heads {
	bool valid[AC_NR_TYPES];
	u64 expire[AC_NR_TYPES];	/* in the glue's clock */
	u32 unit[AC_NR_TYPES];
};

enum ac_pick_kind {
	AC_PICK_NONE,		/* nothing to dispatch */
	AC_PICK_EXPIRED,	/* the head of FIFO @type */
	AC_PICK_UNIT,		/* the next request of @type in @unit */
};

struct ac_pick {
	enum ac_pick_kind kind;
	enum ac_type type;
	u32 unit;
	/* NONE because caps hold every queued request: wait for a completion */
	bool capped;
};

/*
 * @nr_channels channels of one die, all empty, every tunable 0 (a batch of
 * 0 is taken as 1); the glue then sets the tunables (ac-tunables.h).
 */
void ac_policy_init(struct ac_policy *p, u32 nr_channels);
/*
 * Forget every queued request and lay out @nr_channels channels of
 * dies_per_channel dies; the glue then adds back what it holds.
 */
void ac_policy_regroup(struct ac_policy *p, u32 nr_channels);
void ac_policy_add(struct ac_policy *p, u32 unit, enum ac_type type);
/* A queued request left without being dispatched (merged away). */
void ac_policy_remove(struct ac_policy *p, u32 unit, enum ac_type type);
/*
 * What to dispatch next; the glue dispatches exactly that and reports it.
 * @heads may be NULL when ac_policy_needs_heads() says no.
 */
struct ac_pick ac_policy_pick(struct ac_policy *p,
			      const struct ac_fifo_heads *heads, u64 now);
void ac_policy_dispatched(struct ac_policy *p, u32 unit, enum ac_type type,
			  bool expired);

/* The units are dies (caps apply) only with dies > 1. */
static inline bool ac_policy_dies(const struct ac_policy *p)
{
	return p->dies_per_channel > 1;
}

static inline u32 ac_policy_dir_queued(const struct ac_policy *p,
				       enum ac_dir dir)
{
	if (dir == AC_DIR_READ)
		return p->queued[AC_READ_SYNC] + p->queued[AC_READ_ASYNC];
	return p->queued[AC_WRITE_SYNC] + p->queued[AC_WRITE_ASYNC];
}

static inline u32 ac_policy_queued(const struct ac_policy *p)
{
	return ac_policy_dir_queued(p, AC_DIR_READ) +
	       ac_policy_dir_queued(p, AC_DIR_WRITE);
}

/*
 * Whether the next pick looks at the FIFO heads: when a phase starts (late
 * heads go first, and decide its direction), and with dies (a late head
 * goes mid-phase; caps hold heads back).
 */
static inline bool ac_policy_needs_heads(const struct ac_policy *p)
{
	return !p->phase_left || ac_policy_dies(p) ||
	       !ac_policy_dir_queued(p, p->dir);
}

static inline u32 ac_occ_reads(const struct ac_occupancy *occ, u32 unit)
{
	return occ ? atomic_read(&occ->reads[unit]) : 0;
}

/*
 * Write admission: the writes the device may hold while sync reads are
 * about, found as TCP Vegas finds a path's capacity (docs/ac-iosched.rst).
 * Every AC_ADMIT_PROBE_EVERY windows a halved bound takes base afresh.
 */
#define AC_ADMIT_PROBE_EVERY	64

struct ac_admit {
	u32 limit;		/* writes the device may hold, >= 1 */
	u32 base_us;		/* 0: not known yet */
	u32 windows;		/* since the last probe */
	u32 probe;		/* windows left at half the bound */
	u32 saved;		/* the bound before the probe */
	u32 probe_us;		/* least latency seen in the probe */
	u32 ceiling;		/* read_lat_ms: the most reads allow, >= 1 */
};

void ac_admit_init(struct ac_admit *a);

static inline u32 ac_admit_window(const struct ac_admit *a)
{
	return a->limit > 4 ? a->limit : 4;
}

/*
 * One window: mean latency @lat_us, mean writes at the device @held16 in
 * sixteenths, whether the bound held writes back (@blocked), and the
 * ceiling @slots (the device's command slots).
 */
void ac_admit_update(struct ac_admit *a, u32 lat_us, u32 held16, bool blocked,
		     u32 slots);

/*
 * read_lat_ms caps the bound: a window of AC_ADMIT_READS sync reads with
 * more than one in ten @late halves it, at most one lets it grow, to @slots.
 */
#define AC_ADMIT_READS	32

void ac_admit_reads(struct ac_admit *a, u32 late, u32 slots);

/*
 * Where sectors live.  Stripe: chunk k = sector / stripe is on channel
 * k mod nr_channels, die (k / nr_channels) mod dies.  Range: the device is
 * cut into nr_channels equal ranges, each into dies equal parts.  Set the
 * first five fields, then call ac_map_prepare().
 */
struct ac_map {
	enum ac_mapping mapping;
	u32 nr_channels;
	u64 capacity;		/* sectors */
	u32 stripe_sectors;
	u32 dies;
	/* derived */
	u32 nr;			/* channels, at least 1 */
	u32 nr_dies;		/* dies, at least 1 */
	u64 per_chan;		/* range: sectors per channel, 0: all on 0 */
	u64 per_die;		/* range: sectors per die, 0: all on die 0 */
};

void ac_map_prepare(struct ac_map *m);
/* Channel of @sector, below nr. */
u32 ac_map_chan(const struct ac_map *m, u64 sector);
/* Unit of @sector: die * nr_channels + channel, below nr * nr_dies. */
u32 ac_map_unit(const struct ac_map *m, u64 sector);
/* Channels covered by @nr_sectors sectors from @sector. */
u32 ac_map_span(const struct ac_map *m, u64 sector, u64 nr_sectors);
/*
 * Whether two adjacent extents may become one request: not if the result
 * covers more channels than the wider of the two.
 */
bool ac_map_merge_ok(const struct ac_map *m, u64 a_pos, u64 a_len,
		     u64 b_pos, u64 b_len);

#endif /* AC_POLICY_H */
