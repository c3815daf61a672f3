// SPDX-License-Identifier: GPL-2.0
/*
 * AC tunables: /sys/block/<dev>/queue/iosched/.
 *
 * ac_tunables[] below is the one table of them, and the documentation of the
 * interface: name, unit, accepted range, default and where the value lives.
 * Every show and store goes through the same two helpers, found by name from
 * small generated entry points (as mq-deadline and kyber generate theirs).
 * They validate strictly: anything but a plain decimal number in range (or,
 * for mapping, one of its words), with at most one trailing newline, is
 * refused with -EINVAL and the old value stays.  A store takes the scheduler lock, so the
 * dispatch path sees either the old or the new value; changing the sub-group
 * layout (nr_channels, mapping, stripe_kb) regroups every queued request
 * under that lock, so nothing queued is lost or counted in the wrong place.
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
 * Deadlines are at least 1 ms (0 would expire every request on arrival and
 * turn AC into a FIFO) and at most one hour, far beyond any useful latency
 * bound, which keeps the jiffies arithmetic far from overflow.
 */
#define AC_EXPIRE_MAX_MS	(3600U * 1000U)
/* Longer phases or batches than this only make latency worse. */
#define AC_BATCH_MAX		4096U
#define AC_STARVED_MAX		1024U
/*
 * The stripe is any whole number of KiB up to 1 GiB: the mapping divides, so
 * it need not be a power of two (FTLs with 3 or 6 planes per die interleave
 * in such units), and 1 GiB sectors still fit the policy's u32.
 */
#define AC_STRIPE_MAX_KB	(SZ_1G / SZ_1K)

static const char * const ac_mapping_names[] = {
	[AC_MAP_RANGE]	= "range",
	[AC_MAP_STRIPE]	= "stripe",
	NULL,
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
	bool units;			/* a factor of the number of units */
};

#define AC_NUMBER(_name, _unit, _min, _max, _def, _field, _relayout)	\
	{ .name = _name, .unit = _unit, .min = _min, .max = _max,	\
	  .def = _def, .offset = offsetof(struct ac_data, _field),	\
	  .relayout = _relayout }

/* nr_channels and dies_per_channel: their product is at most AC_MAX_UNITS. */
#define AC_UNITS(_name, _unit, _max, _def, _field)			\
	{ .name = _name, .unit = _unit, .min = 1, .max = _max,		\
	  .def = _def, .offset = offsetof(struct ac_data, _field),	\
	  .relayout = true, .units = true }

#define AC_WORDS(_name, _words, _max, _def, _field, _relayout)	\
	{ .name = _name, .unit = "word", .min = 0, .max = _max,	\
	  .def = _def, .offset = offsetof(struct ac_data, _field),	\
	  .words = _words, .relayout = _relayout }

static const struct ac_tunable ac_tunables[] = {
	/* name, unit, min, max, default; field; whether a change regroups */
	AC_NUMBER("read_sync_expire",	"ms",	1, AC_EXPIRE_MAX_MS, 500,
		  expire_ms[AC_READ_SYNC], false),
	AC_NUMBER("read_async_expire",	"ms",	1, AC_EXPIRE_MAX_MS, 4000,
		  expire_ms[AC_READ_ASYNC], false),
	AC_NUMBER("write_sync_expire",	"ms",	1, AC_EXPIRE_MAX_MS, 2000,
		  expire_ms[AC_WRITE_SYNC], false),
	AC_NUMBER("write_async_expire",	"ms",	1, AC_EXPIRE_MAX_MS, 16000,
		  expire_ms[AC_WRITE_ASYNC], false),
	AC_NUMBER("fifo_batch",		"requests", 1, AC_BATCH_MAX, 16,
		  policy.fifo_batch, false),
	AC_NUMBER("writes_starved",	"read phases", 1, AC_STARVED_MAX, 2,
		  policy.writes_starved, false),
	AC_NUMBER("write_batch",	"requests", 1, AC_BATCH_MAX, 16,
		  policy.write_batch, false),
	AC_NUMBER("write_inflight",	"requests", 0, AC_BATCH_MAX, AC_DEF_WRITE_INFLIGHT,
		  write_inflight, false),
	AC_UNITS("nr_channels",		"channels", AC_MAX_CHANNELS, 8,
		 nr_channels),
	AC_UNITS("dies_per_channel",	"dies", AC_MAX_DIES, 1,
		 dies_per_channel),
	AC_NUMBER("unit_depth",		"requests", 0, AC_BATCH_MAX, AC_DEF_UNIT_DEPTH,
		  policy.unit_depth, false),
	AC_NUMBER("unit_writes",	"requests", 0, AC_BATCH_MAX, AC_DEF_UNIT_WRITES,
		  policy.unit_writes, false),
	AC_WORDS("mapping", ac_mapping_names, AC_MAP_STRIPE, AC_MAP_RANGE,
		 mapping, true),
	AC_NUMBER("stripe_kb",		"KiB",	1, AC_STRIPE_MAX_KB, 64,
		  stripe_kb, true),
};

/* Every field in the table is a u32, written through this pointer. */
static_assert(__same_type(((struct ac_data *)0)->expire_ms[0], u32));
static_assert(__same_type(((struct ac_data *)0)->policy.fifo_batch, u32));
static_assert(__same_type(((struct ac_data *)0)->policy.writes_starved, u32));
static_assert(__same_type(((struct ac_data *)0)->policy.write_batch, u32));
static_assert(__same_type(((struct ac_data *)0)->write_inflight, u32));
static_assert(__same_type(((struct ac_data *)0)->nr_channels, u32));
static_assert(__same_type(((struct ac_data *)0)->dies_per_channel, u32));
static_assert(__same_type(((struct ac_data *)0)->policy.unit_depth, u32));
static_assert(__same_type(((struct ac_data *)0)->policy.unit_writes, u32));
static_assert(__same_type(((struct ac_data *)0)->mapping, u32));
static_assert(__same_type(((struct ac_data *)0)->stripe_kb, u32));

static u32 *ac_tunable_ptr(struct ac_data *ad, const struct ac_tunable *t)
{
	return (u32 *)((char *)ad + t->offset);
}

void ac_tunables_init(struct ac_data *ad)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ac_tunables); i++)
		*ac_tunable_ptr(ad, &ac_tunables[i]) = ac_tunables[i].def;
}

static const struct ac_tunable *ac_tunable(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ac_tunables); i++)
		if (!strcmp(ac_tunables[i].name, name))
			return &ac_tunables[i];
	return NULL;
}

static ssize_t ac_tunable_show(struct elevator_queue *e, const char *name,
			       char *page)
{
	const struct ac_tunable *t = ac_tunable(name);
	struct ac_data *ad = e->elevator_data;
	ssize_t len = 0;
	u32 val, i;

	if (WARN_ON_ONCE(!t))
		return -EIO;
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

/* The other factor of the number of units than @t (lock held). */
static u32 ac_units_other(struct ac_data *ad, const struct ac_tunable *t)
{
	if (t->offset == offsetof(struct ac_data, nr_channels))
		return ad->dies_per_channel;
	return ad->nr_channels;
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

static ssize_t ac_tunable_store(struct elevator_queue *e, const char *name,
				const char *page, size_t count)
{
	const struct ac_tunable *t = ac_tunable(name);
	struct ac_data *ad = e->elevator_data;
	bool relayout, changed;
	u32 *ptr;
	u32 val;
	int ret;

	if (WARN_ON_ONCE(!t))
		return -EIO;
	ret = ac_tunable_parse(t, page, &val);
	if (ret)
		return ret;

	spin_lock(&ad->lock);
	ptr = ac_tunable_ptr(ad, t);
	/* channels x dies must fit the unit arrays: checked with the other */
	if (t->units && (u64)val * ac_units_other(ad, t) > AC_MAX_UNITS) {
		spin_unlock(&ad->lock);
		return -EINVAL;
	}
	changed = *ptr != val;
	relayout = t->relayout && changed;
	WRITE_ONCE(*ptr, val);
	if (relayout)
		ac_regroup(ad);
	spin_unlock(&ad->lock);

	/*
	 * Queued requests may have changed sub-queues, or a cap or a limit
	 * may have moved: let dispatch see it.
	 */
	if (changed)
		ac_tunables_changed(ad);
	return count;
}

/* The sysfs entry points: one pair per tunable, all alike. */
#define AC_TUNABLE_OPS(name)						\
static ssize_t ac_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	return ac_tunable_show(e, #name, page);				\
}									\
static ssize_t ac_##name##_store(struct elevator_queue *e,		\
				 const char *page, size_t count)	\
{									\
	return ac_tunable_store(e, #name, page, count);			\
}

AC_TUNABLE_OPS(read_sync_expire)
AC_TUNABLE_OPS(read_async_expire)
AC_TUNABLE_OPS(write_sync_expire)
AC_TUNABLE_OPS(write_async_expire)
AC_TUNABLE_OPS(fifo_batch)
AC_TUNABLE_OPS(writes_starved)
AC_TUNABLE_OPS(write_batch)
AC_TUNABLE_OPS(write_inflight)
AC_TUNABLE_OPS(nr_channels)
AC_TUNABLE_OPS(dies_per_channel)
AC_TUNABLE_OPS(unit_depth)
AC_TUNABLE_OPS(unit_writes)
AC_TUNABLE_OPS(mapping)
AC_TUNABLE_OPS(stripe_kb)

#define AC_ATTR(name)	__ATTR(name, 0644, ac_##name##_show, ac_##name##_store)

#ifdef AC_HAVE_CONST_ATTRS
const
#endif
struct elv_fs_entry ac_sysfs_attrs[] = {
	AC_ATTR(read_sync_expire),
	AC_ATTR(read_async_expire),
	AC_ATTR(write_sync_expire),
	AC_ATTR(write_async_expire),
	AC_ATTR(fifo_batch),
	AC_ATTR(writes_starved),
	AC_ATTR(write_batch),
	AC_ATTR(write_inflight),
	AC_ATTR(nr_channels),
	AC_ATTR(dies_per_channel),
	AC_ATTR(unit_depth),
	AC_ATTR(unit_writes),
	AC_ATTR(mapping),
	AC_ATTR(stripe_kb),
	__ATTR_NULL
};
