/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AC tunables (/sys/block/<dev>/queue/iosched/): the one list of them,
 * in the order sysfs lists them.  sysfs.c generates everything from it: an
 * index per tunable, the table of their descriptions, one show and one
 * store function each and the attribute array.  Adding a tunable is one
 * entry here (and its field in struct ac_data).
 *
 * Each default is written here only: the module, the unit tests
 * (tests/unit/harness.c) and the guest tests read it from this list, and
 * tests/host/test_tunables_table.py checks the docs against it.
 *
 * AC_TUNABLE(name, field, unit, min, max, default, words, relayout)
 *   field	where the value lives: a u32 of struct ac_data (checked at
 *		build time)
 *   unit	for the reader of this list; values are stored as written
 *   words	NULL: a decimal number; else the names of the values min..max
 *   relayout	a change regroups the queued requests (the layout of units)
 * nr_channels and dies_per_channel are also checked together: their product
 * is the number of units, at most AC_MAX_UNITS (sysfs.c, ac_tunable_fits()).
 *
 * No include guard: included once per use, with AC_TUNABLE defined for it;
 * it is undefined at the end.
 */
AC_TUNABLE(read_sync_expire, expire_ms[AC_READ_SYNC],
	   "ms", 1, AC_EXPIRE_MAX_MS, 500, NULL, false)
AC_TUNABLE(read_async_expire, expire_ms[AC_READ_ASYNC],
	   "ms", 1, AC_EXPIRE_MAX_MS, 4000, NULL, false)
AC_TUNABLE(write_sync_expire, expire_ms[AC_WRITE_SYNC],
	   "ms", 1, AC_EXPIRE_MAX_MS, 2000, NULL, false)
AC_TUNABLE(write_async_expire, expire_ms[AC_WRITE_ASYNC],
	   "ms", 1, AC_EXPIRE_MAX_MS, 16000, NULL, false)
AC_TUNABLE(fifo_batch, policy.fifo_batch,
	   "requests", 1, AC_BATCH_MAX, 16, NULL, false)
AC_TUNABLE(writes_starved, policy.writes_starved,
	   "read phases", 1, AC_STARVED_MAX, 2, NULL, false)
AC_TUNABLE(write_batch, policy.write_batch,
	   "requests", 1, AC_BATCH_MAX, 16, NULL, false)
AC_TUNABLE(write_inflight, write_inflight,
	   "requests", 0, AC_BATCH_MAX, 0, NULL, false)
AC_TUNABLE(nr_channels, policy.nr_channels,
	   "channels", 1, AC_MAX_CHANNELS, 8, NULL, true)
AC_TUNABLE(dies_per_channel, policy.dies_per_channel,
	   "dies", 1, AC_MAX_DIES, 1, NULL, true)
AC_TUNABLE(unit_depth, policy.unit_depth,
	   "requests", 0, AC_BATCH_MAX, 1, NULL, false)
AC_TUNABLE(unit_writes, policy.unit_writes,
	   "requests", 0, AC_BATCH_MAX, 1, NULL, false)
AC_TUNABLE(reads_first, policy.reads_first,
	   "0/1", 0, 1, 1, NULL, false)
AC_TUNABLE(unit_spare, policy.unit_spare,
	   "0/1", 0, 1, 1, NULL, false)
AC_TUNABLE(mapping, mapping,
	   "word", AC_MAP_RANGE, AC_MAP_STRIPE, AC_MAP_RANGE, ac_mapping_names, true)
AC_TUNABLE(stripe_kb, stripe_kb,
	   "KiB", 1, AC_STRIPE_MAX_KB, 64, NULL, true)

#undef AC_TUNABLE
