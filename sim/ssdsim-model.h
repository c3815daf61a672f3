/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timing model of the emulated SSD: channels, dies, and where each flash
 * page lives.  Plain C: no kernel structures, no locks, no allocation.  The
 * caller (ssdsim.c) owns the arrays, serialises calls and supplies the clock.
 */
#ifndef SSDSIM_MODEL_H
#define SSDSIM_MODEL_H

/* a user-space build of the model supplies its own linux/types.h */
#include <linux/types.h>

enum ssdsim_mapping {
	SSDSIM_MAP_RANGE,	/* contiguous LBA range per channel, then die */
	SSDSIM_MAP_STRIPE,	/* chunks round-robin over channels, then dies */
	SSDSIM_MAP_FTL,		/* page-mapped, writes placed in write order */
};

/* Limits that keep the model's arrays and arithmetic small and sane. */
#define SSDSIM_MAX_CHANNELS	64
#define SSDSIM_MAX_DIES		64	/* per channel */
#define SSDSIM_MAX_UNITS	4096	/* channels * dies; fits the u16 map */
#define SSDSIM_MAX_PAGE_KB	256
#define SSDSIM_MAX_CAPACITY_MB	(64 * 1024)
#define SSDSIM_MAX_PAGES	(16u << 20)	/* bounds the ftl map: 32 MiB */
#define SSDSIM_MAX_US		1000000	/* one second per operation */
#define SSDSIM_MAX_TIME_SCALE	10000
#define SSDSIM_MAX_QUEUE_DEPTH	1024
#define SSDSIM_MAX_JITTER_US	1000000
#define SSDSIM_MAX_REQUEUE_EVERY	1000000

/* What a device is made of, as given by the user. */
struct ssdsim_params {
	u32 capacity_mb;	/* MiB */
	u32 logical_block_size;	/* bytes: 512 or 4096 */
	u32 channels;
	u32 dies;		/* per channel */
	u32 page_kb;		/* KiB, power of two */
	u32 read_us;		/* die array read per page, us */
	u32 program_us;		/* die array program per page, us */
	u32 xfer_us;		/* channel transfer per page, us */
	u32 queue_depth;	/* commands the device holds */
	u32 time_scale;		/* multiplier on all three times */
	enum ssdsim_mapping mapping;
	u32 stripe_kb;		/* KiB, stripe mapping chunk */
	u32 jitter_us;		/* us, most random delay added to a completion:
				 * not scaled; the model never sees it
				 */
	u32 requeue_every;	/* give every Nth read or write back to the
				 * block layer at its end (0: never)
				 */
};

struct ssdsim_unit_stats {
	u64 ops;	/* pages served */
	u64 busy_ns;	/* time reserved by those pages */
	u64 wait_ns;	/* time pages waited because this unit was busy */
};

struct ssdsim_die {
	u64 free_at;		/* ns: busy until */
	u64 program_end;	/* ns: end of the last program on this die */
	struct ssdsim_unit_stats st;
	u32 inflight;		/* commands at this die now */
	u32 max_inflight;	/* most at once since the last reset */
	bool marked;		/* scratch of ssdsim_model_enter() */
};

/*
 * Transfers a channel has booked that have not ended, at most this many:
 * one per page in flight on the channel, so 64 covers 32 commands of up to
 * two pages there; past it a transfer goes after the last one booked.
 */
#define SSDSIM_CHANNEL_SLOTS	64

struct ssdsim_slot {
	u64 start;		/* ns */
	u64 end;		/* ns, exclusive */
};

struct ssdsim_channel {
	/* booked transfers, in time order, none overlapping */
	struct ssdsim_slot slot[SSDSIM_CHANNEL_SLOTS];
	u32 nr_slots;
	struct ssdsim_unit_stats st;
};

struct ssdsim_model {
	/* geometry, derived from ssdsim_params by ssdsim_model_setup() */
	u32 channels;
	u32 dies;		/* per channel */
	u32 page_bytes;
	u64 nr_pages;		/* flash pages on the device */
	u64 range_pages;	/* range mapping: pages per die */
	u64 stripe_pages;	/* stripe mapping: pages per chunk */
	enum ssdsim_mapping mapping;

	/* service times, already multiplied by time_scale */
	u64 read_ns;
	u64 program_ns;
	u64 xfer_ns;

	/* state: arrays owned by the caller */
	struct ssdsim_die *die;		/* [channels * dies], channel-major */
	struct ssdsim_channel *chan;	/* [channels] */
	u16 *l2p;			/* ftl: [nr_pages], unit + 1, 0 = unmapped */
	u64 ftl_next;			/* ftl: write-order counter */

	/* device-wide statistics */
	u64 reads;
	u64 writes;
	u64 read_pages;
	u64 write_pages;
	u64 reads_behind_program;	/* read commands that met a program */
	u64 read_pages_behind_program;
	/*
	 * Modelled service time (completion - arrival) of each command: what
	 * the device charges, free of the host's timer and scheduling noise,
	 * so tests can check the model exactly.
	 */
	u64 read_model_ns_max;
	u64 read_model_ns_sum;
	u64 write_model_ns_max;
	u64 write_model_ns_sum;
};

/* NULL if @p describes a device the model can run, else why not. */
const char *ssdsim_params_check(const struct ssdsim_params *p);

/* Usable capacity in bytes: rounded down to whole pages on every die. */
u64 ssdsim_params_capacity(const struct ssdsim_params *p);

static inline u32 ssdsim_model_units(const struct ssdsim_model *m)
{
	return m->channels * m->dies;
}

/*
 * Fill in geometry and timing from checked params; clears state and
 * statistics.  The caller then points die, chan and (ftl) l2p at zeroed
 * arrays of ssdsim_model_units(), channels and nr_pages entries.
 */
void ssdsim_model_setup(struct ssdsim_model *m, const struct ssdsim_params *p);

/*
 * Charge a command covering bytes [pos, pos + len) that arrives at @now (ns);
 * returns the time (ns) its last page completes.
 */
u64 ssdsim_model_read(struct ssdsim_model *m, u64 now, u64 pos, u64 len);
u64 ssdsim_model_write(struct ssdsim_model *m, u64 now, u64 pos, u64 len);

/*
 * Occupancy: a read or write is "at" every die its pages touch from its
 * arrival until it completes.  ssdsim_model_enter(), called right after
 * ssdsim_model_read() or _write() of the same range, counts the command in
 * once at each distinct die, stores those units in @units and returns how
 * many; dies beyond @room entries are not counted.  ssdsim_model_leave()
 * counts the command out of them when it completes.
 */
u32 ssdsim_model_enter(struct ssdsim_model *m, u64 pos, u64 len, u16 *units,
		       u32 room);
void ssdsim_model_leave(struct ssdsim_model *m, const u16 *units, u32 nr);

/* Room enter() needs for any command of at most @max_bytes. */
u32 ssdsim_model_cmd_units(const struct ssdsim_model *m, u64 max_bytes);

/* The most commands one die has held at once since the last reset. */
u32 ssdsim_model_max_die_inflight(const struct ssdsim_model *m);

/* Forget the ftl placement of pages wholly inside [pos, pos + len). */
void ssdsim_model_trim(struct ssdsim_model *m, u64 pos, u64 len);

/* Where flash page @lpn is now: unit = channel * dies + die. */
u32 ssdsim_model_unit_of(const struct ssdsim_model *m, u64 lpn);

/* Zero the statistics; the occupancy maxima restart from the current counts. */
void ssdsim_model_reset_stats(struct ssdsim_model *m);

const char *ssdsim_mapping_name(enum ssdsim_mapping mapping);

#endif /* SSDSIM_MODEL_H */
