/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AC tunables in sysfs order, each default written only here: the
 * module and the unit and guest tests read it, a host test checks the docs.
 * No include guard: each user defines
 * AC_TUNABLE(name, field, unit, min, max, default, words, relayout), field
 * a u32 of struct ac_data (checked at build time), words NULL for a number
 * or the names of min..max, relayout whether a change regroups the queue.
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
AC_TUNABLE(read_lat_ms, read_lat_ms,
	   "ms", 0, AC_EXPIRE_MAX_MS, 0, NULL, false)
AC_TUNABLE(nr_channels, policy.nr_channels,
	   "channels", 1, AC_MAX_CHANNELS, 8, NULL, true)
AC_TUNABLE(dies_per_channel, policy.dies_per_channel,
	   "dies", 1, AC_MAX_DIES, 1, NULL, true)
AC_TUNABLE(unit_depth, policy.unit_depth,
	   "requests", 0, AC_BATCH_MAX, 1, NULL, false)
AC_TUNABLE(unit_spare, policy.unit_spare,
	   "0/1", 0, 1, 1, NULL, false)
AC_TUNABLE(mapping, mapping,
	   "word", AC_MAP_RANGE, AC_MAP_STRIPE, AC_MAP_RANGE, ac_mapping_names, true)
AC_TUNABLE(stripe_kb, stripe_kb,
	   "KiB", 1, AC_STRIPE_MAX_KB, 64, NULL, true)

#undef AC_TUNABLE
