// SPDX-License-Identifier: GPL-2.0
/*
 * hrtimer_setup(timer, function, clock, mode) initialises a timer and its
 * callback in one call.  Added in 6.13, where hrtimer_init() began to be
 * phased out; 6.1 and 6.12 have only hrtimer_init().
 */
#include <linux/hrtimer.h>

static enum hrtimer_restart ac_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void ac_probe_sim_hrtimer_setup(struct hrtimer *t);
void ac_probe_sim_hrtimer_setup(struct hrtimer *t)
{
	hrtimer_setup(t, ac_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
}
