// SPDX-License-Identifier: GPL-2.0
/*
 * AC tunables: /sys/block/<dev>/queue/iosched/, from ac-tunables.h.  A
 * store takes a number in range (or one of mapping's words) or keeps the
 * old value; a change of layout regroups the queued requests under the lock.
 */
#include "ac-compat.h"

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "block/elevator.h"

#include "ac-iosched.h"

/*
 * Deadlines of at least 1 ms (0 would expire every request on arrival and
 * make AC a FIFO) and at most an hour (far from jiffies overflow).
 */
#define AC_EXPIRE_MAX_MS	(3600U * 1000U)
/* Longer phases or batches than this only make latency worse. */
#define AC_BATCH_MAX		4096U
#define AC_STARVED_MAX		1024U
/*
 * Any whole number of KiB, not only powers of two (FTLs with 3 or 6 planes
 * per die interleave so), up to 1 GiB, whose sectors fit the policy's u32.
 */
#define AC_STRIPE_MAX_KB	(SZ_1G / SZ_1K)

static const char * const ac_mapping_names[] = {
	[AC_MAP_RANGE]	= "range",
	[AC_MAP_STRIPE]	= "stripe",
	NULL,
};

/* AC_T_<name>: the index of each tunable in ac_tunables[]. */
enum ac_tunable_index {
#define AC_TUNABLE(_name, ...)	AC_T_##_name,
#include "ac-tunables.h"
	AC_NR_TUNABLES
};

struct ac_tunable {
	const char *name;
	const char *unit;
	u32 min;
	u32 max;
	u32 def;
	size_t offset;			/* of a u32 in struct ac_data */
	const char * const *words;	/* NULL: a number; else the words */
	bool relayout;			/* a change moves queued requests */
};

static const struct ac_tunable ac_tunables[AC_NR_TUNABLES] = {
#define AC_TUNABLE(_name, _field, _unit, _min, _max, _def, _words, _relayout) \
	[AC_T_##_name] = {						\
		.name = #_name, .unit = _unit,				\
		.min = _min, .max = _max, .def = _def,			\
		.offset = offsetof(struct ac_data, _field),		\
		.words = _words, .relayout = _relayout,			\
	},
#include "ac-tunables.h"
};

static u32 *ac_tunable_ptr(struct ac_data *ad, const struct ac_tunable *t)
{
	return (u32 *)((char *)ad + t->offset);
}

void ac_tunables_init(struct ac_data *ad)
{
	int i;

	for (i = 0; i < AC_NR_TUNABLES; i++)
		*ac_tunable_ptr(ad, &ac_tunables[i]) = ac_tunables[i].def;
}

static ssize_t ac_tunable_show(struct elevator_queue *e,
			       enum ac_tunable_index idx, char *page)
{
	const struct ac_tunable *t = &ac_tunables[idx];
	struct ac_data *ad = e->elevator_data;
	ssize_t len = 0;
	u32 val, i;

	val = READ_ONCE(*ac_tunable_ptr(ad, t));
	if (!t->words)
		return sysfs_emit(page, "%u\n", val);

	/* Like the scheduler file: every choice, the active one bracketed. */
	for (i = t->min; i <= t->max; i++)
		len += sysfs_emit_at(page, len, i == val ? "[%s] " : "%s ",
				     t->words[i]);
	if (len)
		page[len - 1] = '\n';
	return len;
}

static int ac_tunable_parse(const struct ac_tunable *t, const char *page,
			    u32 *val)
{
	unsigned int v;

	if (t->words) {
		for (v = t->min; v <= t->max; v++)
			if (sysfs_streq(page, t->words[v]))
				break;
	} else if (kstrtouint(page, 10, &v)) {
		/* Not a number, negative, overflowing or trailing garbage. */
		return -EINVAL;
	}
	if (v < t->min || v > t->max)
		return -EINVAL;
	*val = v;
	return 0;
}

/*
 * Whether tunable @idx may become @val given the others (lock held): the
 * unit arrays hold nr_channels x dies_per_channel units.
 */
static bool ac_tunable_fits(struct ac_data *ad, enum ac_tunable_index idx,
			    u32 val)
{
	u64 channels = idx == AC_T_nr_channels ? val : ad->policy.nr_channels;
	u64 dies = idx == AC_T_dies_per_channel ? val :
		   ad->policy.dies_per_channel;

	return channels * dies <= AC_MAX_UNITS;
}

static ssize_t ac_tunable_store(struct elevator_queue *e,
				enum ac_tunable_index idx, const char *page,
				size_t count)
{
	const struct ac_tunable *t = &ac_tunables[idx];
	struct ac_data *ad = e->elevator_data;
	bool changed;
	u32 *ptr;
	u32 val;
	int ret;

	ret = ac_tunable_parse(t, page, &val);
	if (ret)
		return ret;

	spin_lock(&ad->lock);
	if (!ac_tunable_fits(ad, idx, val)) {
		spin_unlock(&ad->lock);
		return -EINVAL;
	}
	ptr = ac_tunable_ptr(ad, t);
	changed = *ptr != val;
	WRITE_ONCE(*ptr, val);
	if (changed && t->relayout) {
		ad->stats.regroups++;
		ac_regroup(ad);
	}
	spin_unlock(&ad->lock);

	/*
	 * Queued requests may have changed sub-queues, or a cap or a limit
	 * may have moved: let dispatch see it.
	 */
	if (changed) {
		WRITE_ONCE(ad->cap_waiting, false);
		blk_mq_run_hw_queues(ad->q, true);
	}
	return count;
}

/*
 * The sysfs entry points: one pair per tunable, each knowing its index.
 * The descriptions reach their field by offset, through a u32 pointer: the
 * build fails here if a field is not a u32.
 */
#define AC_TUNABLE(_name, _field, ...)					\
static ssize_t ac_##_name##_show(struct elevator_queue *e, char *page)	\
{									\
	BUILD_BUG_ON(!__same_type(typeof_member(struct ac_data, _field), u32)); \
	return ac_tunable_show(e, AC_T_##_name, page);			\
}									\
static ssize_t ac_##_name##_store(struct elevator_queue *e,		\
				  const char *page, size_t count)	\
{									\
	return ac_tunable_store(e, AC_T_##_name, page, count);		\
}

#include "ac-tunables.h"

#ifdef AC_HAVE_CONST_ATTRS
const
#endif
struct elv_fs_entry ac_sysfs_attrs[] = {
#define AC_TUNABLE(_name, ...)						\
	__ATTR(_name, 0644, ac_##_name##_show, ac_##_name##_store),
#include "ac-tunables.h"
	__ATTR_NULL
};
