// SPDX-License-Identifier: GPL-2.0
/*
 * AC state for operators: /sys/kernel/debug/block/<dev>/sched/ (units,
 * state, stats, the four FIFOs and the dispatch list; docs/ac-iosched.rst
 * describes them).  Each is read under the scheduler lock, but for what
 * completions change without it.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/seq_file.h>

#include "block/elevator.h"
#include "block/blk-mq-debugfs.h"

#include "ac-iosched.h"

#ifdef CONFIG_BLK_DEBUG_FS

static const char * const ac_type_names[AC_NR_TYPES] = {
	[AC_READ_SYNC] = "read_sync", [AC_READ_ASYNC] = "read_async",
	[AC_WRITE_SYNC] = "write_sync", [AC_WRITE_ASYNC] = "write_async",
};

static const char * const ac_rflag_names[] = { "ZERO", "PEND", "END" };
static const char * const ac_wflag_names[] = { "ZERO", "PEND", "PROC" };

/*
 * unit <u> channel <c> die <d> read <sync> <async> <read flag>
 *   write <sync> <async> <channel's write flag> at_device <reads>
 */
static int ac_units_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_policy *p = &ad->policy;
	u32 u, nr = p->nr_channels;

	spin_lock(&ad->lock);
	for (u = 0; u < p->units; u++) {
		const struct ac_unit *unit = &p->unit[u];

		seq_printf(m, "unit %u channel %u die %u read %u %u %s write %u %u %s at_device %d\n",
			   u, u % nr, u / nr,
			   unit->nr[AC_READ_SYNC], unit->nr[AC_READ_ASYNC],
			   ac_rflag_names[unit->rflag],
			   unit->nr[AC_WRITE_SYNC], unit->nr[AC_WRITE_ASYNC],
			   ac_wflag_names[p->chan[u % nr].wflag],
			   atomic_read(&ad->occ.reads[u]));
	}
	spin_unlock(&ad->lock);
	return 0;
}

static int ac_state_show(void *data, struct seq_file *m)
{
	struct ac_data *ad = ac_queue_data(data);
	const struct ac_policy *p = &ad->policy;
	const char *mode;
	unsigned int depth = ac_async_depth(ad, &mode);
	enum ac_type t;

	spin_lock(&ad->lock);
	seq_printf(m, "async_depth %u\nasync_depth_limits %s\n", depth, mode);
	seq_printf(m, "units %u\ncapacity %llu\n", p->units,
		   (unsigned long long)ad->map.capacity);
	seq_printf(m, "dev_slots %u\nat_device %d\n", p->dev_slots,
		   atomic_read(&ad->occ.total));
	seq_printf(m, "dir %s\nphase_left %u\nstarved %u\n",
		   p->dir == AC_DIR_WRITE ? "write" : "read", p->phase_left,
		   p->starved);
	seq_printf(m, "proc %d\nbatch_writes %u\n", p->proc, p->batch_writes);
	seq_printf(m, "last_read %u\nlast_write %u\n", p->last_read,
		   p->last_write);
	seq_printf(m, "sorted %u\n", ad->nr_sorted);
	for (t = 0; t < AC_NR_TYPES; t++)
		seq_printf(m, "queued_%s %u\n", ac_type_names[t], p->queued[t]);
	seq_printf(m, "cap_waiting %d\nwrites_waiting %d\n",
		   READ_ONCE(ad->cap_waiting), READ_ONCE(ad->writes_waiting));
	seq_printf(m, "reads_out %d\nwrites_out %d\n",
		   atomic_read(&ad->occ.total) - atomic_read(&ad->writes_out),
		   atomic_read(&ad->writes_out));
	seq_printf(m, "write_limit %u\nwrite_base_us %u\nread_ceiling %u\n",
		   ad->admit.limit, ad->admit.base_us, ad->admit.ceiling);
	spin_unlock(&ad->lock);
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
		seq_printf(m, "dispatched_%s %llu\n", ac_type_names[t],
			   s->dispatched[t]);
	for (t = 0; t < AC_NR_TYPES; t++)
		seq_printf(m, "expired_%s %llu\n", ac_type_names[t],
			   s->expired[t]);
	seq_printf(m, "read_rounds %llu\n", s->read_rounds);
	seq_printf(m, "write_batches %llu\n", s->write_batches);
	seq_printf(m, "starved_switches %llu\n", s->starved_switches);
	seq_printf(m, "proc_fallbacks %llu\n", s->proc_fallbacks);
	seq_printf(m, "writes_held %llu\n", s->writes_held);
	seq_printf(m, "reads_idle %llu\n", s->reads_idle);
	seq_printf(m, "reads_busy %llu\n", s->reads_busy);
	seq_printf(m, "cap_holds %llu\n", s->cap_holds);
	seq_printf(m, "cap_spare %llu\n", s->cap_spare);
	seq_printf(m, "cap_skips %llu\n", s->cap_skips);
	seq_printf(m, "cap_expired %llu\n", s->cap_expired);
	seq_printf(m, "sync_read_expired %llu\n", s->sync_read_expired);
	seq_printf(m, "write_expired %llu\n", s->write_expired);
	seq_printf(m, "expired_waits %llu\n", s->expired_waits);
	seq_printf(m, "inserted %llu\n", c->inserted);
	seq_printf(m, "head_inserts %llu\n", c->head_inserts);
	seq_printf(m, "head_dispatched %llu\n", c->head_dispatched);
	seq_printf(m, "merged %llu\n", c->merged);
	seq_printf(m, "merges_refused %llu\n", c->merges_refused);
	seq_printf(m, "retyped %llu\n", c->retyped);
	seq_printf(m, "regroups %llu\n", c->regroups);
	seq_printf(m, "resizes %llu\n", c->resizes);
	spin_unlock(&ad->lock);
	seq_printf(m, "completed %lld\n", (long long)atomic64_read(&ad->completed));
	seq_printf(m, "requeued %lld\n", (long long)atomic64_read(&ad->requeued));
	return 0;
}

/*
 * The request lists: the four FIFOs, then the dispatch list.  Which list a
 * file shows is the index of its entry in ac_list_seq_ops[]; the lock is
 * held from start to stop.
 */
#define AC_DISPATCH_LIST	AC_NR_TYPES

static const struct seq_operations ac_list_seq_ops[AC_NR_TYPES + 1];

static struct ac_data *ac_seq_data(struct seq_file *m)
{
	return ac_queue_data(m->private);
}

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

static const struct seq_operations ac_list_seq_ops[AC_NR_TYPES + 1] = {
	[0 ... AC_NR_TYPES] = {
		.start	= ac_list_start,
		.next	= ac_list_next,
		.stop	= ac_list_stop,
		.show	= blk_mq_debugfs_rq_show,
	},
};

#define AC_LIST_ATTR(name, list)	{ name, 0400, .seq_ops = &ac_list_seq_ops[list] }

const struct blk_mq_debugfs_attr ac_debugfs_attrs[] = {
	{ "units", 0400, ac_units_show },
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
