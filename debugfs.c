// SPDX-License-Identifier: GPL-2.0
/*
 * AC state for operators: /sys/kernel/debug/block/<dev>/sched/.
 *
 *   channels		per sub-group (unit): queued reads and writes by type,
 *			its read flag and its channel's write flag
 *   occupancy		per unit: channel, die, requests at the device, writes
 *   state		tunables in effect, phase, batch and PROC sub-group
 *   stats		dispatch, expiry, round, batch and merge counters
 *   <type>_fifo	the four deadline FIFOs, in order
 *   dispatch		the dispatch list (at-head inserts, requeues)
 *
 * Everything is read under the scheduler lock, so one file is a consistent
 * snapshot.
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

static int ac_state_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_policy *p = &ad->policy;
	const char *depth_mode;
	unsigned int depth;
	enum ac_type t;

	depth = ac_async_depth(ad, &depth_mode);
	seq_printf(m, "async_depth %u\n", depth);
	seq_printf(m, "async_depth_limits %s\n", depth_mode);

	spin_lock(&ad->lock);
	seq_printf(m, "nr_channels %u\n", p->nr_channels);
	seq_printf(m, "dies_per_channel %u\n", p->dies_per_channel);
	seq_printf(m, "units %u\n", ac_policy_units(p));
	seq_printf(m, "unit_depth %u\n", p->unit_depth);
	seq_printf(m, "unit_writes %u\n", p->unit_writes);
	seq_printf(m, "cap_waiting %d\n", READ_ONCE(ad->cap_waiting));
	seq_printf(m, "mapping %s\n",
		   ad->mapping == AC_MAP_STRIPE ? "stripe" : "range");
	seq_printf(m, "stripe_kb %u\n", ad->stripe_kb);
	seq_printf(m, "capacity %llu\n", ad->capacity);
	seq_printf(m, "fifo_batch %u\n", p->fifo_batch);
	seq_printf(m, "writes_starved %u\n", p->writes_starved);
	seq_printf(m, "write_batch %u\n", p->write_batch);
	seq_printf(m, "dir %s\n", p->dir == AC_DIR_WRITE ? "write" : "read");
	seq_printf(m, "phase_left %u\n", p->phase_left);
	seq_printf(m, "starved %u\n", p->starved);
	seq_printf(m, "proc %d\n", p->proc);
	seq_printf(m, "batch_writes %u\n", p->batch_writes);
	seq_printf(m, "last_read %u\n", p->last_read);
	seq_printf(m, "last_write %u\n", p->last_write);
	seq_printf(m, "sorted %u\n", ad->nr_sorted);
	for (t = 0; t < AC_NR_TYPES; t++)
		seq_printf(m, "queued_%s %u\n", ac_type_name(t), p->queued[t]);
	seq_printf(m, "write_inflight %u\n", ad->write_inflight);
	seq_printf(m, "writes_waiting %d\n", READ_ONCE(ad->writes_waiting));
	spin_unlock(&ad->lock);
	seq_printf(m, "reads_out %d\n", atomic_read(&ad->reads_out));
	seq_printf(m, "writes_out %d\n", atomic_read(&ad->writes_out));
	return 0;
}

static int ac_stats_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_stats *s = &ad->policy.stats;
	const struct ac_counters *c = &ad->stats;
	enum ac_type t;

	spin_lock(&ad->lock);
	for (t = 0; t < AC_NR_TYPES; t++)
		seq_printf(m, "dispatched_%s %llu\n", ac_type_name(t),
			   s->dispatched[t]);
	for (t = 0; t < AC_NR_TYPES; t++)
		seq_printf(m, "expired_%s %llu\n", ac_type_name(t),
			   s->expired[t]);
	seq_printf(m, "read_rounds %llu\n", s->read_rounds);
	seq_printf(m, "write_batches %llu\n", s->write_batches);
	seq_printf(m, "starved_switches %llu\n", s->starved_switches);
	seq_printf(m, "proc_fallbacks %llu\n", s->proc_fallbacks);
	seq_printf(m, "writes_held %llu\n", s->writes_held);
	seq_printf(m, "reads_idle %llu\n", s->reads_idle);
	seq_printf(m, "reads_busy %llu\n", s->reads_busy);
	seq_printf(m, "reads_by_write %llu\n", s->reads_by_write);
	seq_printf(m, "cap_holds %llu\n", s->cap_holds);
	seq_printf(m, "cap_skips %llu\n", s->cap_skips);
	seq_printf(m, "cap_expired %llu\n", s->cap_expired);
	seq_printf(m, "sync_read_expired %llu\n", s->sync_read_expired);
	seq_printf(m, "inserted %llu\n", c->inserted);
	seq_printf(m, "head_inserts %llu\n", c->head_inserts);
	seq_printf(m, "head_dispatched %llu\n", c->head_dispatched);
	seq_printf(m, "merged %llu\n", c->merged);
	seq_printf(m, "front_merges %llu\n", c->front_merges);
	seq_printf(m, "merges_refused %llu\n", c->merges_refused);
	seq_printf(m, "retyped %llu\n", c->retyped);
	seq_printf(m, "regroups %llu\n", c->regroups);
	seq_printf(m, "resizes %llu\n", c->resizes);
	spin_unlock(&ad->lock);
	seq_printf(m, "completed %lld\n",
		   (long long)atomic64_read(&ad->completed));
	seq_printf(m, "requeued %lld\n",
		   (long long)atomic64_read(&ad->requeued));
	return 0;
}

/*
 * The request lists: the four FIFOs, then the dispatch list.  All share the
 * same seq_operations functions; which list a file shows is the index of its
 * entry in ac_list_seq_ops[].  The lock is held from start to stop.
 */
#define AC_DISPATCH_LIST	AC_NR_TYPES

static const struct seq_operations ac_list_seq_ops[AC_NR_TYPES + 1];

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

#define AC_LIST_SEQ_OPS							\
	{ .start = ac_list_start, .next = ac_list_next,			\
	  .stop = ac_list_stop, .show = blk_mq_debugfs_rq_show }

static const struct seq_operations ac_list_seq_ops[AC_NR_TYPES + 1] = {
	[AC_READ_SYNC]		= AC_LIST_SEQ_OPS,
	[AC_READ_ASYNC]		= AC_LIST_SEQ_OPS,
	[AC_WRITE_SYNC]		= AC_LIST_SEQ_OPS,
	[AC_WRITE_ASYNC]	= AC_LIST_SEQ_OPS,
	[AC_DISPATCH_LIST]	= AC_LIST_SEQ_OPS,
};

#define AC_LIST_ATTR(name, which)					\
	{ name, 0400, .seq_ops = &ac_list_seq_ops[which] }

const struct blk_mq_debugfs_attr ac_debugfs_attrs[] = {
	{ "channels", 0400, ac_channels_show },
	{ "occupancy", 0400, ac_occupancy_show },
	{ "state", 0400, ac_state_show },
	{ "stats", 0400, ac_stats_show },
	AC_LIST_ATTR("read_sync_fifo", AC_READ_SYNC),
	AC_LIST_ATTR("read_async_fifo", AC_READ_ASYNC),
	AC_LIST_ATTR("write_sync_fifo", AC_WRITE_SYNC),
	AC_LIST_ATTR("write_async_fifo", AC_WRITE_ASYNC),
	AC_LIST_ATTR("dispatch", AC_DISPATCH_LIST),
	{},
};

#endif /* CONFIG_BLK_DEBUG_FS */
