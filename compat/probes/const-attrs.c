// SPDX-License-Identifier: GPL-2.0
/*
 * elevator_type.elevator_attrs points to const entries (6.14).
 */
#include "block/elevator.h"

static const struct elv_fs_entry ac_probe_attrs[] = {
	__ATTR_NULL
};

struct elevator_type ac_probe_type = {
	.elevator_attrs = ac_probe_attrs,
};
