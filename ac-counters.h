/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of debugfs "stats": the one list of them, one "name value"
 * line each.  debugfs.c generates the table from it; the build fails if a
 * counter of struct ac_stats or struct ac_counters is missing here.  Adding
 * a counter is its field and one line here.  Printed by kind, in this order:
 *
 * AC_COUNTER_TYPES(name)	u64 name[AC_NR_TYPES] of struct ac_stats (the
 *				policy's): one line per type, name_<type>
 * AC_COUNTER_POLICY(name)	a u64 of struct ac_stats
 * AC_COUNTER_GLUE(name)	a u64 of struct ac_counters (ac_data.stats)
 * AC_COUNTER_PERCPU(name)	a u64 __percpu * of struct ac_data, summed
 * AC_COUNTER_ATOMIC(name)	an atomic64_t of struct ac_data
 *
 * No include guard: included once per use, with the kinds it needs defined
 * (the others expand to nothing); all five are undefined at the end.
 */
#ifndef AC_COUNTER_TYPES
#define AC_COUNTER_TYPES(...)
#endif
#ifndef AC_COUNTER_POLICY
#define AC_COUNTER_POLICY(...)
#endif
#ifndef AC_COUNTER_GLUE
#define AC_COUNTER_GLUE(...)
#endif
#ifndef AC_COUNTER_ATOMIC
#define AC_COUNTER_ATOMIC(...)
#endif
#ifndef AC_COUNTER_PERCPU
#define AC_COUNTER_PERCPU(...)
#endif
AC_COUNTER_TYPES(dispatched)
AC_COUNTER_TYPES(expired)

AC_COUNTER_POLICY(read_rounds)
AC_COUNTER_POLICY(write_batches)
AC_COUNTER_POLICY(starved_switches)
AC_COUNTER_POLICY(proc_fallbacks)
AC_COUNTER_POLICY(writes_held)
AC_COUNTER_POLICY(reads_idle)
AC_COUNTER_POLICY(reads_busy)
AC_COUNTER_POLICY(reads_by_write)
AC_COUNTER_POLICY(cap_holds)
AC_COUNTER_POLICY(cap_spare)
AC_COUNTER_POLICY(cap_spare_writes)
AC_COUNTER_POLICY(cap_skips)
AC_COUNTER_POLICY(cap_expired)
AC_COUNTER_POLICY(sync_read_expired)
AC_COUNTER_POLICY(write_expired)
AC_COUNTER_POLICY(expired_waits)
AC_COUNTER_POLICY(writes_behind_reads)

AC_COUNTER_GLUE(inserted)
AC_COUNTER_GLUE(head_inserts)
AC_COUNTER_GLUE(head_dispatched)
AC_COUNTER_GLUE(merged)
AC_COUNTER_GLUE(front_merges)
AC_COUNTER_GLUE(merges_refused)
AC_COUNTER_GLUE(retyped)
AC_COUNTER_GLUE(regroups)
AC_COUNTER_GLUE(resizes)
AC_COUNTER_GLUE(lone)
AC_COUNTER_GLUE(lone_direct)

AC_COUNTER_PERCPU(completed)
AC_COUNTER_ATOMIC(requeued)

#undef AC_COUNTER_TYPES
#undef AC_COUNTER_POLICY
#undef AC_COUNTER_GLUE
#undef AC_COUNTER_ATOMIC
#undef AC_COUNTER_PERCPU
