// SPDX-License-Identifier: GPL-2.0
/*
 * AC state for operators: /sys/kernel/debug/block/<dev>/sched/.
 *
 * As blk-mq and mq-deadline do it, each file is one value or one table, and
 * ac-debugfs.h is the one list of them; the attribute array and the show
 * functions of the one-value files are generated from it.  The tables:
 *
 *   channels		per sub-group (unit): queued reads and writes by type,
 *			its read flag and its channel's write flag
 *   occupancy		per unit: channel, die, requests at the device, writes
 *   stats		the counters, one "name value" line each, generated
 *			from their own list (ac-counters.h)
 *   <type>_fifo	the four deadline FIFOs, in order
 *   dispatch		the dispatch list (at-head inserts, requeues)
 *
 * and one file per value: the tunables in effect, the phase, the PROC
 * sub-group, queued requests by type, what dispatch waits for.
 *
 * Every file is read under the scheduler lock, so a file is a consistent
 * snapshot (but for what completions change without the lock: occupancy's
 * counts, completed and requeued); two files are two snapshots.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/seq_file.h>

#include "block/elevator.h"
#include "block/blk-mq-debugfs.h"

#include "ac-iosched.h"

#ifdef CONFIG_BLK_DEBUG_FS

static const char *ac_rflag_name(u8 flag)
{
	switch (flag) {
	case AC_R_ZERO:
		return "ZERO";
	case AC_R_PEND:
		return "PEND";
	case AC_R_END:
		return "END";
	}
	return "?";
}

static const char *ac_wflag_name(u8 flag)
{
	switch (flag) {
	case AC_W_ZERO:
		return "ZERO";
	case AC_W_PEND:
		return "PEND";
	case AC_W_PROC:
		return "PROC";
	}
	return "?";
}

static struct ac_data *ac_seq_data(struct seq_file *m)
{
	struct request_queue *q = m->private;

	return ac_queue_data(q);
}

/*
 * One line per sub-group:
 * <group> <read_sync> <read_async> <read flag> <write_sync> <write_async>
 * <write flag>
 */
static int ac_channels_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_policy *p = &ad->policy;
	u32 g;

	spin_lock(&ad->lock);
	/* a request alone in AC is counted in the table once unparked */
	ac_unpark(ad);
	for (g = 0; g < ac_policy_units(p) && g < AC_MAX_UNITS; g++) {
		const struct ac_group *grp = &p->grp[g];

		seq_printf(m, "%u read %u %u %s write %u %u %s\n", g,
			   grp->nr[AC_READ_SYNC], grp->nr[AC_READ_ASYNC],
			   ac_rflag_name(grp->rflag),
			   grp->nr[AC_WRITE_SYNC], grp->nr[AC_WRITE_ASYNC],
			   ac_wflag_name(p->grp[ac_unit_channel(p, g)].wflag));
	}
	spin_unlock(&ad->lock);
	return 0;
}

/*
 * One line per unit:
 * unit <u> channel <c> die <d> inflight <n> writes <w>
 * inflight and writes are read without the lock: completions change them.
 */
static int ac_occupancy_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_policy *p = &ad->policy;
	u32 u, units, nr;

	spin_lock(&ad->lock);
	units = ac_policy_units(p);
	nr = p->nr_channels;
	spin_unlock(&ad->lock);
	for (u = 0; u < units && u < AC_MAX_UNITS; u++)
		seq_printf(m, "unit %u channel %u die %u inflight %d writes %d\n",
			   u, u % nr, u / nr, atomic_read(&ad->occ.all[u]),
			   atomic_read(&ad->occ.writes[u]));
	return 0;
}

/* One-value files whose value takes more than an expression. */
static unsigned int ac_debugfs_async_depth(struct ac_data *ad)
{
	const char *mode;

	return ac_async_depth(ad, &mode);
}

static const char *ac_debugfs_async_depth_limits(struct ac_data *ad)
{
	const char *mode;

	ac_async_depth(ad, &mode);
	return mode;
}

static const char *ac_debugfs_mapping(struct ac_data *ad)
{
	return ad->mapping == AC_MAP_STRIPE ? "stripe" : "range";
}

static const char *ac_debugfs_dir(struct ac_data *ad)
{
	return ad->policy.dir == AC_DIR_WRITE ? "write" : "read";
}

/* The one-value files: ac_<name>_show() for each. */
#define AC_DEBUGFS_VALUE(_name, _format, _value)			\
static int ac_##_name##_show(void *data, struct seq_file *m)		\
{									\
	struct ac_data *ad = ac_queue_data(data);			\
									\
	spin_lock(&ad->lock);						\
	seq_printf(m, _format "\n", _value);				\
	spin_unlock(&ad->lock);						\
	return 0;							\
}

#include "ac-debugfs.h"

/* stats: one table generated from ac-counters.h, a field offset per row. */
struct ac_counter {
	const char *name;
	size_t offset;
};

static const struct ac_counter ac_type_counters[] = {
#define AC_COUNTER_TYPES(_name)	{ #_name, offsetof(struct ac_stats, _name) },
#include "ac-counters.h"
};

static const struct ac_counter ac_policy_counters[] = {
#define AC_COUNTER_POLICY(_name) { #_name, offsetof(struct ac_stats, _name) },
#include "ac-counters.h"
};

static const struct ac_counter ac_glue_counters[] = {
#define AC_COUNTER_GLUE(_name)	{ #_name, offsetof(struct ac_counters, _name) },
#include "ac-counters.h"
};

static const struct ac_counter ac_atomic_counters[] = {
#define AC_COUNTER_ATOMIC(_name) { #_name, offsetof(struct ac_data, _name) },
#include "ac-counters.h"
};

static const struct ac_counter ac_percpu_counters[] = {
#define AC_COUNTER_PERCPU(_name) { #_name, offsetof(struct ac_data, _name) },
#include "ac-counters.h"
};

/* Every u64 of both structures is listed: a new counter cannot be missed. */
static_assert(sizeof(struct ac_stats) == sizeof(u64) *
	      (AC_NR_TYPES * ARRAY_SIZE(ac_type_counters) +
	       ARRAY_SIZE(ac_policy_counters)));
static_assert(sizeof(struct ac_counters) ==
	      sizeof(u64) * ARRAY_SIZE(ac_glue_counters));

static u64 ac_counter(const void *base, size_t offset)
{
	return *(const u64 *)((const char *)base + offset);
}

static int ac_stats_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_stats *s = &ad->policy.stats;
	const struct ac_counter *c;
	enum ac_type t;
	size_t i;

	spin_lock(&ad->lock);
	for (i = 0; i < ARRAY_SIZE(ac_type_counters); i++) {
		c = &ac_type_counters[i];
		for (t = 0; t < AC_NR_TYPES; t++)
			seq_printf(m, "%s_%s %llu\n", c->name, ac_type_name(t),
				   ac_counter(s, c->offset + t * sizeof(u64)));
	}
	for (i = 0; i < ARRAY_SIZE(ac_policy_counters); i++) {
		c = &ac_policy_counters[i];
		seq_printf(m, "%s %llu\n", c->name, ac_counter(s, c->offset));
	}
	for (i = 0; i < ARRAY_SIZE(ac_glue_counters); i++) {
		c = &ac_glue_counters[i];
		seq_printf(m, "%s %llu\n", c->name,
			   ac_counter(&ad->stats, c->offset));
	}
	spin_unlock(&ad->lock);
	/* These change without the lock; ac-counters.h lists them in this order. */
	for (i = 0; i < ARRAY_SIZE(ac_percpu_counters); i++) {
		u64 __percpu **v;

		c = &ac_percpu_counters[i];
		v = (u64 __percpu **)((char *)ad + c->offset);
		seq_printf(m, "%s %llu\n", c->name, ac_percpu_sum(*v));
	}
	for (i = 0; i < ARRAY_SIZE(ac_atomic_counters); i++) {
		atomic64_t *v;

		c = &ac_atomic_counters[i];
		v = (atomic64_t *)((char *)ad + c->offset);
		seq_printf(m, "%s %lld\n", c->name, (long long)atomic64_read(v));
	}
	return 0;
}

/*
 * The request lists: the four FIFOs, then the dispatch list.  All share the
 * same seq_operations functions; which list a file shows is the index of its
 * entry in ac_list_seq_ops[].  The lock is held from start to stop.
 */
#define AC_DISPATCH_LIST	AC_NR_TYPES
#define AC_NR_LISTS		(AC_DISPATCH_LIST + 1)

static const struct seq_operations ac_list_seq_ops[AC_NR_LISTS];

static struct list_head *ac_seq_list(struct seq_file *m)
{
	struct ac_data *ad = ac_seq_data(m);
	unsigned int which = m->op - ac_list_seq_ops;

	return which < AC_NR_TYPES ? &ad->fifo[which] : &ad->dispatch;
}

static void *ac_list_start(struct seq_file *m, loff_t *pos)
	__acquires(&ac_seq_data(m)->lock)
{
	spin_lock(&ac_seq_data(m)->lock);
	/* a request alone in AC is on no FIFO until it is unparked */
	ac_unpark(ac_seq_data(m));
	return seq_list_start(ac_seq_list(m), *pos);
}

static void *ac_list_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, ac_seq_list(m), pos);
}

static void ac_list_stop(struct seq_file *m, void *v)
	__releases(&ac_seq_data(m)->lock)
{
	spin_unlock(&ac_seq_data(m)->lock);
}

static const struct seq_operations ac_list_seq_ops[AC_NR_LISTS] = {
	[0 ... AC_NR_LISTS - 1] = {
		.start	= ac_list_start,
		.next	= ac_list_next,
		.stop	= ac_list_stop,
		.show	= blk_mq_debugfs_rq_show,
	},
};

/* The files, in the order of ac-debugfs.h. */
const struct blk_mq_debugfs_attr ac_debugfs_attrs[] = {
#define AC_DEBUGFS_TABLE(_name)	{ #_name, 0400, ac_##_name##_show },
#define AC_DEBUGFS_LIST(_name, _list)					\
	{ #_name, 0400, .seq_ops = &ac_list_seq_ops[_list] },
#define AC_DEBUGFS_VALUE(_name, ...) { #_name, 0400, ac_##_name##_show },
#include "ac-debugfs.h"
	{},
};

#endif /* CONFIG_BLK_DEBUG_FS */
