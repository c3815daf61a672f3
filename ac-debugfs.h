/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of AC under /sys/kernel/debug/block/<dev>/sched/: the one list
 * of them.  debugfs.c generates the attribute array from it, and the show
 * function of every one-value file.  Each file is one value or one table:
 *
 * AC_DEBUGFS_TABLE(name)		a table, shown by ac_<name>_show()
 * AC_DEBUGFS_LIST(name, list)		a list of requests, one line each
 *					(blk_mq_debugfs_rq_show()); list:
 *					a type's FIFO, or AC_DISPATCH_LIST
 * AC_DEBUGFS_VALUE(name, format, value)	one value, @value read under
 *					the lock with struct ac_data *ad in
 *					scope, printed with @format
 *
 * No include guard: included once per use, with the kinds it needs defined
 * (the others expand to nothing); all three are undefined at the end.
 */
#ifndef AC_DEBUGFS_TABLE
#define AC_DEBUGFS_TABLE(...)
#endif
#ifndef AC_DEBUGFS_LIST
#define AC_DEBUGFS_LIST(...)
#endif
#ifndef AC_DEBUGFS_VALUE
#define AC_DEBUGFS_VALUE(...)
#endif

/* channels: per unit, queued reads and writes by type, read and write flag */
AC_DEBUGFS_TABLE(channels)
/* occupancy: per unit, its channel and die, requests and writes at the device */
AC_DEBUGFS_TABLE(occupancy)
/* stats: the counters, "name value" (ac-counters.h) */
AC_DEBUGFS_TABLE(stats)
AC_DEBUGFS_LIST(read_sync_fifo, AC_READ_SYNC)
AC_DEBUGFS_LIST(read_async_fifo, AC_READ_ASYNC)
AC_DEBUGFS_LIST(write_sync_fifo, AC_WRITE_SYNC)
AC_DEBUGFS_LIST(write_async_fifo, AC_WRITE_ASYNC)
/* the dispatch list: at-head inserts (requeues), served first */
AC_DEBUGFS_LIST(dispatch, AC_DISPATCH_LIST)

/* The tag limit of async requests and writes, and what it limits. */
AC_DEBUGFS_VALUE(async_depth, "%u", ac_debugfs_async_depth(ad))
AC_DEBUGFS_VALUE(async_depth_limits, "%s", ac_debugfs_async_depth_limits(ad))
/* The tunables the policy holds (the same as in sysfs). */
AC_DEBUGFS_VALUE(nr_channels, "%u", ad->policy.nr_channels)
AC_DEBUGFS_VALUE(dies_per_channel, "%u", ad->policy.dies_per_channel)
AC_DEBUGFS_VALUE(unit_depth, "%u", ad->policy.unit_depth)
AC_DEBUGFS_VALUE(unit_writes, "%u", ad->policy.unit_writes)
AC_DEBUGFS_VALUE(reads_first, "%u", ad->policy.reads_first)
AC_DEBUGFS_VALUE(unit_spare, "%u", ad->policy.unit_spare)
AC_DEBUGFS_VALUE(write_hold, "%u", ad->policy.write_hold)
AC_DEBUGFS_VALUE(dev_slots, "%u", ad->policy.dev_slots)
AC_DEBUGFS_VALUE(fifo_batch, "%u", ad->policy.fifo_batch)
AC_DEBUGFS_VALUE(writes_starved, "%u", ad->policy.writes_starved)
AC_DEBUGFS_VALUE(write_batch, "%u", ad->policy.write_batch)
/* The glue's tunables (the same as in sysfs; mapping: the active word). */
AC_DEBUGFS_VALUE(mapping, "%s", ac_debugfs_mapping(ad))
AC_DEBUGFS_VALUE(stripe_kb, "%u", ad->stripe_kb)
AC_DEBUGFS_VALUE(write_inflight, "%u", ad->write_inflight)
/* Units (nr_channels x dies_per_channel), and the capacity they split. */
AC_DEBUGFS_VALUE(units, "%u", ac_policy_units(&ad->policy))
AC_DEBUGFS_VALUE(capacity, "%llu", ad->capacity)
/* The phase: direction, dispatches left, read phases while writes waited. */
AC_DEBUGFS_VALUE(dir, "%s", ac_debugfs_dir(ad))
AC_DEBUGFS_VALUE(phase_left, "%u", ad->policy.phase_left)
AC_DEBUGFS_VALUE(starved, "%u", ad->policy.starved)
/* The write batch: channel in PROC (-1: none) and its writes so far. */
AC_DEBUGFS_VALUE(proc, "%d", ad->policy.proc)
AC_DEBUGFS_VALUE(batch_writes, "%u", ad->policy.batch_writes)
/* Unit a read was last taken from; channel last made PROC. */
AC_DEBUGFS_VALUE(last_read, "%u", ad->policy.last_read)
AC_DEBUGFS_VALUE(last_write, "%u", ad->policy.last_write)
/* Requests on the FIFOs, all and by type. */
AC_DEBUGFS_VALUE(sorted, "%u", ad->nr_sorted)
AC_DEBUGFS_VALUE(queued_read_sync, "%u", ad->policy.queued[AC_READ_SYNC])
AC_DEBUGFS_VALUE(queued_read_async, "%u", ad->policy.queued[AC_READ_ASYNC])
AC_DEBUGFS_VALUE(queued_write_sync, "%u", ad->policy.queued[AC_WRITE_SYNC])
AC_DEBUGFS_VALUE(queued_write_async, "%u", ad->policy.queued[AC_WRITE_ASYNC])
/* Waiting for a completion: a pick found only capped units, only held writes. */
AC_DEBUGFS_VALUE(cap_waiting, "%d", READ_ONCE(ad->cap_waiting))
AC_DEBUGFS_VALUE(writes_waiting, "%d", READ_ONCE(ad->writes_waiting))
/* Reads and writes dispatched from the sub-queues and not yet finished. */
AC_DEBUGFS_VALUE(reads_out, "%d", atomic_read(&ad->reads_out))
AC_DEBUGFS_VALUE(writes_out, "%d", atomic_read(&ad->writes_out))

#undef AC_DEBUGFS_TABLE
#undef AC_DEBUGFS_LIST
#undef AC_DEBUGFS_VALUE
